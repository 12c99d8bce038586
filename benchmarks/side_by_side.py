"""kube-scheduler 1.35.4 and kschedctl, side by side on the same files, in one run.

    python benchmarks/side_by_side.py --kube-oracle /path/to/kschedoracle     # the final table
    python benchmarks/side_by_side.py                                         # kschedctl alone
    python benchmarks/side_by_side.py --quick --kube-oracle ...               # small sizes, a smoke run
    python benchmarks/side_by_side.py --case SchedulingBasic_5000Nodes_1000Init_10000Pods --repeat 3
    python benchmarks/side_by_side.py --python /path/to/venv/bin/python --kube-oracle ...   # kschedctl on that interpreter

Each case is one file written by perf_config.py (scheduler_perf's shapes and sizes) and one
configuration (the default one). Both programs are timed as whole processes, load and
scheduling included, one after the other on the same file:

- kube:     kschedoracle -mode bench -snapshot FILE -config CONFIG -warmup INIT -parallelism 2
            -bench-placements PLACEMENTS  (the real ScheduleOne loop, asynchronous binding)
- kschedctl: kschedctl schedule FILE --config CONFIG -o json --kube-version 1.35 --seed 1

kschedctl runs on the interpreter running this script, or on ``--python``'s (kschedctl installed
in it). Which build of CPython that is moves every kschedctl time: a build with libpython as a
shared library and without profile-guided or link-time optimisation (pyenv's default) runs the
same code markedly slower than a distribution's optimised one, as a Go binary built without
optimisations would. The output names the interpreter (version, how libpython is linked, the
configure flags, the kschedctl it imports) under the table and in --json, which also holds
every run's wall, CPU and system time, peak RSS and minor page faults.

Init pods: the file holds them pending, ahead of the measured pods. kube schedules them as its
warmup (scheduled, not in its own pods/s) and kschedctl schedules them as any other pod, so
both processes do the same work: every pending pod of the file placed once. PreemptionBasic is
the exception (see perf_config.py): its low-priority pods are written bound, there is no warmup,
and kube's bench loop runs one attempt per preemptor (PostFilter preempts; the retry that would
bind the preemptor comes after the loop), while kschedctl preempts and binds. Its outcomes are
therefore compared against kschedoracle -mode sequential on a smaller instance (--preemption-check).

More shapes (perf_config.MORE_CASES, issue 25): the pod (anti-)affinity, preferred and
namespaceSelector workloads, MixedSchedulingBasePod, the volume workloads (bound PV + PVC per pod,
CSINodes with a 39-volume limit for the CSI and migrated ones), PreemptionPVs (a preemption shape
like PreemptionBasic, its outcomes checked the same way), SchedulingDaemonset and Unschedulable,
whose churn of never-schedulable priority-10 pods (5/s upstream) is written as Case.churn pods
ahead of the measured ones: both programs leave exactly those pending.

The DRA, gang and churn families (perf_config.Shape.family):
- SchedulingWithResourceClaimTemplate, SteadyStateClusterResourceClaimTemplate: one claim per pod
  as the resourceclaim controller writes it (kube-scheduler never reads the template), one
  ResourceSlice per node. No feature gate at 1.35 (DynamicResourceAllocation is GA). kube's bench
  binds asynchronously; its DynamicResources Reserve keeps each allocation in flight until PreBind
  has written it, so a later pod already sees the device taken: besides "same node" and "same
  load", each side is checked to give no node more claims than devices (placed pods plus the
  steady-state file's allocated claims), shown as "devices ok". The steady state's rounds of 10
  pods created, scheduled and deleted are written as pods without the deletions.
- GangScheduling: 1.35 Workloads (scheduling.k8s.io/v1alpha1) and pods with spec.workloadRef; both
  programs run with -feature-gates / --feature-gates GenericWorkload=true,GangScheduling=true.
- SchedulingWithMixedChurn: kschedctl runs `simulate` on the file plus a timeline of the churn
  (each second a node and a never-schedulable pod replace the last ones); kube's bench has no
  churn and runs the same file without it. The virtual clock has no scheduling rate: the measured
  pods are all placed at t=0, before the first churn event, so the churn adds only its own cost
  and cannot change a measured pod's node. Compared: the measured pods' nodes and load (equal
  placements are then expected), and the cost of kschedctl's simulate with the churn against
  kube's bench without it (not the same work: kube does less).

CPU time is each child's user + sys (wait4's rusage, the child and what it waited for): it moves
much less than wall time when other work shares the machine, so compare it too.
Peak RSS is each child's own (os.wait4's rusage). Placements: kube's bench picks at random
among equally scored nodes and its parallel filters may stop at different nodes
(percentageOfNodesToScore), so "same node" counts exact matches with kschedctl --kube-version
1.35 and "same load" says whether the two clusters end with the same sorted pods-per-node list.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import perf_config  # noqa: E402
from perf_config import Case  # noqa: E402

KUBE_PARALLELISM = 2
# A smaller PreemptionBasic for kschedoracle -mode sequential, which records every node's
# filter result for every attempt (its output grows as nodes x attempts).
# Shapes whose measured pods preempt: kube's bench makes one attempt per preemptor.
PREEMPTION_SHAPES = ("PreemptionBasic", "PreemptionPVs")
PREEMPTION_CHECK = Case("PreemptionBasic", 100, 400, 100, "PreemptionBasic/1000Nodes scaled /10")
PREEMPTION_CHECKS = {
    "PreemptionBasic": PREEMPTION_CHECK,
    "PreemptionPVs": Case("PreemptionPVs", 100, 400, 100, "PreemptionPVs/1000Nodes scaled /10"),
}


@dataclass
class ProcessRun:
    """One child process: whole-process wall time, its own peak RSS and its CPU time (user + sys,
    which moves less than wall time when other work shares the machine), the system part of it
    and its minor page faults (the kernel's work a run causes, which an instruction count does
    not see: RESULTS.md, "Twenty-fourth round")."""

    wall_s: float
    peak_rss_mib: float
    returncode: int
    stderr_tail: str = ""
    cpu_s: float | None = None
    sys_s: float | None = None
    minor_faults: int | None = None


@dataclass
class Side:
    """One program's figures on one case."""

    runs: list[ProcessRun] = field(default_factory=list)
    placed: int = 0
    pending: int = 0
    placements: dict[str, str] = field(default_factory=dict)
    victims: int = 0
    note: str = ""

    @property
    def ok(self) -> bool:
        return bool(self.runs) and all(r.returncode == 0 for r in self.runs)

    @property
    def wall_s(self) -> float | None:
        """Best of the repeats (the least disturbed by other work on the machine)."""
        return min(r.wall_s for r in self.runs) if self.ok else None

    @property
    def peak_rss_mib(self) -> float | None:
        return max(r.peak_rss_mib for r in self.runs) if self.ok else None

    @property
    def cpu_s(self) -> float | None:
        """Least CPU time of the repeats (user + sys, the child and what it waited for)."""
        cpus = [r.cpu_s for r in self.runs if r.cpu_s is not None]
        return min(cpus) if self.ok and cpus else None


