"""Behaviours of the real kube-scheduler 1.35.4, observed by running it in-process on the same
snapshot files (the differential harness, tools/difftest; modes named per case), pinned through
the CLI. Each case names the upstream source it comes from and the emulated releases where the
same source holds (1.36/1.37 read in the upstream repository).
"""

from __future__ import annotations

import pytest

from kschedctl.testing import GANG_GATES, make_node, make_pod

ALL_RELEASES = ("1.35", "1.36", "1.37")
NO_SCORE_PLUGINS = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled: [{name: "*"}]
"""


def _placements(data):
    return [(p["pod"], p["node"], p["score"]) for p in data["placements"]]


# --- 1. where the filter search stops -------------------------------------------------------


def _search_stop_cluster():
    """120 nodes (numFeasibleNodesToFind = 100); n100 tainted, tolerated by p1 only; n080 is
    the best node p0 can see and n100 the best p1 could see."""
    nodes = []
    for i in range(120):
        b = make_node(f"n{i:03d}").capacity(cpu="64" if i == 100 else "32" if i == 80 else "8", memory="32Gi", pods="110")
        if i == 100:
            b = b.taint("dedicated", "batch", "NoSchedule")
        nodes.append(b)
    return nodes + [
        make_pod("p0").req(cpu="1").created("2024-01-01T00:00:00Z"),
        make_pod("p1").req(cpu="1").toleration("dedicated", "batch", "NoSchedule").created("2024-01-01T00:00:01Z"),
    ]


@pytest.mark.parametrize(
    "release,expected",
    [
        # kschedoracle -mode sequential -sample (parallelism 1): p0 filters n000..n099 (100 feasible),
        # n100 (rejected), n101 (feasible, one too many: dropped); processed 101, so p1 starts at n101
        # and never sees n100.
        ("1.35", [("default/p0", "n080", 495), ("default/p1", "n080", 491)]),
        # algorithm.go findNodesThatPassFilters keeps `length > numNodesToFind` (scores differ: the
        # 1.36 BalancedAllocation formula)
        ("1.36", [("default/p0", "n080", 471), ("default/p1", "n080", 469)]),
        ("1.37", [("default/p0", "n080", 471), ("default/p1", "n080", 469)]),
    ],
    ids=ALL_RELEASES,
)
def test_search_stops_at_the_feasible_node_past_the_limit(run_cli, write_snapshot, release, expected):
    # upstream: schedule_one.go (1.35) / algorithm.go (1.36+) findNodesThatPassFilters, findNodesThatFitPod
    path = write_snapshot(*_search_stop_cluster())
    data = run_cli("schedule", path, "--kube-version", release, "-o", "json").json()
    assert _placements(data) == expected


def _zone_cluster():
    """Three nodes; a carries both zone labels (beta zb, GA z1) and a taint no pod tolerates."""

    def node(name, **labels):
        return make_node(name).capacity(cpu="4", memory="8Gi").labels(labels)

    return [
        node("a", **{"topology.kubernetes.io/zone": "z1", "failure-domain.beta.kubernetes.io/zone": "zb"}).taint(
            "dedicated", "infra", "NoSchedule"
        ),
        node("c", **{"topology.kubernetes.io/zone": "z1"}),
        node("b", **{"topology.kubernetes.io/zone": "z2"}),
        make_pod("p0").req(cpu="100m"),
        make_pod("p1").req(cpu="100m"),
    ]


@pytest.mark.parametrize("release", ALL_RELEASES)
def test_zone_key_and_search_stop_without_score_plugins(run_cli, write_snapshot, tmp_path, release):
    # kschedoracle -mode sequential -sample, a profile without Score plugins (numNodesToFind 1):
    # the node tree is [a (zone zb), c (z1), b (z2)] because GetZoneKey reads the beta label
    # first; p0 filters a (rejected), c (feasible), b (feasible, dropped) -> c, start index 2;
    # p1 filters b (feasible), a (rejected), c (dropped) -> b.
    # upstream: component-helpers node/topology/helpers.go GetZoneKey, backend/cache/node_tree.go
    path = write_snapshot(*_zone_cluster())
    cfg = tmp_path / "no-score.yaml"
    cfg.write_text(NO_SCORE_PLUGINS)
    data = run_cli("schedule", path, "--config", str(cfg), "--kube-version", release, "-o", "json").json()
    assert _placements(data) == [("default/p0", "c", None), ("default/p1", "b", None)]


# --- 3. a profile without Score plugins ------------------------------------------------------


@pytest.mark.parametrize("release", ALL_RELEASES)
def test_explain_without_score_plugins_gives_every_feasible_node_1(run_cli, write_snapshot, tmp_path, release):
    # kschedoracle -mode explain, same cluster: scores {"b": {plugins {}, total 1}, "c": {...1}}
    # upstream: schedule_one.go (1.35) / algorithm.go prioritizeNodes
    path = write_snapshot(*_zone_cluster())
    cfg = tmp_path / "no-score.yaml"
    cfg.write_text(NO_SCORE_PLUGINS)
    data = run_cli("explain", "default/p0", path, "--config", str(cfg), "--kube-version", release, "-o", "json").json()
    assert {n: (v.get("scores"), v.get("total")) for n, v in data["nodes"].items()} == {"a": (None, None), "b": ({}, 1), "c": ({}, 1)}
    assert data["node"] == "c"  # the search order, numNodesToFind 1


# --- 4. VolumeRestrictions' ReadWriteOncePod reason ------------------------------------------

RWOP_SNAPSHOT = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: PersistentVolume, metadata: {name: pv1},
   spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOncePod], csi: {driver: example.com/csi, volumeHandle: h1},
          claimRef: {namespace: default, name: data}}, status: {phase: Bound}}
- {apiVersion: v1, kind: PersistentVolumeClaim,
   metadata: {name: data, namespace: default, annotations: {pv.kubernetes.io/bind-completed: "yes"}},
   spec: {accessModes: [ReadWriteOncePod], volumeName: pv1, resources: {requests: {storage: 1Gi}}}, status: {phase: Bound}}
- {apiVersion: v1, kind: Pod, metadata: {name: owner, namespace: default}, spec: {nodeName: n1, containers: [{name: c, image: x}],
   volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: web, namespace: default}, spec: {containers: [{name: c, image: x}],
   volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]}}
"""


