"""DefaultPreemption's "no victims" fast path answers exactly as the full dry run.

Upstream: default_preemption.go SelectVictimsOnNode returns UnschedulableAndUnresolvable "No
preemption victims found for incoming pod" for a node without a pod below the preemptor's
priority, having removed nothing and run no filter; DryRunPreemption visits every potential
node from the offset. kschedctl tells such a node from its lowest pod priority (remembered per
NodeInfo generation) and, when no potential node has a victim, answers the whole dry run at
once. These cases run the CLI with the shortcuts on and off
(``DefaultPreemption.dry_run_shortcuts``) and compare everything printed: placements, the
FitError/PostFilter messages, per-node statuses in explain, the nominations.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from kschedctl.cluster.loader import load_snapshot
from kschedctl.framework.types import NodeInfo, PodInfo
from kschedctl.plugins.default_preemption.plugin import ERR_NO_VICTIMS, DefaultPreemption


def _node(name: str, cpu: str = "2", taint: bool = False) -> dict:
    spec = {"taints": [{"key": "t", "value": "x", "effect": "NoSchedule"}]} if taint else {}
    alloc = {"cpu": cpu, "memory": "4Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "spec": spec,
        "status": {"capacity": dict(alloc), "allocatable": alloc},
    }


def _pod(name: str, cpu: str, priority_class: str, node: str | None = None, terminating: bool = False) -> dict:
    meta: dict[str, Any] = {"name": name, "namespace": "default", "uid": f"uid-{name}"}
    if terminating:
        meta["deletionTimestamp"] = "2024-01-01T00:01:00Z"
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "image": "pause", "resources": {"requests": {"cpu": cpu, "memory": "100Mi"}}}],
        "priorityClassName": priority_class,
    }
    if node:
        spec["nodeName"] = node
    status = {"phase": "Running", "startTime": "2024-01-01T00:00:00Z"} if node else {"phase": "Pending"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def _classes() -> list[dict]:
    return [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": n}, "value": v}
        for n, v in (("low", 10), ("mid", 100), ("high", 1000))
    ]


def _no_lower_anywhere() -> list[dict]:
    """Every node full of pods at the preemptor's priority or above (one terminating): no
    node has a victim, so the dry run ends with no candidate and kube's words for every node."""
    items = _classes() + [_node(f"n{i}", taint=i == 3) for i in range(6)]
    items += [_pod(f"run-{i}", "1800m", "high" if i % 2 else "mid", f"n{i}", terminating=i == 4) for i in range(6)]
    items += [_pod("web", "1", "mid"), _pod("api", "500m", "mid")]
    return items


def _lower_on_some() -> list[dict]:
    """Lower-priority pods on two nodes only (one of them too small even without them): the
    others answer "no victims" without a walk, the dry run still finds its candidate."""
    items = _classes() + [_node(f"n{i}") for i in range(8)] + [_node("small", cpu="1")]
    items += [_pod(f"run-{i}", "1800m", "high", f"n{i}") for i in range(2, 8)]
    items += [_pod("low-0", "1800m", "low", "n0"), _pod("low-1", "1", "low", "n1"), _pod("low-s", "900m", "low", "small")]
    items += [_pod("web", "1500m", "mid"), _pod("big", "3", "high")]
    return items


