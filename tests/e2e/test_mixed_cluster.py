"""`kschedctl schedule` with the default profile on a mixed cluster (zones, taints, a cordoned node,
node selectors, pod affinity and anti-affinity, topology spread, a PVC bound to a zonal PV).
Each placement is asserted together with the rule that decides it."""

from kschedctl.testing import make_node, make_pod, make_pv, make_pvc, make_storage_class

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def _cluster():
    nodes = [
        make_node("a1").zone("a").capacity(cpu="4", memory="8Gi"),
        make_node("a2").zone("a").capacity(cpu="4", memory="8Gi").label("dedicated", "db").taint("dedicated", "db", "NoSchedule"),
        make_node("b1").zone("b").capacity(cpu="4", memory="8Gi"),
        make_node("c1").zone("c").capacity(cpu="4", memory="8Gi").label("disk", "ssd"),
        make_node("c2").zone("c").capacity(cpu="4", memory="8Gi").unschedulable(),
    ]
    storage = [
        make_storage_class("standard", "ebs.csi.aws.com"),
        make_pv("pv-b")
        .capacity("10Gi")
        .access_modes("ReadWriteOnce")
        .storage_class("standard")
        .node_affinity(ZONE, ["b"])
        .claim_ref("default", "data")
        .phase("Bound"),
        make_pvc("data").storage_class("standard").access_modes("ReadWriteOnce").request("10Gi").bound_to("pv-b").phase("Bound"),
    ]
    web = [
        make_pod(f"web-{i}")
        .label("app", "web")
        .req(cpu="500m", memory="256Mi")
        .spread(1, ZONE, selector={"matchLabels": {"app": "web"}})
        .pod_affinity_in("app", HOST, ["web"], anti=True)
        for i in range(3)
    ]
    pods = [
        make_pod("db")
        .label("app", "db")
        .req(cpu="1", memory="1Gi")
        .node_selector({"dedicated": "db"})
        .toleration("dedicated", "db", "NoSchedule"),
        make_pod("ssd-app").req(cpu="500m").node_selector({"disk": "ssd"}),
        make_pod("pvc-app").req(cpu="500m").pvc("data"),
        *web,
        make_pod("cache").req(cpu="500m").pod_affinity_in("app", ZONE, ["db"]),
        make_pod("big").req(cpu="5"),
    ]
    return nodes + storage + pods


def test_each_placement_follows_its_rule(run_cli, write_snapshot):
    path = write_snapshot(*_cluster())
    out = run_cli("schedule", path, "-o", "json", "--seed", "3")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    placed = {p["pod"].split("/")[1]: p["node"] for p in data["placements"]}

    # NodeAffinity (nodeSelector dedicated=db) + TaintToleration (the pod tolerates the taint).
    assert placed["db"] == "a2"
    # nodeSelector disk=ssd matches only c1.
    assert placed["ssd-app"] == "c1"
    # VolumeBinding: the bound PV's node affinity allows zone b only.
    assert placed["pvc-app"] == "b1"
    # InterPodAffinity (hostname anti-affinity) + PodTopologySpread (maxSkew 1 over zones): one web pod
    # per schedulable, untainted node, one per zone; a2 is tainted and c2 cordoned.
    assert sorted(placed[f"web-{i}"] for i in range(3)) == ["a1", "b1", "c1"]
    # InterPodAffinity: required affinity to app=db by zone puts it in zone a; a2's taint leaves a1.
    assert placed["cache"] == "a1"

    [big] = data["unschedulable"]
    assert big["pod"] == "default/big"
    # No node has 5 cpu allocatable: unresolvable everywhere, so preemption cannot help.
    assert big["message"] == (
        "0/5 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable, "
        "3 Insufficient cpu. no new claims to deallocate, preemption: 0/5 nodes are available: "
        "5 Preemption is not helpful for scheduling."
    )
    assert big["reasons"] == {"Insufficient cpu": 3, "node(s) had untolerated taint(s)": 1, "node(s) were unschedulable": 1}
    assert data["summary"] == {"pending": 8, "scheduled": 7, "unschedulable": 1, "skipped": 0, "preempted": 0}


def test_explain_shows_why_the_pvc_pod_is_pinned_to_zone_b(run_cli, write_snapshot):
    path = write_snapshot(*_cluster())
    data = run_cli("explain", "default/pvc-app", path, "-o", "json").json()
    assert data["node"] == "b1"
    assert data["nodes"]["a1"]["filter"] == {
        "code": "UnschedulableAndUnresolvable",
        "plugin": "VolumeBinding",
        "reasons": ["node(s) didn't match PersistentVolume's node affinity"],
    }
    assert data["nodes"]["c2"]["filter"]["plugin"] == "NodeUnschedulable"
