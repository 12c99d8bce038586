"""VolumeRestrictions: upstream volumerestrictions/volume_restrictions_test.go."""

from __future__ import annotations

import pytest
from volume_fixtures import volume_framework

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.plugins.volume_restrictions.plugin import ERR_REASON_DISK_CONFLICT
from kschedctl.testing import cluster_objects, make_node, make_pod, make_pvc

# volume_restrictions.go ErrReasonReadWriteOncePodConflict (1.35; 1.36 and 1.37 word it the same)
ERR_REASON_RWOP_CONFLICT = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"
)

GCE = lambda pd, ro=False: {"name": "v", "gcePersistentDisk": {"pdName": pd, "readOnly": ro}}  # noqa: E731
EBS = lambda vid: {"name": "v", "awsElasticBlockStore": {"volumeID": vid}}  # noqa: E731
RBD = lambda mons, pool, image, ro=False: {"name": "v", "rbd": {"monitors": mons, "pool": pool, "image": image, "readOnly": ro}}  # noqa: E731
ISCSI = lambda iqn, ro=False: {"name": "v", "iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": iqn, "lun": 0, "readOnly": ro}}  # noqa: E731


def run(pod, existing=(), objects=None):
    """PreFilter then Filter on node n1 holding `existing`; returns (prefilter status, filter status)."""
    node = make_node("n1").obj()
    bound = [make_pod(f"e{i}").node("n1").volume(v).obj() for i, v in enumerate(existing)]
    fwk = volume_framework(nodes=[node], pods=bound, objects=objects)
    pl = fwk.instances["VolumeRestrictions"]
    state = CycleState()
    _, pre = pl.pre_filter(state, pod, fwk.snapshot.list())
    if pre is not None and pre.code == Code.Skip:
        return pre, None
    return pre, pl.filter(state, pod, fwk.snapshot.get("n1"))


# upstream: TestGCEDiskConflicts / TestAWSDiskConflicts / TestRBDDiskConflicts / TestISCSIDiskConflicts
@pytest.mark.parametrize(
    "new, existing, want",
    [
        pytest.param(GCE("foo"), [], None, id="gce-nothing"),
        pytest.param(GCE("foo"), [GCE("foo")], ERR_REASON_DISK_CONFLICT, id="gce-same-state"),
        pytest.param(GCE("foo"), [GCE("bar")], None, id="gce-different-state"),
        pytest.param(GCE("foo", True), [GCE("foo", True)], None, id="gce-both-read-only"),
        pytest.param(GCE("foo", True), [GCE("foo")], ERR_REASON_DISK_CONFLICT, id="gce-one-writer"),
        pytest.param(EBS("foo"), [EBS("foo")], ERR_REASON_DISK_CONFLICT, id="aws-same-state"),
        pytest.param(EBS("foo"), [EBS("bar")], None, id="aws-different-state"),
        pytest.param(RBD(["a", "b"], "p", "i"), [RBD(["b", "c"], "p", "i")], ERR_REASON_DISK_CONFLICT, id="rbd-same-state"),
        pytest.param(RBD(["a"], "p", "i"), [RBD(["c"], "p", "i")], None, id="rbd-no-monitor-overlap"),
        pytest.param(RBD(["a"], "p", "i"), [RBD(["a"], "p", "other")], None, id="rbd-different-image"),
        pytest.param(RBD(["a"], "p", "i", True), [RBD(["a"], "p", "i", True)], None, id="rbd-both-read-only"),
        pytest.param(ISCSI("iqn.a"), [ISCSI("iqn.a")], ERR_REASON_DISK_CONFLICT, id="iscsi-same-state"),
        pytest.param(ISCSI("iqn.a"), [ISCSI("iqn.b")], None, id="iscsi-different-state"),
    ],
)
def test_disk_conflicts(new, existing, want):
    pre, status = run(make_pod("p").volume(new).obj(), existing)
    assert pre is None
    if want is None:
        assert status is None
    else:
        assert status.code == Code.Unschedulable and status.reasons == [want]


def test_pod_without_volumes_is_skipped():
    # upstream: TestAccessModeConflicts "nothing"
    pre, _ = run(make_pod("p").obj())
    assert pre.code == Code.Skip


