"""Why is it Pending? `explain` says what the pod is first, gives the answer first (the verdict,
the best nodes), the facts behind each rejection, every blocker with --all-filters, and the
attempts `schedule` made with --in-run; `schedule` gives the same verdict as `diagnosis`.

The snapshot is tests/e2e/fixtures/why-pending.yaml, as `kubectl get nodes,pods -A -o yaml`
prints it (managedFields, ownerReferences, the tolerations admission adds, status blocks):
n1 (4 cpu, runs batch/filler-0 asking 3 cpu at priority 0), n2 (tainted dedicated=gpu),
n3 (cordoned), n4 (2 cpu, pool=small, shop/proxy-0 holds host port 8080).
"""

from __future__ import annotations

from pathlib import Path

import kubectl_shape as k
import pytest

from kschedctl.testing import make_node, make_pod

FIXTURE = str(Path(__file__).parent / "fixtures" / "why-pending.yaml")
CLUSTER = str(Path(__file__).resolve().parents[2] / "examples" / "cluster.yaml")


def _explain(run_cli, *args: str) -> dict:
    out = run_cli("explain", *args, "-o", "json")
    assert out.exit_code == 0, out.stderr
    return out.json()


# --- 1. state first ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pod, state, detail",
    [
        ("shop/gated-0", "gated", "skipped by `schedule`: waiting for scheduling gates: [example.com/approval]"),
        ("batch/filler-0", "bound", "bound to node n1"),
        ("batch/report-1", "terminal", "phase Succeeded: not scheduled"),
        ("shop/custom-0", "no-profile", "no profile for schedulerName 'my-scheduler': `schedule` skips it"),
    ],
    ids=["gated", "bound", "terminal", "no-profile"],
)
def test_a_pod_that_is_not_pending_is_said_so_and_not_evaluated(run_cli, pod, state, detail):
    data = _explain(run_cli, pod, FIXTURE)
    assert data["state"] == state and data["stateDetail"] == detail
    assert data["evaluated"] is False and data["node"] is None and data["nodes"] == {}
    table = run_cli("explain", pod, FIXTURE).stdout
    assert f"state: {state}: {detail}" in table and "would be scheduled" not in table


def test_the_gated_example_pod_is_no_longer_said_to_be_scheduled(run_cli):
    """The known bug: batch/nightly-export, which `schedule` skips for its gate, was said to go
    to ip-10-0-1-11. Its state is what `schedule` reports."""
    out = run_cli("explain", "batch/nightly-export", CLUSTER)
    assert "would be scheduled" not in out.stdout
    assert "state: gated: skipped by `schedule`: waiting for scheduling gates: [example.com/quota-approval]" in out.stdout
    skipped = run_cli("schedule", CLUSTER, "-o", "json").json()["skipped"]
    assert {"pod": "batch/nightly-export", "reason": "waiting for scheduling gates: [example.com/quota-approval]"} in skipped


def test_evaluate_takes_a_bound_pod_off_its_node_and_evaluates_it(run_cli):
    data = _explain(run_cli, "batch/filler-0", FIXTURE, "--evaluate")
    assert data["state"] == "bound" and data["evaluated"] is True
    assert data["node"] == "n1"  # its own 3 cpu no longer count against it
    assert data["nodes"]["n1"]["filter"] == {"code": "Success"}


def test_a_nominated_pod_is_evaluated_and_says_where_it_is_nominated(run_cli, write_snapshot):
    path = write_snapshot(
        k.node(make_node("n1").capacity(cpu="2", memory="2Gi", pods="10")), k.pod(make_pod("web-0").req(cpu="1").nominated("n1"))
    )
    data = _explain(run_cli, "web-0", path)
    assert data["state"] == "nominated" and data["stateDetail"].startswith("nominated to node n1")
    assert data["evaluated"] is True and data["node"] == "n1"


# --- 2. explain in the run -----------------------------------------------------------------------


