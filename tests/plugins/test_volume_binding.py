"""VolumeBinding: upstream volumebinding/volume_binding_test.go TestVolumeBinding and
binder_test.go (FindPodVolumes, findMatchingVolumes, checkVolumeProvisions, AssumePodVolumes)."""

from __future__ import annotations

import pytest
from volume_fixtures import volume_framework

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code
from kschedctl.plugins.volume_binding import plugin as vb
from kschedctl.plugins.volume_binding.args import VolumeBindingArgs
from kschedctl.testing import (
    args_defaults,
    args_errors,
    cluster_objects,
    make_node,
    make_pod,
    make_pv,
    make_pvc,
    make_storage_class,
)
from kschedctl.versions import KubeVersion

HOST = "kubernetes.io/hostname"
WAIT = make_storage_class("wait-sc", provisioner="", binding_mode="WaitForFirstConsumer")
WAIT_HDD = make_storage_class("wait-hdd-sc", provisioner="", binding_mode="WaitForFirstConsumer")
IMMEDIATE = make_storage_class("immediate-sc", provisioner="", binding_mode="Immediate")
PROVISION = make_storage_class(
    "provision-sc",
    provisioner="csi.example.com",
    binding_mode="WaitForFirstConsumer",
    allowed_topologies=[{"matchLabelExpressions": [{"key": "zone", "values": ["z1"]}]}],
)
SCS = [WAIT, WAIT_HDD, IMMEDIATE, PROVISION]
# StorageCapacityScoring's default turns on in 1.37 (kube-scheduler/pkg/features/kube_features.go)
BEFORE_SCORING = KubeVersion("1.36")
UNB = Code.UnschedulableAndUnresolvable


def pvc(name, sc="wait-sc", request=None):
    b = make_pvc(name).storage_class(sc)
    if request:
        b.request(request)
    return b


def pv(name, sc="wait-sc", capacity="1Gi", node=None, phase="Available"):
    b = make_pv(name).storage_class(sc).capacity(capacity).phase(phase)
    if node:
        b.node_affinity(HOST, [node])
    return b


def pod(*claims):
    b = make_pod("pod-a")
    for c in claims:
        b.pvc(c)
    return b.obj()


def setup(objs, nodes=("node-a",), version=None, node_labels=None):
    nodes = [make_node(n).labels((node_labels or {}).get(n, {})).obj() for n in nodes]
    fwk = volume_framework(nodes=nodes, objects=cluster_objects(*SCS, *objs), version=version)
    return fwk, fwk.instances["VolumeBinding"]


def run(objs, p, nodes=("node-a",), version=None, node_labels=None):
    """PreFilter, then Filter on every node: (prefilter status, [filter status], state, plugin, fwk)."""
    fwk, pl = setup(objs, nodes, version, node_labels)
    state = CycleState()
    _, pre = pl.pre_filter(state, p, fwk.snapshot.list())
    if pre is not None:
        return pre, [], state, pl, fwk
    return None, [pl.filter(state, p, fwk.snapshot.get(n)) for n in nodes], state, pl, fwk


def as_tuple(status):
    return None if status is None else (status.code, status.reasons)


