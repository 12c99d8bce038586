"""explain's statements stay true where kube's own words are terse: a node held by a pod that
preemption nominated there, a ReadWriteOncePod claim held elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "explain"


def test_a_node_held_by_a_nominated_pod_names_the_pod_its_priority_and_what_it_reserves(run_cli):
    """An empty 4-cpu node rejects a 1-cpu pod with "Insufficient cpu": kube filters against the
    node with the pods nominated there of equal or higher priority added (schedule_one.go
    addGENominatedPods). The fact says who holds the room and what it reserves."""
    path = str(FIXTURES / "nominated-holds-room.yaml")
    data = run_cli("explain", "default/small", path, "-o", "json").json()
    n1 = data["nodes"]["n1"]
    assert n1["filter"] == {"code": "Unschedulable", "plugin": "NodeResourcesFit", "reasons": ["Insufficient cpu"]}
    held = n1["details"]["NominatedPods"]
    assert held["pods"] == [{"pod": "default/big", "priority": 1000, "requests": {"cpu": "4", "memory": "0"}}]
    assert n1["details"]["NodeResourcesFit"]["summary"] == "cpu: the pod asks 1, 0 free (4 of 4 requested)"
    assert data["verdict"].endswith(
        "Pods nominated by preemption hold room on 1 node(s) (n1): default/big "
        "(priority 1000); kube counts them there until they are bound."
    )
    table = run_cli("explain", "default/small", path).stdout
    assert "n1: NominatedPods: nominated here by preemption and counted as running: default/big (priority 1000" in table


def test_a_read_write_once_pod_claim_held_elsewhere_names_the_holder_on_every_node(run_cli):
    """VolumeRestrictions' PreFilter counts the pods using the claim cluster-wide
    (volume_restrictions.go readWriteOncePodPVCsForPod / isPVCUsedByPods): every node rejects the
    pod, not just the holder's. The fact names the holder on every node, and the verdict says that
    no node can help (capacity would not)."""
    path = str(FIXTURES / "rwop-held.yaml")
    data = run_cli("explain", "default/second", path, "-o", "json").json()
    for node in ("n1", "n2"):
        facts = data["nodes"][node]["details"]["VolumeRestrictions"]
        assert facts["claims"] == ["default/data"] and facts["holders"] == [{"pod": "default/holder", "node": "n1"}]
        assert "the lock is cluster-wide" in facts["summary"]
    assert data["verdict"].endswith(
        "The ReadWriteOncePod claim default/data is held by default/holder on n1: "
        "no node can help until it is gone; more capacity would not."
    )
    assert "More capacity" not in data["verdict"]


def _sampled_cluster(write_snapshot):
    """300 nodes of 8 cpu; every node but node-299 runs a pod (1-5 cpu): node-299 scores best, and
    kube's adaptive sampling (50 - 300/125 = 48 % -> 144 nodes from the start index) never reaches it."""
    from kschedctl.testing import make_node, make_pod

    objs = [make_node(f"node-{i:03d}").capacity(cpu="8", memory="32Gi") for i in range(300)]
    objs += [make_pod(f"busy-{i}").node(f"node-{i:03d}").req(cpu=str(1 + i % 5), memory="4Gi") for i in range(299)]
    return write_snapshot(*objs, make_pod("web").req(cpu="1", memory="1Gi"))


def test_explain_says_which_nodes_kube_samples_and_the_better_node_it_never_considers(run_cli, write_snapshot):
    """schedule_one.go numFeasibleNodesToFind / findNodesThatPassFilters: kube filters from the
    rotating start index until it has 144 feasible nodes and scores only those."""
    path = _sampled_cluster(write_snapshot)
    data = run_cli("explain", "default/web", path, "--seed", "1", "-o", "json").json()
    sampling = data["sampling"]
    # the nodes kube visits, in order: from the start index until 144 feasible ones are found
    assert sampling.pop("evaluatedNodes") == [f"node-{i:03d}" for i in range(144)]
    assert sampling == {
        "nodes": 300,
        "evaluated": 144,
        "startNode": "node-000",
        "feasible": 144,
        "scored": 144,
        "betterOutside": {"node": "node-299", "total": data["nodes"]["node-299"]["total"]},
    }
    assert data["ranking"][0]["node"] == "node-299"
    chosen = data["node"]
    assert int(chosen.split("-")[1]) < 144  # inside the sample
    assert data["nodes"]["node-299"]["total"] > data["nodes"][chosen]["total"]
    # the tie among the scored nodes, and the pick `schedule` makes with the same seed
    best = max(data["nodes"][f"node-{i:03d}"]["total"] for i in range(144))
    tied = [f"node-{i:03d}" for i in range(144) if data["nodes"][f"node-{i:03d}"]["total"] == best]
    assert data["tie"] == {"total": best, "nodes": len(tied), "chosen": chosen} and chosen in tied
    placed = run_cli("schedule", path, "--seed", "1", "-o", "json").json()["placements"]
    assert placed == [{"pod": "default/web", "node": chosen, "profile": "default-scheduler", "attempts": 1, "score": best}]
    table = run_cli("explain", "default/web", path, "--seed", "1").stdout
    assert (
        "sampling: kube evaluates 144 of 300 nodes for this pod (percentageOfNodesToScore), starting at node-000 "
        "(the rotating start index); 144 feasible, 144 scored; node-299"
    ) in table
    assert f"tie: {len(tied)} nodes tie at {best}; kube picks one at random (here {chosen})" in table
    assert f"{chosen}  {best}  (tie)  <- chosen" in table


