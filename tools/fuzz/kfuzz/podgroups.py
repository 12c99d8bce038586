"""The podgroups dimension: pod groups through the group cycle (and 1.35's Permit wait).

Each input is a tools/difftest ``gangs`` cluster (gangs that fit or not, basic groups, missing
groups, sometimes priorities and filler pods that members preempt) at 1.35, 1.36 or 1.37 (the
1.36 objects with PodGroup at scheduling.k8s.io/v1beta1), with one or two mutations aimed at
the group code: minCount out of range or of the wrong type, a policy with both or neither of
gang/basic, a member naming a missing or empty group, another profile or no profile, a member
already bound or terminating, a nomination to a missing node, a member duplicated (uid and
name collisions). Through ``schedule -o json`` (twice: the same output), sometimes
``simulate`` and ``explain podgroup/...``, under the contract (kfuzz/contract.py) and, when
nothing was preempted, gang atomicity: of a gang with a valid minCount, either no member is
placed by the run or the placed and already bound members reach minCount.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from pathlib import Path
from typing import Any

from kfuzz.contract import Checker
from kschedctl.testing import GANG_GATES, TWO_PROFILES_CONFIG


def _cluster(rng: random.Random, release: str) -> list[dict]:
    root = str(Path(__file__).resolve().parents[3])
    if root not in sys.path:
        sys.path.insert(0, root)
    from tools.difftest.generate import generate

    objects = copy.deepcopy(generate("gangs", rng.randrange(1, 10**6), "1.35" if release == "1.35" else "1.36").objects)
    if release == "1.37":
        for x in objects:
            if x["kind"] == "PodGroup":
                x["apiVersion"] = "scheduling.k8s.io/v1beta1"
    return objects


def _group_name(pod: dict) -> str | None:
    spec = pod["spec"]
    if "schedulingGroup" in spec:
        return str(spec["schedulingGroup"].get("podGroupName"))
    ref = spec.get("workloadRef")
    return f"{ref.get('name')}-{ref.get('podGroup')}" if ref else None


def _mutate(rng: random.Random, objects: list[dict]) -> str:
    members = [x for x in objects if x["kind"] == "Pod" and _group_name(x) and not x["spec"].get("nodeName")]
    groups = [x for x in objects if x["kind"] in ("PodGroup", "Workload")]
    nodes = [x["metadata"]["name"] for x in objects if x["kind"] == "Node"]
    kind = rng.choice(["minCount", "policy", "group-name", "profile", "bound", "terminating", "nominated", "duplicate"])
    if kind in ("minCount", "policy") and groups:
        g = rng.choice(groups)
        policies = [g["spec"]["schedulingPolicy"]] if g["kind"] == "PodGroup" else [pg["policy"] for pg in g["spec"].get("podGroups", [])]
        policy = rng.choice(policies) if policies else {}
        if kind == "minCount":
            policy.pop("basic", None)
            policy["gang"] = {"minCount": rng.choice([0, -1, 1, 10**6, "3", 2**63, None, 2.5])}
        else:
            policy.clear()
            if rng.random() < 0.5:
                policy.update({"gang": {"minCount": 2}, "basic": {}})
        return kind
    if not members:
        return "none"
    m = rng.choice(members)
    spec = m["spec"]
    if kind == "group-name":
        value = rng.choice(["missing-group", "", None, "UPPER", "x" * 300])
        if "schedulingGroup" in spec:
            spec["schedulingGroup"]["podGroupName"] = value
        else:
            spec["workloadRef"]["podGroup"] = value
    elif kind == "profile":
        spec["schedulerName"] = rng.choice(["other", "no-such-profile"])
    elif kind == "bound":
        spec["nodeName"] = rng.choice([*nodes, "no-such-node"])
        m["status"] = {"phase": "Running", "startTime": m["metadata"]["creationTimestamp"]}
    elif kind == "terminating":
        m["metadata"]["deletionTimestamp"] = m["metadata"]["creationTimestamp"]
        m["metadata"]["deletionGracePeriodSeconds"] = 30
    elif kind == "nominated":
        m.setdefault("status", {})["nominatedNodeName"] = rng.choice([*nodes, "no-such-node"])
    elif kind == "duplicate":
        twin = copy.deepcopy(m)
        if rng.random() < 0.5:
            twin["metadata"]["name"] += "-twin"  # same uid, other name
        else:
            twin["metadata"]["uid"] += "-twin"  # same name, other uid
        objects.append(twin)
    return kind


def _gang_atomicity(checker: Checker, run: Any, objects: list[dict], release: str) -> None:
    data = json.loads(run.stdout)
    if data.get("preemptions"):
        return
    min_counts: dict[str, int] = {}
    for x in objects:
        if x["kind"] == "PodGroup":
            policy = x["spec"].get("schedulingPolicy") or {}
            if "gang" in policy and "basic" not in policy:
                mc = (policy["gang"] or {}).get("minCount")
                if isinstance(mc, int) and not isinstance(mc, bool) and 1 <= mc < 1000:
                    min_counts[f"{x['metadata']['namespace']}/{x['metadata']['name']}"] = mc
        elif x["kind"] == "Workload":
            for pg in x["spec"].get("podGroups", []):
                policy = pg.get("policy") or {}
                mc = (policy.get("gang") or {}).get("minCount")
                if "basic" not in policy and isinstance(mc, int) and not isinstance(mc, bool) and 1 <= mc < 1000:
                    min_counts[f"{x['metadata']['namespace']}/{x['metadata']['name']}-{pg['name']}"] = mc
    placed = {p["pod"] for p in data["placements"]}
    count: dict[str, list[int]] = {}
    for x in objects:
        if x["kind"] != "Pod" or not _group_name(x):
            continue
        key = f"{x['metadata'].get('namespace', 'default')}/{_group_name(x)}"
        c = count.setdefault(key, [0, 0])
        pod = f"{x['metadata'].get('namespace', 'default')}/{x['metadata']['name']}"
        if pod in placed:
            c[0] += 1
        elif x["spec"].get("nodeName") and not x["metadata"].get("deletionTimestamp"):
            c[1] += 1
    for key, mc in min_counts.items():
        new, bound = count.get(key, [0, 0])
        if new and new + bound < mc:
            checker.fail("gang-atomicity", f"{release}: {key} placed {new} (+{bound} bound) of minCount {mc}", run)


def podgroups_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    release = rng.choice(["1.35", "1.36", "1.36", "1.37"])
    objects = _cluster(rng, release)
    kinds = [_mutate(rng, objects) for _ in range(rng.choice([1, 1, 2]))]
    snap = workdir / "podgroups.json"
    snap.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    cfg = workdir / "podgroups-config.yaml"
    cfg.write_text(TWO_PROFILES_CONFIG)
    common = ["--kube-version", release, "--feature-gates", GANG_GATES, "--config", str(cfg)]
    args = ["schedule", str(snap), *common, "-o", "json", "--seed", str(rng.randrange(100))]
    run = checker.run(args)
    if checker.basic(run, "schedule", str(snap)) and run.exit_code == 0:
        checker.schedule_invariants(run, str(snap), lambda: checker.run(args))
        _gang_atomicity(checker, run, objects, release)
        extra = rng.random()
        if extra < 0.25:
            scenario = workdir / "podgroups-scenario.json"
            scenario.write_text(
                json.dumps({"apiVersion": "kschedctl.io/v1alpha1", "kind": "Scenario", "snapshot": snap.name, "events": []})
            )
            sim = ["simulate", str(scenario), *common, "-o", "json", "--seed", "5"]
            first = checker.run(sim)
            if checker.basic(first, "simulate", str(scenario)) and first.exit_code == 0 and checker.run(sim).stdout != first.stdout:
                checker.fail("deterministic", "the same scenario and seed gave different output", first)
        elif extra < 0.45:
            groups = sorted({_group_name(x) for x in objects if x["kind"] == "Pod" and _group_name(x)})
            if groups:
                target = f"podgroup/default/{rng.choice(groups)}"
                checker.basic(checker.run(["explain", target, str(snap), *common, "-o", "json"]), "explain", str(snap))
    return f"podgroups {release} {'+'.join(kinds)}"