RWOP = make_pvc("claim-with-rwop-1").access_modes("ReadWriteOncePod").bound_to("pv-1")
RWO = make_pvc("claim-rwo").access_modes("ReadWriteOnce").bound_to("pv-2")


@pytest.mark.parametrize(
    "claim, users, want_pre, want_filter",
    [
        # upstream: TestAccessModeConflicts "failed to get PVC"
        pytest.param(
            "claim-missing",
            0,
            (Code.UnschedulableAndUnresolvable, 'persistentvolumeclaim "claim-missing" not found'),
            None,
            id="failed-to-get-pvc",
        ),
        # upstream: TestAccessModeConflicts "no access mode conflict"
        pytest.param("claim-with-rwop-1", 0, (Code.Skip, None), None, id="no-access-mode-conflict"),
        pytest.param("claim-rwo", 1, (Code.Skip, None), None, id="rwo-shared-is-fine"),
        # upstream: TestAccessModeConflicts "access mode conflict, unschedulable"
        pytest.param(
            "claim-with-rwop-1",
            1,
            (Code.Success, None),
            (Code.Unschedulable, ERR_REASON_RWOP_CONFLICT),
            id="access-mode-conflict-unschedulable",
        ),
    ],
)
def test_access_mode_conflicts(claim, users, want_pre, want_filter):
    objects = cluster_objects(RWOP, RWO)
    # The existing user sits on another node: the conflict is cluster-wide.
    nodes = [make_node("n1").obj(), make_node("n2").obj()]
    existing = [make_pod("user").node("n2").pvc(claim).obj()] if users else []
    fwk = volume_framework(nodes=nodes, pods=existing, objects=objects)
    pl = fwk.instances["VolumeRestrictions"]
    pod = make_pod("p").pvc(claim).obj()
    state = CycleState()
    _, pre = pl.pre_filter(state, pod, fwk.snapshot.list())
    code, msg = want_pre
    got_code = Code.Success if pre is None else pre.code
    assert got_code == code
    if msg:
        assert pre.reasons == [msg]
    if want_filter is not None:
        status = pl.filter(state, pod, fwk.snapshot.get("n1"))
        assert (status.code, status.reasons) == (want_filter[0], [want_filter[1]])


def test_rwop_remove_pod_makes_room_for_preemption():
    # upstream: volume_restrictions.go AddPod/RemovePod (the preemption path)
    objects = cluster_objects(RWOP)
    user = make_pod("user").node("n1").pvc("claim-with-rwop-1").obj()
    fwk = volume_framework(nodes=[make_node("n1").obj()], pods=[user], objects=objects)
    pl = fwk.instances["VolumeRestrictions"]
    pod = make_pod("p").pvc("claim-with-rwop-1").obj()
    state = CycleState()
    pl.pre_filter(state, pod, fwk.snapshot.list())
    node_info: NodeInfo = fwk.snapshot.get("n1").clone()
    cloned = state.clone()
    assert pl.remove_pod(cloned, pod, PodInfo.of(user), node_info) is None
    assert pl.filter(cloned, pod, node_info) is None
    # the original state is untouched by the clone
    assert pl.filter(state, pod, fwk.snapshot.get("n1")).reasons == [ERR_REASON_RWOP_CONFLICT]
    assert pl.add_pod(cloned, pod, PodInfo.of(user), node_info) is None
    assert pl.filter(cloned, pod, node_info).code == Code.Unschedulable


def test_runtime_reports_rwop_conflict_on_every_node():
    objects = cluster_objects(RWOP)
    user = make_pod("user").node("n1").pvc("claim-with-rwop-1").obj()
    fwk = volume_framework(nodes=[make_node("n1").obj(), make_node("n2").obj()], pods=[user], objects=objects)
    pod = make_pod("p").pvc("claim-with-rwop-1").obj()
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod, fwk.snapshot.list())
    for name in ("n1", "n2"):
        status = fwk.run_filter_plugins(state, pod, fwk.snapshot.get(name))
        assert status.code == Code.Unschedulable
        assert status.reasons == [ERR_REASON_RWOP_CONFLICT]
        assert status.plugin == "VolumeRestrictions"
