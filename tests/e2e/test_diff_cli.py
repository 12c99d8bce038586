"""End-to-end `kschedctl diff`: two configurations or releases over one snapshot, the same seed
on both sides; moves classed scores-changed vs tie-break-only from side B's own score tables;
the contract's JSON shape and exit code 4 (README "diff -o json")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl.testing import make_node, make_pod, only_plugins

MOST_ALLOCATED = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated}}
"""

IGNORE_FOO = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args: {ignoredResources: [example.com/foo]}
"""


@pytest.fixture
def write_text(tmp_path: Path):
    def write(name: str, text: str) -> str:
        path = tmp_path / name
        path.write_text(text)
        return str(path)

    return write


def _changes(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["pod"]: c for c in data["changes"]}


def test_most_allocated_moves_the_pods_to_the_busy_node(run_cli, write_snapshot, write_text) -> None:
    """LeastAllocated (A) puts both pods on the empty node n1; MostAllocated (B) on the half-full
    n2: the new node outranks the old one under B (scores changed)."""
    snap = write_snapshot(
        make_node("n1").capacity(cpu="4", memory="8Gi"),
        make_node("n2").capacity(cpu="4", memory="8Gi"),
        make_pod("busy").req(cpu="2", memory="4Gi").node("n2"),
        make_pod("web-1").req(cpu="500m", memory="512Mi"),
        make_pod("web-2").req(cpu="500m", memory="512Mi"),
    )
    out = run_cli("diff", snap, "--config-b", write_text("most.yaml", MOST_ALLOCATED), "-o", "json")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    changes = _changes(data)
    assert set(changes) == {"default/web-1", "default/web-2"}
    for c in changes.values():
        assert c["kind"] == "moved"
        assert (c["a"]["node"], c["b"]["node"]) == ("n1", "n2")
        assert c["a"]["message"] is None and c["b"]["message"] is None
        assert c["move"]["class"] == "scoresChanged" and c["move"]["why"] == "outranked"
        assert c["move"]["oldNodeScore"] < c["move"]["bestScore"]
    assert data["summary"]["moved"] == 2 and data["summary"]["scoresChanged"] == 2
    assert data["summary"]["tieBreakOnly"] == 0
    # per node requested before/after: the two pods' cpu moved from n1 to n2
    nodes = {n["name"]: n for n in data["nodes"]}
    assert nodes["n1"]["requested"]["a"]["cpu"] == 1000 and nodes["n1"]["requested"]["b"]["cpu"] == 0
    assert nodes["n2"]["requested"]["a"]["cpu"] == 2000 and nodes["n2"]["requested"]["b"]["cpu"] == 3000
    assert data["packing"]["a"]["nodesUsed"] == 2 and data["packing"]["b"]["nodesUsed"] == 1
    assert data["packing"]["b"]["emptyNodes"] == 1


def test_a_change_that_only_redraws_ties_is_tie_break_only(run_cli, write_snapshot, write_text) -> None:
    """A scores with ImageLocality, B without. Only web-0 uses the image (on n3), so A places it
    there and draws a tie-break for every other pod; B draws one for web-0 too, so every later
    draw shifts and pods land elsewhere — but under B every node ties for every pod (no plugin
    left that tells nodes apart), so each move is classed tie-break only."""
    nodes = [make_node(f"n{i}").capacity(cpu="8", memory="16Gi") for i in range(1, 6)]
    nodes[2].images([(["registry.example/web:1"], 500 * 1024 * 1024)])
    pods = [make_pod("web-0").container({"cpu": "100m"}, image="registry.example/web:1")]
    pods += [make_pod(f"web-{i}").req(cpu="100m") for i in range(1, 8)]
    snap = write_snapshot(*nodes, *pods)
    a = write_text("a.yaml", only_plugins("NodeUnschedulable", "TaintToleration", "ImageLocality"))
    b = write_text("b.yaml", only_plugins("NodeUnschedulable", "TaintToleration"))
    data = run_cli("diff", snap, "--config-a", a, "--config-b", b, "-o", "json", "--seed", "3").json()
    assert data["changes"], "the shifted draws move pods"
    for c in data["changes"]:
        assert c["kind"] == "moved"
        assert c["move"]["class"] == "tieBreakOnly" and c["move"]["why"] == "tied"
        assert c["move"]["oldNodeScore"] == c["move"]["bestScore"] and c["move"]["tiedNodes"] == 5
    assert data["summary"]["scoresChanged"] == 0
    assert data["summary"]["tieBreakOnly"] == data["summary"]["moved"] == len(data["changes"])


def test_balanced_allocation_formula_of_1_36_moves_a_pod(run_cli, write_snapshot) -> None:
    """kubernetes/kubernetes#135573 (balanced_allocation.go, 1.36). Pod 500m/512Mi on two 4 cpu /
    8Gi nodes: node-a holds 4Gi of memory, node-b 1 cpu and 2Gi. NodeResourcesFit gives both 65.
    1.35 scores the balance with the pod: node-a 1-|0.125-0.5625|/2 = 78, node-b 1-|0.375-0.3125|/2
    = 96, so node-b wins (461 vs 443). 1.37 scores the change of balance: node-a
    50+(50+78-75)/2 = 76, node-b 50+(50+96-100)/2 = 73, so node-a wins (441 vs 438)."""
    snap = write_snapshot(
        make_node("node-a").capacity(cpu="4", memory="8Gi"),
        make_node("node-b").capacity(cpu="4", memory="8Gi"),
        make_pod("load-a").req(cpu="0", memory="4Gi").node("node-a"),
        make_pod("load-b").req(cpu="1", memory="2Gi").node("node-b"),
        make_pod("web").req(cpu="500m", memory="512Mi"),
    )
    out = run_cli("diff", snap, "--kube-version-a", "1.35", "--kube-version-b", "1.37", "-o", "json")
    data = out.json()
    assert (data["a"]["kubeVersion"], data["b"]["kubeVersion"]) == ("1.35", "1.37")
    [c] = data["changes"]
    assert (c["pod"], c["kind"], c["a"]["node"], c["b"]["node"]) == ("default/web", "moved", "node-b", "node-a")
    assert (c["a"]["score"], c["b"]["score"]) == (461, 441)
    assert c["move"] == {
        "class": "scoresChanged",
        "why": "outranked",
        "detail": "under B node-b scored 438, node-a 441",
        "bestScore": 441,
        "tiedNodes": 1,
        "oldNodeScore": 438,
    }


def test_ignored_resource_makes_a_pod_schedulable_with_both_messages(run_cli, write_snapshot, write_text) -> None:
    snap = write_snapshot(make_node("n1").capacity(cpu="4", memory="8Gi"), make_pod("gadget").res({"cpu": "1", "example.com/foo": "1"}))
    data = run_cli("diff", snap, "--config-b", write_text("ignore.yaml", IGNORE_FOO), "-o", "json").json()
    [c] = data["changes"]
    assert c["kind"] == "schedulable"
    assert c["a"]["status"] == "Unschedulable" and c["a"]["node"] is None
    assert c["a"]["message"].startswith("0/1 nodes are available: 1 Insufficient example.com/foo.")
    assert c["b"] == {"status": "Scheduled", "node": "n1", "message": None, "profile": "default-scheduler"}
    # the reverse direction is "unschedulable", with the message on side B
    data = run_cli("diff", snap, "--config-a", write_text("ignore.yaml", IGNORE_FOO), "-o", "json").json()
    [c] = data["changes"]
    assert c["kind"] == "unschedulable" and c["b"]["message"].startswith("0/1 nodes are available")


def test_fail_on_change_exits_4_only_when_something_changed(run_cli, write_snapshot, write_text) -> None:
    snap = write_snapshot(
        make_node("n1").capacity(cpu="4", memory="8Gi"),
        make_node("n2").capacity(cpu="4", memory="8Gi"),
        make_pod("busy").req(cpu="2").node("n2"),
        make_pod("web").req(cpu="500m"),
    )
    most = write_text("most.yaml", MOST_ALLOCATED)
    assert run_cli("diff", snap, "--config-b", most, "--fail-on-change").exit_code == 4
    same = run_cli("diff", snap, "--config-a", most, "--config-b", most, "--fail-on-change")
    assert same.exit_code == 0 and "no pod's outcome changed" in same.stdout
    assert run_cli("diff", snap, "--config-b", most).exit_code == 0


def test_table_and_yaml_render_the_same_result(run_cli, write_snapshot, write_text) -> None:
    snap = write_snapshot(
        make_node("n1").capacity(cpu="4", memory="8Gi").zone("z1"),
        make_node("n2").capacity(cpu="4", memory="8Gi").zone("z2"),
        make_pod("busy").req(cpu="2").node("n2"),
        make_pod("web").req(cpu="500m"),
    )
    most = write_text("most.yaml", MOST_ALLOCATED)
    table = run_cli("diff", snap, "--config-b", most).stdout
    assert "default/web" in table and "moved" in table and "scoresChanged (outranked)" in table
    assert "PACKING" in table and "ZONES" in table and "z1" in table
    assert "1 pending pods, 1 changed: 1 moved (1 scores changed, 0 tie-break only)" in table
    data = yaml.safe_load(run_cli("diff", snap, "--config-b", most, "-o", "yaml").stdout)
    assert data == run_cli("diff", snap, "--config-b", most, "-o", "json").json()


def test_same_seed_same_bytes_and_bad_input_exit_2(run_cli, write_snapshot, tmp_path) -> None:
    snap = write_snapshot(
        *[make_node(f"n{i}").capacity(cpu="4", memory="8Gi") for i in range(4)], *[make_pod(f"p{i}").req(cpu="100m") for i in range(6)]
    )
    first = run_cli("diff", snap, "--kube-version-a", "1.35", "-o", "json", "--seed", "9").stdout
    assert first == run_cli("diff", snap, "--kube-version-a", "1.35", "-o", "json", "--seed", "9").stdout
    bad = run_cli("diff", snap, "--kube-version-b", "1.20")
    assert bad.exit_code == 2 and "1.35, 1.36, 1.37" in bad.stderr and "Traceback" not in bad.stderr
    missing = run_cli("diff", snap, "--config-b", str(tmp_path / "nope.yaml"))
    assert missing.exit_code == 2 and len(missing.stderr.strip().splitlines()) == 1


OTHER_PROFILE = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: other-scheduler
"""

