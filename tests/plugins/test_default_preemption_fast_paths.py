"""The dry-run shortcuts of DefaultPreemption decide exactly as the plain SelectVictimsOnNode.

No upstream table: upstream's dry run (default_preemption.go SelectVictimsOnNode) always runs
AddPod/RemovePod and every Filter; kschedctl skips work that cannot change the outcome (no
PreFilter extensions active, a NodeResourcesFit rejection decides a reprieve, resource-only
reprieves when the other active filters read only the Node). These cases schedule whole
clusters with and without the shortcuts (``DefaultPreemption.dry_run_shortcuts``) and compare
placements, unschedulable messages and preemptions.
"""

from __future__ import annotations

import json
import random

import pytest

from kschedctl.cluster.loader import load_snapshot
from kschedctl.config.loader import load_config_file
from kschedctl.plugins.default_preemption.plugin import DefaultPreemption
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.versions import KubeVersion

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def _node(i: int, rng: random.Random) -> dict:
    alloc = {"cpu": rng.choice(["2", "4"]), "memory": rng.choice(["4Gi", "8Gi"]), "pods": str(rng.choice([4, 110]))}
    spec = {"taints": [{"key": "t", "value": "x", "effect": "NoSchedule"}]} if i % 7 == 0 else {}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": f"n{i}", "labels": {HOST: f"n{i}", ZONE: f"z{i % 3}"}},
        "spec": spec,
        "status": {"capacity": dict(alloc), "allocatable": alloc},
    }


def _pod(name: str, rng: random.Random, node: str | None, prios: list[int], rich: bool) -> dict:
    app = f"a{rng.randrange(4)}"
    spec: dict = {
        "containers": [
            {
                "name": "c",
                "image": "pause",
                "resources": {"requests": {"cpu": rng.choice(["300m", "900m", "1500m"]), "memory": rng.choice(["512Mi", "2Gi"])}},
            }
        ],
        "priorityClassName": f"p{rng.choice(prios)}",
    }
    if node:
        spec["nodeName"] = node
    r = rng.random()
    if rich and r < 0.15:
        spec["affinity"] = {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": HOST}]
            }
        }
    elif rich and r < 0.3:
        spec["topologySpreadConstraints"] = [
            {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": app}}}
        ]
    elif rich and r < 0.4:
        spec["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 80}]
    if rng.random() < 0.1:
        spec["nodeSelector"] = {ZONE: f"z{rng.randrange(3)}"}
    status = {"phase": "Running", "startTime": f"2024-01-01T00:00:{rng.randrange(60):02d}Z"} if node else {"phase": "Pending"}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "spec": spec,
        "status": status,
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "labels": {"app": app}},
    }


def _cluster(tmp_path, seed: int, rich: bool) -> object:
    rng = random.Random(seed)
    items: list[dict] = [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": f"p{v}"}, "value": v}
        for v in (0, 10, 100, 1000)
    ]
    nodes = 12
    items += [_node(i, rng) for i in range(nodes)]
    items += [_pod(f"low-{i}", rng, f"n{rng.randrange(nodes)}", [0, 10, 100], rich) for i in range(nodes * 3)]
    items += [_pod(f"high-{i}", rng, None, [10, 100, 1000], rich) for i in range(30)]
    items.append(
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "pdb", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "a0"}}},
            "status": {"disruptionsAllowed": 1},
        }
    )
    path = tmp_path / f"c{seed}.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return load_snapshot([str(path)])


def _run(tmp_path, seed: int, rich: bool) -> list:
    v = KubeVersion()
    reg = default_registry().registry
    d = Scheduler(_cluster(tmp_path, seed, rich), load_config_file(None, v, reg), reg, v, seed=1).run().to_dict()
    return [d["placements"], d["unschedulable"], d["preemptions"]]


