"""End-to-end preemption through `kschedctl schedule -o json` and `explain -o json`.

Upstream behaviour: pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go and
pkg/scheduler/framework/preemption (section 6 of the reference): a failed higher-priority pod
nominates a node, its victims are deleted, and a later attempt places it on the nominated node.
Messages as kube-scheduler 1.35 words them (reference section 12).
"""

from __future__ import annotations

from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.testing import make_node, make_pod

# DynamicResources runs before DefaultPreemption at PostFilter and contributes its own reason.
DRA_PREFIX = "no new claims to deallocate, " if "DynamicResources" in default_registry().registry else ""


def _nodes():
    return [make_node(f"n{i}").capacity(cpu="2", memory="4Gi") for i in range(1, 4)]


def _low(i: int, start: str, **labels: str):
    b = make_pod(f"low-{i}").req(cpu="1500m").priority(0).node(f"n{i}").start_time(start)
    return b.labels(labels) if labels else b


# n2's victim started last: pickOneNodeForPreemption's latest-start criterion prefers n2.
LOWS = [_low(1, "2024-01-01T00:00:00Z"), _low(2, "2024-01-03T00:00:00Z", app="db"), _low(3, "2024-01-02T00:00:00Z")]


def _pdb(allowed: int) -> dict:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "db", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "db"}}},
        "status": {"disruptionsAllowed": allowed},
    }


def test_high_priority_pod_preempts_and_lands_on_nominated_node(run_cli, write_snapshot):
    path = write_snapshot(*_nodes(), *LOWS, make_pod("critical").req(cpu="1").priority(1000))
    out = run_cli("schedule", path, "-o", "json", "--seed", "1")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert data["preemptions"] == [{"preemptor": "default/critical", "node": "n2", "victims": ["default/low-2"]}]
    [placement] = data["placements"]
    assert (placement["pod"], placement["node"], placement["attempts"]) == ("default/critical", "n2", 2)
    assert data["unschedulable"] == []
    assert data["summary"]["preempted"] == 1 and data["summary"]["scheduled"] == 1


def test_pdb_steers_preemption_to_another_node(run_cli, write_snapshot):
    # low-2 is protected by a PDB with no disruptions left: n2 would violate it, n3 is next best.
    path = write_snapshot(*_nodes(), *LOWS, _pdb(0), make_pod("critical").req(cpu="1").priority(1000))
    data = run_cli("schedule", path, "-o", "json", "--seed", "1").json()
    assert data["preemptions"] == [{"preemptor": "default/critical", "node": "n3", "victims": ["default/low-3"]}]
    assert [(p["pod"], p["node"]) for p in data["placements"]] == [("default/critical", "n3")]


def test_pdb_with_budget_left_does_not_steer(run_cli, write_snapshot):
    path = write_snapshot(*_nodes(), *LOWS, _pdb(1), make_pod("critical").req(cpu="1").priority(1000))
    data = run_cli("schedule", path, "-o", "json", "--seed", "1").json()
    assert [p["node"] for p in data["preemptions"]] == ["n2"]


def test_unhelpful_preemption_message(run_cli, write_snapshot):
    highs = [make_pod(f"high-{i}").req(cpu="1500m").priority(1000).node(f"n{i}") for i in range(1, 4)]
    path = write_snapshot(*_nodes(), *highs, make_pod("mid").req(cpu="1").priority(10))
    data = run_cli("schedule", path, "-o", "json", "--seed", "1").json()
    [u] = data["unschedulable"]
    assert u["pod"] == "default/mid"
    assert u["message"] == (
        "0/3 nodes are available: 3 Insufficient cpu. "
        + DRA_PREFIX
        + "preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
    )
    assert data["preemptions"] == []


def test_preemption_not_helpful_on_unresolvable_nodes(run_cli, write_snapshot):
    # A node too small for the pod even when empty is UnschedulableAndUnresolvable: never a candidate.
    nodes = [make_node(f"n{i}").capacity(cpu="500m", memory="4Gi") for i in range(1, 4)]
    path = write_snapshot(*nodes, make_pod("big").req(cpu="1").priority(1000))
    [u] = run_cli("schedule", path, "-o", "json", "--seed", "1").json()["unschedulable"]
    assert u["message"] == (
        "0/3 nodes are available: 3 Insufficient cpu. "
        + DRA_PREFIX
        + "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )


def test_preemption_policy_never(run_cli, write_snapshot):
    path = write_snapshot(*_nodes(), *LOWS, make_pod("polite").req(cpu="1").priority(1000).set("spec.preemptionPolicy", "Never"))
    data = run_cli("schedule", path, "-o", "json", "--seed", "1").json()
    [u] = data["unschedulable"]
    assert u["message"] == (
        "0/3 nodes are available: 3 Insufficient cpu. " + DRA_PREFIX + "preemption: not eligible due to preemptionPolicy=Never."
    )
    assert data["preemptions"] == []


def test_explain_reports_preemption_without_doing_it(run_cli, write_snapshot):
    path = write_snapshot(*_nodes(), *LOWS, make_pod("critical").req(cpu="1").priority(1000))
    data = run_cli("explain", "default/critical", path, "-o", "json").json()
    assert data["node"] is None
    # A successful preemption adds no PostFilter text to the FitError.
    assert data["message"] == "0/3 nodes are available: 3 Insufficient cpu."
    assert data["preemption"] == {"nominatedNode": "n2", "victims": ["default/low-2"]}
    assert data["nodes"]["n2"]["filter"] == {"code": "Unschedulable", "plugin": "NodeResourcesFit", "reasons": ["Insufficient cpu"]}
