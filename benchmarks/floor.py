"""What one run of a kschedctl command costs, split by who pays for it: the interpreter, the
libraries kschedctl depends on (with the standard library they bring), kschedctl's own modules,
installed plugin packages, and the run's own work (reading, checking, scheduling, writing).

    python benchmarks/floor.py -- schedule FILE --config CONFIG -o json --kube-version 1.35 --seed 1
    python benchmarks/floor.py --instructions -- schedule FILE ...      # instructions, under valgrind
    python benchmarks/floor.py --kube-seconds 0.34 -- schedule FILE ...  # and the ratio's ceilings

Why: on the 500-node rows of scheduler_perf (benchmarks/side_by_side.py) kube-scheduler's whole
process takes 0.2-0.4 s, and most of a kschedctl run of that size is spent before its first
pod. Whether such a row can reach a given ratio depends on which part of that time kschedctl's
code can change; this says.

How: the command runs once under a hook that records, in order, every module the run imported
and the plugin packages installed (the `kschedctl` entry-point group). Then four programs run as
fresh processes, each importing a longer prefix of that list, in the run's order:

- python: nothing;
- dependencies: every recorded module outside kschedctl and the plugin packages (numpy, PyYAML,
  pluggy, orjson, typer where the command line needs it, and the standard library they and
  kschedctl use);
- kschedctl: and kschedctl's own modules;
- plugin packages: and the installed plugin packages' modules;

and the command itself. A layer's cost is its program's less the one before; the run's own work
is the command's less the last program's. The collector is paused in the import programs, as
the command line pauses it for its own imports (kschedctl/cli/entry.py), and numpy's BLAS is
kept to one thread, as kschedctl/lazy.py keeps it. Every program but the first begins as the
command line does, with the kept compiled patterns and PyYAML's pattern installed
(kschedctl/regex_start.py, yaml_start.py: a few modules, counted with the dependencies), so the
dependencies' patterns are look-ups there as in the command. The dataclass code cache and the
modules' code cache (kschedctl/startup.py, module_start.py) come with kschedctl's own modules,
as the command line installs them: the dependencies' few dataclasses compile their methods in
the dependencies' program, and are look-ups in the command.

Wall and CPU time are the best of --runs fresh processes each, alternated; --instructions counts
instructions under valgrind's cachegrind instead (one run each: they barely move between runs,
where wall time moves by tens of milliseconds on a shared machine).

``--kube-seconds`` takes kube-scheduler's time on the same file (side_by_side.py's kube column)
and prints two ceilings: the ratio if kschedctl's own modules and the plugin packages cost
nothing, and if only the interpreter and the dependencies were left (the run's work free too).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from startup import child_env  # noqa: E402

# Run in the measured interpreter: the command, then the modules it imported and the plugin
# packages' top-level names, as JSON, into the file named by the first argument.
RECORDER = """
import atexit, json, os, runpy, sys
out = sys.argv[1]
before = set(sys.modules)
def record():
    from kschedctl.runtime.entry_points import entry_points
    tops = sorted({ep.value.split(":")[0].split(".")[0] for ep in entry_points(group="kschedctl")})
    with open(out, "w") as f:
        json.dump({"modules": [m for m in list(sys.modules) if m not in before and not m.endswith("__main__")], "plugin_packages": tops}, f)
exit_now = os._exit
def leave(code):
    record()
    exit_now(code)
os._exit = leave
atexit.register(record)
sys.argv = ["kschedctl", *sys.argv[2:]]
runpy.run_module("kschedctl", run_name="__main__")
"""

# As the command: the collector paused (cli/entry.py), numpy's BLAS kept to one thread
# (kschedctl/lazy.py; a program that imports numpy and exits at once otherwise pays for its
# pool's threads at exit, which the command does not) and no interpreter shutdown at the end
# (the command leaves with os._exit: runtime/process.py).
IMPORTER = """
import gc, importlib, os
gc.disable()
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
{prelude}
for name in {names!r}:
    try:
        importlib.import_module(name)
    except BaseException:
        pass
os._exit(0)
"""

# The command line's first act (kschedctl/cli/__init__.py), before any dependency is imported:
# the kept compiled patterns and PyYAML's pattern, so that the dependencies' compiles are the
# look-ups they are in the command.
PRELUDE = "from kschedctl import regex_start, yaml_start; regex_start.install(); yaml_start.install()"

LAYERS = ("python", "dependencies", "kschedctl", "plugin packages")


@dataclass
class Recorded:
    modules: list[str]
    plugin_packages: list[str]


@dataclass
class Cost:
    """One program's cost: wall and CPU seconds, or instructions (the others None)."""

    wall_s: float | None = None
    cpu_s: float | None = None
    instructions: int | None = None

    def value(self) -> float:
        return float(self.instructions) if self.instructions is not None else float(self.wall_s or 0.0)


