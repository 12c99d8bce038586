"""Coscheduling through kschedctl's Scheduler: a scheduler-plugins PodGroup placed whole or held.

Cases follow kubernetes-sigs/scheduler-plugins pkg/coscheduling/coscheduling_test.go
(TestPermit, TestPostFilter, TestLess) and core/core_test.go (TestPreFilter)."""

from __future__ import annotations

import pytest

from kschedctl.cluster.loader import ClusterSnapshot, _build, resolve_priorities
from kschedctl.config.loader import load_config_text
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.testing import make_node, make_pod
from kschedctl.versions import KubeVersion

CONFIG = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    plugins:
      multiPoint:
        enabled: [{name: Coscheduling}]
      queueSort:
        disabled: [{name: "*"}]
        enabled: [{name: Coscheduling}]
"""


def pod_group(name: str, min_member: int, timeout: int | None = None) -> dict:
    spec: dict = {"minMember": min_member}
    if timeout is not None:
        spec["scheduleTimeoutSeconds"] = timeout
    return {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


def run(nodes, pods, groups):
    version = KubeVersion()
    registry = default_registry().registry
    conf = load_config_text(CONFIG, "<test>", version, registry)
    cluster = ClusterSnapshot(nodes=[n.obj() for n in nodes], pods=[p.obj() for p in pods])
    for g in groups:
        _build("PodGroup", g, cluster.objects)
    resolve_priorities(cluster)
    return Scheduler(cluster, conf, registry, version, seed=1).run()


def member(name: str, group: str = "pg1", cpu: str = "1"):
    return make_pod(name).req(cpu=cpu).label("scheduling.x-k8s.io/pod-group", group)


@pytest.mark.parametrize(
    "n_nodes,min_member,want_scheduled",
    [
        # upstream: coscheduling_test.go TestPermit "pods belong to a podGroup, Allow"
        pytest.param(3, 3, 3, id="group-fits-all-placed"),
    ],
)
def test_gang_all_or_nothing(n_nodes, min_member, want_scheduled):
    nodes = [make_node(f"n{i}").capacity(cpu="1", memory="4Gi") for i in range(n_nodes)]
    result = run(nodes, [member(f"p{i}") for i in range(3)], [pod_group("pg1", min_member, timeout=10)])
    assert len(result.placements) == want_scheduled
    assert len(result.unschedulable) == 3 - want_scheduled


def test_prefilter_rejects_group_below_min_member():
    # upstream: core_test.go TestPreFilter "pod belongs to a podGroup with less than minMember pods"
    nodes = [make_node("n0").capacity(cpu="8", memory="8Gi")]
    result = run(nodes, [member("p0"), member("p1")], [pod_group("pg1", 3)])
    assert not result.placements
    msgs = {u.pod: u.message for u in result.unschedulable}
    assert "pre-filter pod p0 cannot find enough sibling pods, current pods number: 2, minMember of group: 3" in msgs["default/p0"]


def test_pods_without_group_schedule_normally():
    # upstream: coscheduling_test.go TestPermit "pod does not belong to any podGroup"
    nodes = [make_node("n0").capacity(cpu="8", memory="8Gi")]
    result = run(nodes, [make_pod("solo").req(cpu="1")], [])
    assert [p.node for p in result.placements] == ["n0"]


def test_less_keeps_group_members_together():
    # upstream: coscheduling_test.go TestLess "equal priority, sorted by podGroup creation time"
    from kschedctl.api.objects import ClusterObjects
    from kschedctl.framework.types import PodInfo, QueuedPodInfo
    from kschedctl.testing import new_framework

    objects = ClusterObjects()
    early, late = pod_group("early", 1), pod_group("late", 1)
    early["metadata"]["creationTimestamp"] = "2024-01-01T00:00:00Z"
    late["metadata"]["creationTimestamp"] = "2024-01-02T00:00:00Z"
    _build("PodGroup", early, objects)
    _build("PodGroup", late, objects)
    fwk = new_framework(CONFIG, objects=objects)
    pl = fwk.instances["Coscheduling"]
    a = QueuedPodInfo(PodInfo.of(member("z", "early").obj()), timestamp=5)
    b = QueuedPodInfo(PodInfo.of(member("a", "late").obj()), timestamp=1)
    assert pl.less(a, b) and not pl.less(b, a)
