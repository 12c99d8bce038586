"""explain's statements stay true where kube's own words are terse: a node held by a pod that
preemption nominated there, a ReadWriteOncePod claim held elsewhere."""

from __future__ import annotations

from pathlib import Path

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
    assert data["verdict"].endswith("Pods nominated by preemption hold room on 1 node(s) (n1): default/big "
                                    "(priority 1000); kube counts them there until they are bound.")
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
    assert data["verdict"].endswith("The ReadWriteOncePod claim default/data is held by default/holder on n1: "
                                    "no node can help until it is gone; more capacity would not.")
    assert "More capacity" not in data["verdict"]
