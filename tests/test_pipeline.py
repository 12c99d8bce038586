"""One pipeline: `schedule`, `explain`, `simulate` and pod groups share one find-nodes-and-score
path (SchedulingAlgorithm.schedule_pod), one reserve-and-permit path (schedule_one.reserve_and_permit)
and one map of profiles per run (kschedctl/runtime/profile.py, upstream pkg/scheduler/profile).
"""

from __future__ import annotations

import json
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest

import kschedctl.runtime.framework as framework_module
from kschedctl.cluster.loader import ClusterSnapshot, load_snapshot
from kschedctl.config.loader import load_config_text
from kschedctl.explain.explain import explain_pod
from kschedctl.framework.registry import PluginSpec, Registry
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.runtime import profile
from kschedctl.runtime.services import Services
from kschedctl.scheduler.algorithm import AttemptRecorder
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.testing import make_node, make_pod
from kschedctl.versions import KubeVersion

V = KubeVersion("1.37")
HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


class FancySort:
    def __init__(self, args: Any, handle: Any) -> None:
        pass

    def name(self) -> str:
        return "FancySort"

    def less(self, a: Any, b: Any) -> bool:
        return False


@pytest.fixture(scope="module")
def registry() -> Registry:
    reg = Registry()
    reg.merge(default_registry().registry)
    reg.register(PluginSpec("FancySort", FancySort, FancySort, source="fancy-sort"))
    return reg


def cluster(*objects: Any) -> ClusterSnapshot:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "snapshot.json"
        path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [o.dict() for o in objects]}))
        return load_snapshot([str(path)])


def small_cluster() -> ClusterSnapshot:
    return cluster(
        make_node("n1").capacity(cpu="4", memory="8Gi"),
        make_node("n2").capacity(cpu="2", memory="4Gi"),
        make_node("n3").capacity(cpu="1", memory="1Gi"),
        make_pod("big").req(cpu="3"),
        make_pod("small").req(cpu="500m"),
    )


# --- profile.NewMap -------------------------------------------------------------------------

NEW_MAP = [
    # upstream: profile_test.go TestNewMap "valid"
    ("valid", "profiles:\n- schedulerName: a\n- schedulerName: b\n", None),
    # upstream: profile_test.go TestNewMap "duplicate scheduler name"
    (
        "duplicate-scheduler-name",
        "profiles:\n- schedulerName: a\n- schedulerName: a\n",
        ("profiles[1].schedulerName", 'duplicate profile with scheduler name "a"'),
    ),
    # upstream: profile_test.go TestNewMap "different queue sort"
    (
        "different-queue-sort",
        textwrap.dedent("""\
        profiles:
        - schedulerName: a
        - schedulerName: b
          plugins:
            queueSort:
              disabled: [{name: PrioritySort}]
              enabled: [{name: FancySort}]
        """),
        ("profiles[1].plugins", 'different queue sort plugins for profile "b": "FancySort", first: "PrioritySort"'),
    ),
    # upstream: framework.go NewFramework "at least one bind plugin is needed"
    (
        "no-bind-plugin",
        textwrap.dedent("""\
        profiles:
        - schedulerName: a
          plugins:
            bind:
              disabled: [{name: "*"}]
        """),
        ("profiles[0].plugins", 'at least one bind plugin is needed for profile with scheduler name "a"'),
    ),
]


@pytest.mark.parametrize("body, issue", [c[1:] for c in NEW_MAP], ids=[c[0] for c in NEW_MAP])
def test_new_map(body: str, issue: tuple[str, str] | None, registry: Registry) -> None:
    cfg = load_config_text(HEAD + body, "c.yaml", V, registry)
    if issue is None:
        frameworks = profile.new_map(cfg, registry, Services.minimal(V))
        assert list(frameworks) == ["a", "b"]
        return
    with pytest.raises(profile.ProfileError) as info:
        profile.new_map(cfg, registry, Services.minimal(V))
    assert (info.value.field, info.value.message) == issue
    assert str(info.value) == f"c.yaml: KubeSchedulerConfiguration: {issue[0]}: {issue[1]}"


def test_a_scheduler_refuses_a_profile_that_cannot_be_built(registry: Registry) -> None:
    cfg = load_config_text(HEAD + "profiles:\n- schedulerName: a\n- schedulerName: a\n", "c.yaml", V, registry)
    with pytest.raises(profile.ProfileError, match='duplicate profile with scheduler name "a"'):
        Scheduler(small_cluster(), cfg, registry, V)


