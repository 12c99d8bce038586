"""Pod groups: PlacementScore weights from the profile, group backoff scaled by sqrt(size), and the
1.35 Workload API (spec.workloadRef, GangScheduling Permit wait and its 5-minute timeout).

upstream: framework/runtime RunPlacementScorePlugins (weights of placementScore entries, per the
topology-aware-scheduling docs), backend/queue/backoff_queue.go calculateBackoffDuration(count,
entitySize), gangscheduling.go (1.35 Permit) and waiting_pods_map.go (the timeout message)."""

from __future__ import annotations

import pytest

from kschedctl.backend.queue.scheduling_queue import PriorityQueue
from kschedctl.cluster.loader import ClusterSnapshot, _build, resolve_priorities
from kschedctl.config.loader import load_config_text
from kschedctl.framework.types import PodInfo, QueuedPodInfo
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.scheduler.eventhandlers import add_node_to_cache
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.testing import FakeClock, make_node, make_pod, make_pod_group
from kschedctl.versions import KubeVersion

ZONE = "topology.kubernetes.io/zone"


def scheduler(nodes, pods, objects, version: KubeVersion, config: str = "") -> Scheduler:
    reg = default_registry().registry
    conf = load_config_text(config, "<test>", version, reg)
    cluster = ClusterSnapshot(nodes=[n.obj() for n in nodes], pods=[p.obj() for p in pods])
    for kind, raw in objects:
        _build(kind, raw, cluster.objects)
    resolve_priorities(cluster)
    return Scheduler(cluster, conf, reg, version, seed=1)


# --- 1. PlacementScore weights ---------------------------------------------------------------------
WEIGHTS = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    placementScore:
      enabled:
      - name: PlacementBinPacking
        weight: %d
      - name: PodGroupPodsCount
        weight: %d
