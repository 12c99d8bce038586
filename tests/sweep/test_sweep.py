"""`kschedctl sweep`: each cell's result is what the single command prints; a failing or
crashing cell is reported and the others complete; the local pool and a Dask cluster give the
same table; a killed sweep resumes where it stopped; the worker's snapshot cache."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.sweep import cell as cellmod
from kschedctl.sweep.cell import CRASHED, ERROR, OK, CellOutcome, SnapshotSource, run_cell
from kschedctl.sweep.executors import LocalPool
from kschedctl.sweep.matrix import load_matrix
from kschedctl.sweep.results import Journal, read_results
from kschedctl.sweep.run import sweep, tasks_of
from kschedctl.testing import make_node, make_pod

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
HEAD = "apiVersion: kschedctl.io/v1alpha1\nkind: Sweep\n"


def _matrix(folder: Path, body: str, name: str = "m.yaml") -> str:
    path = folder / name
    path.write_text(HEAD + textwrap.dedent(body))
    return str(path)


def _snapshot(path: Path, nodes: int = 3, pods: int = 6) -> str:
    items = [make_node(f"n{i}").capacity(cpu="4", memory="8Gi").zone(f"z{i % 2}").dict() for i in range(nodes)]
    items += [make_pod(f"p{i}").req(cpu=f"{300 + 100 * (i % 4)}m", memory="512Mi").dict() for i in range(pods)]
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


def _cells(matrix_path: str):
    m = load_matrix(matrix_path, default_registry().registry)
    return m, tasks_of(m, m.cells)


# --- a cell's result is the single command's JSON --------------------------------------------


def test_schedule_cell_is_what_schedule_prints(tmp_path: Path, run_cli) -> None:
    m, tasks = _cells(
        _matrix(
            tmp_path,
            f"""\
        snapshots: [{EXAMPLES / "whatif-cluster.yaml"}]
        configs: [{{name: fit, weights: {{NodeResourcesFit: [5]}}, scoringStrategy: [MostAllocated]}}]
        seeds: [1]
        """,
        )
    )
    outcome = run_cell(*tasks[0])
    assert outcome.status == OK, outcome.error
    config = tmp_path / "patched.yaml"
    config.write_text(yaml.safe_dump(m.configs[0].raw))
    out = run_cli("schedule", str(EXAMPLES / "whatif-cluster.yaml"), "--config", str(config), "--seed", "1", "-o", "json")
    assert json.loads(outcome.result) == out.json()
    # the metrics are the run's summary and diff's packing measures (README "Packing measures")
    assert outcome.metrics["scheduled"] == out.json()["summary"]["scheduled"] == 7
    assert (outcome.metrics["nodesUsed"], outcome.metrics["cpuUtilisationMean"]) == (3, 0.4375)


def test_diff_cell_is_what_diff_prints(tmp_path: Path, run_cli) -> None:
    config = str(ROOT / "profiles" / "bin-packing.yaml")
    _, tasks = _cells(
        _matrix(
            tmp_path,
            f"""\
        command: diff
        snapshots: [{EXAMPLES / "whatif-cluster.yaml"}]
        configs: [{config}]
        """,
        )
    )
    outcome = run_cell(*tasks[0])
    out = run_cli("diff", str(EXAMPLES / "whatif-cluster.yaml"), "--config-b", config, "-o", "json")
    assert json.loads(outcome.result) == out.json()
    assert (outcome.metrics["changed"], outcome.metrics["moved"], outcome.metrics["nodesUsed"]) == (7, 6, 3)


def test_simulate_cell_is_what_simulate_prints(tmp_path: Path, run_cli) -> None:
    (tmp_path / "snaps").mkdir()
    _snapshot(tmp_path / "snaps" / "start.yaml", nodes=1, pods=12)
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kschedctl.io/v1alpha1",
                "kind": "Scenario",
                "snapshot": "snaps/start.yaml",
                "events": [{"at": "30s", "action": "addNode", "object": make_node("late").capacity(cpu="4", memory="8Gi").dict()}],
            }
        )
    )
    _, tasks = _cells(_matrix(tmp_path, "command: simulate\nsnapshots: [scenario.yaml]\nseeds: [1]\n"))
    (task, source) = tasks[0]
    assert source.files == (str(scenario), str(tmp_path / "snaps" / "start.yaml"))  # both hashed, both shipped
    outcome = run_cell(task, source)
    out = run_cli("simulate", str(scenario), "--seed", "1", "-o", "json")
    assert json.loads(outcome.result) == out.json()
    assert outcome.metrics["scheduled"] == 12 and outcome.metrics["nodesUsed"] == 2


# --- failures ------------------------------------------------------------------------------


def test_failing_cell_is_reported_and_the_others_complete(tmp_path: Path, run_cli, monkeypatch) -> None:
    _snapshot(tmp_path / "a.yaml")
    (tmp_path / "b.yaml").write_text("apiVersion: v1\nkind: List\nitems:\n- kind: Node\n  metadata: {name: [x\n")
    _snapshot(tmp_path / "c.yaml", pods=4)
    _matrix(tmp_path, "snapshots: [a.yaml, b.yaml, c.yaml]\nseeds: [0, 1]\n")
    monkeypatch.chdir(tmp_path)
    out = run_cli("sweep", "m.yaml", "--jobs", "2", "--results", "r.csv")
    assert out.exit_code == 0, out.stderr
    rows = read_results("r.csv")
    assert [(r["snapshot"], r["status"]) for r in rows] == [
        ("a.yaml", "ok"),
        ("a.yaml", "ok"),
        ("b.yaml", "error"),
        ("b.yaml", "error"),
        ("c.yaml", "ok"),
        ("c.yaml", "ok"),
    ]
    assert rows[2]["error"].startswith("b.yaml:6: malformed YAML")
    assert rows[4]["scheduled"] == "4" and rows[2]["result"] == ""
    assert "#2 error: b.yaml:6: malformed YAML" in out.stdout
    assert "6 cells: 4 ok, 2 failed, 0 crashed" in out.stdout


def crash_on_second_cell(task, source):
    """A cell function whose worker dies on one cell (a real os._exit in the worker process)."""
    if task.seed == 1:
        os._exit(3)
    return run_cell(task, source)


def test_a_crashing_cell_breaks_no_other(tmp_path: Path) -> None:
    """The pool breaks; the cells in flight are retried one at a time; only the culprit is
    reported crashed."""
    _snapshot(tmp_path / "a.yaml")
    m = load_matrix(_matrix(tmp_path, "snapshots: [a.yaml]\nseeds: {count: 4}\n"), default_registry().registry)
    journal = Journal(str(tmp_path / "r.cells.jsonl"), resume=False)
    with LocalPool(2, crash_on_second_cell) as pool:
        result = sweep(m, pool, journal)
    journal.close()
    statuses = [(c.seed, o.status) for c, o in result.rows]
    assert statuses == [(0, OK), (1, CRASHED), (2, OK), (3, OK)]
    assert "worker process died" in result.rows[1][1].error
    # a crashed cell is not finished: --resume runs it again
    assert set(Journal(str(tmp_path / "r.cells.jsonl"), resume=True).done) == {m.cells[i].key for i in (0, 2, 3)}


# --- the same results whatever runs them -----------------------------------------------------


@pytest.fixture(scope="module")
def dask_address():
    """A Dask cluster in this process: a scheduler on 127.0.0.1 and two single-thread workers."""
    distributed = pytest.importorskip("distributed", reason="pip install 'kschedctl[dask]'")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1", dashboard_address=None
    )
    yield cluster.scheduler_address
    cluster.close()


def test_same_table_from_one_job_two_jobs_and_dask(tmp_path: Path, run_cli, monkeypatch, dask_address) -> None:
    _snapshot(tmp_path / "a.yaml", nodes=4, pods=10)
    _snapshot(tmp_path / "b.yaml", nodes=3, pods=5)
    _matrix(
        tmp_path,
        """\
        snapshots: [a.yaml, b.yaml]
        configs: [{name: fit, scoringStrategy: [LeastAllocated, MostAllocated]}]
        seeds: [0, 1]
        """,
    )
    monkeypatch.chdir(tmp_path)
    outputs, files = {}, {}
    for name, args in {"jobs1": ["--jobs", "1"], "jobs2": ["--jobs", "2"], "dask": ["--cluster", dask_address]}.items():
        out = run_cli("sweep", "m.yaml", "-o", "json", "--results", "r.parquet", *args)
        assert out.exit_code == 0, (name, out.stderr)
        outputs[name] = out.stdout
        files[name] = [{k: v for k, v in r.items() if k not in ("wallSeconds", "cpuSeconds")} for r in read_results("r.parquet")]
    # stdout byte for byte (the table is rendered from the same cells), the file but for wall times
    assert outputs["jobs1"] == outputs["jobs2"] == outputs["dask"]
    assert files["jobs1"] == files["jobs2"] == files["dask"]
    data = json.loads(outputs["dask"])
    assert [c["index"] for c in data["cells"]] == list(range(8))
    # MostAllocated packs b.yaml's pods onto fewer nodes than LeastAllocated spreads them
    used = {(c["snapshot"], c["params"]["scoringStrategy"]): c["metrics"]["nodesUsed"] for c in data["cells"]}
    assert used["b.yaml", "MostAllocated"] < used["b.yaml", "LeastAllocated"]


# --- resume --------------------------------------------------------------------------------


def test_resume_after_a_killed_sweep(tmp_path: Path, run_cli, monkeypatch) -> None:
    # 60 cells, killed after the third: enough left that a loaded machine's slow polling cannot
    # let the sweep finish before the kill lands
    _snapshot(tmp_path / "a.yaml", nodes=4, pods=10)
    _matrix(tmp_path, "snapshots: [a.yaml]\nseeds: {count: 60}\n")
    journal = tmp_path / "r.csv.cells.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kschedctl", "sweep", "m.yaml", "--jobs", "1", "--results", "r.csv"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and _lines(journal) < 3 and proc.poll() is None:
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGKILL)  # the sweep and its worker, mid-run
    finally:
        proc.wait()
    done = _lines(journal)
    assert proc.returncode == -signal.SIGKILL and 3 <= done < 60, done
    assert not (tmp_path / "r.csv").exists()  # written only at the end
    with open(journal, "a", encoding="utf-8") as fh:
        fh.write('{"key": "cut short by the kil')  # what a kill during a write leaves
    monkeypatch.chdir(tmp_path)
    resumed = run_cli("sweep", "m.yaml", "--jobs", "2", "--results", "r.csv", "--resume")
    assert resumed.exit_code == 0, resumed.stderr
    assert f"resumed: {done} of 60 cells were already done" in resumed.stderr
    assert f"{60 - done} cells run" in resumed.stderr
    assert _lines(journal) == 60  # each cell once: none ran twice
    fresh = run_cli("sweep", "m.yaml", "--jobs", "2", "--results", "r.csv")
    assert resumed.stdout == fresh.stdout
    assert "60 cells: 60 ok" in fresh.stdout


def _lines(path: Path) -> int:
    try:
        return path.read_text(encoding="utf-8").count("\n")
    except FileNotFoundError:
        return 0


def test_journal_keeps_whole_lines_and_retries_crashed_cells(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    lines = [CellOutcome("k1", OK, metrics={"scheduled": 1}), CellOutcome("k2", ERROR, "bad input"), CellOutcome("k3", CRASHED, "died")]
    path.write_text("".join(json.dumps(o.to_dict()) + "\n" for o in lines) + '{"key": "k4", "sta')
    journal = Journal(str(path), resume=True)
    assert sorted(journal.done) == ["k1", "k2"]
    journal.close()
    assert path.read_text().count("\n") == 3 and path.read_text().endswith("\n")


# --- the worker's snapshots ----------------------------------------------------------------


def test_each_snapshot_is_parsed_once_per_worker(tmp_path: Path, monkeypatch) -> None:
    import kschedctl.cluster.loader as loader

    _snapshot(tmp_path / "a.yaml")
    _, tasks = _cells(_matrix(tmp_path, "snapshots: [a.yaml]\nseeds: {count: 3}\n"))
    calls = []
    real = loader.load_snapshot
    monkeypatch.setattr(loader, "load_snapshot", lambda paths: calls.append(paths) or real(paths))
    monkeypatch.setattr(cellmod, "_CACHE", type(cellmod._CACHE)())
    outcomes = [run_cell(*t) for t in tasks]
    assert [o.status for o in outcomes] == [OK] * 3 and len(calls) == 1
    assert outcomes[0].result != outcomes[1].result or outcomes[0].metrics == outcomes[1].metrics
    assert cellmod.cached_keys() == [tasks[0][1].key]


def test_shipped_files_need_no_disk_and_changed_files_are_refused(tmp_path: Path, monkeypatch) -> None:
    """A Dask worker gets the bytes (no such path there); the local pool reads the files, and
    refuses them if they changed since the sweep hashed them."""
    snap = _snapshot(tmp_path / "a.yaml")
    _, tasks = _cells(_matrix(tmp_path, "snapshots: [a.yaml]\n"))
    task, source = tasks[0]
    monkeypatch.setattr(cellmod, "_CACHE", type(cellmod._CACHE)())
    expected = run_cell(task, source)
    monkeypatch.setattr(cellmod, "_CACHE", type(cellmod._CACHE)())
    shipped = SnapshotSource(source.key, ("/nowhere/a.yaml",), ("/nowhere/a.yaml",), (Path(snap).read_bytes(),))
    assert run_cell(task, shipped).result == expected.result
    monkeypatch.setattr(cellmod, "_CACHE", type(cellmod._CACHE)())
    _snapshot(tmp_path / "a.yaml", pods=2)
    changed = run_cell(task, source)
    assert changed.status == ERROR and "changed since the sweep started" in changed.error


# --- results files -------------------------------------------------------------------------


def test_csv_without_pyarrow_is_said_on_stderr(tmp_path: Path, run_cli, monkeypatch) -> None:
    from kschedctl.sweep import results

    _snapshot(tmp_path / "a.yaml")
    _matrix(tmp_path, "metadata: {name: grid}\nsnapshots: [a.yaml]\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(results, "pyarrow_available", lambda: False)
    out = run_cli("sweep", "m.yaml", "--jobs", "1")
    assert out.exit_code == 0 and "pyarrow is not installed: results are written as CSV" in out.stderr
    assert read_results("grid.results.csv")[0]["status"] == "ok"
    refused = run_cli("sweep", "m.yaml", "--format", "parquet")
    assert refused.exit_code == 2
    assert refused.stderr.strip() == "error: --format parquet needs pyarrow: pip install 'kschedctl[parquet]'"


def test_report_without_plotly_is_refused_before_any_cell_runs(tmp_path: Path, run_cli, monkeypatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_plotly(name, *args, **kwargs):
        if name.startswith("plotly"):
            raise ImportError("No module named 'plotly'")
        return real_import(name, *args, **kwargs)

    _snapshot(tmp_path / "a.yaml")
    _matrix(tmp_path, "snapshots: [a.yaml]\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(builtins, "__import__", no_plotly)
    out = run_cli("sweep", "m.yaml", "--report", "r.html")
    assert out.exit_code == 2
    assert out.stderr.strip() == "error: --report needs the plotly package: pip install 'kschedctl[report]'"
    assert not list(tmp_path.glob("*.results.*"))