@pytest.mark.parametrize("command", ["schedule", "explain", "simulate", "validate"])
def test_each_profile_is_built_once_per_run(command: str, run_cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """The configuration is checked, then each profile's Framework built once, by the run."""
    built: list[str] = []
    init = framework_module.Framework.__init__

    def counting(self: Any, prof: Any, *args: Any) -> None:
        built.append(prof.scheduler_name)
        init(self, prof, *args)

    monkeypatch.setattr(framework_module.Framework, "__init__", counting)
    config = tmp_path / "two.yaml"
    config.write_text(HEAD + "profiles:\n- schedulerName: default-scheduler\n- schedulerName: other\n")
    args = {
        "schedule": ["schedule", "examples/cluster.yaml"],
        "explain": ["explain", "shop/web-7d9f-abcde", "examples/cluster.yaml"],
        "simulate": ["simulate", "examples/scenario-drain.yaml"],
        "validate": ["validate"],
    }[command]
    out = run_cli(*args, "--config", str(config)) if command != "validate" else run_cli(*args, str(config))
    assert out.exit_code == 0, out.stderr
    assert built == ["default-scheduler", "other"]


# --- one find-nodes-and-score path ----------------------------------------------------------


class Recorder(AttemptRecorder):
    def __init__(self) -> None:
        self.seen: list[tuple[str, ...]] = []

    def filtered(self, qpi: Any, state: Any, nodes: Any, feasible: Any, diagnosis: Any, error: Any) -> None:
        self.seen.append(
            ("filtered", qpi.pod.name, ",".join(n.name for n in feasible), ",".join(sorted(diagnosis.node_to_status.node_to_status)))
        )

    def scored(self, qpi: Any, table: Any) -> None:
        self.seen.append(("scored", qpi.pod.name, ",".join(table.names)))

    def chose(self, qpi: Any, result: Any) -> None:
        self.seen.append(("chose", qpi.pod.name, result.suggested_host))


def test_a_recorder_sees_every_attempt_of_a_run(registry: Registry) -> None:
    sched = Scheduler(small_cluster(), load_config_text("", "<default>", V, registry), registry, V, seed=1)
    recorder = Recorder()
    sched.algorithm.recorders.append(recorder)
    result = sched.run()
    placed = {p.pod: p.node for p in result.placements}
    assert placed["default/big"] == "n1"
    # one feasible node: no scores (schedulePod); then every node fits the small pod
    assert recorder.seen == [
        ("filtered", "big", "n1", "n2,n3"),
        ("chose", "big", "n1"),
        ("filtered", "small", "n1,n2,n3", ""),
        ("scored", "small", "n1,n2,n3"),
        ("chose", "small", placed["default/small"]),
    ]


def test_explain_shows_what_the_algorithm_recorded(registry: Registry) -> None:
    """explain's table is schedulePod with find_all: one row per node, in snapshot order, a
    single feasible node scored too; the decision is schedule's."""
    cfg = load_config_text("", "<default>", V, registry)
    res = explain_pod(small_cluster(), "default/big", cfg, registry, V, seed=1)
    assert res.node == "n1"
    rows = {n.name: n for n in res.nodes}
    assert list(rows) == ["n1", "n2", "n3"]
    assert rows["n1"].code == "Success" and rows["n1"].total is not None and rows["n1"].scores
    assert rows["n2"].code == "UnschedulableAndUnresolvable" and rows["n2"].plugin == "NodeResourcesFit"
    assert rows["n2"].reasons == ["Insufficient cpu"] and rows["n2"].scores is None


def test_explain_looks_without_changing_the_run(registry: Registry) -> None:
    """The table's tie-break draws from a copy of the run's random source: the decision is the
    one a Scheduler with the same seed makes."""
    nodes = [make_node(f"n{i}").capacity(cpu="4", memory="8Gi") for i in range(6)]
    cfg = load_config_text("", "<default>", V, registry)
    for seed in range(5):
        res = explain_pod(cluster(*nodes, make_pod("p").req(cpu="1")), "default/p", cfg, registry, V, seed=seed)
        run = Scheduler(cluster(*nodes, make_pod("p").req(cpu="1")), cfg, registry, V, seed=seed).run()
        assert res.node == run.placements[0].node


def test_explain_of_a_pod_group_tries_each_placement_as_schedule_does() -> None:
    """upstream: schedule_one_podgroup.go podGroupSchedulingPlacementAlgorithm: the members are
    tried within each placement's nodes (Snapshot.AssumePlacement); explain runs that very
    cycle, so its members land where `schedule` puts them and see only the placement's nodes."""
    from kschedctl.cluster.loader import _build, resolve_priorities
    from kschedctl.explain.explain import explain_pod_group
    from kschedctl.testing import make_pod_group

    version = KubeVersion("1.37").with_gates(GenericWorkload=True, GangScheduling=True, TopologyAwareWorkloadScheduling=True)
    reg = default_registry().registry
    cfg = load_config_text("", "<default>", version, reg)

    def group_cluster() -> ClusterSnapshot:
        nodes = [make_node("a1").capacity(cpu="2", memory="8Gi").zone("za")] + [
            make_node(f"b{i}").capacity(cpu="2", memory="8Gi").zone("zb") for i in (1, 2, 3)
        ]
        pods = [make_pod(f"p{i}").req(cpu="1500m").pod_group("g") for i in range(3)]
        snap = ClusterSnapshot(nodes=[n.obj() for n in nodes], pods=[p.obj() for p in pods])
        _build("PodGroup", make_pod_group("g", min_count=3, topology_key="topology.kubernetes.io/zone"), snap.objects)
        resolve_priorities(snap)
        return snap

    run = Scheduler(group_cluster(), cfg, reg, version, seed=1).run()
    res = explain_pod_group(group_cluster(), "podgroup/default/g", cfg, reg, version, seed=1)
    assert res.placement == "zb" and res.status == "Success"
    assert {m.pod: m.node for m in res.members} == {p.pod: p.node for p in run.placements}
    for member in res.members:
        assert [n.name for n in member.nodes] == ["b1", "b2", "b3"]