def _not_called(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the dry run walked a node")


def _write(tmp_path, name: str, items: list[dict]) -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


def _both(run_cli, monkeypatch, *args: str, at_once: bool = False) -> tuple[Any, Any]:
    """The command's parsed JSON with the shortcuts on, then off. ``at_once``: with the
    shortcuts on, no node's victims may be asked for (the dry run answers as a whole)."""
    outs = []
    for shortcuts in (True, False):
        monkeypatch.setattr(DefaultPreemption, "dry_run_shortcuts", shortcuts)
        if at_once:
            with monkeypatch.context() as m:
                for method in ("select_victims_on_node", "select_victims_without_copy"):
                    m.setattr(DefaultPreemption, method, _not_called if shortcuts else getattr(DefaultPreemption, method))
                result = run_cli(*args)
        else:
            result = run_cli(*args)
        assert result.exit_code in (0, 1), result.stderr
        outs.append(json.loads(result.stdout))
    return outs[0], outs[1]


@pytest.mark.parametrize("version", ["1.35", "1.36", "1.37"])
def test_no_lower_priority_anywhere_schedule_output_as_full_dry_run(tmp_path, run_cli, monkeypatch, version):
    snap = _write(tmp_path, "none", _no_lower_anywhere())
    fast, slow = _both(run_cli, monkeypatch, "schedule", snap, "-o", "json", "--kube-version", version, "--seed", "3", at_once=True)
    assert fast == slow
    text = json.dumps(fast)
    assert "preemption: 0/6 nodes are available" in text
    assert "1 Preemption is not helpful for scheduling, 5 No preemption victims found for incoming pod" in text, text


def test_no_lower_priority_anywhere_explain_as_full_dry_run(tmp_path, run_cli, monkeypatch):
    snap = _write(tmp_path, "none", _no_lower_anywhere())
    fast, slow = _both(run_cli, monkeypatch, "explain", "default/web", snap, "-o", "json", "--seed", "3", at_once=True)
    assert fast == slow
    assert ERR_NO_VICTIMS in json.dumps(fast)


@pytest.mark.parametrize("version", ["1.35", "1.36"])
def test_lower_priority_on_some_nodes_as_full_dry_run(tmp_path, run_cli, monkeypatch, version):
    snap = _write(tmp_path, "some", _lower_on_some())
    fast, slow = _both(run_cli, monkeypatch, "schedule", snap, "-o", "json", "--kube-version", version, "--seed", "5")
    assert fast == slow
    assert fast["preemptions"], "the case must preempt"
    fast_x, slow_x = _both(run_cli, monkeypatch, "explain", "default/big", snap, "-o", "json", "--seed", "5")
    assert fast_x == slow_x


def _snapshot_infos(tmp_path) -> tuple[list[NodeInfo], dict[str, Any]]:
    cluster = load_snapshot([_write(tmp_path, "some", _lower_on_some())])
    pods = {p.name: p for p in cluster.pods}
    infos = []
    for node in cluster.nodes:
        infos.append(NodeInfo(node, [PodInfo.of(p) for p in cluster.pods if p.node_name == node.name]))
    return infos, pods


def test_lowest_pod_priority_follows_adds_removes_and_clones(tmp_path):
    infos, pods = _snapshot_infos(tmp_path)
    n0 = next(i for i in infos if i.name == "n0")
    assert n0.lowest_pod_priority() == 10
    copy = n0.clone()
    copy.remove_pod(pods["low-0"])
    assert copy.lowest_pod_priority() is None
    assert n0.lowest_pod_priority() == 10, "the clone's change is its own"
    copy.add_pod(pods["run-3"])
    assert copy.lowest_pod_priority() == 1000
    copy.add_pod(pods["low-1"])
    assert copy.lowest_pod_priority() == 10


def test_no_victims_anywhere_asks_only_with_the_default_eligibility(tmp_path):
    infos, pods = _snapshot_infos(tmp_path)
    without_low = [i for i in infos if i.name not in ("n0", "n1", "small")]

    pl = DefaultPreemption.__new__(DefaultPreemption)  # the two methods read only these hooks
    pl.is_eligible_pod = DefaultPreemption.__init__.__globals__["_always_eligible"]
    web, big = pods["web"], pods["big"]
    assert pl.no_victims_anywhere(web, infos) is None  # low pods on n0, n1, small
    st = pl.no_victims_anywhere(web, without_low)
    assert st is not None and (st.code.name, st.message()) == ("UnschedulableAndUnresolvable", ERR_NO_VICTIMS)
    assert pl.no_victims_anywhere(big, without_low) is not None, "the pods there are all at its priority"
    pl.is_eligible_pod = lambda node_info, victim, preemptor: True  # a replaced hook: no shortcut
    assert pl.no_victims_anywhere(web, without_low) is None
    assert not pl.no_victims_on(web, without_low[0])


def test_the_lowest_priority_kept_for_a_snapshot_follows_its_changes() -> None:
    """The lowest pod priority over a Cache-kept snapshot's nodes is kept until the snapshot's
    generation moves: a lower-priority pod bound afterwards turns "no victims" into a dry run."""
    from kschedctl.backend.cache.cache import Cache, Snapshot
    from kschedctl.testing import make_node, make_pod, new_framework

    cache, snap = Cache(), Snapshot()
    for i in range(3):
        cache.add_node(make_node(f"n{i}").capacity(cpu="2", memory="4Gi").obj())
        cache.add_pod(make_pod(f"b{i}").req(cpu="1").priority(100).node(f"n{i}").obj())
    cache.update_snapshot(snap)
    fwk = new_framework()
    fwk.snapshot = snap
    pl = fwk.instances["DefaultPreemption"]
    middle, high = make_pod("m").priority(50).obj(), make_pod("h").priority(200).obj()
    assert pl.no_victims_anywhere(middle, snap.list()) is not None
    assert pl.no_victims_anywhere(high, snap.list()) is None
    assert pl.no_victims_anywhere(middle, snap.list()) is not None  # asked again: kept
    cache.add_pod(make_pod("low").req(cpu="100m").priority(10).node("n2").obj())
    cache.update_snapshot(snap)
    assert pl.no_victims_anywhere(middle, snap.list()) is None  # a victim now
    assert pl.no_victims_anywhere(middle, snap.list()[:2]) is not None  # not on n0, n1