@dataclass
class Row:
    case: Case
    kube: Side | None
    ksched: Side
    same_node: int | None = None
    compared: int | None = None
    same_load: bool | None = None
    # DRA shapes: per side, the nodes given more claims than they have devices (placed pods plus
    # the steady-state shape's allocated claims); None when not checked
    over_devices: dict[str, int] | None = None


# --- running ------------------------------------------------------------------------------------


def child_env() -> dict[str, str]:
    """The environment of both children, bytecode caches allowed: an installed kschedctl has its
    .pyc files, so compiling its sources on every run is no part of its time."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


TIME = "/usr/bin/time"


def measure(cmd: list[str], stdout_path: Path) -> ProcessRun:
    """Runs cmd with stdout to a file; wall time from start to exit, and the child's own peak RSS
    and minor page faults.

    The peak RSS comes from /usr/bin/time (%M) where it exists: Linux carries the RSS high-water
    mark of the process that forks over exec into the child's ru_maxrss, so os.wait4 on a child of
    this (large) Python process would report at least this process's size; /usr/bin/time's own
    child is forked from a small process. Its %R (the command's minor faults, with the children
    it waited for) leaves out /usr/bin/time's own. Without /usr/bin/time, wait4's figures are the
    fallback.
    """
    use_time = os.access(TIME, os.X_OK)
    with stdout_path.open("wb") as out, tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile("r", suffix=".time") as rss_file:
        full = [TIME, "-f", "%M %R", "-o", rss_file.name, *cmd] if use_time else cmd
        t0 = time.perf_counter()
        proc = subprocess.Popen(full, stdout=out, stderr=err, env=child_env())
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read().decode(errors="replace").strip().splitlines()[-3:]
        kib, faults = usage.ru_maxrss, usage.ru_minflt
        if use_time:
            last = (rss_file.read().strip().splitlines() or [""])[-1].split()
            if len(last) == 2 and all(x.isdigit() for x in last):
                kib, faults = int(last[0]), int(last[1])
    cpu = usage.ru_utime + usage.ru_stime  # includes /usr/bin/time's own child (Linux wait4)
    return ProcessRun(
        round(wall, 3), round(kib / 1024.0, 1), proc.returncode, "\n".join(tail), round(cpu, 3), round(usage.ru_stime, 3), faults
    )


def kube_command(oracle: str, snapshot: Path, config: Path, warmup: int, placements: Path, gates: str = "") -> list[str]:
    return [
        oracle,
        "-mode",
        "bench",
        "-snapshot",
        str(snapshot),
        "-config",
        str(config),
        "-warmup",
        str(warmup),
        "-parallelism",
        str(KUBE_PARALLELISM),
        "-bench-placements",
        str(placements),
    ] + (["-feature-gates", gates] if gates else [])


def ksched_command(snapshot: Path, config: Path, gates: str = "", scenario: Path | None = None, python: str | None = None) -> list[str]:
    """`kschedctl schedule FILE`, or for a churn case `kschedctl simulate SCENARIO` (the same file
    plus the churn timeline); `-o json` of both has the placements and summary read_ksched reads.
    ``python`` is the interpreter that runs kschedctl (this one by default)."""
    verb, target = ("simulate", scenario) if scenario is not None else ("schedule", snapshot)
    return [
        python or sys.executable,
        "-m",
        "kschedctl",
        verb,
        str(target),
        "--config",
        str(config),
        "-o",
        "json",
        "--kube-version",
        "1.35",
        "--seed",
        "1",
    ] + (["--feature-gates", gates] if gates else [])


# What the interpreter that runs kschedctl says of itself (see interpreter()).
_ABOUT = """
import json, sys, sysconfig
import kschedctl
maps = open("/proc/self/maps").read() if sys.platform.startswith("linux") else None
args = sysconfig.get_config_var("CONFIG_ARGS") or ""
print(json.dumps({
    "version": sys.version.split()[0],
    "implementation": sys.implementation.name,
    "executable": sys.executable,
    "libpython_shared": None if maps is None else "libpython" in maps,
    "configure_optimizations": "--enable-optimizations" in args,
    "configure_lto": "--with-lto" in args,
    "site_packages": sysconfig.get_paths()["purelib"],
    "kschedctl": kschedctl.__file__,
}))
"""


def interpreter(python: str | None = None) -> dict[str, object]:
    """The interpreter kschedctl runs on, as the table's reader needs to know it: its version,
    whether libpython is a shared library (a build with ``--enable-shared`` calls into it through
    the PLT, a cost of every C-API call) or inside the executable, whether its configure
    arguments asked for profile-guided (``--enable-optimizations``) and link-time
    (``--with-lto``) optimisation (a distribution may optimise its build without either: its
    packaging runs the steps itself), and the kschedctl it imports."""
    out = subprocess.run([python or sys.executable, "-c", _ABOUT], capture_output=True, text=True, env=child_env(), check=False)
    if out.returncode != 0:
        why = (out.stderr.strip().splitlines() or ["no message"])[-1]
        raise SystemExit(f"--python {python}: cannot import kschedctl: {why}")
    about: dict[str, object] = json.loads(out.stdout)
    return about


def describe_interpreter(about: dict[str, object]) -> str:
    """One line for the table's reader."""
    shared = about.get("libpython_shared")
    if shared is None:  # no /proc/self/maps where it ran
        linked = "libpython's linking unknown"
    else:
        linked = "libpython a shared library" if shared else "libpython in the executable"
    flags = (("--enable-optimizations", "configure_optimizations"), ("--with-lto", "configure_lto"))
    asked = [flag for flag, key in flags if about.get(key)]
    configure = f"configured with {' '.join(asked)}" if asked else "configured without --enable-optimizations or --with-lto"
    who = f"{about.get('implementation')} {about.get('version')} ({about.get('executable')})"
    return f"kschedctl ran on {who}: {linked}, {configure}; kschedctl from {about.get('kschedctl')}"