@pytest.mark.parametrize("release", ALL_RELEASES)
def test_read_write_once_pod_reason(run_cli, tmp_path, release):
    # kschedoracle -mode sequential: a bound pod holds the ReadWriteOncePod claim another pod wants.
    # upstream: volumerestrictions/volume_restrictions.go ErrReasonReadWriteOncePodConflict, worded so
    # since kubernetes#129145 (1.33), unchanged in 1.36 and 1.37
    snap = tmp_path / "rwop.yaml"
    snap.write_text(RWOP_SNAPSHOT)
    data = run_cli("schedule", str(snap), "--kube-version", release, "-o", "json").json()
    [u] = data["unschedulable"]
    assert u["message"] == (
        "0/2 nodes are available: 2 node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod "
        "access mode already in-use by another pod. no new claims to deallocate, preemption: 0/2 nodes are "
        "available: 2 No preemption victims found for incoming pod."
    )


# --- 5. a missing cycle-state entry reads "not found" ----------------------------------------

UNBOUND_IMMEDIATE_SNAPSHOT = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: fast}, provisioner: example.com/csi,
   volumeBindingMode: Immediate}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: data, namespace: default},
   spec: {accessModes: [ReadWriteOnce], storageClassName: fast, resources: {requests: {storage: 1Gi}}}}
- {apiVersion: v1, kind: Pod, metadata: {name: web, namespace: default}, spec: {containers: [{name: c, image: x}],
   volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]}}