"""


@pytest.mark.parametrize(
    "bin_packing,pods_count,zone,nodes",
    [
        # za (one 2-cpu node) holds 2 of the 3 pods, full: bin packing 100, pods count 66.
        # zb (three 4-cpu nodes) holds all 3 at 25%: bin packing 25, pods count 100.
        pytest.param(1, 1, "za", ["a1", "a1"], id="equal-weights-bin-packing-wins"),
        pytest.param(1, 5, "zb", ["b0", "b1", "b2"], id="pods-count-weight-5-wins"),
        pytest.param(3, 1, "za", ["a1", "a1"], id="bin-packing-weight-3-wins"),
        pytest.param(0, 0, "za", ["a1", "a1"], id="weight-0-is-1"),
    ],
)
def test_placement_score_weights_come_from_the_profile(bin_packing, pods_count, zone, nodes):
    # upstream: topology-aware-scheduling docs "Customizing plugin weights" (placementScore entries);
    # framework.go getScoreWeights (0 -> 1) applied to the PlacementScore plugins
    version = KubeVersion("1.37").with_gates(GenericWorkload=True, GangScheduling=True, TopologyAwareWorkloadScheduling=True)
    ns = [make_node("a1").capacity(cpu="2", memory="2Gi").zone("za")] + [
        make_node(f"b{i}").capacity(cpu="4", memory="4Gi").zone("zb") for i in range(3)
    ]
    pods = [make_pod(f"p{i}").req(cpu="1", memory="1Gi").pod_group("g") for i in range(3)]
    s = scheduler(
        ns, pods, [("PodGroup", make_pod_group("g", min_count=2, topology_key=ZONE))], version, WEIGHTS % (bin_packing, pods_count)
    )
    fwk = next(iter(s.profiles.values()))
    assert fwk.placement_score_weights == {"PlacementBinPacking": bin_packing or 1, "PodGroupPodsCount": pods_count or 1}
    r = s.run()
    assert r.to_dict()["podGroups"][0]["placement"] == zone
    assert sorted(p.node for p in r.placements) == nodes


def test_multi_point_weight_applies_to_placement_score():
    # upstream: getScoreWeights reads Score.Enabled then MultiPoint.Enabled; the default profile's
    # PodGroupPodsCount comes from MultiPoint with weight 1
    version = KubeVersion("1.37").with_gates(GenericWorkload=True, GangScheduling=True, TopologyAwareWorkloadScheduling=True)
    config = (
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
        "- schedulerName: default-scheduler\n  plugins:\n    multiPoint:\n      enabled:\n"
        "      - name: PodGroupPodsCount\n        weight: 7\n"
    )
    s = scheduler([], [], [], version, config)
    assert next(iter(s.profiles.values())).placement_score_weights == {"PodGroupPodsCount": 7}


# --- 3. group backoff -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "count,size,want",
    [
        # upstream: backoff_queue.go calculateBackoffDuration: min(1s x 2^(count-1), 10s x sqrt(size))
        pytest.param(5, 1, 10.0, id="single-pod-capped-at-10s"),
        pytest.param(5, 4, 16.0, id="group-of-4-not-capped-yet"),
        pytest.param(6, 4, 20.0, id="group-of-4-capped-at-20s"),
        pytest.param(9, 3, 17.320508075, id="group-of-3-cap-truncated-to-ns"),
        pytest.param(1, 4, 1.0, id="first-failure-1s"),
        pytest.param(0, 4, 0.0, id="never-tried"),
    ],
)
def test_backoff_duration_scales_max_by_sqrt_of_group_size(count, size, want):
    q = PriorityQueue(lambda a, b: False, clock=FakeClock(), pre_enqueue=lambda pod: None)
    assert q.calculate_backoff_duration(count, size) == pytest.approx(want, abs=1e-9)
    qpi = QueuedPodInfo(PodInfo.of(make_pod("p").obj()), timestamp=100.0, unschedulable_count=count, entity_size=size)
    assert q.backoff_duration(qpi) == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("version", ["1.36", "1.37"])
def test_gang_retries_are_backed_off_by_the_group_cap(version):
    # upstream: backoff_queue.go (group entity of 4 pods: cap 20s) with SchedulerPopFromBackoffQ off, so
    # that a pod still backing off is not popped early; tainted nodes joining requeue the member that
    # failed on resources (NodeResourcesFit hint) while the group still cannot fit.
    v = KubeVersion(version).with_gates(GenericWorkload=True, GangScheduling=True, SchedulerPopFromBackoffQ=False)
    ns = [make_node(f"n{i}").capacity(cpu="2", memory="8Gi") for i in range(3)]
    pods = [make_pod(f"p{i}").req(cpu="1500m").pod_group("g") for i in range(4)]
    s = scheduler(ns, pods, [("PodGroup", make_pod_group("g", min_count=4))], v)
    for k, t in enumerate([0.5, 1.5, 3.5, 7.5, 15.5, 31.5, 52.5, 73.5]):
        s.at(t, lambda k=k: add_node_to_cache(s, make_node(f"t{k}").capacity(cpu="2", memory="8Gi").taint("x").obj()))
    r = s.run()
    tries = [e["time"] for e in s.trace if e["event"] == "PodGroupUnschedulable"]
    # Each retry waits for the backoff of the previous failure: 1, 2, 4, 8, 16, then 20 (not 10) and
    # 20 again; a retry happens at the first whole-second flush after the expiry.
    assert tries == [0.0, 1.5, 4.0, 9.0, 18.0, 35.0, 56.0, 77.0]
    assert [b - a for a, b in zip(tries[4:], tries[5:])] == [17.0, 21.0, 21.0]
    assert r.placements == []
    assert all(s.queue.backoff_duration(q) == 20.0 for q in s.queue.unschedulable.values())


# --- 4. 1.35: Workload + spec.workloadRef, Permit wait and timeout ---------------------------------
def workload(min_count: int) -> dict:
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha1",
        "kind": "Workload",
        "metadata": {"name": "job", "namespace": "default"},
        "spec": {"podGroups": [{"name": "workers", "policy": {"gang": {"minCount": min_count}}}]},
    }


def run_135(n_nodes: int):
    v = KubeVersion("1.35").with_gates(GenericWorkload=True, GangScheduling=True)
    ns = [make_node(f"n{i}").capacity(cpu="2", memory="8Gi") for i in range(n_nodes)]
    pods = [make_pod(f"w{i}").req(cpu="1500m").workload_ref("job", "workers") for i in range(3)]
    s = scheduler(ns, pods, [("Workload", workload(3))], v)
    return s, s.run()


def test_135_gang_completes_at_permit():
    # upstream: gangscheduling_test.go (1.35) TestGangScheduling: the pod that reaches minCount allows
    # every waiting pod of its group; all three bind at once
    s, r = run_135(3)
    assert sorted(p.pod for p in r.placements) == ["default/w0", "default/w1", "default/w2"]
    assert len({p.node for p in r.placements}) == 3 and r.unschedulable == []
    assert {e["time"] for e in s.trace if e["event"] == "Scheduled"} == {0.0}


def test_135_gang_times_out_after_5_minutes_at_permit():
    # upstream: gangscheduling.go permitTimeoutDuration (5 min) and waiting_pods_map.go
    # "rejected due to timeout after waiting %v at plugin %v"; the binding cycle reports a rejected
    # Permit as a FitError over the one node (schedule_one.go handleBindingCycleError)
    s, r = run_135(2)
    assert r.placements == []
    timeout = "0/1 nodes are available: 1 rejected due to timeout after waiting 5m0s at plugin GangScheduling."
    assert {u.pod: u.message for u in r.unschedulable} == {f"default/w{i}": timeout for i in range(3)}
    first = [e for e in s.trace if e["event"] == "FailedScheduling" and "timeout" in e["message"]][0]
    assert first["time"] == 300.0  # the two pods that found a node waited exactly 5 minutes
    assert not s.cache.assumed_pods and all(not ni.pods for ni in s.snapshot.list())