def read_kube(side: Side, bench_out: Path, placements: Path) -> None:
    """Counts from kschedoracle's bench JSON and its placements file."""
    doc = json.loads(bench_out.read_text())
    side.pending = doc.get("numPending", 0)
    side.placed = doc.get("scheduled", 0) + doc.get("warmupScheduled", 0)
    side.placements = json.loads(placements.read_text()) if placements.exists() else {}
    if doc.get("timedOut"):
        side.note = "timed out waiting for bindings"


def read_ksched(side: Side, out: Path) -> None:
    """Counts from `kschedctl schedule -o json` (contract: placements, preemptions, summary)."""
    doc = json.loads(out.read_text())
    side.pending = doc["summary"]["pending"]
    side.placed = doc["summary"]["scheduled"]
    side.placements = {p["pod"]: p["node"] for p in doc["placements"]}
    side.victims = sum(len(p["victims"]) for p in doc["preemptions"])


def compare(row: Row) -> None:
    """Same node per pod placed by both, and whether both end with the same load per node."""
    if row.kube is None or not row.kube.placements:
        return
    kube, ours = row.kube.placements, row.ksched.placements
    both = kube.keys() & ours.keys()
    row.compared = len(both)
    row.same_node = sum(1 for pod in both if kube[pod] == ours[pod])
    row.same_load = sorted(Counter(kube.values()).values()) == sorted(Counter(ours.values()).values())


