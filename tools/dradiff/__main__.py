"""python -m tools.dradiff [-n COUNT] [-s FIRST_SEED] [--only SEED] [--out DIR] [--keep]
python -m tools.dradiff --snapshot FILE [--record DIR]   (a given snapshot, e.g. examples/dra-gpu-cluster.yaml)"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from tools.dradiff.compare import compare_cluster
from tools.dradiff.generate import CATEGORIES, generate


def main() -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.dradiff")
    ap.add_argument("-n", type=int, default=20, help="clusters to try")
    ap.add_argument("-s", type=int, default=1, help="first seed")
    ap.add_argument("--only", type=int, help="replay one seed")
    ap.add_argument("--out", default="/tmp/dradiff")
    ap.add_argument("--keep", action="store_true", help="keep every cluster's files")
    ap.add_argument("--modes", default="sequential,explain")
    ap.add_argument("-c", "--category", default="mixed", choices=sorted(CATEGORIES))
    ap.add_argument("--record", metavar="DIR", help="write the oracle's answers for --only SEED as a test fixture")
    ap.add_argument("--snapshot", metavar="FILE", help="compare (or --record) this snapshot instead of generated ones")
    args = ap.parse_args()
    if args.snapshot:
        return _given(args)
    if args.record:
        from tools.dradiff.compare import record

        seed = args.only if args.only is not None else args.s
        source = (
            f"kschedoracle (kube-scheduler 1.35.4) -mode sequential and -mode explain on tools/dradiff category {args.category} seed {seed}"
        )
        data = record(generate(seed, args.category), Path(args.out) / f"record-{args.category}-{seed}", CATEGORIES[args.category], source)
        target = Path(args.record) / f"{args.category}-{seed}.json"
        target.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        print(target)
        return 0
    seeds = [args.only] if args.only is not None else range(args.s, args.s + args.n)
    failing = 0
    for seed in seeds:
        workdir = Path(args.out) / f"{args.category}-{seed}"
        try:
            diffs = compare_cluster(generate(seed, args.category), workdir, tuple(args.modes.split(",")), CATEGORIES[args.category])
        except Exception as exc:  # noqa: BLE001 - report and go on
            diffs = [f"runner error: {type(exc).__name__}: {exc}"]
        if diffs:
            failing += 1
            (workdir / "diff.txt").write_text("\n".join(diffs) + "\n")
            print(f"seed {seed}: {len(diffs)} difference(s)\n  " + "\n  ".join(d.replace("\n", "\n  ") for d in diffs[:3]))
        elif not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps({"clusters": len(seeds), "differing": failing}))
    return 1 if failing else 0


def _given(args: argparse.Namespace) -> int:
    from tools.dradiff.compare import record
    from tools.dradiff.generate import with_template_claims

    doc = with_template_claims(args.snapshot)
    name = Path(args.snapshot).stem
    workdir = Path(args.out) / name
    if args.record:
        source = (
            f"kschedoracle (kube-scheduler 1.35.4) -mode sequential and -mode explain on {args.snapshot}, "
            f"its pending pods' claims created from their templates first"
        )
        data = record(doc, workdir, "", source)
        target = Path(args.record) / f"{name}.json"
        target.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        print(target)
        return 0
    diffs = compare_cluster(doc, workdir, tuple(args.modes.split(",")))
    print("\n".join(diffs) if diffs else f"{args.snapshot}: no differences")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