def test_plain_explain_says_it_evaluates_the_snapshot_and_points_to_in_run(run_cli):
    """shop/small-b fits n4 in the snapshot as given; `schedule` first places shop/small-a (older)
    there, and small-b is left unschedulable."""
    data = _explain(run_cli, "shop/small-b", FIXTURE, "--seed", "1")
    assert data["node"] == "n4"
    assert data["note"].startswith("evaluated against the snapshot as given")
    assert data["run"]["status"] == "Unschedulable" and data["run"]["differs"] is True
    assert "`explain --in-run` shows its attempts" in data["note"]


def test_the_readme_pod_that_explain_and_schedule_disagree_on(run_cli):
    data = _explain(run_cli, "shop/web-7d9f-pqrst", CLUSTER, "--seed", "1")
    assert data["node"] == "ip-10-0-3-31"
    assert data["run"] == {"status": "Scheduled", "node": "ip-10-0-1-12", "attempts": 1, "differs": True}


def test_in_run_reports_the_attempts_schedule_made_and_what_moved_the_pod_back(run_cli):
    """shop/mid-0 (priority 1000) fails, preempts batch/filler-0 on n1, and is retried when the
    victim's deletion (AssignedPodDelete) moves it back: nominated, it is placed on n1."""
    data = _explain(run_cli, "shop/mid-0", FIXTURE, "--seed", "1", "--in-run")
    first, second = data["attempts"]
    assert first["attempt"] == 1 and first["movedBy"] is None
    assert first["outcome"]["event"] == "FailedScheduling"
    assert first["nodes"]["n1"]["filter"]["reasons"] == ["Insufficient cpu"]
    assert second["attempt"] == 2 and second["movedBy"] == "AssignedPodDelete"
    assert second["before"]["preemptions"] == 1 and second["before"]["nominatedNode"] == "n1"
    assert second["outcome"] == {"event": "Scheduled", "node": "n1", "message": None}
    # the nominated node is tried first (evaluateNominatedNode): the others were not looked at
    assert second["nodes"]["n2"]["filter"]["code"] == "NotEvaluated"
    assert data["node"] == "n1" and data["run"]["status"] == "Scheduled"
    run = run_cli("schedule", FIXTURE, "--seed", "1", "-o", "json").json()
    assert {"pod": "shop/mid-0", "node": "n1", "profile": "default-scheduler", "attempts": 2, "score": None} in run["placements"]


def test_in_run_sees_the_state_earlier_placements_made(run_cli):
    data = _explain(run_cli, "shop/small-b", FIXTURE, "--seed", "1", "--in-run")
    first = data["attempts"][0]
    assert first["before"]["placed"] >= 1
    assert first["nodes"]["n4"]["filter"]["reasons"] == ["Insufficient cpu"]
    assert data["node"] is None and data["run"]["status"] == "Unschedulable"
    table = run_cli("explain", "shop/small-b", FIXTURE, "--seed", "1", "--in-run").stdout
    assert "attempts in the schedule run:" in table and "the run: Unschedulable" in table


# --- 3. the facts behind each reason -------------------------------------------------------------