def device_overruns(snapshot: Path, placements: dict[str, str], devices: int) -> int:
    """How many nodes end with more claims than devices: one claim per placed pod (the DRA
    shapes' pods each have one single-device claim) plus the claims the file holds allocated.

    kube's bench binds asynchronously; its DynamicResources plugin keeps each Reserve's allocation
    in flight until PreBind has written it, so later pods must already see the device taken. This
    says whether they did (and kschedctl too)."""
    doc = json.loads(snapshot.read_text())
    taken = Counter(
        r["pool"]
        for o in doc["items"]
        if o["kind"] == "ResourceClaim" and (o.get("status") or {}).get("allocation")
        for r in o["status"]["allocation"]["devices"]["results"]
    )
    taken.update(placements.values())
    return sum(1 for count in taken.values() if count > devices)


def run_case(case: Case, workdir: Path, oracle: str | None, repeat: int, python: str | None = None) -> Row:
    """Writes the case's file, then times kube and kschedctl on it, alternately, repeat times each."""
    snapshot = perf_config.write(case, workdir)
    config = workdir / "config.yaml"
    family = perf_config.SHAPES[case.shape].family
    scenario = snapshot.with_name(f"{case.name}.scenario.json") if family == "churn" else None
    kube = Side() if oracle else None
    ours = Side()
    for _ in range(repeat):
        if oracle and kube is not None:
            bench_out, placements = workdir / f"{case.name}.kube.json", workdir / f"{case.name}.kube-placements.json"
            kube.runs.append(measure(kube_command(oracle, snapshot, config, case.warmup, placements, case.feature_gates), bench_out))
            if kube.ok:
                read_kube(kube, bench_out, placements)
        out = workdir / f"{case.name}.kschedctl.json"
        ours.runs.append(measure(ksched_command(snapshot, config, case.feature_gates, scenario, python), out))
        if ours.ok:
            read_ksched(ours, out)
    row = Row(case, kube, ours)
    compare(row)
    if family == "dra":
        row.over_devices = {
            name: device_overruns(snapshot, side.placements, case.claims_per_node)
            for name, side in (("kube", kube), ("kschedctl", ours))
            if side is not None and side.ok
        }
    for side in (kube, ours):  # keep this process small (the next children's RSS is theirs alone)
        if side is not None:
            side.placements = {}
    return row


def preemption_check(oracle: str, workdir: Path, case: Case = PREEMPTION_CHECK) -> dict:
    """PreemptionBasic outcomes, kube (-mode sequential, which retries preemptors) vs kschedctl."""
    snapshot = perf_config.write(case, workdir)
    config = workdir / "config.yaml"
    seq_out = workdir / f"{case.name}.sequential.json"
    kube_run = measure(
        [oracle, "-mode", "sequential", "-snapshot", str(snapshot), "-config", str(config), "-compact", "-out", str(seq_out)],
        workdir / "sequential.stdout",
    )
    ours_out = workdir / f"{case.name}.kschedctl.json"
    ours_run = measure(ksched_command(snapshot, config), ours_out)
    if kube_run.returncode or ours_run.returncode:
        return {"case": case.name, "error": kube_run.stderr_tail or ours_run.stderr_tail}
    return compare_preemption(json.loads(seq_out.read_text()), json.loads(ours_out.read_text())) | {
        "case": case.name,
        "kube_wall_s": kube_run.wall_s,
        "kschedctl_wall_s": ours_run.wall_s,
    }