"""

NOT_FOUND_MESSAGE = "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found"


@pytest.mark.parametrize("release", ALL_RELEASES)
def test_missing_cycle_state_reads_not_found(run_cli, tmp_path, release):
    # kschedoracle -mode sequential and -mode explain: VolumeBinding's PreFilter rejects (unbound
    # Immediate claim), DynamicResources' PreFilter never runs, its PostFilter (the first one) fails
    # on the missing state with framework.ErrNotFound ("not found").
    # upstream: framework/cycle_state.go Read, dynamicresources/dynamicresources.go getStateData,
    # runtime/framework.go RunPostFilterPlugins (same in 1.36 and 1.37)
    snap = tmp_path / "unbound.yaml"
    snap.write_text(UNBOUND_IMMEDIATE_SNAPSHOT)
    data = run_cli("schedule", str(snap), "--kube-version", release, "-o", "json").json()
    assert data["unschedulable"][0]["message"] == NOT_FOUND_MESSAGE
    explained = run_cli("explain", "default/web", str(snap), "--kube-version", release, "-o", "json").json()
    assert explained["message"] == NOT_FOUND_MESSAGE
    assert explained["preemption"] == {"nominatedNode": None, "victims": []}


# --- 6. gated pods ---------------------------------------------------------------------------

GATED_SNAPSHOT = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: scheduling.k8s.io/v1alpha1, kind: Workload, metadata: {name: job, namespace: default},
   spec: {podGroups: [{name: workers, policy: {gang: {minCount: 3}}}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: w0, namespace: default}, spec: {workloadRef: {name: job, podGroup: workers},
   containers: [{name: c, image: x}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: w1, namespace: default}, spec: {workloadRef: {name: job, podGroup: workers},
   containers: [{name: c, image: x}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: lost, namespace: default}, spec: {workloadRef: {name: nojob, podGroup: workers},
   containers: [{name: c, image: x}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: stray, namespace: default}, spec: {workloadRef: {name: job, podGroup: nogroup},
   containers: [{name: c, image: x}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: gated, namespace: default},
   spec: {schedulingGates: [{name: example.com/a}, {name: example.com/b}], containers: [{name: c, image: x}]}}
"""


def test_gated_pod_reasons_135(run_cli, tmp_path):
    # kschedoracle -mode sequential -feature-gates GenericWorkload=true,GangScheduling=true: every
    # pod is held by PreEnqueue; the oracle reports "<plugin>: <message>".
    # upstream (1.35): gangscheduling/gangscheduling.go PreEnqueue (its own "pods's"; a missing pod
    # group is UnschedulableAndUnresolvable, not an error), schedulinggates/scheduling_gates.go
    snap = tmp_path / "gated.yaml"
    snap.write_text(GATED_SNAPSHOT)
    data = run_cli("schedule", str(snap), "--kube-version", "1.35", "--feature-gates", GANG_GATES, "-o", "json").json()
    assert {s["pod"]: s["reason"] for s in data["skipped"]} == {
        "default/w0": "waiting for minCount pods from a gang to appear in scheduling queue",
        "default/w1": "waiting for minCount pods from a gang to appear in scheduling queue",
        "default/lost": 'waiting for pods\'s workload "nojob" to appear in scheduling queue',
        "default/stray": 'pod group "nogroup" doesn\'t exist for a workload "job"',
        "default/gated": "waiting for scheduling gates: [example.com/a example.com/b]",
    }


@pytest.mark.parametrize("release", ["1.36", "1.37"])
def test_gated_pod_group_reasons_136_on(run_cli, tmp_path, release):
    # upstream (1.36+, read in the repository): gangscheduling.go PreEnqueue "waiting for pods's pod
    # group %q to appear in scheduling queue" (the same "pods's"), minCount text unchanged
    snap = tmp_path / "gated.yaml"
    snap.write_text("""\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: lost, namespace: default},
   spec: {schedulingGroup: {podGroupName: nogroup}, containers: [{name: c, image: x}]}}
""")
    data = run_cli("schedule", str(snap), "--kube-version", release, "--feature-gates", GANG_GATES, "-o", "json").json()
    assert data["skipped"] == [{"pod": "default/lost", "reason": 'waiting for pods\'s pod group "nogroup" to appear in scheduling queue'}]


# --- found by the differential runner (tools/difftest) ---------------------------------------


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


AFFINITY_MATCH_LABEL_KEYS = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: db-v1, namespace: default, labels: {app: db, version: v1}},
   spec: {nodeName: n1, containers: [{name: c, image: x}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: web, namespace: default, labels: {app: web, version: v2}},
   spec: {containers: [{name: c, image: x}], affinity: {podAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [
     {weight: 10, podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: db}},
                                    matchLabelKeys: [version]}}]}}}}
