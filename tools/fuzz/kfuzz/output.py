"""The output-file dimension: the paths commands write (--write-snapshot, --report, sweep's
--results and --report) drawn from what can go wrong with them, and the promise checked that
nothing the user had is destroyed (kschedctl/api/outputs.py).

Each input builds a fresh directory of inputs (a snapshot, a configuration, a scenario, a sweep
matrix), picks a command and, for one of its outputs, a target: a new file, an existing file
that is no input, the input itself, a symlink or a hard link to it, the command's other output,
a FIFO, a socket, /dev/null, /dev/full, a directory, a file under a missing directory, a
dangling symlink, a symlink loop, an empty path, a name with control characters, a relative
path. Then, besides the rules every run obeys (kfuzz/contract.py: no traceback, no hang, one
``error:`` line naming the path on exit 2):

- a target that must be refused is refused (exit 2), one that must be written is (exit 0, a
  regular file holding what the command writes, a symlink kept and written through);
- every input, FIFO, socket, device and directory is exactly what it was (bytes and file type);
- no temporary file is left behind.

Devices are private nodes made with mknod when the fuzzer runs as root (kschedctl before issue
21 replaced the target device with a regular file: the machine's /dev/null, as root), the real
/dev/null and /dev/full otherwise (an unprivileged process cannot replace them). A few inputs
run kschedctl in a subprocess with standard output on /dev/full (one line, exit
2) or on a pipe whose reader is gone (nothing said, exit 141). The plugin that changes the
working directory is not here: the sandbox's dimension owns plugins.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import socket
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

import kschedctl
from kfuzz import seeds
from kfuzz.contract import ALLOWED_EXIT, Checker, Run
from kschedctl.api.field import escape_control

for _command in ("diff", "capacity", "sweep"):
    ALLOWED_EXIT.setdefault(_command, {0, 2})

ROOT = Path(kschedctl.__file__).resolve().parents[1]  # the kschedctl under test, for subprocesses

# target kinds: must the command write there (True) or refuse (False)?
TARGETS: dict[str, bool] = {
    "new": True,
    "existing": True,
    "relative": True,
    "control-chars": True,
    "dangling-symlink": True,
    "symlink-to-existing": True,
    "input": False,
    "symlink-to-input": False,
    "hardlink-to-input": False,
    "other-output": False,
    "fifo": False,
    "socket": False,
    "dev-null": False,
    "dev-full": False,
    "directory": False,
    "missing-directory": False,
    "symlink-loop": False,
    "empty": False,
}


@dataclass
class Case:
    command: str
    args: list[str]  # without the output flag under test
    flag: str
    other: tuple[str, str] | None  # another output flag and its (fresh) path
    inputs: list[str]  # the files the command reads
    expect: str  # "yaml", "html" or "results": what a written target holds


def _inputs(d: Path) -> dict[str, str]:
    snap = d / "in.yaml"
    snap.write_text(yaml.safe_dump(seeds.snapshot(), sort_keys=False))
    cfg = d / "cfg.yaml"
    cfg.write_text(yaml.safe_dump(seeds.config(), sort_keys=False))
    scenario = d / "scenario.yaml"
    scenario.write_text(yaml.safe_dump(seeds.scenario("in.yaml"), sort_keys=False))
    matrix = d / "m.yaml"
    matrix.write_text("apiVersion: kschedctl.io/v1alpha1\nkind: Sweep\nmetadata: {name: fuzz}\nsnapshots: [in.yaml]\nconfigs: [cfg.yaml]\n")
    return {"snapshot": str(snap), "config": str(cfg), "scenario": str(scenario), "matrix": str(matrix)}


def _case(rng: random.Random, d: Path, files: dict[str, str]) -> Case:
    snap, cfg = files["snapshot"], files["config"]
    pick = rng.choices(
        ["schedule-snapshot", "schedule-report", "simulate", "diff", "sweep-results", "sweep-report"], [0.3, 0.2, 0.15, 0.15, 0.1, 0.1]
    )[0]
    if pick == "schedule-snapshot":
        return Case(
            "schedule",
            ["schedule", snap, "--config", cfg, "--seed", "1"],
            "--write-snapshot",
            ("--report", str(d / "other.html")) if rng.random() < 0.3 else None,
            [snap, cfg],
            "yaml",
        )
    if pick == "schedule-report":
        return Case(
            "schedule",
            ["schedule", snap, "--seed", "1"],
            "--report",
            ("--write-snapshot", str(d / "other.yaml")) if rng.random() < 0.3 else None,
            [snap],
            "html",
        )
    if pick == "simulate":
        return Case("simulate", ["simulate", files["scenario"], "--seed", "1"], "--report", None, [files["scenario"], snap], "html")
    if pick == "diff":
        return Case("diff", ["diff", snap, "--config-b", cfg], "--report", None, [snap, cfg], "html")
    sweep = ["sweep", files["matrix"], "--jobs", "1", "--format", "csv"]
    inputs = [files["matrix"], snap, cfg]
    if pick == "sweep-results":
        return Case("sweep", sweep, "--results", ("--report", str(d / "other.html")) if rng.random() < 0.2 else None, inputs, "results")
    return Case("sweep", sweep, "--report", ("--results", str(d / "other.csv")), inputs, "html")


def _target(kind: str, rng: random.Random, d: Path, case: Case) -> str:
    """Make the target of that kind; the path to give."""
    victim = rng.choice(case.inputs)
    if kind == "new":
        return str(d / "out" / rng.choice(["next.yaml", "next.json", "r.html", "r.csv"]))
    if kind == "existing":
        path = d / "out" / "existing.txt"
        path.write_text("not an input\n")
        return str(path)
    if kind == "relative":
        return os.path.join("out", "rel.yaml")
    if kind == "control-chars":
        return str(d / "out" / rng.choice(["a\nb.yaml", "e\x1b[31m.yaml", "t\tab.csv", "\u2028.html"]))
    if kind == "dangling-symlink":
        link = d / "out" / "dangling"
        link.symlink_to(d / "out" / "nothing-yet.yaml")
        return str(link)
    if kind == "symlink-to-existing":
        real = d / "out" / "real.yaml"
        real.write_text("old\n")
        (d / "out" / "link").symlink_to(real)
        return str(d / "out" / "link")
    if kind == "input":
        return victim
    if kind == "symlink-to-input":
        (d / "out" / "alias").symlink_to(victim)
        return str(d / "out" / "alias")
    if kind == "hardlink-to-input":
        os.link(victim, d / "out" / "hard")
        return str(d / "out" / "hard")
    if kind == "other-output":
        if case.other is None:
            case.other = ("--report" if case.flag != "--report" else "--write-snapshot", str(d / "out" / "both"))
            if case.command == "sweep" and case.other[0] == "--write-snapshot":
                case.other = ("--results", case.other[1])
            if case.command in ("simulate", "diff"):  # one output only: the input instead
                case.other = None
                return victim
        return case.other[1]
    if kind == "fifo":
        os.mkfifo(d / "out" / "fifo")
        return str(d / "out" / "fifo")
    if kind == "socket":
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(d / "out" / "sock"))
        s.close()
        return str(d / "out" / "sock")
    if kind in ("dev-null", "dev-full"):
        return device(d / "out", kind[4:])
    if kind == "directory":
        return str(d / "out")
    if kind == "missing-directory":
        return str(d / "out" / "no" / "such" / "x.yaml")
    if kind == "symlink-loop":
        (d / "out" / "loop-a").symlink_to(d / "out" / "loop-b")
        (d / "out" / "loop-b").symlink_to(d / "out" / "loop-a")
        return str(d / "out" / "loop-a")
    return ""  # empty


def device(folder: Path, name: str) -> str:
    """A character device to write to: as root, a private node in ``folder`` (null: 1,3; full:
    1,7), so that a regression replacing the target can only replace that copy, never the
    machine's /dev/null; otherwise the real one, which an unprivileged process cannot replace."""
    real = f"/dev/{name}"
    if os.geteuid() != 0:
        return real if os.path.exists(real) else os.devnull
    path = folder / f"dev-{name}"
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3 if name == "null" else 7))
    return str(path)