# upstream: TestVolumeBinding
@pytest.mark.parametrize(
    "objs, claims, want_pre, want_filter",
    [
        pytest.param([], (), (Code.Skip, []), None, id="pod-has-not-pvcs"),
        pytest.param(
            [pvc("pvc-a").bound_to("pv-a"), pvc("pvc-b").bound_to("pv-b"), pv("pv-a", phase="Bound"), pv("pv-b", phase="Bound")],
            ("pvc-a", "pvc-b"),
            None,
            [None],
            id="all-bound",
        ),
        pytest.param(
            [
                pvc("pvc-a").bound_to("pv-a"),
                pv("pv-a", node="node-a", phase="Bound"),
                pvc("pvc-b").bound_to("pv-b"),
                pv("pv-b", node="node-a", phase="Bound"),
            ],
            ("pvc-a", "pvc-b"),
            None,
            [None],
            id="all-bound-with-local-volumes",
        ),
        pytest.param([], ("pvc-a",), (UNB, ['persistentvolumeclaim "pvc-a" not found']), None, id="PVC-does-not-exist"),
        pytest.param(
            [pvc("pvc-a").bound_to("pv-a")],
            ("pvc-a", "pvc-b"),
            (UNB, ['persistentvolumeclaim "pvc-b" not found']),
            None,
            id="part-of-PVCs-do-not-exist",
        ),
        pytest.param(
            [pvc("pvc-a", "immediate-sc")],
            ("pvc-a",),
            (UNB, ["pod has unbound immediate PersistentVolumeClaims"]),
            None,
            id="immediate-claims-not-bound",
        ),
        pytest.param([pvc("pvc-a")], ("pvc-a",), None, [(UNB, [vb.ERR_REASON_BIND_CONFLICT])], id="unbound-claims-no-matches"),
        pytest.param(
            [
                pvc("pvc-a").bound_to("pv-a"),
                pvc("pvc-b"),
                make_pv("pv-a").storage_class("wait-sc").capacity("1Gi").phase("Available").node_affinity("foo", ["bar"]),
            ],
            ("pvc-a", "pvc-b"),
            None,
            [(UNB, [vb.ERR_REASON_NODE_CONFLICT, vb.ERR_REASON_BIND_CONFLICT])],
            id="bound-and-unbound-unsatisfied",
        ),
        pytest.param([pvc("pvc-a").bound_to("pv-a")], ("pvc-a",), None, [(UNB, [vb.ERR_REASON_PV_NOT_EXIST])], id="pv-not-found"),
        pytest.param(
            [pvc("pvc-a").bound_to("pv-a").phase("Lost")],
            ("pvc-a",),
            (UNB, ['persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"']),
            None,
            id="pv-not-found-claim-lost",
        ),
        # a claim with volumeName but no bind-completed annotation is prebound: treated as immediate
        pytest.param(
            [pvc("pvc-a").bound_to("pv-a", completed=False), pv("pv-a")],
            ("pvc-a",),
            (UNB, ["pod has unbound immediate PersistentVolumeClaims"]),
            None,
            id="prebound-claim-is-immediate",
        ),
        pytest.param(
            [pvc("pvc-a").set("metadata.deletionTimestamp", "2024-01-01T00:00:00Z")],
            ("pvc-a",),
            (UNB, ['persistentvolumeclaim "pvc-a" is being deleted']),
            None,
            id="pvc-being-deleted",
        ),
    ],
)
def test_volume_binding(objs, claims, want_pre, want_filter):
    pre, filters, state, pl, fwk = run(objs, pod(*claims))
    assert as_tuple(pre) == (None if want_pre is None else (want_pre[0], want_pre[1]))
    if want_filter is not None:
        assert [as_tuple(f) for f in filters] == [None if w is None else w for w in want_filter]
        # StorageCapacityScoring is on by default from 1.37: PreScore runs for any pod with PVCs
        assert pl.pre_score(state, pod(*claims), fwk.snapshot.list()) is None
        # 1.36 keeps the gate off: PreScore is skipped
        *_, state, pl, fwk = run(objs, pod(*claims), version=BEFORE_SCORING)
        assert pl.pre_score(state, pod(*claims), fwk.snapshot.list()).code == Code.Skip


def test_bound_pv_node_affinity():
    # upstream: binder_test.go TestFindPodVolumesWithoutProvisioning "bound-pvc,pv-not-exists" and node-affinity cases
    objs = [pvc("pvc-a").bound_to("pv-a"), pv("pv-a", node="node-a", phase="Bound")]
    _, filters, *_ = run(objs, pod("pvc-a"), nodes=("node-a", "node-b"))
    assert [as_tuple(f) for f in filters] == [None, (UNB, [vb.ERR_REASON_NODE_CONFLICT])]