"""


@pytest.mark.parametrize("release", ALL_RELEASES)
def test_pod_affinity_match_label_keys_are_not_merged_by_the_scheduler(run_cli, tmp_path, release):
    # kschedoracle -mode explain (interpod category): the API server merges matchLabelKeys into the
    # labelSelector on create; the scheduler reads the selector as stored, so db-v1 (version v1)
    # still matches web's term: InterPodAffinity n1 100, n2 0.
    # upstream: framework/types.go newAffinityTerm (no matchLabelKeys in 1.35 nor in later releases)
    snap = _write(tmp_path, "aff.yaml", AFFINITY_MATCH_LABEL_KEYS)
    data = run_cli("explain", "default/web", snap, "--kube-version", release, "-o", "json").json()
    assert {n: v["scores"]["InterPodAffinity"]["score"] for n, v in data["nodes"].items()} == {"n1": 100, "n2": 0}
    assert data["node"] == "n1"


BAD_PREFERRED_TERMS = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: web, namespace: default}, spec: {containers: [{name: c, image: x}],
   affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [
     {weight: 10, preference: {matchExpressions: [{key: disk, operator: In, values: [ssd]}]}},
     {weight: 5, preference: {matchFields: [{key: metadata.name, operator: In, values: [n1]}],
                              matchExpressions: [{key: gen, operator: Gt, values: [x]},
                                                 {key: size, operator: Lt, values: ["1.5"]}]}}]}}}}
"""


def test_preferred_node_affinity_parse_errors_read_as_field_errors(run_cli, tmp_path):
    # kschedoracle -mode explain (nodeaffinity category): PreScore fails with the flattened aggregate
    # of field.Errors, paths "[i]..." without "preference", bad values rendered. The pod is one the
    # API server admits (preferred terms' values are not checked as integers there; a matchFields
    # In with two values would be refused, so kschedctl's admission refuses it too): kschedoracle
    # -mode explain 1.35.4 on this input gives exactly this message.
    # upstream: component-helpers scheduling/corev1/nodeaffinity/nodeaffinity.go NewPreferredSchedulingTerms,
    # apimachinery labels.NewRequirement and field/errors.go ErrorBody
    snap = _write(tmp_path, "na.yaml", BAD_PREFERRED_TERMS)
    data = run_cli("explain", "default/web", snap, "--kube-version", "1.35", "-o", "json").json()
    assert data["node"] is None
    assert data["message"] == (
        'running PreScore plugin "NodeAffinity": [[1].matchExpressions[0].values[0]: Invalid value: "x": '
        "for 'Gt', 'Lt' operators, the value must be an integer, [1].matchExpressions[1].values[0]: Invalid value: "
        "\"1.5\": for 'Gt', 'Lt' operators, the value must be an integer]"
    )


POD_LEVEL_REQUESTS = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "16", memory: 16Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2}, status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: web, namespace: default},
   spec: {containers: [{name: a, image: x, resources: {requests: {cpu: "1"}}}, {name: b, image: x}],
          resources: {requests: {cpu: "6", memory: 8Gi}}}}
"""
MOST_ALLOCATED = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]}}
"""


def test_fit_score_ignores_pod_level_requests(run_cli, tmp_path):
    # kschedoracle -mode explain (resources category): NodeResourcesFit scores the containers'
    # aggregate with the 100m / 200Mi defaults (1100m, 400Mi: n1 4, n2 7), BalancedAllocation the
    # pod-level requests (n1 93, n2 75).
    # upstream: noderesources/fit.go NewFit (the scorer's enablePodLevelResources is never set),
    # resource_allocation.go calculatePodResourceRequest
    snap = _write(tmp_path, "podres.yaml", POD_LEVEL_REQUESTS)
    cfg = _write(tmp_path, "most.yaml", MOST_ALLOCATED)
    data = run_cli("explain", "default/web", snap, "--config", cfg, "--kube-version", "1.35", "-o", "json").json()
    got = {
        n: (v["scores"]["NodeResourcesFit"]["score"], v["scores"]["NodeResourcesBalancedAllocation"]["score"], v["total"])
        for n, v in data["nodes"].items()
    }
    assert got == {"n1": (4, 93, 397), "n2": (7, 75, 382)}


NO_PRE_FILTER_NO_FILTER = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    preFilter: {disabled: [{name: "*"}]}
    filter: {disabled: [{name: "*"}]}