@pytest.mark.parametrize(
    "pod, node, plugin, facts, summary",
    [
        (
            "shop/huge-0",
            "n1",
            "NodeResourcesFit",
            {
                "resources": [
                    {
                        "resource": "cpu",
                        "requested": "6",
                        "allocatable": "4",
                        "alreadyRequested": "3",
                        "free": "1",
                        "exceedsAllocatable": True,
                    }
                ]
            },
            "cpu: the pod asks 6, more than the node's allocatable 4",
        ),
        (
            "shop/mid-0",
            "n1",
            "NodeResourcesFit",
            {
                "resources": [
                    {
                        "resource": "cpu",
                        "requested": "3",
                        "allocatable": "4",
                        "alreadyRequested": "3",
                        "free": "1",
                        "exceedsAllocatable": False,
                    }
                ]
            },
            "cpu: the pod asks 3, 1 free (3 of 4 requested)",
        ),
        (
            "shop/mid-0",
            "n2",
            "TaintToleration",
            {"untoleratedTaints": ["dedicated=gpu:NoSchedule"]},
            "untolerated taint dedicated=gpu:NoSchedule",
        ),
        ("shop/ssd-0", "n3", None, None, None),  # cordoned: NodeUnschedulable comes first (below)
        (
            "shop/ssd-0",
            "n1",
            "NodeAffinity",
            {"nodeSelector": [{"key": "disk", "wanted": "ssd", "nodeValue": None}]},
            "nodeSelector disk=ssd (no such label)",
        ),
        (
            "shop/port-0",
            "n4",
            "NodePorts",
            {"ports": [{"port": 8080, "protocol": "TCP", "hostIP": "0.0.0.0", "heldBy": ["shop/proxy-0"]}]},
            "host port TCP/8080 held by shop/proxy-0",
        ),
    ],
    ids=["resources-exceed-allocatable", "resources-short-now", "taint", "cordoned", "node-selector", "host-port"],
)
def test_each_rejection_carries_its_facts(run_cli, pod, node, plugin, facts, summary):
    data = _explain(run_cli, pod, FIXTURE)
    row = data["nodes"][node]
    if plugin is None:
        assert row["filter"]["plugin"] == "NodeUnschedulable"
        assert "cordoned" in row["details"]["NodeUnschedulable"]["summary"]
        return
    assert row["filter"]["plugin"] == plugin  # kube's status, unchanged
    got = row["details"][plugin]
    assert got["summary"] == summary
    assert {k: v for k, v in got.items() if k != "summary"} == facts
    table = run_cli("explain", pod, FIXTURE).stdout
    assert f"  {node}: {plugin}: {summary}" in table


def test_topology_spread_facts_give_the_domains_the_minimum_and_the_skew(run_cli):
    """examples/cluster.yaml: shop/web-7d9f-pqrst spreads over zones with maxSkew 1."""
    data = _explain(run_cli, "shop/web-7d9f-pqrst", CLUSTER)
    [c] = data["nodes"]["ip-10-0-1-11"]["details"]["PodTopologySpread"]["constraints"]
    assert c["topologyKey"] == "topology.kubernetes.io/zone" and c["maxSkew"] == 1
    assert c["nodeDomain"] == "eu-west-1a" and c["globalMinimum"] == 0 and c["skew"] == 2
    assert c["domains"]["eu-west-1a"] == 1


def test_anti_affinity_facts_name_the_pods_behind_it(run_cli):
    """In `schedule`'s run the earlier web replica on ip-10-0-3-31 repels shop/web-7d9f-pqrst."""
    data = _explain(run_cli, "shop/web-7d9f-pqrst", CLUSTER, "--seed", "1", "--in-run")
    facts = data["attempts"][0]["nodes"]["ip-10-0-3-31"]["details"]["InterPodAffinity"]
    assert [p["pod"] for p in facts["pods"]][:1] == ["shop/web-7d9f-klmno"]


def test_all_filters_shows_every_blocker_of_a_node(run_cli):
    """n3 is cordoned and lacks disk=ssd: kube stops at NodeUnschedulable; --all-filters runs
    NodeAffinity too. kube's own status stays the first failure."""
    plain = _explain(run_cli, "shop/ssd-0", FIXTURE)["nodes"]["n3"]
    every = _explain(run_cli, "shop/ssd-0", FIXTURE, "--all-filters")["nodes"]["n3"]
    assert (
        plain["filter"]
        == every["filter"]
        == {"code": "UnschedulableAndUnresolvable", "plugin": "NodeUnschedulable", "reasons": ["node(s) were unschedulable"]}
    )
    assert "alsoRejectedBy" not in plain
    assert every["alsoRejectedBy"] == [
        {"plugin": "NodeAffinity", "code": "UnschedulableAndUnresolvable", "reasons": ["node(s) didn't match Pod's node affinity/selector"]}
    ]
    assert set(every["details"]) == {"NodeUnschedulable", "NodeAffinity"}


