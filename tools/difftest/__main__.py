"""Differential runner: kschedctl --kube-version R against the real kube-scheduler R (1.35.4 or 1.36.2).

    python -m tools.difftest                          # every category, 20 clusters each, 1.35
    python -m tools.difftest --oracle-version 1.36    # the same against kube-scheduler 1.36.2
    python -m tools.difftest -c spread -n 100 -s 7    # one category, 100 clusters from seed 7
    python -m tools.difftest -c taints --only 12      # one cluster (seed 12), kept in --out

Needs the kschedoracle binary of the release (--oracle, or KSCHEDORACLE_135 / KSCHEDORACLE_136,
else /opt/kschedoracle/135|136/kschedoracle; see ../shared/oracle/README.md and
../shared/oracle136/README.md) and kschedctl installed in this Python. Not part of the test suite: CI never needs Go. Each cluster
that differs is written to --out (snapshot.json, config.yaml, the two outputs, diff.txt) so that
the difference can be replayed and pinned as a test.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from . import compare, explain_sampling, ksched, oracle
from .generate import GENERATORS, SKIPPED, Case, generate


@dataclass
class CaseResult:
    case: str
    pods: dict[str, int] = field(default_factory=dict)  # mode -> pod attempts / pods compared
    diffs: list[compare.Difference] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str = ""


def _write(case: Case, where: Path) -> tuple[Path, Path, Path]:
    where.mkdir(parents=True, exist_ok=True)
    snap = where / "snapshot.json"
    snap.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": case.objects}, indent=1))
    cfg = where / "config.yaml"
    cfg.write_text(json.dumps(case.config, indent=1))
    scenario = where / "scenario.json"
    scenario.write_text(json.dumps({"apiVersion": "kschedctl.io/v1alpha1", "kind": "Scenario", "snapshot": "snapshot.json", "events": []}))
    return snap, cfg, scenario


def _ks_args(case: Case, cfg: Path) -> list[str]:
    """kschedctl's options for a case. ``--seed`` (the case's): without it every run draws its
    own random source, so DefaultPreemption's random start node (kube's too) could make
    `schedule` and `simulate` pick different ones of tied candidates and disagree.
    ``--instant-preemption``: the harness removes a cycle's victims from its cache as soon as
    the cycle ends (no informer, no kubelet), so kschedctl compares with victims gone at once."""
    args = ["--config", str(cfg), "--kube-version", case.release, "-o", "json", "--seed", str(case.seed), "--instant-preemption"]
    if case.gates:
        args += ["--feature-gates", case.gates]
    return args


def _no_score_profiles(orc: dict) -> set[str]:
    return {name for name, points in (orc.get("profiles") or {}).items() if not points.get("score")}


def run_case(case: Case, oracle_bin: str, where: Path, keep: bool = False) -> CaseResult:
    res = CaseResult(case.name)
    snap, cfg, scenario = _write(case, where)
    dumps: dict[str, object] = {}
    for mode in case.modes:
        if mode in ("sequential", "sample"):
            orc = oracle.run(oracle_bin, "sequential", snap, cfg, case.gates, sample=mode == "sample")
            oracle.check_release(orc, case.release)
            sim, err = ksched.run_json(["simulate", str(scenario), *_ks_args(case, cfg)])
            dumps[f"kube-{mode}.json"], dumps[f"kschedctl-{mode}.json"] = orc, sim
            if sim is None:
                res.diffs.append(compare.Difference(mode, "*", "kschedctl failed", "ok", err))
                continue
            out = compare.compare_sequential(mode, orc, sim)
            res.pods[mode] = out.compared
            res.notes += out.notes
            if out.diff:
                res.diffs.append(out.diff)
                continue
            final, err = ksched.run_json(["schedule", str(snap), *_ks_args(case, cfg)])
            d = (
                compare.compare_final(sim, final)
                if final is not None
                else compare.Difference("schedule", "*", "kschedctl failed", "ok", err)
            )
            if d:
                res.diffs.append(d)
        elif mode == "explain-sampling":
            res.diffs += explain_sampling.run(case, oracle_bin, snap, cfg, _ks_args(case, cfg), dumps, res.pods, res.notes)
        elif mode == "explain":
            sample = sum(1 for x in case.objects if x["kind"] == "Node") >= 100
            orc = oracle.run(oracle_bin, "explain", snap, cfg, case.gates, sample=sample)
            oracle.check_release(orc, case.release)
            dumps["kube-explain.json"] = orc
            no_score = _no_score_profiles(orc)
            count, explained = 0, {}
            for rec in orc["pods"]:
                if rec["outcome"] in ("Gated", "NoProfile"):
                    continue
                if count >= case.explain_limit:
                    break
                k, err = ksched.run_json(["explain", rec["pod"], str(snap), *_ks_args(case, cfg)])
                explained[rec["pod"]] = k if k is not None else err
                if k is None:
                    res.diffs.append(compare.Difference("explain", rec["pod"], "kschedctl failed", "ok", err))
                    break
                d = compare.compare_explain(rec, k, no_score)
                if d:
                    res.diffs.append(d)
                    break
                count += 1
            res.pods["explain"] = count
            dumps["kschedctl-explain.json"] = explained
    if res.diffs or keep:
        for name, data in dumps.items():
            (where / name).write_text(json.dumps(data, indent=1))
        if res.diffs:
            (where / "diff.txt").write_text("\n".join(d.line() for d in res.diffs) + "\n")
    else:
        shutil.rmtree(where, ignore_errors=True)
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.difftest", description=__doc__.splitlines()[0])
    ap.add_argument("-c", "--category", action="append", choices=sorted(GENERATORS), help="category (repeatable; default: all)")
    ap.add_argument("-n", "--clusters", type=int, default=20, help="clusters per category")
    ap.add_argument("-s", "--seed", type=int, default=1, help="first seed")
    ap.add_argument("--only", type=int, help="run this one seed")
    ap.add_argument(
        "--oracle-version",
        choices=oracle.RELEASES,
        default=oracle.DEFAULT_RELEASE,
        help="kube-scheduler release of the oracle; kschedctl runs --kube-version of the same",
    )
    ap.add_argument(
        "--oracle",
        help="kschedoracle binary of that release (default: KSCHEDORACLE_135 / "
        "KSCHEDORACLE_136, else /opt/kschedoracle/135|136/kschedoracle)",
    )
    ap.add_argument("--out", default="/tmp/difftest", help="where differing clusters are kept (under a folder per release)")
    ap.add_argument(
        "--tie-rule",
        choices=["lowest", "kschedctl"],
        default="lowest",
        help="lowest: kschedctl breaks equal best totals by lowest node name, as the oracle",
    )
    ap.add_argument("--keep", action="store_true", help="keep every cluster's files, not only differing ones")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args(argv)
    if args.tie_rule == "kschedctl":
        ksched.TIE_RULE = "kschedctl"
        compare.LOWEST_NAME_TIES = False
    release = args.oracle_version
    oracle_bin = args.oracle or oracle.default_oracle(release)
    cats = args.category or sorted(GENERATORS)
    seeds = [args.only] if args.only is not None else list(range(args.seed, args.seed + args.clusters))
    out = Path(args.out) / release  # one tree per release: runs at both never overwrite
    summary: dict[str, dict[str, int]] = {}
    failed = 0
    print(f"kube-scheduler {release}: {oracle_bin}; kschedctl --kube-version {release}")
    for cat in cats:
        if (cat, release) in SKIPPED:
            print(f"{cat}: skipped at {release}: {SKIPPED[cat, release]}")
            continue
        s = summary.setdefault(cat, {"clusters": 0, "differ": 0, "errors": 0})
        t0 = time.time()
        for seed in seeds:
            case = generate(cat, seed, release)
            try:
                res = run_case(case, oracle_bin, out / case.name, args.keep)
            except Exception as exc:  # noqa: BLE001 - a harness failure is reported, the run goes on
                s["errors"] += 1
                print(f"{case.name}: harness error: {exc}", file=sys.stderr)
                if not args.quiet:
                    traceback.print_exc()
                continue
            s["clusters"] += 1
            for mode, n in res.pods.items():
                s[f"pods:{mode}"] = s.get(f"pods:{mode}", 0) + n
            if res.diffs:
                s["differ"] += 1
                failed += 1
                print(f"{case.name}: DIFFERENT (kept in {out / case.name})")
                for d in res.diffs:
                    print("  " + d.line().replace("\n", "\n  "))
            elif not args.quiet:
                print(
                    f"{case.name}: same ({', '.join(f'{m} {n}' for m, n in res.pods.items())})"
                    + (f"; {'; '.join(res.notes)}" if res.notes else "")
                )
        s["seconds"] = int(time.time() - t0)
    print(f"\nsummary ({release})")
    for cat, s in summary.items():
        print(f"  {cat:13s} " + ", ".join(f"{k} {v}" for k, v in s.items()))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