@pytest.mark.parametrize(
    "seed,rich",
    [
        pytest.param(1, False, id="resources-only-filters-seed1"),
        pytest.param(2, False, id="resources-only-filters-seed2"),
        pytest.param(3, True, id="affinity-spread-ports-seed3"),
        pytest.param(4, True, id="affinity-spread-ports-seed4"),
        pytest.param(5, True, id="affinity-spread-ports-seed5"),
        pytest.param(6, True, id="affinity-spread-ports-seed6"),
    ],
)
def test_shortcuts_decide_as_the_full_dry_run(tmp_path, monkeypatch, seed, rich):
    fast = _run(tmp_path, seed, rich)
    monkeypatch.setattr(DefaultPreemption, "dry_run_shortcuts", False)
    slow = _run(tmp_path, seed, rich)
    assert fast[2], "the case must preempt"
    assert fast == slow


# --- select_victims_without_copy against the general SelectVictimsOnNode ------------------------


def _pdbs(rng: random.Random) -> list[dict]:
    """A few PDBs over the apps, with 0-2 disruptions allowed, some listing disrupted pods."""
    out = []
    for i in range(rng.randrange(0, 4)):
        status: dict = {"disruptionsAllowed": rng.randrange(0, 3)}
        if rng.random() < 0.3:
            status["disruptedPods"] = {f"low-{rng.randrange(36)}": "2024-01-01T00:00:00Z"}
        out.append(
            {
                "apiVersion": "policy/v1",
                "kind": "PodDisruptionBudget",
                "metadata": {"name": f"pdb{i}", "namespace": "default"},
                "spec": {"selector": {"matchLabels": {"app": f"a{rng.randrange(4)}"}}},
                "status": status,
            }
        )
    return out


def _with_gpus(items: list[dict], rng: random.Random) -> None:
    """Half the nodes offer an extended resource, some pods ask for one (Fit's scalar checks)."""
    for obj in items:
        if obj["kind"] == "Node" and rng.random() < 0.5:
            for key in ("capacity", "allocatable"):
                obj["status"][key]["example.com/gpu"] = str(rng.randrange(1, 3))
        elif obj["kind"] == "Pod" and rng.random() < 0.4:
            res = obj["spec"]["containers"][0]["resources"]
            res["requests"]["example.com/gpu"] = "1"
            res["limits"] = {"example.com/gpu": "1"}


def _with_volumes(items: list[dict], rng: random.Random) -> None:
    """Most pods get a bound claim (CSI PVs, some in a zone, some with node affinity), most
    nodes a CSINode with an attach limit of 1 or 2 or none: VolumeBinding, VolumeZone and
    NodeVolumeLimits are active Filters, NodeVolumeLimits reading the node's pods on some nodes."""
    driver = "ebs.csi.aws.com"
    nodes = [obj["metadata"]["name"] for obj in items if obj["kind"] == "Node"]
    for name in nodes:
        if rng.random() < 0.7:
            entry: dict = {"name": driver, "nodeID": name}
            if rng.random() < 0.6:
                entry["allocatable"] = {"count": rng.randrange(1, 3)}
            items.append({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": name}, "spec": {"drivers": [entry]}})
    claims = []
    for i in range(30):
        meta: dict = {"name": f"pv-{i}"}
        if rng.random() < 0.3:
            meta["labels"] = {ZONE: f"z{rng.randrange(3)}"}
        pv_spec: dict = {
            "accessModes": ["ReadOnlyMany"],
            "capacity": {"storage": "1Gi"},
            "claimRef": {"kind": "PersistentVolumeClaim", "namespace": "default", "name": f"pvc-{i}"},
            "csi": {"driver": driver, "volumeHandle": f"h-{i}"},
        }
        if rng.random() < 0.15:
            term = {"matchExpressions": [{"key": HOST, "operator": "In", "values": rng.sample(nodes, 4)}]}
            pv_spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [term]}}
        items.append({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": meta, "spec": pv_spec, "status": {"phase": "Bound"}})
        items.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {"name": f"pvc-{i}", "namespace": "default", "annotations": {"pv.kubernetes.io/bind-completed": "true"}},
                "spec": {"accessModes": ["ReadOnlyMany"], "resources": {"requests": {"storage": "1Gi"}}, "volumeName": f"pv-{i}"},
                "status": {"phase": "Bound"},
            }
        )
        claims.append(f"pvc-{i}")
    for obj in items:
        if obj["kind"] == "Pod" and rng.random() < 0.7:
            obj["spec"]["volumes"] = [{"name": "v", "persistentVolumeClaim": {"claimName": rng.choice(claims)}}]


