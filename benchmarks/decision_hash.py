"""Hash every decision kschedctl makes on a fixed set of inputs, to show a change keeps them.

    python benchmarks/decision_hash.py            # one line per case, then the overall hash
    python benchmarks/decision_hash.py --suite    # also every decision the e2e tests make
    python benchmarks/decision_hash.py --suite --compare before.txt   # case by case against a saved run

A decision is what the user sees: placements (pod, node, score, attempts), unschedulable pods
with their messages and reasons, preemptions and their victims, skipped pods, pod-group
reports, explain's per-node statuses and scores, and simulate's timeline. The inputs:

* the benchmark workloads (benchmarks/workloads.py) at small sizes, for every emulated release;
* examples/cluster.yaml under every configuration in profiles/, for every release, with
  `schedule`, `explain` of each pending pod, and examples/scenario-drain.yaml with `simulate`;
* with ``--suite``: every Scheduler run and explain made by tests/e2e and the pod-group tests
  (recorded by a pytest plugin in this file), seeded where the test gave no seed.

Same code, same hashes; a refactoring that changes any decision changes a hash.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

VERSIONS = ("1.35", "1.36", "1.37")
GANG_GATES = "GenericWorkload=true,GangScheduling=true"


def digest(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def workload_cases() -> list[tuple[str, Any]]:
    import workloads

    from kschedctl.cluster.loader import load_snapshot
    from kschedctl.config.loader import load_config_file
    from kschedctl.plugins.plugin_manager import default_registry
    from kschedctl.scheduler.scheduler import Scheduler
    from kschedctl.versions import KubeVersion

    registry = default_registry().registry
    out = []
    for name in workloads.WORKLOADS:
        w = workloads.make(name, 120, 60 if name != "Preemption" else 30, seed=3)
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
            json.dump(w.as_list(), fh)
            path = fh.name
        try:
            for v in VERSIONS:
                version = KubeVersion(v)
                cluster = load_snapshot([path])
                cfg = load_config_file(None, version, registry)
                result = Scheduler(cluster, cfg, registry, version, seed=7).run()
                out.append((f"workload {name} {v}", decision_keys(result.to_dict())))
        finally:
            os.unlink(path)
    return out


# What explains a decision without being one, left out so that adding an explanation changes no
# hash: on an explain result (it has "pod" and "nodes"), the pod's state, the note, the run it was
# compared with, the verdict, the ranking (the scores are hashed) and --in-run's attempts; on a
# node's row (it has "filter"), the facts and the other plugins --all-filters finds; on an
# unschedulable entry (it has "message" and "reasons"), the diagnosis next to kube's message.
EXPLAIN_KEYS = frozenset({"state", "stateDetail", "evaluated", "note", "run", "verdict", "ranking", "attempts"})
NODE_ROW_KEYS = frozenset({"details", "alsoRejectedBy"})


def decision_keys(data: Any) -> Any:
    """``data`` without the explanations (see above), at any depth."""
    if isinstance(data, list):
        return [decision_keys(v) for v in data]
    if not isinstance(data, dict):
        return data
    drop: frozenset[str] = frozenset()
    if "pod" in data and "nodes" in data:
        drop = EXPLAIN_KEYS
    elif "filter" in data:
        drop = NODE_ROW_KEYS
    elif "message" in data and "reasons" in data:
        drop = frozenset({"diagnosis"})
    return {k: decision_keys(v) for k, v in data.items() if k not in drop}


def example_cases() -> list[tuple[str, Any]]:
    from kschedctl.cluster.loader import is_pending, load_snapshot
    from kschedctl.cluster.scenario import load_scenario
    from kschedctl.config.loader import load_config_file
    from kschedctl.explain.explain import explain_pod
    from kschedctl.plugins.plugin_manager import default_registry
    from kschedctl.scheduler.scheduler import Scheduler
    from kschedctl.scheduler.simulate import run_scenario
    from kschedctl.versions import parse_version

    registry = default_registry().registry
    cluster_file = str(ROOT / "examples" / "cluster.yaml")
    out: list[tuple[str, Any]] = []
    for profile in sorted((ROOT / "profiles").glob("*.yaml")):
        for v in VERSIONS:
            gates = GANG_GATES if "gang" in profile.name else None
            version = parse_version(v, gates)
            cfg = load_config_file(str(profile), version, registry)
            cluster = load_snapshot([cluster_file])
            result = Scheduler(cluster, cfg, registry, version, seed=5).run()
            out.append((f"schedule {profile.name} {v}", decision_keys(result.to_dict())))
            cluster = load_snapshot([cluster_file])
            for pod in [p for p in cluster.pods if is_pending(p)]:
                try:
                    res = explain_pod(load_snapshot([cluster_file]), pod.key, cfg, registry, version, seed=5)
                    out.append((f"explain {pod.key} {profile.name} {v}", decision_keys(res.to_dict())))
                except Exception as exc:  # noqa: BLE001 - an input error is a decision too
                    out.append((f"explain {pod.key} {profile.name} {v}", f"{type(exc).__name__}: {exc}"))
    for v in VERSIONS:
        version = parse_version(v)
        cfg = load_config_file(None, version, registry)
        res = run_scenario(load_scenario(str(ROOT / "examples" / "scenario-drain.yaml")), cfg, registry, version, seed=5)
        out.append((f"simulate scenario-drain {v}", decision_keys(res.to_dict())))
    return out


# --- the e2e suite, recorded by a pytest plugin --------------------------------------------------

SUITE_TESTS = [
    "tests/e2e",
    "tests/test_pod_groups.py",
    "tests/test_pod_group_weights_backoff.py",
    "tests/test_scheduler_faults.py",
    "tests/test_installed_plugins.py",
]


def suite_cases() -> list[tuple[str, Any]]:
    """Run the suite with this module as a pytest plugin; it appends JSON lines to a file."""
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl", delete=False) as fh:
        record = fh.name
    env = dict(
        os.environ,
        KSCHEDCTL_DECISION_RECORD=record,
        PYTHONPATH=os.pathsep.join([str(ROOT / "benchmarks"), os.environ.get("PYTHONPATH", "")]),
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "decision_hash", "-p", "no:randomly", "-p", "no:cacheprovider", *SUITE_TESTS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    tail = proc.stdout.strip().splitlines()[-1:] if proc.stdout.strip() else ["?"]
    sys.stderr.write(f"suite: {tail[0]}\n")
    out: list[tuple[str, Any]] = []
    with open(record) as fh:
        for line in fh:
            entry = json.loads(line)
            out.append((entry["case"], entry["data"]))
    os.unlink(record)
    return out


def pytest_configure(config: Any) -> None:
    """As a pytest plugin (-p decision_hash): record every run and explain result."""
    path = os.environ.get("KSCHEDCTL_DECISION_RECORD")
    if not path:
        return
    import random

    from kschedctl.explain import explain as explain_mod
    from kschedctl.scheduler import scheduler as sched_mod

    state: dict[str, Any] = {"test": "", "n": 0, "inside_explain": 0}
    sink = open(path, "a")  # noqa: SIM115 - closed at exit

    def write(kind: str, data: Any) -> None:
        state["n"] += 1
        sink.write(json.dumps({"case": f"{state['test']} #{state['n']} {kind}", "data": data}, default=str) + "\n")
        sink.flush()

    init, run = sched_mod.Scheduler.__init__, sched_mod.Scheduler.run

    def seeded_init(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        if kwargs.get("seed") is None and len(args) < 5:
            self.rng.seed(0)  # an unseeded test run: make its tie-breaking repeatable

    def recorded_run(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = run(self, *args, **kwargs)
        if not state["inside_explain"]:  # a run explain makes (to compare) is part of its result
            write("run", decision_keys(result.to_dict()))
        return result

    sched_mod.Scheduler.__init__ = seeded_init  # type: ignore[method-assign]
    sched_mod.Scheduler.run = recorded_run  # type: ignore[method-assign]
    for fn_name in ("explain_pod", "explain_pod_group"):
        real = getattr(explain_mod, fn_name)

        def wrapped(*args: Any, _real: Any = real, _name: str = fn_name, **kwargs: Any) -> Any:
            state["inside_explain"] += 1
            try:
                result = _real(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001
                write(_name, f"{type(exc).__name__}: {exc}")
                raise
            finally:
                state["inside_explain"] -= 1
            write(_name, decision_keys(result.to_dict()))
            return result

        setattr(explain_mod, fn_name, wrapped)
    config._decision_state = state  # type: ignore[attr-defined]
    _ = random  # the module is imported for the seeding above


def pytest_runtest_setup(item: Any) -> None:
    state = getattr(item.config, "_decision_state", None)
    if state is not None:
        state["test"], state["n"] = item.nodeid, 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", action="store_true", help="also hash every decision the e2e tests make")
    ap.add_argument("--quiet", action="store_true", help="print only the overall hash")
    ap.add_argument(
        "--compare",
        metavar="FILE",
        help="a saved output of this script: report the cases that differ (cases only one side has are listed, not failures)",
    )
    args = ap.parse_args(argv)
    cases = workload_cases() + example_cases()
    if args.suite:
        cases += suite_cases()
    total = hashlib.sha256()
    for name, data in cases:
        h = digest(data)
        total.update(f"{name}={h}\n".encode())
        if not args.quiet:
            print(f"{h}  {name}")
    print(f"{total.hexdigest()[:16]}  TOTAL ({len(cases)} cases)")
    if args.compare:
        return compare(args.compare, {name: digest(data) for name, data in cases})
    return 0


def compare(path: str, now: dict[str, str]) -> int:
    """1 when a case both runs have hashes differently."""
    before = {}
    for line in Path(path).read_text().splitlines():
        h, _, name = line.partition("  ")
        if name and not name.startswith("TOTAL"):
            before[name] = h
    common = sorted(set(before) & set(now))
    differ = [n for n in common if before[n] != now[n]]
    print(f"compared {len(common)} cases: {len(differ)} differ; {len(set(now) - set(before))} new, {len(set(before) - set(now))} gone")
    for name in differ:
        print(f"DIFFERS  {name}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