def record(python: str, tail: list[str]) -> Recorded:
    """The modules the command imports, in order, and the installed plugin packages."""
    with tempfile.TemporaryDirectory(prefix="floor-") as tmp:
        out = Path(tmp) / "modules.json"
        proc = subprocess.run(
            [python, "-c", RECORDER, str(out), *tail], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=child_env()
        )
        if not out.exists():
            raise SystemExit(f"the command recorded nothing (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
        data = json.loads(out.read_text())
    return Recorded(data["modules"], data["plugin_packages"])


def _top(name: str) -> str:
    return name.split(".")[0]


def layer_modules(rec: Recorded) -> dict[str, list[str]]:
    """Each layer's program: the prefix of the run's imports it loads, in the run's order."""
    plugins = set(rec.plugin_packages)
    deps = [m for m in rec.modules if _top(m) != "kschedctl" and _top(m) not in plugins]
    ours = [m for m in rec.modules if _top(m) not in plugins]
    return {"python": [], "dependencies": deps, "kschedctl": ours, "plugin packages": list(rec.modules)}


def programs(rec: Recorded) -> dict[str, list[str]]:
    """The argument lists (after the interpreter) of the four import programs."""
    return {
        label: ["-c", IMPORTER.format(names=names, prelude=PRELUDE if label != "python" else "")]
        for label, names in layer_modules(rec).items()
    }


def _instructions(cmd: list[str]) -> int:
    """Instructions the process executed, as cachegrind counts them."""
    proc = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *cmd],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=child_env(),
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", proc.stderr)
    if found is None:
        raise SystemExit(f"valgrind printed no instruction count for {' '.join(cmd[:3])}...: {proc.stderr.strip()[-300:]}")
    return int(found.group(1).replace(",", ""))


def measure(commands: dict[str, list[str]], runs: int, instructions: bool) -> dict[str, Cost]:
    """Each command's cost: instructions (one run each), or the best wall and CPU time of
    ``runs`` fresh processes, the commands alternated so that a disturbance spreads over all."""
    from startup import time_once

    if instructions:
        return {label: Cost(instructions=_instructions(cmd)) for label, cmd in commands.items()}
    for cmd in commands.values():  # bytecode and the dataclass code cache written, untimed
        time_once(cmd)
    seen: dict[str, list[tuple[float, float]]] = {label: [] for label in commands}
    for _ in range(runs):
        for label, cmd in commands.items():
            t = time_once(cmd)
            seen[label].append((t.wall_s, t.cpu_s))
    return {label: Cost(wall_s=min(w for w, _ in v), cpu_s=min(c for _, c in v)) for label, v in seen.items()}


def split(costs: dict[str, Cost]) -> list[tuple[str, float]]:
    """Each layer's own share (its program less the one before) and the run's work (the
    command less the last program), in the unit measured; a negative difference (noise) is 0."""
    order = [*LAYERS, "command"]
    values = [costs[label].value() for label in order]
    shares = [("python", values[0])]
    for i, label in enumerate(order[1:], start=1):
        shares.append((label if label != "command" else "the run's work", max(0.0, values[i] - values[i - 1])))
    return shares


def ceilings(shares: list[tuple[str, float]], total_s: float, kube_s: float) -> tuple[float, float]:
    """The ratio kube / kschedctl if kschedctl's modules and the plugin packages cost nothing,
    and if only the interpreter and the dependencies were left (shares in seconds)."""
    part = dict(shares)
    free_modules = total_s - part["kschedctl"] - part["plugin packages"]
    floor = part["python"] + part["dependencies"]
    return kube_s / free_modules, kube_s / floor


def report(rec: Recorded, costs: dict[str, Cost], kube_s: float | None) -> str:
    shares = split(costs)
    total = costs["command"].value()
    counts = {label: len(names) for label, names in layer_modules(rec).items()}
    added = {
        "dependencies": counts["dependencies"],
        "kschedctl": counts["kschedctl"] - counts["dependencies"],
        "plugin packages": counts["plugin packages"] - counts["kschedctl"],
    }
    instructions = costs["command"].instructions is not None
    unit = "M instructions" if instructions else "ms (best wall)"
    lines = [f"| part | modules | {unit} | share |", "|---|---:|---:|---:|"]
    for label, value in shares:
        shown = value / 1e6 if instructions else value * 1e3
        lines.append(f"| {label} | {added.get(label, '')} | {shown:,.1f} | {100 * value / total:.0f} % |")
    shown_total = total / 1e6 if instructions else total * 1e3
    lines.append(f"| the command | {len(rec.modules)} | {shown_total:,.1f} | 100 % |")
    if not instructions:
        lines.append("")
        lines.append(f"CPU (best): the command {1e3 * (costs['command'].cpu_s or 0):.1f} ms")
    if kube_s is not None and not instructions:
        modules_free, deps_only = ceilings(shares, total, kube_s)
        lines.append(
            f"kube {kube_s:.3f} s: ratio now {kube_s / total:.2f}x; with kschedctl's modules and the plugin packages free "
            f"{modules_free:.2f}x; with only the interpreter and the dependencies left {deps_only:.2f}x"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", default=sys.executable, help="the interpreter to measure (kschedctl installed in it)")
    ap.add_argument("--runs", type=int, default=9, help="fresh processes per program (wall time)")
    ap.add_argument("--instructions", action="store_true", help="count instructions under valgrind instead of timing")
    ap.add_argument("--kube-seconds", type=float, default=None, help="kube-scheduler's time on the same file")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="-- and the kschedctl command's arguments")
    args = ap.parse_args(argv)
    tail = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not tail:
        ap.error("give the command after --, e.g. -- schedule FILE -o json")
    if args.instructions and shutil.which("valgrind") is None:
        ap.error("--instructions needs valgrind on PATH")
    rec = record(args.python, tail)
    commands = {label: [args.python, *prog] for label, prog in programs(rec).items()}
    commands["command"] = [args.python, "-m", "kschedctl", *tail]
    print(report(rec, measure(commands, args.runs, args.instructions), args.kube_seconds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