def _shadowed_run(
    tmp_path, seed: int, monkeypatch, gpus: bool = False, rich: bool = False, volumes: bool = False
) -> tuple[int, int, int, int]:
    """Schedules a random cluster; every no-copy answer is checked against the general path on
    copies with the shortcuts off (victims in order, PDB violations, status and its plugin).
    Returns (answers compared, nodes that fell back to the general path, compared answers that
    were a rejection: a node where the pod does not fit even without its lower-priority pods,
    unworded "cannot help" answers checked to be no success there)."""
    general = DefaultPreemption.select_victims_on_node
    without_copy = DefaultPreemption.select_victims_without_copy
    counts = [0, 0, 0, 0]

    def shadow(self, state, pod, node_info, pdbs, word_rejection=True):
        answer = without_copy(self, state, pod, node_info, pdbs, word_rejection)
        if answer is None:
            counts[1] += 1
            return None
        returned = answer
        self.dry_run_shortcuts = False
        try:
            expected = general(self, state.clone(), pod, node_info.clone(), pdbs)
        finally:
            del self.dry_run_shortcuts
        if answer[2] is None:  # "cannot help", not worded: the general path must not succeed
            assert not word_rejection and answer[:2] == ([], 0), node_info.name
            assert not expected[2].is_success(), node_info.name
            counts[3] += 1
            answer = without_copy(self, state, pod, node_info, pdbs, True)
            if answer is None:  # the words come from the general path
                return returned
        got_victims, got_violations, got_status = answer
        want_victims, want_violations, want_status = expected
        assert [p.uid for p in got_victims] == [p.uid for p in want_victims], node_info.name
        assert got_violations == want_violations, node_info.name
        assert (got_status.code, got_status.message(), got_status.plugin) == (
            want_status.code,
            want_status.message(),
            want_status.plugin,
        ), node_info.name
        counts[0] += 1
        counts[2] += not got_status.is_success()
        return returned

    monkeypatch.setattr(DefaultPreemption, "select_victims_without_copy", shadow)
    rng = random.Random(seed)
    items: list[dict] = [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": f"p{v}"}, "value": v}
        for v in (0, 10, 100, 1000)
    ]
    nodes = 12
    items += [_node(i, rng) for i in range(nodes)]
    low = [_pod(f"low-{i}", rng, f"n{rng.randrange(nodes)}", [0, 10, 100], rich) for i in range(nodes * 3)]
    for p in low:
        if rng.random() < 0.2:
            del p["status"]["startTime"]  # started "now": after every recorded start
    items += low
    items += [_pod(f"high-{i}", rng, None, [10, 100, 1000], rich) for i in range(30)]
    items += _pdbs(rng)
    if gpus:
        _with_gpus(items, rng)
    if volumes:
        _with_volumes(items, rng)
    path = tmp_path / f"s{seed}.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    v = KubeVersion()
    reg = default_registry().registry
    Scheduler(load_snapshot([str(path)]), load_config_file(None, v, reg), reg, v, seed=1).run()
    return counts[0], counts[1], counts[2], counts[3]


