"""Gang scheduling through the CLI: `schedule --feature-gates`, a `simulate` scenario that adds a
node, and the Coscheduling package (scheduler-plugins PodGroups) when installed."""

import importlib.util

import pytest
import yaml

from kschedctl.testing import GANG_GATES, make_node, make_pod, make_pod_group


def _gang(n, group="train", cpu="1500m"):
    return [make_pod(f"worker-{i}").req(cpu=cpu).pod_group(group) for i in range(n)]


def test_gang_where_only_three_of_four_fit_places_nothing(run_cli, write_snapshot):
    path = write_snapshot(
        *[make_node(f"n{i}").capacity(cpu="2", memory="8Gi") for i in range(3)], make_pod_group("train", min_count=4), *_gang(4)
    )
    out = run_cli("schedule", path, "-o", "json", "--seed", "1", "--feature-gates", GANG_GATES)
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert data["placements"] == []
    assert sorted(u["pod"] for u in data["unschedulable"]) == [f"default/worker-{i}" for i in range(4)]
    messages = [u["message"] for u in data["unschedulable"]]
    # upstream gangscheduling.go PlacementFeasible (1.37) for the three that found a node
    assert messages.count("minCount (4) cannot be satisfied: 3 scheduled, 0 remaining") == 3
    [group] = data["podGroups"]
    assert group["status"] == "Unschedulable"


def test_without_the_gates_the_group_is_ignored_and_pods_schedule_alone(run_cli, write_snapshot):
    path = write_snapshot(
        *[make_node(f"n{i}").capacity(cpu="2", memory="8Gi") for i in range(3)], make_pod_group("train", min_count=4), *_gang(4)
    )
    data = run_cli("schedule", path, "-o", "json", "--seed", "1").json()
    assert len(data["placements"]) == 3 and len(data["unschedulable"]) == 1


def test_gang_completes_when_a_node_is_added_in_a_scenario(run_cli, tmp_path):
    objects = [make_node(f"n{i}").capacity(cpu="2", memory="8Gi").dict() for i in range(3)]
    objects += [make_pod_group("train", min_count=4)] + [p.dict() for p in _gang(4)]
    scenario = {
        "apiVersion": "kschedctl.io/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": "gang-waits-for-a-node"},
        "objects": objects,
        "events": [{"at": "30s", "action": "addNode", "object": make_node("n3").capacity(cpu="2", memory="8Gi").dict()}],
    }
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(scenario, sort_keys=False))
    out = run_cli("simulate", str(path), "-o", "json", "--seed", "1", "--feature-gates", GANG_GATES)
    assert out.exit_code == 0, out.stderr
    data = out.json()
    placed = {p["pod"]: p for p in data["placements"]}
    assert sorted(placed) == [f"default/worker-{i}" for i in range(4)]
    assert len({p["node"] for p in placed.values()}) == 4
    assert all(p["time"] >= 30 for p in placed.values())  # nobody placed before the node joined


@pytest.mark.skipif(importlib.util.find_spec("kschedctl_coscheduling") is None, reason="pip install ./plugins/kschedctl-coscheduling")
@pytest.mark.parametrize("workers,placed", [(3, 3), (5, 0)], ids=["fits", "never-fits"])
def test_coscheduling_pod_group(run_cli, write_snapshot, tmp_path, workers, placed):
    config = tmp_path / "cosched.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "profiles": [
                    {
                        "schedulerName": "default-scheduler",
                        "plugins": {
                            "multiPoint": {"enabled": [{"name": "Coscheduling"}]},
                            "queueSort": {"disabled": [{"name": "*"}], "enabled": [{"name": "Coscheduling"}]},
                        },
                    }
                ],
            }
        )
    )
    group = {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": "mpi", "namespace": "default"},
        "spec": {"minMember": workers, "scheduleTimeoutSeconds": 10},
    }
    pods = [make_pod(f"mpi-{i}").req(cpu="1500m").label("scheduling.x-k8s.io/pod-group", "mpi") for i in range(workers)]
    path = write_snapshot(*[make_node(f"n{i}").capacity(cpu="2", memory="8Gi") for i in range(4)], group, *pods)
    out = run_cli("schedule", path, "--config", str(config), "-o", "json", "--seed", "1")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    # all or nothing: 3 workers fit on 4 nodes; 5 never can, and the run still ends
    assert len(data["placements"]) == placed
    assert len(data["placements"]) + len(data["unschedulable"]) == workers