# --- 4. the answer first -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pod, words",
    [
        ("shop/huge-0", ["the pod asks 6 cpu, more than every node's allocatable (largest 4)", "No node could ever hold it"]),
        (
            "shop/mid-0",
            [
                "the pod asks 3 cpu, free now on none of these 2 node(s); 3 node(s) have the allocatable for it (when empty)",
                "Preemption could help (lower-priority pods run on 1 node(s) big enough for it)",
            ],
        ),
        ("shop/polite-0", ["the pod never preempts (preemptionPolicy: Never)"]),
        ("shop/ssd-0", ["2 node(s) didn't match Pod's node affinity/selector"]),
    ],
    ids=["exceeds-every-node", "preemption-could-help", "never-preempts", "no-resource-reason"],
)
def test_the_verdict_says_what_would_help_and_only_what_is_true(run_cli, pod, words):
    data = _explain(run_cli, pod, FIXTURE)
    assert data["node"] is None
    for w in words:
        assert w in data["verdict"]
    if pod != "shop/mid-0":
        assert "Preemption could help" not in data["verdict"]
    table = run_cli("explain", pod, FIXTURE).stdout
    assert table.index("verdict: ") < table.index("NODE ")  # the answer first, above the table


def test_schedule_gives_the_verdict_as_diagnosis_next_to_kubes_message(run_cli):
    data = run_cli("schedule", FIXTURE, "--seed", "1", "-o", "json").json()
    huge = next(u for u in data["unschedulable"] if u["pod"] == "shop/huge-0")
    assert huge["message"].startswith("0/4 nodes are available: ")  # kube's, unchanged
    assert "No node could ever hold it" in huge["diagnosis"]
    table = run_cli("schedule", FIXTURE, "--seed", "1").stdout
    assert f"  diagnosis: {huge['diagnosis']}" in table


def test_the_best_nodes_come_sorted_with_ties_marked(run_cli):
    data = _explain(run_cli, "batch/nightly-export", CLUSTER, "--evaluate", "--seed", "1")
    ranking = data["ranking"]
    assert [r["total"] for r in ranking] == sorted((r["total"] for r in ranking), reverse=True)
    assert ranking[0]["tie"] and ranking[1]["tie"] and ranking[0]["total"] == ranking[1]["total"]
    assert ranking[0]["rank"] == ranking[1]["rank"] == 1
    assert all(data["nodes"][r["node"]]["total"] == r["total"] for r in ranking)
    table = run_cli("explain", "batch/nightly-export", CLUSTER, "--evaluate", "--top", "1").stdout
    assert "top 1; -o wide lists all" in table and "1= " in table and "(tie)" in table
    assert "score x its weight" in table


def test_in_run_of_a_pod_schedule_skips_says_it_made_no_attempt(run_cli):
    data = _explain(run_cli, "shop/gated-0", FIXTURE, "--in-run")
    assert data["state"] == "gated" and data["evaluated"] is False and data["attempts"] == []
    assert data["run"] == {"status": "Skipped", "node": None, "reason": "waiting for scheduling gates: [example.com/approval]"}
    assert "made no attempt for this pod (Skipped)" in run_cli("explain", "shop/gated-0", FIXTURE, "--in-run").stdout


def test_a_pod_that_fits_gets_a_verdict_too(run_cli):
    data = _explain(run_cli, "shop/web-7d9f-pqrst", CLUSTER, "--seed", "1")
    assert data["verdict"] == (
        "fits 1 of 6 node(s); the others: 3 node(s) didn't match pod topology spread "
        "constraints, 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable"
    )


def test_explain_with_its_arguments_swapped_says_the_pod_comes_first(run_cli):
    """`explain FILE POD`: the pod's name is no file and the file is where the pod goes."""
    out = run_cli("explain", CLUSTER, "batch/analytics-big")
    assert out.exit_code == 2 and out.stdout == ""
    assert out.stderr == (
        f"error: {CLUSTER}: a file where the pod is expected, and no file batch/analytics-big: "
        f"the pod comes first (kschedctl explain POD SNAPSHOT..., here kschedctl explain "
        f"batch/analytics-big {CLUSTER})\n"
    )
    # a pod that is not in the snapshot is still worded as before
    assert "not found in the snapshot" in run_cli("explain", "batch/nope", CLUSTER).stderr