NO_PREEMPTION = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    postFilter:
      disabled: [{name: DefaultPreemption}]
"""


def test_a_pod_no_profile_of_b_takes_is_a_profile_change(run_cli, write_snapshot, write_text) -> None:
    snap = write_snapshot(make_node("n1").capacity(cpu="4", memory="8Gi"), make_pod("web").req(cpu="1"))
    data = run_cli("diff", snap, "--config-b", write_text("other.yaml", OTHER_PROFILE), "-o", "json").json()
    [c] = data["changes"]
    assert (c["kind"], c["a"]["status"], c["b"]["status"]) == ("profile", "Scheduled", "Skipped")
    assert c["b"]["message"] == "no profile for schedulerName 'default-scheduler'"


def test_preemption_on_one_side_only(run_cli, write_snapshot, write_text) -> None:
    """A preempts the low-priority pod for the critical one; B has no PostFilter plugin."""
    snap = write_snapshot(
        make_node("n1").capacity(cpu="1", memory="8Gi"),
        make_pod("batch").req(cpu="1").priority(0).node("n1"),
        make_pod("critical").req(cpu="1").priority(1000),
    )
    data = run_cli("diff", snap, "--config-b", write_text("nopre.yaml", NO_PREEMPTION), "-o", "json").json()
    [c] = data["changes"]
    assert c["kind"] == "unschedulable"
    assert c["a"]["node"] == "n1" and c["a"]["victims"] == ["default/batch"]
    assert c["b"]["status"] == "Unschedulable" and "victims" not in c["b"]
    assert data["summary"]["a"]["preempted"] == 1 and data["summary"]["b"]["preempted"] == 0


def test_snapshot_from_stdin_feeds_both_sides(run_cli, write_snapshot, write_text) -> None:
    snap = write_snapshot(
        make_node("n1").capacity(cpu="4", memory="8Gi"),
        make_node("n2").capacity(cpu="4", memory="8Gi"),
        make_pod("busy").req(cpu="2").node("n2"),
        make_pod("web").req(cpu="500m"),
    )
    most = write_text("most.yaml", MOST_ALLOCATED)
    from_file = run_cli("diff", snap, "--config-b", most, "-o", "json").json()
    from_stdin = run_cli("diff", "-", "--config-b", most, "-o", "json", input=Path(snap).read_text()).json()
    assert from_stdin == from_file and from_stdin["summary"]["b"]["pending"] == 1


ONLY_ZONE_2 = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [z2]}]
"""


def test_a_node_b_filters_out_is_a_filtered_move(run_cli, write_snapshot, write_text) -> None:
    """B's NodeAffinity addedAffinity keeps every pod in z2: A's node (z1, empty, preferred by
    LeastAllocated) is rejected by B's filters, with the reason B's filter gave."""
    snap = write_snapshot(
        make_node("n1").capacity(cpu="4", memory="8Gi").zone("z1"),
        make_node("n2").capacity(cpu="4", memory="8Gi").zone("z2"),
        make_node("n3").capacity(cpu="4", memory="8Gi").zone("z2"),
        make_pod("busy-2").req(cpu="2").node("n2"),
        make_pod("busy-3").req(cpu="2").node("n3"),
        make_pod("web").req(cpu="500m"),
    )
    data = run_cli("diff", snap, "--config-b", write_text("z2.yaml", ONLY_ZONE_2), "-o", "json").json()
    [c] = data["changes"]
    assert c["a"]["node"] == "n1" and c["b"]["node"] in ("n2", "n3")
    assert (c["move"]["class"], c["move"]["why"]) == ("scoresChanged", "filtered")
    assert c["move"]["detail"] == "under B n1 did not fit: NodeAffinity: node(s) didn't match scheduler-enforced node affinity"