def test_explain_pod_group_shows_each_member_in_the_groups_simulated_state(run_cli, write_snapshot):
    path = write_snapshot(
        *[make_node(f"n{i}").capacity(cpu="2", memory="8Gi") for i in range(3)], make_pod_group("train", min_count=4), *_gang(4)
    )
    out = run_cli("explain", "podgroup/default/train", path, "-o", "json", "--seed", "1", "--feature-gates", GANG_GATES)
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert data["podGroup"] == "default/train" and data["status"] == "Unschedulable"
    members = data["members"]
    assert [m["pod"] for m in members] == [f"default/worker-{i}" for i in range(4)]
    # each member sees the earlier members assumed: the k-th finds k nodes already full
    for k, m in enumerate(members[:3]):
        full = [n for n, v in m["nodes"].items() if v["filter"].get("reasons") == ["Insufficient cpu"]]
        assert len(full) == k
        assert m["node"] is not None
    last = members[3]
    assert last["node"] is None and last["message"].startswith("0/3 nodes are available: 3 Insufficient cpu.")
    table = run_cli("explain", "podgroup/default/train", path, "--seed", "1", "--feature-gates", GANG_GATES).stdout
    assert "pod group default/train" in table and "default/worker-3: unschedulable" in table


def _one_member_of_three(write_snapshot, api_version=None):
    group = make_pod_group("train", min_count=3)
    if api_version:
        group["apiVersion"] = api_version
    return write_snapshot(*[make_node(f"n{i}").capacity(cpu="2", memory="8Gi") for i in range(3)], group, *_gang(1, cpu="1"))


def test_a_pod_group_the_release_ignores_is_said_so_with_the_gate_to_set(run_cli, write_snapshot):
    """1.37 reads PodGroups only with GenericWorkload (off by default) and applies minCount only
    with GangScheduling too (pkg/scheduler/framework/plugins/registry.go): the user who wrote a
    minCount-3 gang is told why its one member is scheduled alone."""
    path = _one_member_of_three(write_snapshot)
    out = run_cli("schedule", path, "--seed", "1")
    assert out.exit_code == 0 and "Scheduled" in out.stdout
    assert (
        "warning: 1 PodGroup(s) in the snapshot (default/train) ignored: pod groups are read only with the "
        "GenericWorkload feature gate, off by default in 1.37 (--feature-gates GenericWorkload=true,"
        "GangScheduling=true); their pods are scheduled one by one"
    ) in out.stderr
    half = run_cli("schedule", path, "--seed", "1", "--feature-gates", "GenericWorkload=true")
    assert "the gang rule (minCount) is not applied: the GangScheduling feature gate is off" in half.stderr
    old = run_cli("schedule", path, "--seed", "1", "--kube-version", "1.35", "--feature-gates", GANG_GATES)
    assert "ignored: kube-scheduler 1.35 reads pod groups from Workloads (spec.workloadRef)" in old.stderr
    gang = run_cli("schedule", path, "--seed", "1", "--feature-gates", GANG_GATES)
    assert "PodGroup" not in gang.stderr and "Skipped" in gang.stdout  # 1 of 3: waits for the rest


def test_a_pod_group_of_a_version_no_release_serves_is_refused(run_cli, write_snapshot):
    path = _one_member_of_three(write_snapshot, "scheduling.k8s.io/v9")
    out = run_cli("schedule", path)
    assert out.exit_code == 2 and out.stdout == ""
    assert 'PodGroup default/train: apiVersion: no matches for kind "PodGroup" in version "scheduling.k8s.io/v9"' in out.stderr