def _fingerprint(paths: list[str]) -> dict[str, tuple[int, str]]:
    """(file type, sha256 of the bytes for a regular file) of each path, links not followed."""
    out = {}
    for p in paths:
        try:
            st = os.lstat(p)
        except OSError:
            out[p] = (0, "missing")
            continue
        digest = ""
        if stat.S_ISREG(st.st_mode):
            digest = hashlib.sha256(Path(p).read_bytes()).hexdigest()
        elif stat.S_ISLNK(st.st_mode):
            digest = os.readlink(p)
        out[p] = (stat.S_IFMT(st.st_mode), digest)
    return out


def _everything(d: Path) -> list[str]:
    return [str(p) for p in sorted(d.rglob("*"))]


def output_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    """One output target through one command (see the module docstring)."""
    d = workdir / "output"
    shutil.rmtree(d, ignore_errors=True)
    (d / "out").mkdir(parents=True)
    files = _inputs(d)
    if rng.random() < 0.06:
        return _stdout_case(rng, d, files, checker)
    case = _case(rng, d, files)
    kind = rng.choice(sorted(TARGETS))
    target = _target(kind, rng, d, case)
    args = [*case.args, case.flag, target, *(case.other if case.other else ())]
    protected = _everything(d)
    before = _fingerprint(protected)
    cwd = os.getcwd()
    os.chdir(d)
    try:
        run = checker.run(args)
    finally:
        os.chdir(cwd)
    named = escape_control(target or '""')
    # sweep says what it ran on stderr ("N cells run in ...; results: ..."): its lines are allowed
    if not checker.basic(run, case.command, named if run.exit_code == 2 else "", plugin_output=case.command == "sweep"):
        return f"output {case.command} {case.flag} {kind}"
    must_write = TARGETS[kind] and not (kind == "other-output" and case.other is None)
    if kind == "missing-directory" and case.flag == "--results":
        must_write = True  # sweep creates its results' directory (as it always has)
    _check_outcome(checker, run, kind, must_write, target, case, d)
    after = _fingerprint(protected)
    for path, was in before.items():
        now = after.get(path)
        written = must_write and run.exit_code == 0 and os.path.realpath(os.path.join(d, target)) == os.path.realpath(path)
        if now != was and not written and not _written_by_command(path, d, case, run):
            checker.fail("destroyed", f"{path} changed: {was} -> {now}", run)
    leftovers = [p.name for p in d.rglob(".*.tmp")]
    if leftovers:
        checker.fail("temporary-file", f"left behind: {leftovers}", run)
    return f"output {case.command} {case.flag} {kind}"


