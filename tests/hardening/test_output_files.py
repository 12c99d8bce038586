"""Output files: nothing the user had is destroyed (issue 21). Every output path (--report,
--write-snapshot, sweep --results and its journal) is resolved when the command starts, is never
one of the command's inputs (by path, symlink or hard link) nor another output, and is a regular
file or new; standard output's write errors are one line (exit 2), a closed pipe a quiet exit
141. Ids name the failure classes.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from kschedctl.testing import make_node, make_pod

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SWEEP_HEAD = "apiVersion: kschedctl.io/v1alpha1\nkind: Sweep\n"


def _snapshot(folder: Path, name: str = "in.yaml") -> Path:
    items = [make_node("n1").capacity(cpu="4", memory="4Gi", pods=10).dict(), make_pod("a").req(cpu="1").dict()]
    path = folder / name
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


def _error_line(out) -> str:
    assert out.exit_code == 2, (out.exit_code, out.stderr)
    assert "Traceback" not in out.stderr
    [line] = [x for x in out.stderr.splitlines() if x.startswith("error: ")]
    return line


def _alias(kind: str, target: Path) -> Path:
    """The input itself, a symlink to it, or a hard link to it."""
    if kind == "same":
        return target
    alias = target.parent / f"alias-{kind}.html"
    if kind == "symlink":
        alias.symlink_to(target.name)
    else:
        os.link(target, alias)
    return alias


# --- an output is never an input -----------------------------------------------------------


@pytest.mark.parametrize("kind", ["same", "symlink", "hardlink"])
@pytest.mark.parametrize("flag", ["--report", "--write-snapshot"])
def test_schedule_output_onto_its_snapshot_is_refused(run_cli, tmp_path, flag, kind):
    snap = _snapshot(tmp_path)
    before = snap.read_bytes()
    line = _error_line(run_cli("schedule", str(snap), flag, str(_alias(kind, snap))))
    assert f"{flag}: is one of this command's inputs" in line
    assert snap.read_bytes() == before and not snap.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temporary file


def test_schedule_report_onto_its_config_or_a_file_of_its_snapshot_directory(run_cli, tmp_path):
    snaps = tmp_path / "snaps"
    snaps.mkdir()
    inner = _snapshot(snaps, "inner.json")
    config = tmp_path / "config.yaml"
    config.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n")
    for target, args in ((inner, []), (config, ["--config", str(config)])):
        before = target.read_bytes()
        assert "inputs" in _error_line(run_cli("schedule", str(snaps), *args, "--report", str(target)))
        assert target.read_bytes() == before


def test_two_outputs_on_one_file_are_refused(run_cli, tmp_path):
    snap = _snapshot(tmp_path)
    line = _error_line(run_cli("schedule", str(snap), "--write-snapshot", str(tmp_path / "o.yaml"), "--report", str(tmp_path / "o.yaml")))
    assert "--report: is also given to --write-snapshot" in line and not (tmp_path / "o.yaml").exists()


def test_diff_capacity_and_simulate_reports_onto_their_inputs(run_cli, tmp_path):
    snap = _snapshot(tmp_path)
    config = ROOT / "profiles" / "bin-packing.yaml"
    pod = tmp_path / "pod.yaml"
    pod.write_text((EXAMPLES / "whatif-web-deployment.yaml").read_text())
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(f"apiVersion: kschedctl.io/v1alpha1\nkind: Scenario\nsnapshot: {snap.name}\nevents: []\n")
    (tmp_path / "cfg.yaml").write_text(config.read_text())
    linked_config = _alias("symlink", tmp_path / "cfg.yaml")
    cases = [
        ("diff", str(snap), "--config-b", str(tmp_path / "cfg.yaml"), "--report", str(linked_config)),
        ("capacity", str(snap), "--pod", str(pod), "--report", str(pod)),
        ("simulate", str(scenario), "--report", str(snap)),  # the snapshot the scenario reads
        ("simulate", str(scenario), "--report", str(scenario)),
    ]
    for args in cases:
        before = {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
        assert "--report: is one of this command's inputs" in _error_line(run_cli(*args)), args
        assert {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before


# --- regular files only --------------------------------------------------------------------


def _device(tmp_path: Path, name: str) -> Path:
    """A character device as a target: as root a private node (null 1,3; full 1,7), so that a
    regression replacing it cannot replace the machine's own; otherwise the real one, which an
    unprivileged process cannot replace."""
    if os.geteuid() != 0:
        if not os.path.exists(f"/dev/{name}"):
            pytest.skip(f"no /dev/{name}")
        return Path(f"/dev/{name}")
    path = tmp_path / f"dev-{name}"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3 if name == "null" else 7))
    except OSError as exc:
        pytest.skip(f"cannot make a device node: {exc}")
    return path


def _special(kind: str, tmp_path: Path) -> Path:
    if kind == "fifo":
        path = tmp_path / "fifo"
        os.mkfifo(path)
        return path
    if kind == "socket":
        path = tmp_path / "sock"
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(path))
        s.close()
        return path
    if kind == "directory":
        return tmp_path
    return _device(tmp_path, "null")


@pytest.mark.parametrize(
    "kind,words", [("fifo", "a FIFO (named pipe)"), ("socket", "a socket"), ("device", "a character device"), ("directory", "a directory")]
)
@pytest.mark.parametrize("flag", ["--report", "--write-snapshot"])
def test_only_regular_files_are_written(run_cli, tmp_path, flag, kind, words):
    snap = _snapshot(tmp_path)
    target = _special(kind, tmp_path)
    mode = os.stat(target).st_mode
    line = _error_line(run_cli("schedule", str(snap), flag, str(target)))
    assert f"{flag}: cannot write: {words}, not a regular file" in line
    assert os.stat(target).st_mode == mode  # still what it was: never replaced by a regular file


def test_write_snapshot_to_dev_full_keeps_the_device(run_cli, tmp_path):
    full = _device(tmp_path, "full")
    line = _error_line(run_cli("schedule", str(_snapshot(tmp_path)), "--write-snapshot", str(full)))
    assert "a character device" in line and stat.S_ISCHR(os.stat(full).st_mode)


def test_missing_directory_and_empty_path(run_cli, tmp_path):
    snap = str(_snapshot(tmp_path))
    assert "no such directory" in _error_line(run_cli("schedule", snap, "--report", str(tmp_path / "no" / "r.html")))
    assert "--report: empty path" in _error_line(run_cli("schedule", snap, "--report", ""))


def test_a_symlink_is_written_through_and_kept(run_cli, tmp_path):
    snap = _snapshot(tmp_path)
    real = tmp_path / "out" / "real.yaml"
    real.parent.mkdir()
    real.write_text("old: content\n")
    real.chmod(0o640)
    link = tmp_path / "link.yaml"
    link.symlink_to(real)
    assert run_cli("schedule", str(snap), "--write-snapshot", str(link)).exit_code == 0
    assert link.is_symlink() and yaml.safe_load(real.read_text())["kind"] == "List"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640  # the file's mode kept


def test_outputs_are_resolved_before_plugin_code_runs(run_cli, tmp_path, monkeypatch):
    # a plugin may os.chdir() (the sandbox is not this test's subject): stand in for one with a
    # run that changes directory; the relative output paths still land where they were meant
    from kschedctl.scheduler.scheduler import Scheduler

    snap = _snapshot(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(tmp_path)
    run = Scheduler.run

    def chdir_then_run(self, *args, **kwargs):
        os.chdir(elsewhere)
        return run(self, *args, **kwargs)

    monkeypatch.setattr(Scheduler, "run", chdir_then_run)
    out = run_cli("schedule", snap.name, "--write-snapshot", "next.yaml")
    assert out.exit_code == 0, out.stderr
    assert (tmp_path / "next.yaml").exists() and not (elsewhere / "next.yaml").exists()


# --- standard output -----------------------------------------------------------------------


def _kschedctl(*args: str, stdout, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "kschedctl", *args], stdout=stdout, stderr=subprocess.PIPE, cwd=cwd, env=env, timeout=60, text=True
    )


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize(
    "args",
    [["schedule", "in.yaml", "-o", "json"], ["validate", "cfg.yaml", "-o", "json"]],
    ids=["stdout-enospc-large", "stdout-enospc-small"],
)
def test_a_full_disk_on_stdout_is_one_line_exit_2(tmp_path, args):
    _snapshot(tmp_path)
    (tmp_path / "cfg.yaml").write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n")
    with open("/dev/full", "w") as full:
        proc = _kschedctl(*args, stdout=full, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == "error: cannot write standard output: No space left on device\n"


def test_a_closed_pipe_on_stdout_is_a_quiet_exit_141(tmp_path):
    _snapshot(tmp_path)
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte (`| head -0`)
    try:
        proc = _kschedctl("schedule", "in.yaml", "-o", "json", stdout=write, cwd=tmp_path)
    finally:
        os.close(write)
    assert proc.returncode == 141 and proc.stderr == ""


# --- sweep ---------------------------------------------------------------------------------


def _matrix(folder: Path, body: str, name: str = "m.yaml") -> Path:
    path = folder / name
    path.write_text(SWEEP_HEAD + textwrap.dedent(body))
    return path


@pytest.mark.parametrize("name", ["../x", "/tmp/abs", "a\x1b[31mb", "a\nb", "UPPER", ".", "x/y"])
def test_sweep_name_must_be_a_dns_subdomain(run_cli, tmp_path, monkeypatch, name):
    _snapshot(tmp_path)
    _matrix(tmp_path, f"metadata: {{name: {json.dumps(name)}}}\nsnapshots: [in.yaml]\n")
    monkeypatch.chdir(tmp_path)
    before = sorted(os.listdir(tmp_path.parent))
    line = _error_line(run_cli("sweep", "m.yaml", "--format", "csv"))
    assert line.startswith("error: m.yaml:3: Sweep: metadata.name: Invalid value: ") and "\x1b" not in line
    assert sorted(os.listdir(tmp_path.parent)) == before and sorted(os.listdir(tmp_path)) == ["in.yaml", "m.yaml"]


@pytest.mark.parametrize(
    "flag,target", [("--results", "in.yaml"), ("--results", "m.yaml"), ("--report", "cfg.yaml"), ("--report", "r.csv")]
)
def test_sweep_outputs_onto_its_inputs_are_refused(run_cli, tmp_path, monkeypatch, flag, target):
    _snapshot(tmp_path)
    (tmp_path / "cfg.yaml").write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n")
    _matrix(tmp_path, "metadata: {name: grid}\nsnapshots: [in.yaml]\nconfigs: [cfg.yaml]\n")
    monkeypatch.chdir(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    args = ["--results", "r.csv"] if flag == "--report" else []
    line = _error_line(run_cli("sweep", "m.yaml", *args, flag, target))
    assert f"{target}: {flag}: is " in line
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # nothing written, no journal


def test_sweep_results_into_a_fifo_is_refused(run_cli, tmp_path, monkeypatch):
    _snapshot(tmp_path)
    _matrix(tmp_path, "snapshots: [in.yaml]\n")
    os.mkfifo(tmp_path / "r.csv")
    monkeypatch.chdir(tmp_path)
    assert "a FIFO" in _error_line(run_cli("sweep", "m.yaml", "--results", "r.csv"))
    assert stat.S_ISFIFO(os.stat(tmp_path / "r.csv").st_mode)


def test_a_second_sweep_on_the_same_results_is_refused(run_cli, tmp_path, monkeypatch):
    _snapshot(tmp_path)
    _matrix(tmp_path, "snapshots: [in.yaml]\n")
    monkeypatch.chdir(tmp_path)
    assert run_cli("sweep", "m.yaml", "--results", "r.csv").exit_code == 0
    journal = (tmp_path / "r.csv.cells.jsonl").read_text()
    fd = os.open(tmp_path / "r.csv.lock", os.O_RDWR)  # a first sweep, still running
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        line = _error_line(run_cli("sweep", "m.yaml", "--results", "r.csv"))
    finally:
        os.close(fd)
    assert "r.csv.lock: --results (its lock): another sweep is writing these results" in line
    assert (tmp_path / "r.csv.cells.jsonl").read_text() == journal  # not truncated by the second
    assert run_cli("sweep", "m.yaml", "--results", "r.csv").exit_code == 0  # the lock goes with its holder


@pytest.mark.parametrize(
    "bad,message",
    [
        ('{"key": "k", "status": "ok", "metrics": [1, 2]}', "metrics: not an object"),
        ('{"key": "k", "status": "weird"}', "status: 'weird' is none of ok, error, crashed"),
        ('{"key": "k", "status": "ok", "warnings": [1]}', "warnings: not a list of strings"),
        ('{"key": "k", "status": "ok", "wallSeconds": "x"}', "wallSeconds: not a number of seconds"),
        ("[1]", "a JSON list, not an object"),
        ('{"status": "ok"}', "key: missing"),
        ("[" * 100000 + "]" * 100000, "nested too deeply"),
        ("not json", "not JSON"),
    ],
    ids=["metrics-list", "status-weird", "warnings", "wall", "list", "no-key", "deep", "not-json"],
)
def test_resume_refuses_a_bad_journal_line_naming_file_and_line(run_cli, tmp_path, monkeypatch, bad, message):
    _snapshot(tmp_path)
    _matrix(tmp_path, "snapshots: [in.yaml]\nseeds: [1, 2, 3]\n")
    monkeypatch.chdir(tmp_path)
    assert run_cli("sweep", "m.yaml", "--results", "r.csv").exit_code == 0
    journal = tmp_path / "r.csv.cells.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    journal.write_text(lines[0] + bad + "\n" + "".join(lines[1:]))
    line = _error_line(run_cli("sweep", "m.yaml", "--results", "r.csv", "--resume"))
    assert line.startswith("error: r.csv.cells.jsonl:2: not a cell of a sweep journal: ") and message in line
    assert len(line) < 400


def test_resumed_counts_add_up(run_cli, tmp_path, monkeypatch):
    _snapshot(tmp_path)
    _matrix(tmp_path, "snapshots: [in.yaml]\nseeds: [1, 2, 3]\n")
    monkeypatch.chdir(tmp_path)
    assert run_cli("sweep", "m.yaml", "--results", "r.csv").exit_code == 0
    journal = tmp_path / "r.csv.cells.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    first = json.loads(lines[0])
    journal.write_text(
        json.dumps({**first, "status": "error", "error": "bad\ninput"}) + "\n" + lines[1] + lines[2][:10]
    )  # a torn last line: dropped, that cell run again
    out = run_cli("sweep", "m.yaml", "--results", "r.csv", "--resume", "-o", "json")
    assert out.exit_code == 0, out.stderr
    s = out.json()["summary"]
    assert s["ok"] + s["error"] + s["crashed"] + s["notRun"] == s["cells"] == 3 and s["error"] == 1
    table = run_cli("sweep", "m.yaml", "--results", "r.csv", "--resume").stdout
    assert "3 cells: 2 ok, 1 failed, 0 crashed" in table and " error: bad\\ninput\n" in table


def test_sweep_table_escapes_control_characters_in_names(run_cli, tmp_path, monkeypatch):
    evil = "a\x1b[2Jb\nc.yaml"
    _snapshot(tmp_path, evil)
    _snapshot(tmp_path, "plain.yaml")
    _matrix(
        tmp_path,
        f"snapshots: [{json.dumps(evil)}, plain.yaml]\n"
        'configs: [{name: "cfg\\u0085\\ninjected", weights: {NodeResourcesFit: [1, 2]}}]\n',
    )
    monkeypatch.chdir(tmp_path)
    out = run_cli("sweep", "m.yaml", "--results", "r.csv")
    assert out.exit_code == 0, out.stderr
    assert "\x1b" not in out.stdout and "\x85" not in out.stdout
    assert "a\\x1b[2Jb\\nc.yaml" in out.stdout and "cfg\\u0085\\ninjected" in out.stdout
    rows = [x for x in out.stdout.splitlines() if x[:1].isdigit() and " cells: " not in x]
    assert len(rows) == 4  # 2 snapshots x 2 weights: no row forged, none split


def test_diff_table_escapes_a_configuration_file_name(run_cli, tmp_path):
    config = tmp_path / "c\x1b[31mfg\nB: forged.yaml"
    config.write_text((ROOT / "profiles" / "bin-packing.yaml").read_text())
    out = run_cli("diff", str(_snapshot(tmp_path)), "--config-b", str(config))
    assert out.exit_code == 0, out.stderr
    assert "\x1b" not in out.stdout and "\nB: forged" not in out.stdout
    assert "c\\x1b[31mfg\\nB: forged.yaml, kube-scheduler" in out.stdout