@pytest.mark.parametrize(
    "seed,gpus",
    [pytest.param(s, False, id=f"random-nodes-pods-pdbs-seed{s}") for s in range(10, 18)]
    + [pytest.param(s, True, id=f"extended-resources-seed{s}") for s in range(20, 24)],
)
def test_without_copy_selects_as_the_general_path(tmp_path, monkeypatch, seed, gpus):
    compared, _, rejected, _ = _shadowed_run(tmp_path, seed, monkeypatch, gpus)
    assert compared > 0, "the no-copy path must answer some nodes"
    if not gpus:
        assert rejected > 0, "the no-copy path must word some rejections"


@pytest.mark.parametrize("seed", [pytest.param(s, id=f"affinity-spread-ports-seed{s}") for s in range(30, 34)])
def test_unworded_cannot_help_holds_for_any_plan(tmp_path, monkeypatch, seed):
    """With filters that read pods (inter-pod affinity, spread, host ports) the dry run still
    drops, without copies or words, a node that NodeResourcesFit rejects even without its
    lower-priority pods; the general path on copies must agree that such a node cannot help."""
    _, _, _, unworded = _shadowed_run(tmp_path, seed, monkeypatch, rich=True)
    assert unworded > 0, "the case must drop some node unworded"


@pytest.mark.parametrize("seed", [pytest.param(s, id=f"volumes-seed{s}") for s in range(40, 46)])
def test_without_copy_selects_as_the_general_path_beside_volume_filters(tmp_path, monkeypatch, seed):
    """With a pod's claims, VolumeBinding and VolumeZone (node-only) and NodeVolumeLimits (pods
    read only where the node has a limit for the pod's volumes) are active: the no-copy answers
    on the nodes where only Fit reads the pods equal the general path's, words included."""
    compared, fell_back, rejected, _ = _shadowed_run(tmp_path, seed, monkeypatch, volumes=True)
    assert compared > 0, "the no-copy path must answer some nodes"
    assert rejected > 0, "the no-copy path must word some rejections"


@pytest.mark.parametrize(("pods_allowed", "expected"), [(3, [False, True, False]), (4, [True, True, True]), (110, [True, True, True])])
def test_fits_stand_ins_are_judged_as_the_node_they_stand_for(pods_allowed, expected):
    """The dry run's stand-ins (_Usage: a node's requests and pod count as pods leave and come
    back; _WithNominated: the same plus the nominated pods) are judged by NodeResourcesFit's own
    Filter. Each must answer (not None, which sends the dry run down its slow path) and answer
    as the NodeInfo changed the same way: the pod count decides at 3 and 4 pods allowed."""
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo
    from kschedctl.plugins.default_preemption.plugin import _fits, _Usage, _WithNominated
    from kschedctl.plugins.node_resources import NodeResourcesFit
    from kschedctl.testing import make_node, make_pod, new_framework

    node = make_node("n").capacity(cpu="4", memory="8Gi", pods=pods_allowed).obj()
    bound = [PodInfo.of(make_pod(f"b{i}").req(cpu="500m", memory="1Gi").obj()) for i in range(3)]
    nominated = PodInfo.of(make_pod("nom").req(cpu="1", memory="1Gi").obj())
    pod = make_pod("p").req(cpu="1", memory="1Gi").obj()
    fit = NodeResourcesFit(None, new_framework().handle)
    state = CycleState()
    fit.pre_filter(state, pod, [])

    def verdict(info):
        st = fit.filter(state, pod, info)
        return st is None or st.code.name == "Success"

    usage = _Usage(NodeInfo(node, bound))
    got = [_fits(fit, state, pod, usage)]
    usage.change(bound[0].requests, -1)
    got.append(_fits(fit, state, pod, usage))
    got.append(_fits(fit, state, pod, _WithNominated(usage, nominated.requests, 1)))
    assert got == [verdict(NodeInfo(node, bound)), verdict(NodeInfo(node, bound[1:])), verdict(NodeInfo(node, [*bound[1:], nominated]))]
    assert got == expected