def _written_by_command(path: str, d: Path, case: Case, run: Run) -> bool:
    """Files a successful command itself creates or replaces besides the target under test."""
    if run.exit_code != 0:
        return False
    if case.other and os.path.realpath(path) == os.path.realpath(case.other[1]):
        return True
    return case.command == "sweep" and (path.endswith((".cells.jsonl", ".lock", ".csv")) or "results" in path)


def _check_outcome(checker: Checker, run: Run, kind: str, must_write: bool, target: str, case: Case, d: Path) -> None:
    if not must_write:
        if run.exit_code != 2:
            checker.fail("refused", f"{case.flag} {kind}: exit {run.exit_code}, expected 2", run)
        return
    if run.exit_code != 0:
        checker.fail("written", f"{case.flag} {kind}: exit {run.exit_code}, expected 0", run)
        return
    path = Path(os.path.realpath(os.path.join(d, target)))
    if not path.is_file():
        checker.fail("written", f"{case.flag} {kind}: {path} is not a regular file after the run", run)
        return
    head = path.read_bytes()[:200]
    ok = {
        "yaml": head.startswith((b"apiVersion", b"{")),
        "html": head.startswith(b"<!DOCTYPE html>"),
        "results": head.startswith(b"index,"),
    }[case.expect if case.flag != "--report" else "html"]
    if not ok:
        checker.fail("written", f"{case.flag} {kind}: {path} does not hold the output: {head[:60]!r}", run)
    if kind in ("symlink-to-existing", "dangling-symlink") and not os.path.islink(os.path.join(d, target)):
        checker.fail("symlink-kept", f"the symlink {target} was replaced", run)


def _stdout_case(rng: random.Random, d: Path, files: dict[str, str], checker: Checker) -> str:
    """Standard output on /dev/full or a pipe with no reader, in a subprocess."""
    args = rng.choice(
        [["schedule", files["snapshot"], "-o", "json"], ["validate", files["config"], "-o", "json"], ["schedule", files["snapshot"]]]
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    full = rng.random() < 0.5 and os.path.exists("/dev/full")
    if full:
        with open("/dev/full", "w") as out:
            proc = subprocess.run(
                [sys.executable, "-m", "kschedctl", *args], stdout=out, stderr=subprocess.PIPE, env=env, timeout=checker.timeout, text=True
            )
        expected = (2, "error: cannot write standard output: No space left on device\n")
    else:
        read, write = os.pipe()
        os.close(read)
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "kschedctl", *args],
                stdout=write,
                stderr=subprocess.PIPE,
                env=env,
                timeout=checker.timeout,
                text=True,
            )
        finally:
            os.close(write)
        expected = (141, "")
    said = "".join(line for line in proc.stderr.splitlines(keepends=True) if not line.startswith("warning: "))
    if (proc.returncode, said) != expected:
        checker.fail(
            "stdout-error",
            f"{'ENOSPC' if full else 'EPIPE'}: exit {proc.returncode}, stderr {proc.stderr[-300:]!r}, expected {expected}",
            Run(args, proc.returncode, "", proc.stderr),
        )
    return f"output stdout {'dev-full' if full else 'closed-pipe'} {args[0]}"


__all__ = ["TARGETS", "output_dimension"]