def compare_preemption(sequential: dict, ours: dict) -> dict:
    """Preemptors, victims and final nodes of kschedoracle's sequential record against kschedctl's."""
    kube_pre: dict[str, tuple[str | None, list[str]]] = {}
    kube_nodes: dict[str, str] = {}
    for rec in sequential["pods"]:
        pre = rec.get("preemption")
        if pre and pre.get("victims"):
            kube_pre[rec["pod"]] = (pre.get("nominatedNode"), sorted(pre["victims"]))
        if rec.get("node"):
            kube_nodes[rec["pod"]] = rec["node"]
    our_pre = {p["preemptor"]: (p["node"], sorted(p["victims"])) for p in ours["preemptions"]}
    our_nodes = {p["pod"]: p["node"] for p in ours["placements"]}
    return {
        "preemptors": [len(kube_pre), len(our_pre)],
        "victims": [sum(len(v) for _, v in kube_pre.values()), sum(len(v) for _, v in our_pre.values())],
        "same_nominated_node_and_victims": sum(1 for p, v in kube_pre.items() if our_pre.get(p) == v),
        "placed": [len(kube_nodes), len(our_nodes)],
        "same_node": sum(1 for p, n in kube_nodes.items() if our_nodes.get(p) == n),
    }


# --- the table ----------------------------------------------------------------------------------


def _seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f} s"


def _ratio(kube: float | None, ours: float | None) -> str:
    return "—" if kube is None or not ours else f"{kube / ours:.2f}x"


def _cpu(kube: float | None, ours: float | None) -> str:
    left = "—" if kube is None else f"{kube:.2f}"
    right = "—" if ours is None else f"{ours:.2f}"
    return f"{left} / {right} s ({_ratio(kube, ours)})"


def _rss(kube: float | None, ours: float | None) -> str:
    left = "—" if kube is None else f"{kube:.0f}"
    right = "—" if ours is None else f"{ours:.0f}"
    return f"{left} / {right} MiB"


def _placed(row: Row) -> str:
    ours = f"{row.ksched.placed:,}/{row.ksched.pending:,}"
    if row.kube is None:
        return ours
    return f"{row.kube.placed:,}/{row.kube.pending:,} · {ours}"


def _same(row: Row) -> str:
    if row.compared is None:
        return "—"
    load = "" if row.same_load is None else (", same load" if row.same_load else ", load differs")
    devices = ""
    if row.over_devices is not None:
        devices = ", devices ok" if not any(row.over_devices.values()) else ", devices OVER"
    return f"{row.same_node:,}/{row.compared:,}{load}{devices}"


HEADER = (
    "workload (nodes, init + measured pods)",
    "kube-scheduler 1.35.4",
    "kschedctl",
    "ratio kube/kschedctl",
    "CPU kube / kschedctl (ratio)",
    "peak RSS kube / kschedctl",
    "placed kube · kschedctl",
    "same node",
)


