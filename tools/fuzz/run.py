"""The long fuzz run: thousands of mutated inputs through kschedctl, every contract break listed.

    python tools/fuzz/run.py --count 10000 --seed 1          # the long run (about 15-30 minutes)
    python tools/fuzz/run.py --count 200 --dimension config   # one dimension only
    python tools/fuzz/run.py --replay 4711 --seed 1           # input 4711 again, alone, files kept
    python tools/fuzz/run.py --count 500 --dimension plugin   # a misbehaving plugin package
    python tools/fuzz/run.py --count 300 --dimension plugin-process   # ... acting on the process

Exit 0 when no input broke the contract, 1 otherwise (each break printed with its input).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from kfuzz.runner import DIMENSIONS, OPTIONAL_DIMENSIONS, Report, fuzz, replay  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds a run may take before it is a hang")
    ap.add_argument("--dimension", action="append", choices=sorted({**DIMENSIONS, **OPTIONAL_DIMENSIONS}))
    ap.add_argument("--replay", type=int, help="run one input of the seed again, keeping its files")
    ap.add_argument("--memory-gib", type=float, default=4.0, help="address-space limit of the process")
    args = ap.parse_args(argv)
    limit = int(args.memory_gib * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    if args.replay is not None:
        workdir = Path(tempfile.mkdtemp(prefix="kfuzz-replay-"))
        description, breaks = replay(args.seed, args.replay, workdir, args.timeout, args.dimension)
        print(f"input {args.replay}: {description}\nfiles: {workdir}")
        for b in breaks:
            print(b)
        return 1 if breaks else 0

    shown = 0

    def progress(i: int, report: Report) -> None:
        nonlocal shown
        for failure in report.failures[shown:]:  # as they happen: a long run can be watched
            print(f"BREAK {failure.splitlines()[0]}", file=sys.stderr, flush=True)
        shown = len(report.failures)
        if (i + 1) % 500 == 0:
            print(f"... {i + 1} inputs, {len(report.failures)} break(s)", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="kfuzz-") as tmp:
        report = fuzz(args.count, args.seed, Path(tmp), args.timeout, args.dimension, progress)
    for failure in report.failures:
        print(failure, end="\n\n")
    print(report.summary())
    return 1 if report.failures else 0


if __name__ == "__main__":
    os.environ.setdefault("COLUMNS", "120")
    raise SystemExit(main())
