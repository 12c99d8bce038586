"""NodeVolumeLimits (CSI): upstream nodevolumelimits/csi_test.go TestCSILimits and utils."""

from __future__ import annotations

import pytest
from volume_fixtures import volume_framework

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code
from kschedctl.plugins.node_volume_limits.plugin import (
    ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,
    csi_attach_limit_key,
)
from kschedctl.testing import (
    cluster_objects,
    make_csi_node,
    make_node,
    make_pod,
    make_pv,
    make_pvc,
    make_storage_class,
)

EBS = "ebs.csi.aws.com"
GCE = "pd.csi.storage.gke.io"


def storage():
    objs = []
    for i in range(6):
        objs.append(make_pv(f"csi-ebs.csi.aws.com-{i}").csi(EBS, f"vol-{i}"))
        objs.append(make_pvc(f"csi-ebs.csi.aws.com-{i}").bound_to(f"csi-ebs.csi.aws.com-{i}"))
    objs.append(make_pv("csi-gce-0").csi(GCE, "disk-0"))
    objs.append(make_pvc("csi-gce-0").bound_to("csi-gce-0"))
    objs.append(make_storage_class("csi-sc", provisioner=EBS, binding_mode="WaitForFirstConsumer"))
    objs.append(make_pvc("pending-0").storage_class("csi-sc"))
    objs.append(make_pvc("pending-1").storage_class("csi-sc"))
    objs.append(make_pvc("missing-pv").storage_class("csi-sc").bound_to("no-such-pv"))
    objs.append(make_pvc("no-sc"))
    objs.append(make_pv("intree-ebs").set("spec.awsElasticBlockStore", {"volumeID": "aws://us-east-1a/vol-abc"}))
    objs.append(make_pvc("intree-ebs").bound_to("intree-ebs"))
    return objs


def pod_with(*claims, name="new"):
    b = make_pod(name)
    for c in claims:
        b.pvc(c)
    return b.obj()


def run(new_pod, existing_claims, limits, extra_existing=(), allocatable=None):
    node_b = make_node("n1")
    if allocatable:
        node_b.res(allocatable)
    old = make_pod("old").node("n1")
    for c in existing_claims:
        old.pvc(c)
    existing = [old.obj(), *extra_existing]
    objs = storage()
    if limits is not None:
        objs.append(make_csi_node("n1", limits))
    fwk = volume_framework(nodes=[node_b.obj()], pods=existing, objects=cluster_objects(*objs))
    pl = fwk.instances["NodeVolumeLimits"]
    state = CycleState()
    _, pre = pl.pre_filter(state, new_pod, fwk.snapshot.list())
    if pre is not None:
        return pre
    return pl.filter(state, new_pod, fwk.snapshot.get("n1"))


E = lambda i: f"csi-ebs.csi.aws.com-{i}"  # noqa: E731


@pytest.mark.parametrize(
    "new, existing, limits, want",
    [
        # upstream: TestCSILimits "fits when node volume limit >= new pods CSI volume"
        pytest.param((E(0), E(1)), (E(2), E(3)), {EBS: 4}, None, id="fits-when-limit-ge-volumes"),
        # upstream: TestCSILimits "doesn't when node volume limit <= pods CSI volume"
        pytest.param((E(0), E(1)), (E(2), E(3)), {EBS: 3}, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, id="doesnt-when-over-limit"),
        # upstream: TestCSILimits "should when driver does not support volume limits"
        pytest.param((E(0), E(1)), (E(2), E(3)), {EBS: None}, None, id="driver-without-limit"),
        # upstream: TestCSILimits "count pending PVCs towards volume limit <= limit"
        pytest.param(("pending-0",), (E(2), E(3)), {EBS: 2}, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, id="pending-pvc-counts"),
        pytest.param(("pending-0",), ("pending-1",), {EBS: 2}, None, id="two-pending-pvcs-fit"),
        # upstream: TestCSILimits "should count PVCs with invalid PV name but valid SC"
        pytest.param(("missing-pv",), (E(2),), {EBS: 1}, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, id="invalid-pv-name-valid-sc"),
        # upstream: TestCSILimits "should not count PVCs with no SC"
        pytest.param(("no-sc",), (E(2),), {EBS: 1}, None, id="pvc-without-sc-not-counted"),
        # upstream: TestCSILimits "skip Filter when the pod only uses secrets and configmaps"
        pytest.param((), (E(2),), {EBS: 0}, "skip", id="no-csi-volumes-skip"),
        # the same volume already on the node counts once
        pytest.param((E(2),), (E(2),), {EBS: 1}, None, id="same-volume-counted-once"),
        # limits are per driver
        pytest.param(("csi-gce-0",), (E(2), E(3)), {EBS: 2, GCE: 1}, None, id="other-driver-has-room"),
        # upstream: TestCSILimits "should count in-tree volumes if migration is enabled"
        pytest.param(("intree-ebs",), (E(2),), {EBS: 1}, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, id="migrated-intree-pv-counted"),
    ],
)
def test_csi_limits(new, existing, limits, want):
    status = run(pod_with(*new), existing, limits)
    if want == "skip":
        assert status.code == Code.Skip
    elif want is None:
        assert status is None
    else:
        assert status.code == Code.Unschedulable and status.reasons == [want]


