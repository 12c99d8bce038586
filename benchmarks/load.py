"""Snapshot load time and peak RSS: the normal path, and reporting one bad field in a big file.

    python benchmarks/load.py                 # every case below
    python benchmarks/load.py --case yaml-20k-bad

Cases (each in its own process, so that peak RSS belongs to it; the file is generated with a
fixed seed and written to a temporary directory):
- ``json-5k-50k``: 5,000 nodes + 51,000 pods (the Memory workload) as one JSON List;
- ``yaml-20k``: 20,000 nodes as one YAML List;
- ``yaml-20k-bad``: the same with an invalid quantity in the last node, so the run ends in
  one error line that names the file, the object, the field and its line;
- ``yaml-20k-bad-label``: the same with an invalid label key on the last node (admission);
- ``json-20k-bad``: the JSON form of ``yaml-20k-bad``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

CASES = ("json-5k-50k", "yaml-20k", "yaml-20k-bad", "yaml-20k-bad-label", "json-20k-bad")


def _document(case: str) -> dict:
    import workloads

    if case == "json-5k-50k":
        return workloads.memory_check(5000).as_list()
    nodes = [workloads.node(i) for i in range(20000)]
    if case.endswith("-bad"):
        nodes[-1]["status"]["allocatable"]["cpu"] = "lots"
    elif case.endswith("-bad-label"):
        nodes[-1]["metadata"]["labels"]["bad key!"] = "x"
    return {"apiVersion": "v1", "kind": "List", "items": nodes}


def _write(case: str, directory: str) -> str:
    doc = _document(case)
    if case.startswith("json"):
        path = os.path.join(directory, "snapshot.json")
        Path(path).write_text(json.dumps(doc), encoding="utf-8")
    else:
        import yaml

        path = os.path.join(directory, "snapshot.yaml")
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        Path(path).write_text(yaml.dump(doc, Dumper=dumper, sort_keys=False), encoding="utf-8")
    return path


def run_one(path: str) -> dict:
    from kschedctl.api.errors import InputError
    from kschedctl.cluster.loader import load_snapshot

    t0 = time.perf_counter()
    error = None
    objects = 0
    try:
        snap = load_snapshot([path])
        objects = len(snap.nodes) + len(snap.pods)
    except InputError as exc:
        error = str(exc)
    return {
        "load_s": round(time.perf_counter() - t0, 3),
        "objects": objects,
        "error": error,
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", choices=CASES, action="append")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(args.one)))
        return 0
    for case in args.case or CASES:
        with tempfile.TemporaryDirectory() as tmp:
            path = _write(case, tmp)
            size = os.path.getsize(path) / 2**20
            proc = subprocess.run([sys.executable, __file__, "--one", path], capture_output=True, text=True)
            if proc.returncode != 0:
                sys.stderr.write(f"{case}: failed\n{proc.stderr[-2000:]}\n")
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            err = r["error"].replace(path, "<file>")[:110] if r["error"] else "-"
            print(
                f"{case:20} {size:7.1f} MiB  load {r['load_s']:7.2f} s  RSS {r['peak_rss_mib']:6} MiB  "
                f"objects {r['objects']:6}  error: {err}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