def test_a_small_cluster_has_no_sampling_statement(run_cli):
    data = run_cli("explain", "default/small", str(FIXTURES / "nominated-holds-room.yaml"), "-o", "json").json()
    assert "sampling" not in data and "tie" not in data


# kschedoracle -mode sequential -sample (parallelism: 1), releases 1.35.4 and 1.36.2, on the
# cluster below: the nodes kube's first attempt of default/web filtered, in visiting order
# (sampling.evaluated, as node-NNN indices). The node tree takes one node per zone in turn
# (zone-a 0-89, zone-b 90-139, zone-c 140-159); kube stops at its 100th feasible node
# (node-082), after filtering node-083 and dropping it (filteredBeyondLimit, not counted).
KUBE_EVALUATED = [
    *(i for k in range(20) for i in (k, 90 + k, 140 + k)),
    *(i for k in range(20, 50) for i in (k, 90 + k)),
    *range(50, 83),
]
KUBE_TOTALS = {"1.35": 474, "1.36": 454}  # every one of the 100 feasible nodes ties at this total


def _zoned_cluster_with_nominations(write_snapshot):
    """160 nodes of 4 cpu in three zones of 90, 50 and 20 nodes; every third node is full. web
    (priority 100) heads the queue; held (priority 100, 4 cpu) is nominated to node-001, lower
    (priority 10, 4 cpu) to node-002."""
    from kschedctl.testing import make_node, make_pod

    def zone(i: int) -> str:
        return "zone-a" if i < 90 else "zone-b" if i < 140 else "zone-c"

    objs = [make_node(f"node-{i:03d}").capacity(cpu="4", memory="16Gi").zone(zone(i), "r1") for i in range(160)]
    objs += [
        make_pod(f"busy-{i}").node(f"node-{i:03d}").req(cpu="4", memory="1Gi").created("2024-01-01T00:00:00Z") for i in range(0, 160, 3)
    ]
    objs += [
        make_pod("web").req(cpu="1", memory="1Gi").priority(100).created("2024-01-01T00:00:01Z"),
        make_pod("held").req(cpu="4", memory="1Gi").priority(100).nominated("node-001").created("2024-01-01T00:00:02Z"),
        make_pod("lower").req(cpu="4", memory="1Gi").priority(10).nominated("node-002").created("2024-01-01T00:00:03Z"),
    ]
    return write_snapshot(*objs)


@pytest.mark.parametrize("release", ["1.35", "1.36"])
def test_explain_names_the_nodes_kube_evaluated_and_the_nominated_pod_it_counted(run_cli, write_snapshot, release):
    """kube's recorded answer (kschedoracle -mode sequential -sample and -mode explain, 1.35.4 and
    1.36.2): 153 of 160 nodes evaluated from node-000 in node-tree order, 100 feasible, all tied;
    node-001 rejected with "Insufficient cpu" because held (equal priority) is counted there, and
    node-002 feasible because lower (priority 10) is not (addGENominatedPods)."""
    path = _zoned_cluster_with_nominations(write_snapshot)
    data = run_cli("explain", "default/web", path, "--kube-version", release, "--seed", "3", "-o", "json").json()
    sampling = data["sampling"]
    assert sampling.pop("evaluatedNodes") == [f"node-{i:03d}" for i in KUBE_EVALUATED]
    assert sampling == {"nodes": 160, "evaluated": 153, "startNode": "node-000", "feasible": 100, "scored": 100}
    assert data["tie"] == {"total": KUBE_TOTALS[release], "nodes": 100, "chosen": data["node"]}
    n1, n2 = data["nodes"]["node-001"], data["nodes"]["node-002"]
    assert n1["filter"] == {"code": "Unschedulable", "plugin": "NodeResourcesFit", "reasons": ["Insufficient cpu"]}
    assert [p["pod"] for p in n1["details"]["NominatedPods"]["pods"]] == ["default/held"]
    assert n2["filter"] == {"code": "Success"} and "details" not in n2