"""


@pytest.mark.parametrize("release", ALL_RELEASES)
def test_score_plugin_error_is_wrapped_as_kube_does(run_cli, tmp_path, release):
    # kschedoracle -mode sequential (sampling category, a profile without PreFilter): DynamicResources'
    # Score finds no PreFilter state.
    # upstream: runtime/framework.go RunScorePlugins ("running Score plugins: plugin %q failed with: %w")
    snap = _write(tmp_path, "podres.yaml", POD_LEVEL_REQUESTS)
    cfg = _write(tmp_path, "nopf.yaml", NO_PRE_FILTER_NO_FILTER)
    data = run_cli("schedule", snap, "--config", cfg, "--kube-version", release, "-o", "json").json()
    if release == "1.37":
        # StorageCapacityScoring is on from 1.37, so VolumeBinding's PreScore reads its PreFilter
        # state before any Score runs (volume_binding.go PreScore; RunPreScorePlugins wraps it)
        assert data["unschedulable"][0]["message"] == 'running PreScore plugin "VolumeBinding": not found'
        return
    assert data["unschedulable"][0]["message"] == 'running Score plugins: plugin "DynamicResources" failed with: not found'


NOMINATED_ELSEWHERE = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2}, status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: nom, namespace: default},
   spec: {priority: 100, containers: [{name: c, image: x, resources: {requests: {cpu: "3"}}}]},
   status: {nominatedNodeName: n1}}
- {apiVersion: v1, kind: Pod, metadata: {name: web, namespace: default},
   spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]}}
"""


@pytest.mark.parametrize("release", ALL_RELEASES)
def test_explain_counts_pods_nominated_to_a_node(run_cli, tmp_path, release):
    # kschedoracle -mode explain (preemption category): "nom" (priority 100) is nominated to n1, so
    # "web" (priority 0) is filtered there with nom's 3 cpu added: Insufficient cpu.
    # upstream: runtime/framework.go RunFilterPluginsWithNominatedPods, addGEPriorityNominatedPods
    snap = _write(tmp_path, "nom.yaml", NOMINATED_ELSEWHERE)
    data = run_cli("explain", "default/web", snap, "--kube-version", release, "-o", "json").json()
    assert data["nodes"]["n1"]["filter"] == {"code": "Unschedulable", "plugin": "NodeResourcesFit", "reasons": ["Insufficient cpu"]}
    assert data["node"] == "n2"


TERMINATING_VICTIM = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: old, namespace: default, deletionTimestamp: "2024-01-01T01:00:00Z",
                                         deletionGracePeriodSeconds: 30},
   spec: {nodeName: n1, priority: 0, containers: [{name: c, image: x, resources: {requests: {cpu: "3"}}}]},
   status: {phase: Running, startTime: "2024-01-01T00:00:00Z"}}
- {apiVersion: v1, kind: Pod, metadata: {name: live, namespace: default},
   spec: {nodeName: n1, priority: 0, containers: [{name: c, image: x, resources: {requests: {cpu: 500m}}}]},
   status: {phase: Running, startTime: "2024-01-01T00:00:01Z"}}
- {apiVersion: v1, kind: Pod, metadata: {name: hi, namespace: default},
   spec: {priority: 1000, containers: [{name: c, image: x, resources: {requests: {cpu: "2"}}}]}}
"""


@pytest.mark.parametrize("release", ALL_RELEASES)
def test_terminating_victim_is_not_evicted_again(run_cli, tmp_path, release):
    # kschedoracle -mode sequential and -mode explain (mixed category): preemption picks the
    # terminating "old" alone (live is reprieved), nominates n1 and makes no eviction call:
    # victims [] and "0/1 nodes are available: 1 Insufficient cpu."; old keeps its cpu, so hi
    # stays pending, nominated to n1, until old is deleted (retries: the same answer).
    # upstream: preemption/preemption.go prepareCandidate ("Victim Pod is already being deleted")
    snap = _write(tmp_path, "term.yaml", TERMINATING_VICTIM)
    data = run_cli("schedule", snap, "--kube-version", release, "-o", "json").json()
    assert data["preemptions"] == [{"preemptor": "default/hi", "node": "n1", "victims": []}]
    assert data["placements"] == []
    [u] = data["unschedulable"]
    assert (u["pod"], u["message"], u.get("nominatedNode")) == ("default/hi", "0/1 nodes are available: 1 Insufficient cpu.", "n1")
    explained = run_cli("explain", "default/hi", snap, "--kube-version", release, "-o", "json").json()
    assert explained["message"] == "0/1 nodes are available: 1 Insufficient cpu."
    assert explained["preemption"] == {"nominatedNode": "n1", "victims": []}


DRA_CLAIM_NOT_OWNED = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: resource.k8s.io/v1, kind: ResourceClaimTemplate, metadata: {name: gpu, namespace: default},
   spec: {spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}}}
- {apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: web-gpu, namespace: default,
   annotations: {resource.kubernetes.io/pod-claim-name: gpu},
   ownerReferences: [{apiVersion: v1, kind: Pod, name: other, uid: uid-other, controller: true}]},
   spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu}}]}}}
- {apiVersion: v1, kind: Pod, metadata: {name: web, namespace: default, uid: uid-web},
   spec: {containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}],
          resourceClaims: [{name: gpu, resourceClaimTemplateName: gpu}]},
   status: {resourceClaimStatuses: [{name: gpu, resourceClaimName: web-gpu}]}}
"""