def test_a_gang_that_cannot_complete_states_its_quorum_who_fits_where_and_what_blocks(run_cli, write_snapshot):
    """4 members of 1.5 cpu on three 2-cpu nodes: the group cycle places 3 and the 4th fits
    nowhere, so none is bound (gangscheduling.go PlacementFeasible). The verdict says it."""
    path = write_snapshot(
        *[make_node(f"n{i}").capacity(cpu="2", memory="8Gi") for i in range(3)], make_pod_group("train", min_count=4), *_gang(4)
    )
    data = run_cli("schedule", path, "-o", "json", "--seed", "1", "--feature-gates", GANG_GATES).json()
    [group] = data["podGroups"]
    fit = {m["pod"]: m["feasibleNode"] for m in group["members"] if m.get("feasibleNode")}
    assert len(fit) == 3 and sorted(fit.values()) == ["n0", "n1", "n2"]
    where = ", ".join(f"{p} on {n}" for p, n in fit.items())
    assert group["verdict"] == (
        f"the group needs 4 (minCount); 3 of 4 member(s) fit ({where}); 1 fit nowhere "
        "(default/worker-3): 0/3 nodes are available: 3 Insufficient cpu; 1 more must fit "
        "before any member is bound"
    )
    table = run_cli("schedule", path, "--seed", "1", "--feature-gates", GANG_GATES).stdout
    assert "default/train: the group needs 4 (minCount); 3 of 4 member(s) fit" in table
    explain = run_cli("explain", "podgroup/default/train", path, "--feature-gates", GANG_GATES).stdout
    assert "verdict: the group needs 4 (minCount); 3 of 4 member(s) fit" in explain


@pytest.mark.skipif(importlib.util.find_spec("kschedctl_coscheduling") is None, reason="pip install ./plugins/kschedctl-coscheduling")
def test_a_permit_rejection_is_not_diagnosed_as_a_one_node_cluster(run_cli, write_snapshot, tmp_path):
    """Coscheduling rejects waiting members at Permit; kube reports that as a FitError of one node
    ("0/1 nodes are available", schedule_one.go), and the diagnosis says so instead of
    "1 node(s), none fits" on a 3-node cluster."""
    config = tmp_path / "cosched.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "profiles": [
                    {
                        "schedulerName": "default-scheduler",
                        "plugins": {
                            "multiPoint": {"enabled": [{"name": "Coscheduling"}]},
                            "queueSort": {"disabled": [{"name": "*"}], "enabled": [{"name": "Coscheduling"}]},
                        },
                    }
                ],
            }
        )
    )
    group = {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": "mpi", "namespace": "default"},
        "spec": {"minMember": 4, "scheduleTimeoutSeconds": 10},
    }
    pods = [make_pod(f"mpi-{i}").req(cpu="1500m").label("scheduling.x-k8s.io/pod-group", "mpi") for i in range(4)]
    path = write_snapshot(*[make_node(f"n{i}").capacity(cpu="2", memory="8Gi") for i in range(3)], group, *pods)
    data = run_cli("schedule", path, "--config", str(config), "-o", "json", "--seed", "1").json()
    waiting = [u for u in data["unschedulable"] if u["message"].startswith("0/1 nodes are available")]
    assert waiting
    group = (
        "pod group default/mpi needs 4 (minMember); 0 placed, 3 found a node and waited at Permit; 1 fit nowhere "
        "(default/mpi-3): 0/3 nodes are available: 3 Insufficient cpu; 1 more must find a node before the group is bound"
    )
    assert len(waiting) == 3
    for u in waiting:
        assert u["diagnosis"] == (
            group + ". This pod: rejected after a node was found for it, at Permit or while binding (kube reports that "
            "as a FitError of 1 node, of 3): 1 optimistic rejection in PostFilter."
        )
    [stuck] = [u for u in data["unschedulable"] if u not in waiting]
    assert stuck["diagnosis"].startswith(group + ". This pod: 3 node(s), none fits: 3 Insufficient cpu")