def test_missing_pvc_is_unresolvable():
    # upstream: TestCSILimits "missing PVC" (a new pod's PVC must exist)
    status = run(pod_with("nope"), (E(0),), {EBS: 5})
    assert status.code == Code.UnschedulableAndUnresolvable
    assert status.reasons == ['looking up PVC default/nope: persistentvolumeclaim "nope" not found']


def test_inline_ebs_counted_only_with_csinode():
    # upstream: TestCSILimits inline migratable volume cases
    pod = make_pod("new").volume({"name": "v", "awsElasticBlockStore": {"volumeID": "vol-inline"}}).obj()
    assert run(pod, (E(1),), {EBS: 1}).reasons == [ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED]
    # without a CSINode there is no limit to read (and migration is not on)
    assert run(pod, (E(1),), None) is None


def test_node_allocatable_is_not_a_limit():
    # upstream 1.35: csi.go getVolumeLimits reads only the CSINode's drivers[].allocatable.count;
    # recorded from kschedoracle -mode explain (1.35.4): a node whose allocatable carries
    # attachable-volumes-csi-ebs.csi.aws.com: 1 and whose CSINode has no count passes the filter
    # with one volume attached and one new
    key = csi_attach_limit_key(EBS)
    assert run(pod_with(E(0)), (E(1),), None, allocatable={key: "1"}) is None


def test_attach_limit_key():
    # upstream: pkg/volume/util TestGetCSIAttachLimitKey
    assert csi_attach_limit_key("ebs.csi.aws.com") == "attachable-volumes-csi-ebs.csi.aws.com"
    long = "com.example.a-very-long-csi-driver-name.that.goes.on"
    key = csi_attach_limit_key(long)
    assert key.startswith("attachable-volumes-csi-" + long[:23]) and len(key) == len("attachable-volumes-csi-") + 23 + 16


@pytest.mark.parametrize(
    "labels,handle",
    [
        ({}, "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/d"),
        ({"topology.kubernetes.io/zone": "us-east1-b"}, "projects/UNSPECIFIED/zones/us-east1-b/disks/d"),
        # the beta label is read first; the GA one only when the beta one is empty
        (
            {"topology.kubernetes.io/zone": "us-east1-b", "failure-domain.beta.kubernetes.io/zone": "us-east1-c"},
            "projects/UNSPECIFIED/zones/us-east1-c/disks/d",
        ),
        (
            {"topology.kubernetes.io/zone": "us-east1-b", "failure-domain.beta.kubernetes.io/zone": ""},
            "projects/UNSPECIFIED/zones/us-east1-b/disks/d",
        ),
        ({"topology.kubernetes.io/zone": "us-east1-b__us-east1-c"}, "projects/UNSPECIFIED/regions/us-east1/disks/d"),
        # zones of two regions, or not {locale}-{region}-{zone}: the translation fails (not counted)
        ({"topology.kubernetes.io/zone": "us-east1-b__europe-west1-c"}, None),
        ({"topology.kubernetes.io/zone": "zone-a__zone-b"}, None),
    ],
    ids=["none", "ga", "beta-first", "beta-empty", "regional", "two-regions", "bad-format"],
)
def test_gce_pd_translation_zone(labels, handle):
    # upstream: csi-translation-lib plugins/gce_pd.go TranslateInTreePVToCSI, gceGetRegionFromZones
    from kschedctl.plugins.node_volume_limits.plugin import _gce_handle

    assert _gce_handle({"pdName": "d"}, labels) == handle