@pytest.mark.parametrize(
    "release,reason",
    [
        # kschedoracle 1.35.4 -mode sequential: "Gated", "DynamicResources: <reason>"
        ("1.35", "ResourceClaim default/web-gpu was not created for pod default/web (pod is not owner)"),
        # kschedoracle 1.36.2 -mode sequential (dra-mixed/dra-dealloc/dra-taints categories at 1.36)
        ("1.36", "ResourceClaim default/web-gpu was not created for Pod default/web (Pod is not owner)"),
        ("1.37", "ResourceClaim default/web-gpu was not created for Pod default/web (Pod is not owner)"),
    ],
    ids=ALL_RELEASES,
)
def test_claim_from_template_not_owned_by_the_pod(run_cli, tmp_path, release, reason):
    # The pod's status names a claim that another pod controls: DynamicResources' PreEnqueue holds it.
    # upstream: dynamic-resource-allocation/resourceclaim/resourceclaim.go IsForPod, capitalised in
    # 1.36 next to the new IsForPodGroup ("... for PodGroup %s/%s (PodGroup is not owner)")
    snap = _write(tmp_path, "notowner.yaml", DRA_CLAIM_NOT_OWNED)
    data = run_cli("schedule", snap, "--kube-version", release, "-o", "json").json()
    assert data["skipped"] == [{"pod": "default/web", "reason": reason}]


# --- pod-group members and PostFilter (1.36 group cycle) -------------------------------------


def _gang_of_two(member_priority: int, old_cpu: str) -> str:
    """Two 2-cpu nodes; "old" (priority 0) holds ``old_cpu`` on n1; the gang g (minCount 2) has two
    1500m members m0 and m1 of ``member_priority``: m0 fits on n2, m1 fits nowhere."""
    member = (
        "{{apiVersion: v1, kind: Pod, metadata: {{name: {name}, namespace: default, uid: uid-{name}, "
        'creationTimestamp: "2024-01-01T00:00:0{sec}Z"}}, spec: {{schedulingGroup: {{podGroupName: g}}, '
        "priority: {prio}, containers: [{{name: c, image: x, resources: {{requests: {{cpu: 1500m}}}}}}]}}}}"
    )
    node = (
        "{{apiVersion: v1, kind: Node, metadata: {{name: {n}, labels: {{kubernetes.io/hostname: {n}}}}}, "
        'status: {{allocatable: {{cpu: "2", memory: 8Gi, pods: "110"}}}}}}'
    )
    return (
        "\n".join(
            [
                "- {apiVersion: scheduling.k8s.io/v1alpha2, kind: PodGroup, metadata: {name: g, namespace: default},"
                " spec: {schedulingPolicy: {gang: {minCount: 2}}}}",
                "- " + node.format(n="n1"),
                "- " + node.format(n="n2"),
                "- {apiVersion: v1, kind: Pod, metadata: {name: old, namespace: default, uid: uid-old,"
                ' creationTimestamp: "2024-01-01T00:00:00Z"}, spec: {nodeName: n1, priority: 0, containers:'
                f" [{{name: c, image: x, resources: {{requests: {{cpu: {old_cpu}}}}}}}]}}, status: {{phase: Running,"
                ' startTime: "2024-01-01T00:00:00Z"}}',
                "- " + member.format(name="m0", sec=1, prio=member_priority),
                "- " + member.format(name="m1", sec=2, prio=member_priority),
            ]
        )
        + "\n"
    )


NO_VICTIMS_MESSAGE = (
    "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: "
    "0/2 nodes are available: 2 No preemption victims found for incoming pod."
)