def table(rows: list[Row]) -> str:
    """The ratio table, Markdown."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "|".join("---" for _ in HEADER) + "|"]
    for row in rows:
        kube_s = row.kube.wall_s if row.kube else None
        kube_rss = row.kube.peak_rss_mib if row.kube else None
        cells = (
            row.case.label,
            _seconds(kube_s),
            _seconds(row.ksched.wall_s),
            _ratio(kube_s, row.ksched.wall_s),
            _cpu(row.kube.cpu_s if row.kube else None, row.ksched.cpu_s),
            _rss(kube_rss, row.ksched.peak_rss_mib),
            _placed(row),
            _same(row),
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def expected_placed(case: Case, side: Side) -> int:
    """The pods a side must place: every pending pod but the Unschedulable churn pods; for
    SchedulingWithMixedChurn the measured pods (kschedctl's simulate also counts the churn pods,
    which never fit, as pending; kube's file has none)."""
    if perf_config.SHAPES[case.shape].family == "churn":
        return case.measure
    return side.pending - case.churn


def problems(rows: list[Row]) -> list[str]:
    """Every case where a program failed or left a pending pod unplaced (the Unschedulable churn
    pods excepted, and the preemption shapes' kube bench: its loop ends before the preemptors'
    retries), or gave a node more claims than devices."""
    out = []
    for row in rows:
        sides = [("kschedctl", row.ksched)] + ([("kube", row.kube)] if row.kube else [])
        for name, side in sides:
            if not side.ok:
                out.append(f"{row.case.name}: {name} failed: {side.runs[-1].stderr_tail if side.runs else ''}")
            elif side.placed != expected_placed(row.case, side) and not (name == "kube" and row.case.shape in PREEMPTION_SHAPES):
                out.append(f"{row.case.name}: {name} placed {side.placed} of {side.pending} pending pods")
            if side.note:
                out.append(f"{row.case.name}: {name}: {side.note}")
        for name, count in (row.over_devices or {}).items():
            if count:
                out.append(f"{row.case.name}: {name} gave {count} nodes more claims than devices")
    return out


def record(row: Row) -> dict:
    """A row's measurements for --json (without the per-pod placements)."""

    def side(s: Side | None) -> dict | None:
        return None if s is None else {k: v for k, v in asdict(s).items() if k != "placements"}

    return {
        "case": asdict(row.case),
        "kube": side(row.kube),
        "kschedctl": side(row.ksched),
        "same_node": row.same_node,
        "compared": row.compared,
        "same_load": row.same_load,
        "over_devices": row.over_devices,
    }


# --- command line -------------------------------------------------------------------------------


def select(names: list[str] | None, quick: bool) -> list[Case]:
    cases = perf_config.QUICK_CASES if quick else perf_config.ALL_CASES
    if not names:
        return list(cases)
    by_name = {c.name: c for c in perf_config.ALL_CASES + perf_config.QUICK_CASES}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise SystemExit(f"unknown case {', '.join(unknown)}; known: {', '.join(sorted(by_name))}")
    return [by_name[n] for n in names]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kube-oracle", metavar="PATH", help="the kschedoracle binary (without it: kschedctl alone)")
    ap.add_argument("--quick", action="store_true", help="the small cases (perf_config.QUICK_CASES)")
    ap.add_argument("--case", action="append", metavar="NAME", help="only this case (repeatable)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per program and case; the table shows the best")
    ap.add_argument("--workdir", type=Path, help="keep the files and outputs here (default: a temporary dir)")
    ap.add_argument("--json", type=Path, help="also write every measurement to this file")
    ap.add_argument(
        "--no-preemption-check",
        action="store_true",
        help="skip the PreemptionBasic / PreemptionPVs outcome comparisons (kschedoracle -mode sequential)",
    )
    ap.add_argument(
        "--python",
        metavar="PATH",
        help="the interpreter that runs kschedctl, which must be installed in it (default: the one running this script)",
    )
    args = ap.parse_args(argv)
    if args.kube_oracle and not os.access(args.kube_oracle, os.X_OK):
        raise SystemExit(f"--kube-oracle {args.kube_oracle}: not an executable file")
    if args.python and not os.access(args.python, os.X_OK):
        raise SystemExit(f"--python {args.python}: not an executable file")
    about = interpreter(args.python)
    cases = select(args.case, args.quick)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="side-by-side-"))
    workdir.mkdir(parents=True, exist_ok=True)
    rows: list[Row] = []
    checks: list[dict] = []
    try:
        # one untimed run writes the bytecode caches (a schedule: every module it loads)
        warm = perf_config.Case("SchedulingBasic", 2, 0, 1, "warm-up")
        warm_file = perf_config.write(warm, workdir / "warm-up")
        measure(ksched_command(warm_file, workdir / "warm-up" / "config.yaml", python=args.python), workdir / "warm-up.json")
        for case in cases:
            print(f"... {case.label}", file=sys.stderr, flush=True)
            rows.append(run_case(case, workdir, args.kube_oracle, args.repeat, args.python))
        if args.kube_oracle and not args.no_preemption_check:
            shapes = sorted({c.shape for c in cases} & PREEMPTION_CHECKS.keys())
            checks = [preemption_check(args.kube_oracle, workdir, PREEMPTION_CHECKS[shape]) for shape in shapes]
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    print(table(rows))
    print(describe_interpreter(about))
    for line in problems(rows):
        print(f"! {line}")
    for check in checks:
        print(
            f"Preemption outcomes ({check['case']}, kschedoracle -mode sequential vs kschedctl): "
            + json.dumps({k: v for k, v in check.items() if k != "case"})
        )
    if args.json:
        args.json.write_text(json.dumps({"rows": [record(r) for r in rows], "preemption_checks": checks, "interpreter": about}, indent=1))
    return 1 if problems(rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