def test_remembered_volumes_of_the_pods_on_a_node_follow_the_pods_the_csinode_and_the_tables() -> None:
    """Filter remembers each node's existing pods' attachable volumes (with their PodInfos and the
    CSINode): asked again it answers the same; another CSINode object, another PVC table size,
    or another set of pods on the node is worked out afresh."""
    node = make_node("n1").obj()
    old = make_pod("old").node("n1").pvc(E(2)).pvc(E(3)).obj()
    objs = cluster_objects(*storage(), make_csi_node("n1", {EBS: 3}))
    fwk = volume_framework(nodes=[node], pods=[old], objects=objs)
    pl = fwk.instances["NodeVolumeLimits"]
    new = pod_with(E(0), E(1))
    info = fwk.snapshot.get("n1")
    first = pl.filter(CycleState(), new, info)
    assert first is not None and first.reasons == [ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED]
    assert len(pl._attached_memo) == 1
    again = pl.filter(CycleState(), new, info)
    assert again is not None and again.reasons == first.reasons and len(pl._attached_memo) == 1
    # a larger limit on a new CSINode object: not the remembered answer's CSINode
    objs.csi_nodes["n1"] = cluster_objects(make_csi_node("n1", {EBS: 4})).csi_nodes["n1"]
    assert pl.filter(CycleState(), new, info) is None
    # a PVC table of another size: everything remembered is dropped
    objs.persistent_volume_claims["other/extra"] = objs.persistent_volume_claims[f"default/{E(4)}"]
    assert pl.filter(CycleState(), new, info) is None and len(pl._attached_memo) == 1
    # the node without its pod: another key
    info.remove_pod(old)
    assert pl.filter(CycleState(), pod_with(E(0), E(1), E(4), E(5)), info) is None
    assert len(pl._attached_memo) == 1 and pl._attached_memo["n1"][0] == ()  # the node's last state only


def test_the_filtered_pods_own_volumes_are_remembered_per_csinode_presence_and_errors_are_not() -> None:
    """The pod being filtered: its volumes count on a node with a CSINode (a limit applies) and
    are looked at afresh for another pod; a missing PVC is reported on every node."""
    nodes = [make_node("n1").obj(), make_node("n2").obj()]
    full = make_pod("full").node("n1").pvc(E(2)).obj()
    objs = cluster_objects(*storage(), make_csi_node("n1", {EBS: 1}))
    fwk = volume_framework(nodes=nodes, pods=[full], objects=objs)
    pl = fwk.instances["NodeVolumeLimits"]
    new = pod_with(E(0))
    n1, n2 = fwk.snapshot.get("n1"), fwk.snapshot.get("n2")
    for _ in range(2):
        st = pl.filter(CycleState(), new, n1)
        assert st is not None and st.reasons == [ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED]
        assert pl.filter(CycleState(), new, n2) is None  # no CSINode: no limit
    assert pl.filter(CycleState(), pod_with(E(2)), n1) is None  # the same volume: counted once
    missing = pod_with("no-such-claim")
    for info in (n1, n2, n1):
        st = pl.filter(CycleState(), missing, info)
        assert st is not None and st.code == Code.UnschedulableAndUnresolvable


@pytest.mark.parametrize(
    "claims",
    [(E(0),), (E(0), E(1), "csi-gce-0"), ("nope",), ("pending-0",), ("intree-ebs",), ("missing-pv",)],
)
def test_without_a_csinode_the_verdict_ignores_the_pods_on_the_node(claims):
    # csi.go getVolumeLimits reads only the CSINode: without one there is no limit, so Filter
    # answers before it counts the node's volumes (or fails on the pod's own claims, whatever
    # the node holds); preemption's dry run relies on verdict_ignores_pods saying so
    full = [make_pod(f"old{i}").node("n1").pvc(E(i)).obj() for i in range(1, 6)]
    fwk = volume_framework(nodes=[make_node("n1").obj(), make_node("n2").obj()], pods=full, objects=cluster_objects(*storage()))
    pl = fwk.instances["NodeVolumeLimits"]
    pod = pod_with(*claims)
    state = CycleState()
    pl.pre_filter(state, pod, fwk.snapshot.list())
    crowded, empty = fwk.snapshot.get("n1"), fwk.snapshot.get("n2")
    assert pl.verdict_ignores_pods(pod, crowded) and pl.verdict_ignores_pods(pod, empty)
    on_crowded, on_empty = pl.filter(state, pod, crowded), pl.filter(state, pod, empty)
    assert (on_crowded is None) == (on_empty is None)
    if on_crowded is not None:
        assert (on_crowded.code, on_crowded.reasons) == (on_empty.code, on_empty.reasons)


def test_with_a_csinode_count_the_verdict_reads_the_pods_on_the_node():
    fwk = volume_framework(
        nodes=[make_node("n1").obj()],
        pods=[make_pod("old").node("n1").pvc(E(1)).obj()],
        objects=cluster_objects(*storage(), make_csi_node("n1", {EBS: 1})),
    )
    pl = fwk.instances["NodeVolumeLimits"]
    node = fwk.snapshot.get("n1")
    assert not pl.verdict_ignores_pods(pod_with(E(0)), node)  # the old pod's volume fills the count
    assert pl.verdict_ignores_pods(make_pod("plain").obj(), node)