@pytest.mark.parametrize(
    "release,message",
    [
        # kschedoracle 1.36.2 -mode sequential -feature-gates GenericWorkload=true,GangScheduling=true
        # (gangs category at 1.36; the harness runs members pod by pod, m0 waiting at Permit on n2):
        # m1's first attempt reads NO_VICTIMS_MESSAGE. In kube 1.36.2's group cycle m1 gets the same
        # text: podGroupPodSchedulingAlgorithm -> schedulingAlgorithm -> RunPostFilterPlugins (the
        # group cycle runs post-filters, runAllPostFilters), m0 being assumed on n2 in the snapshot.
        ("1.36", NO_VICTIMS_MESSAGE),
        # upstream 1.37 tree (read in the repository): algorithm_podgroup.go schedulePod runs no
        # single-pod PostFilter for a member ("gang preemption ... handled at the pod group level")
        ("1.37", "0/2 nodes are available: 2 Insufficient cpu."),
    ],
)
def test_pod_group_member_that_fits_nowhere_gets_post_filter_message(run_cli, tmp_path, release, message):
    snap = _write(tmp_path, "gang.yaml", "apiVersion: v1\nkind: List\nitems:\n" + _gang_of_two(0, '"1"'))
    data = run_cli("schedule", snap, "--kube-version", release, "--feature-gates", GANG_GATES, "-o", "json").json()
    assert data["placements"] == [] and data["preemptions"] == []
    messages = {u["pod"]: u["message"] for u in data["unschedulable"]}
    assert messages["default/m1"] == message
    [group] = data["podGroups"]
    assert group["status"] == "Unschedulable"
    assert {m["pod"]: m["message"] for m in group["members"]}["default/m1"] == message


def test_pod_group_member_preemption_makes_the_group_wait_then_places_it(run_cli, tmp_path):
    # upstream 1.36.2 schedule_one_podgroup.go: m1 fits nowhere, DefaultPreemption (PostFilter)
    # nominates n1 (victim "old", priority 0 < 100); podGroupPodSchedulingAlgorithm assumes m1 on n1
    # ("requires preemption"), its Permit succeeds (minCount 2 reached), so the group's status is
    # "pod group is waiting for preemption to complete" (waitingOnPreemption): m0 is requeued with
    # that status, nominated to n2, m1 with its FitError (PostFilter's Success adds nothing),
    # nominated to n1. The victim's deletion moves them back and the next group cycle places both.
    # kschedoracle 1.36.2 -mode sequential with the pod-group cycle (scheduleOnePodGroup) on the
    # same file: m0 attempt 1 "pod group is unschedulable, pod group is waiting for preemption to
    # complete" (the status is built WithError(errPodGroupUnschedulable), whose text leads), m1
    # attempt 1 "0/2 nodes are available: 2 Insufficient cpu." with preemption {Success, n1,
    # [default/old]}; attempt 2: m0 -> n2, m1 -> n1.
    objects = _gang_of_two(100, "1500m")
    scenario = _write(
        tmp_path,
        "gang-preempt.yaml",
        "apiVersion: kschedctl.io/v1alpha1\nkind: Scenario\nmetadata: {name: gang-preempt}\nobjects:\n" + objects + "events: []\n",
    )
    data = run_cli("simulate", scenario, "--kube-version", "1.36", "--feature-gates", GANG_GATES, "-o", "json").json()
    trace = [(e["event"], e.get("pod") or e.get("podGroup") or e.get("preemptor"), e.get("message")) for e in data["events"]]
    assert trace[:4] == [
        ("Preempted", "default/m1", None),
        ("PodGroupUnschedulable", "default/g", "pod group is unschedulable, pod group is waiting for preemption to complete"),
        ("FailedScheduling", "default/m0", "pod group is unschedulable, pod group is waiting for preemption to complete"),
        ("FailedScheduling", "default/m1", "0/2 nodes are available: 2 Insufficient cpu."),
    ]
    assert data["preemptions"] == [{"preemptor": "default/m1", "node": "n1", "victims": ["default/old"], "time": 0}]
    assert sorted((p["pod"], p["node"], p["attempts"]) for p in data["placements"]) == [("default/m0", "n2", 2), ("default/m1", "n1", 2)]
    # 1.37: no PostFilter for members; the gang stays pending and nothing is evicted
    snap = _write(tmp_path, "gang-preempt-list.yaml", "apiVersion: v1\nkind: List\nitems:\n" + objects)
    data = run_cli("schedule", snap, "--kube-version", "1.37", "--feature-gates", GANG_GATES, "-o", "json").json()
    assert data["placements"] == [] and data["preemptions"] == []
    assert {u["pod"]: u["message"] for u in data["unschedulable"]}["default/m1"] == ("0/2 nodes are available: 2 Insufficient cpu.")