def test_ephemeral_volume_waiting_for_controller():
    # upstream: TestVolumeBinding ephemeral cases (podHasPVCs)
    p = make_pod("pod-a").volume({"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}).obj()
    pre, *_ = run([], p)
    assert as_tuple(pre) == (UNB, ['waiting for ephemeral volume controller to create the persistentvolumeclaim "pod-a-scratch"'])
    pre, *_ = run([pvc("pod-a-scratch")], p)
    assert as_tuple(pre) == (UNB, ["PVC default/pod-a-scratch was not created for pod default/pod-a (pod is not owner)"])
    pre, filters, *_ = run([pvc("pod-a-scratch").owner_pod(p), pv("pv-x")], p)
    assert pre is None and filters == [None]


# upstream: binder_test.go TestFindPodVolumesWithoutProvisioning / findMatchingVolumes (smallest fit)
def test_static_binding_smallest_fit_and_exclusion():
    objs = [
        pvc("pvc-small", request="1Gi"),
        pvc("pvc-big", request="5Gi"),
        pv("pv-10g", capacity="10Gi"),
        pv("pv-2g", capacity="2Gi"),
        pv("pv-1g", capacity="1Gi"),
        pv("pv-other-node", capacity="1Gi", node="node-b"),
    ]
    pre, filters, state, pl, _ = run(objs, pod("pvc-big", "pvc-small"))
    assert pre is None and filters == [None]
    chosen = {p.name: v["metadata"]["name"] for p, v in state.read("VolumeBinding").pod_volumes_by_node["node-a"].static_bindings}
    assert chosen == {"pvc-small": "pv-1g", "pvc-big": "pv-10g"}


@pytest.mark.parametrize(
    "pv_builder, fits",
    [
        pytest.param(pv("pv-a", capacity="10Gi").access_modes("ReadWriteOnce"), False, id="access-mode-mismatch"),
        pytest.param(pv("pv-a", capacity="10Gi").access_modes("ReadWriteOnce", "ReadWriteMany"), True, id="access-modes-cover"),
        pytest.param(pv("pv-a", capacity="1Gi").access_modes("ReadWriteMany"), False, id="too-small"),
        pytest.param(pv("pv-a", capacity="10Gi", phase="Released").access_modes("ReadWriteMany"), False, id="not-available"),
        pytest.param(pv("pv-a", sc="wait-hdd-sc", capacity="10Gi").access_modes("ReadWriteMany"), False, id="other-class"),
        pytest.param(
            pv("pv-a", capacity="10Gi").access_modes("ReadWriteMany").claim_ref("default", "someone-else"), False, id="claimed-by-another"
        ),
        pytest.param(
            pv("pv-a", capacity="10Gi", phase="Bound").access_modes("ReadWriteOnce").claim_ref("default", "pvc-a"),
            True,
            id="prebound-to-this-claim-wins",
        ),
        pytest.param(
            pv("pv-a", capacity="10Gi").access_modes("ReadWriteMany").set("spec.volumeMode", "Block"), False, id="volume-mode-mismatch"
        ),
    ],
)
def test_find_matching_volume_rules(pv_builder, fits):
    # upstream: component-helpers pv_helpers_test.go TestFindMatchingVolume
    claim = pvc("pvc-a", request="5Gi").access_modes("ReadWriteMany")
    _, filters, *_ = run([claim, pv_builder], pod("pvc-a"))
    assert filters == [None] if fits else [as_tuple(f) for f in filters] == [(UNB, [vb.ERR_REASON_BIND_CONFLICT])]


def test_selector_on_claim():
    claim = pvc("pvc-a", request="1Gi").set("spec.selector", {"matchLabels": {"tier": "gold"}})
    plain = pv("pv-plain", capacity="1Gi")
    gold = pv("pv-gold", capacity="5Gi").label("tier", "gold")
    _, filters, state, *_ = run([claim, plain, gold], pod("pvc-a"))
    assert filters == [None]
    [(_, chosen)] = state.read("VolumeBinding").pod_volumes_by_node["node-a"].static_bindings
    assert chosen["metadata"]["name"] == "pv-gold"


# upstream: binder_test.go TestFindPodVolumesWithProvisioning
@pytest.mark.parametrize(
    "claim_sc, node_labels, want",
    [
        pytest.param("provision-sc", {"zone": "z1"}, None, id="provisioning-allowed-topology"),
        pytest.param("provision-sc", {"zone": "z2"}, (UNB, [vb.ERR_REASON_BIND_CONFLICT]), id="provisioning-topology-mismatch"),
        pytest.param("wait-sc", {}, (UNB, [vb.ERR_REASON_BIND_CONFLICT]), id="no-provisioner"),
    ],
)
def test_dynamic_provisioning(claim_sc, node_labels, want):
    _, filters, *_ = run([pvc("pvc-a", claim_sc, "1Gi")], pod("pvc-a"), node_labels={"node-a": node_labels})
    assert as_tuple(filters[0]) == want


def test_provisioning_class_missing_is_error():
    # upstream: checkVolumeProvisions "failed to find storage class"
    claim = make_pvc("pvc-a").storage_class("gone")
    objs = [claim]
    fwk, pl = setup(objs)
    # a missing class reads as Immediate, so PreFilter rejects it first; force the delayed path
    state = CycleState()
    claims = vb.PodVolumeClaims(unbound_delay=[claim.obj()])
    state.write("VolumeBinding", vb._State(claims))
    status = pl.filter(state, pod("pvc-a"), fwk.snapshot.get("node-a"))
    assert status.code == Code.Error and status.reasons == ['failed to find storage class "gone"']


def test_selected_node_annotation():
    # upstream: FindPodVolumes fast path for claims with volume.kubernetes.io/selected-node
    claim = pvc("pvc-a", "provision-sc").annotate("volume.kubernetes.io/selected-node", "node-b")
    _, filters, *_ = run([claim], pod("pvc-a"), nodes=("node-a", "node-b"), node_labels={"node-b": {"zone": "z1"}})
    assert [as_tuple(f) for f in filters] == [(UNB, [vb.ERR_REASON_BIND_CONFLICT]), None]


def test_not_enough_storage_capacity():
    # upstream: binder_test.go TestCapacity "insufficient storage"
    from kschedctl.testing import StorageObjectBuilder

    csidriver = StorageObjectBuilder("CSIDriver", "storage.k8s.io/v1", "csi.example.com").set("spec.storageCapacity", True)
    cap = StorageObjectBuilder("CSIStorageCapacity", "storage.k8s.io/v1", "cap", "default")
    cap.raw.update({"storageClassName": "provision-sc", "capacity": "1Gi", "nodeTopology": {"matchLabels": {"zone": "z1"}}})
    _, filters, *_ = run([pvc("pvc-a", "provision-sc", "5Gi"), csidriver, cap], pod("pvc-a"), node_labels={"node-a": {"zone": "z1"}})
    assert as_tuple(filters[0]) == (UNB, [vb.ERR_REASON_NOT_ENOUGH_SPACE])
    _, filters, *_ = run([pvc("pvc-a", "provision-sc", "1Gi"), csidriver, cap], pod("pvc-a"), node_labels={"node-a": {"zone": "z1"}})
    assert filters == [None]


def test_reserve_assumes_and_unreserve_reverts():
    # upstream: binder_test.go TestAssumePodVolumes / TestRevertAssumedPodVolumes
    objs = [pvc("pvc-a", request="1Gi"), make_pvc("pvc-b").storage_class("wait-sc").request("1Gi"), pv("pv-only", capacity="1Gi")]
    fwk, pl = setup(objs)
    p1, p2 = pod("pvc-a"), make_pod("pod-b").pvc("pvc-b").obj()
    s1 = CycleState()
    pl.pre_filter(s1, p1, fwk.snapshot.list())
    assert pl.filter(s1, p1, fwk.snapshot.get("node-a")) is None
    assert pl.reserve(s1, p1, "node-a") is None
    assert pl.pre_bind_pre_flight(s1, p1, "node-a") is None
    assert pl.pre_bind(s1, p1, "node-a") is None
    assert pl.assumed_pvs["pv-only"]["spec"]["claimRef"]["name"] == "pvc-a"
    assert pl.pv_writes == 1  # what a state's kept same_on_every_node answer is checked against
    # the assumed PV is no longer available to another claim
    s2 = CycleState()
    pl.pre_filter(s2, p2, fwk.snapshot.list())
    assert as_tuple(pl.filter(s2, p2, fwk.snapshot.get("node-a"))) == (UNB, [vb.ERR_REASON_BIND_CONFLICT])
    pl.unreserve(s1, p1, "node-a")
    assert pl.pv_writes == 2
    s3 = CycleState()
    pl.pre_filter(s3, p2, fwk.snapshot.list())
    assert pl.filter(s3, p2, fwk.snapshot.get("node-a")) is None


def test_all_bound_reserve_and_prebind_skip():
    objs = [pvc("pvc-a").bound_to("pv-a"), pv("pv-a", phase="Bound")]
    _, _, state, pl, _ = run(objs, pod("pvc-a"))
    assert pl.reserve(state, pod("pvc-a"), "node-a") is None
    assert pl.pre_bind_pre_flight(state, pod("pvc-a"), "node-a").code == Code.Skip
    assert pl.pre_bind(state, pod("pvc-a"), "node-a") is None


LOCAL = [
    pv("pv-a-0", capacity="200Gi", node="node-a"),
    pv("pv-a-1", capacity="200Gi", node="node-a"),
    pv("pv-b-0", capacity="100Gi", node="node-b"),
    pv("pv-b-1", capacity="100Gi", node="node-b"),
]
LOCAL_HDD = [
    pv("pv-a-2", "wait-hdd-sc", "200Gi", "node-a"),
    pv("pv-a-3", "wait-hdd-sc", "200Gi", "node-a"),
    pv("pv-b-2", "wait-hdd-sc", "100Gi", "node-b"),
    pv("pv-b-3", "wait-hdd-sc", "100Gi", "node-b"),
]
SCORING = KubeVersion().with_gates(StorageCapacityScoring=True)
SHAPE_CONFIG = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled: [{name: '*'}]
      enabled: [{name: PrioritySort}, {name: DefaultBinder}, {name: VolumeBinding}]
  pluginConfig:
  - name: VolumeBinding
    args:
      shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]
"""


@pytest.mark.parametrize(
    "objs, claims, config, want_scores",
    [
        # upstream: TestVolumeBinding "local volumes with close capacity are preferred" (shape 0->0, 100->10)
        pytest.param([pvc("pvc-a", request="50Gi"), *LOCAL], ("pvc-a",), SHAPE_CONFIG, [25, 50], id="close-capacity-preferred"),
        # upstream: "local volumes with close capacity are preferred (multiple pvcs)"
        pytest.param(
            [pvc("pvc-0", request="50Gi"), pvc("pvc-1", "wait-hdd-sc", "100Gi"), *LOCAL, *LOCAL_HDD],
            ("pvc-0", "pvc-1"),
            SHAPE_CONFIG,
            [38, 75],
            id="close-capacity-multiple-pvcs",
        ),
        # default StorageCapacityScoring shape (0->10, 100->0) prefers more free capacity
        pytest.param([pvc("pvc-a", request="50Gi"), *LOCAL], ("pvc-a",), None, [75, 50], id="default-shape"),
    ],
)
def test_capacity_scoring(objs, claims, config, want_scores):
    from kschedctl.testing import new_framework

    nodes = [make_node(n).obj() for n in ("node-a", "node-b", "node-c")]
    fwk = (
        new_framework(config, nodes=nodes, objects=cluster_objects(*SCS, *objs), version=SCORING)
        if config
        else volume_framework(nodes=nodes, objects=cluster_objects(*SCS, *objs), version=SCORING)
    )
    pl = fwk.instances["VolumeBinding"]
    p, state = pod(*claims), CycleState()
    assert pl.pre_filter(state, p, fwk.snapshot.list()) == (None, None)
    filters = [pl.filter(state, p, fwk.snapshot.get(n)) for n in ("node-a", "node-b", "node-c")]
    assert [as_tuple(f) for f in filters] == [None, None, (UNB, [vb.ERR_REASON_BIND_CONFLICT])]
    assert pl.pre_score(state, p, fwk.snapshot.list()) is None
    assert [pl.score(state, p, fwk.snapshot.get(n))[0] for n in ("node-a", "node-b")] == want_scores


def test_broken_linear_truncates_toward_zero():
    # helper/shape_score.go with a decreasing segment: (10 - 0) * 33 / 100 truncates
    shape = [(0, 100), (100, 0)]
    assert vb.broken_linear(shape, 33) == 67
    assert vb.broken_linear(shape, 150) == 0 and vb.broken_linear([(10, 5), (20, 9)], 0) == 5


@pytest.mark.parametrize(
    "version, args, want",
    [
        pytest.param(BEFORE_SCORING, None, {"bindTimeoutSeconds": 600}, id="defaults"),
        pytest.param(BEFORE_SCORING, {"bindTimeoutSeconds": 300}, {"bindTimeoutSeconds": 300}, id="keeps-given"),
        pytest.param(
            KubeVersion(),
            None,
            {"bindTimeoutSeconds": 600, "shape": [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]},
            id="1.37-default-shape",
        ),
        pytest.param(
            SCORING,
            None,
            {"bindTimeoutSeconds": 600, "shape": [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]},
            id="capacity-scoring-shape",
        ),
    ],
)
def test_default_args(version, args, want):
    # upstream: apis/config/v1 defaults_test.go SetDefaults_VolumeBindingArgs
    assert args_defaults(VolumeBindingArgs, args, version) == want


@pytest.mark.parametrize(
    "version, args, want_fields",
    [
        pytest.param(BEFORE_SCORING, {"bindTimeoutSeconds": 600}, [], id="valid"),
        pytest.param(BEFORE_SCORING, {"bindTimeoutSeconds": -1}, ["bindTimeoutSeconds"], id="negative-timeout"),
        pytest.param(
            BEFORE_SCORING, {"bindTimeoutSeconds": 600, "shape": [{"utilization": 0, "score": 0}]}, ["shape"], id="shape-without-feature"
        ),
        pytest.param(SCORING, {"bindTimeoutSeconds": 600, "shape": []}, ["shape"], id="empty-shape"),
        pytest.param(
            SCORING,
            {"bindTimeoutSeconds": 600, "shape": [{"utilization": 10, "score": 1}, {"utilization": 10, "score": 11}]},
            ["shape[1].utilization", "shape[1].score"],
            id="unsorted-and-out-of-range",
        ),
    ],
)
def test_validate_args(version, args, want_fields):
    # upstream: validation_pluginargs_test.go TestValidateVolumeBindingArgs
    errs = args_errors(VolumeBindingArgs, args, version)
    assert [f for f, _ in errs] == want_fields
    if want_fields == ["bindTimeoutSeconds"]:
        assert errs[0][1] == "Invalid value: -1: invalid BindTimeoutSeconds, should not be a negative value"


def test_runtime_filter_reason_in_framework():
    objs = [pvc("pvc-a")]
    fwk, _ = setup(objs)
    state = CycleState()
    p = pod("pvc-a")
    fwk.run_pre_filter_plugins(state, p, fwk.snapshot.list())
    status = fwk.run_filter_plugins(state, p, fwk.snapshot.get("node-a"))
    assert (status.code, status.reasons, status.plugin) == (UNB, [vb.ERR_REASON_BIND_CONFLICT], "VolumeBinding")


# same_on_every_node: FindPodVolumes' answer worked out once per state when the node cannot
# change it (a preemptor's dry run asks Filter on hundreds of candidate nodes)
@pytest.mark.parametrize(
    "objs, claims, same",
    [
        pytest.param([pvc("pvc-a").bound_to("pv-a"), pv("pv-a", phase="Bound")], ("pvc-a",), vb.EVERY_NODE_FITS, id="bound-no-affinity"),
        pytest.param([pvc("pvc-a").bound_to("pv-a")], ("pvc-a",), vb.NO_NODE_HAS_THE_PV, id="pv-missing"),
        pytest.param(
            [pvc("pvc-a").bound_to("pv-a"), pv("pv-a", node="node-a", phase="Bound"), pvc("pvc-b").bound_to("pv-b")],
            ("pvc-a", "pvc-b"),
            None,
            id="affinity-before-the-missing-pv",
        ),
        pytest.param(
            [pvc("pvc-a").bound_to("pv-a"), pvc("pvc-b").bound_to("pv-b"), pv("pv-b", node="node-a", phase="Bound")],
            ("pvc-a", "pvc-b"),
            vb.NO_NODE_HAS_THE_PV,
            id="missing-pv-before-the-affinity",
        ),
        pytest.param([pvc("pvc-a").bound_to("pv-a"), pv("pv-a"), pvc("pvc-b"), pv("pv-c")], ("pvc-a", "pvc-b"), None, id="unbound-claim"),
    ],
)
def test_the_answer_kept_for_every_node_is_find_pod_volumes_on_each(objs, claims, same):
    nodes = ("node-a", "node-b", "node-c")
    _, filters, state, pl, fwk = run(objs, pod(*claims), nodes=nodes)
    s = state.read(vb.STATE_KEY)
    assert pl.same_on_every_node(s) == same
    for name, got in zip(nodes, filters):
        volumes, reasons = pl.find_pod_volumes(pod(*claims), s.claims, fwk.snapshot.get(name).node)
        assert as_tuple(got) == (None if not reasons else (UNB, reasons))
        if not reasons:
            assert s.pod_volumes_by_node[name] == volumes


def test_the_kept_answer_is_read_again_after_the_assume_cache_changes():
    """A PV the pod's claim is bound to changes in the assume cache (a Reserve writes there):
    the next Filter of the same state reads it, as FindPodVolumes would."""
    objs = [pvc("pvc-a").bound_to("pv-a"), pv("pv-a", phase="Bound")]
    _, filters, state, pl, fwk = run(objs, pod("pvc-a"), nodes=("node-a", "node-b"))
    assert filters == [None, None]
    s = state.read(vb.STATE_KEY)
    assert pl.same_on_every_node(s) == vb.EVERY_NODE_FITS
    pl.assumed_pvs["pv-a"] = pv("pv-a", node="node-a", phase="Bound").obj().raw
    pl.pv_writes += 1  # as reserve and unreserve count their writes
    assert as_tuple(pl.filter(state, pod("pvc-a"), fwk.snapshot.get("node-b"))) == (UNB, [vb.ERR_REASON_NODE_CONFLICT])
    assert pl.filter(state, pod("pvc-a"), fwk.snapshot.get("node-a")) is None
