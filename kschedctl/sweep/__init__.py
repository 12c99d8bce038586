"""`kschedctl sweep`: many runs of schedule, diff or simulate over a matrix of snapshots x
configurations x releases x feature gates x seeds, on a local process pool or a Dask cluster.

- ``matrix.py``: the matrix file (schema ``schemas/sweep-v1.json``), expanded into cells, each
  keyed by a content hash of its inputs;
- ``patch.py``: the configuration patches (weights, scoringStrategy, args, set);
- ``cell.py``: what a worker runs for one cell (the same library calls as the single commands),
  with the snapshots it has loaded cached by content hash;
- ``executors.py``: the local process pool and the Dask executor;
- ``results.py``: the journal that ``--resume`` reads, the columnar results file;
- ``run.py``: the sweep itself: skip finished cells, run the rest, order rows by cell.
"""
