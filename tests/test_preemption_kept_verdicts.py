"""DefaultPreemption's kept dry-run verdicts (plugins/default_preemption/plugin.py): a node
where NodeResourcesFit rejects the preemptor even without every lower-priority pod
(`_cannot_help`), and the victims counted on a node that can help (`_victims_kept`, with the
PDBs they were counted with), are worked out once per (node content, its nominated pods,
priority, requests); a run with the verdicts kept writes what a run without them writes, while
nominations come and go. The Nominator's per-node version (backend/queue/nominator.py) is what
keys them. A kept victims list still runs the Filter plugins that read the pod."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from kschedctl.backend.queue.nominator import Nominator
from kschedctl.cluster.loader import load_snapshot
from kschedctl.config.loader import load_config_file
from kschedctl.framework.types import PodInfo
from kschedctl.output.render import render_run
from kschedctl.plugins.default_preemption import plugin as default_preemption
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.testing import make_pdb, make_pod
from kschedctl.versions import parse_version

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import perf_config  # noqa: E402


def test_a_nodes_version_moves_with_its_list_only() -> None:
    nominator = Nominator()
    a = PodInfo(make_pod("a").obj())
    b = PodInfo(make_pod("b").obj())
    seen = {"n1": nominator.node_version("n1"), "n2": nominator.node_version("n2")}

    def moved() -> set[str]:
        now = {n: nominator.node_version(n) for n in seen}
        out = {n for n in seen if now[n] != seen[n]}
        seen.update(now)
        return out

    nominator.add_nominated_pod(a, "n1")
    assert moved() == {"n1"}
    nominator.add_nominated_pod(b, "n1")
    assert moved() == {"n1"}
    nominator.update_nominated_pod(PodInfo(make_pod("a").req(cpu="2").obj()))  # same node, new PodInfo
    assert moved() == {"n1"}
    nominator.add_nominated_pod(a, "n2")  # moves from n1 to n2
    assert moved() == {"n1", "n2"}
    nominator.delete_nominated_pod_if_exists(b.pod)
    assert moved() == {"n1"}
    nominator.delete_nominated_pod_if_exists(b.pod)  # not there any more: nothing changes
    assert moved() == set()


@pytest.mark.parametrize("shape", ["PreemptionBasic", "PreemptionPVs"])
def test_a_run_with_kept_verdicts_writes_what_a_run_without_them_writes(
    shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """40 nodes full of low-priority pods, 40 high-priority preemptors arriving in one wave:
    each preemption nominates a node, and later preemptors ask the same nodes again."""
    path = perf_config.write(perf_config.Case(shape, 40, 160, 40, "test"), tmp_path)
    version = parse_version("1.35")
    registry = default_registry().registry

    def run() -> str:
        sched = Scheduler(load_snapshot([str(path)]), load_config_file(None, version, registry), registry, version, seed=1)
        return render_run(sched.run(), "json", 100)

    hits: list[str] = []
    real = default_preemption.DefaultPreemption._cannot_help_key
    known = default_preemption.DefaultPreemption._known_victims

    def counting(self: Any, *args: Any) -> Any:
        key = real(self, *args)
        if key is not None and key in self._cannot_help:
            hits.append("cannot help")
        return key

    def counting_victims(self: Any, *args: Any) -> Any:
        hits.append("victims")
        return known(self, *args)

    test = default_preemption.DefaultPreemption.kept_cannot_help

    def counting_test(self: Any, state: Any, pod: Any) -> Any:
        inner = test(self, state, pod)
        if inner is None:
            return None

        def counted(node_info: Any) -> bool:
            if inner(node_info):
                hits.append("cannot help, at once")
                # the answer the dry run would have had from the node's own call
                assert self.select_victims_without_copy(state, pod, node_info, [], False) == ([], 0, None)
                return True
            return False

        return counted

    monkeypatch.setattr(default_preemption.DefaultPreemption, "_cannot_help_key", counting)
    monkeypatch.setattr(default_preemption.DefaultPreemption, "_known_victims", counting_victims)
    monkeypatch.setattr(default_preemption.DefaultPreemption, "kept_cannot_help", counting_test)
    kept = run()
    # verdicts were served from the kept ones, by the dry run's test first
    assert {"cannot help, at once", "victims"} <= set(hits)
    monkeypatch.setattr(default_preemption.DefaultPreemption, "_cannot_help_key", lambda self, *args: None)
    monkeypatch.setattr(default_preemption.DefaultPreemption, "kept_cannot_help", lambda self, *args: None)
    plain = run()
    assert plain == kept
    assert '"preemptions": [' in kept and '"victims": [' in kept  # preemption happened


def _dry_run_verdict(fwk: Any, plugin: Any, pod: Any, node_name: str) -> Any:
    """One "without copy" dry-run answer for ``pod`` on the node, asked as the dry run asks it
    when the words are not needed."""
    from kschedctl.framework.cycle_state import CycleState

    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod, fwk.snapshot.node_info_list)
    return plugin.select_victims_without_copy(state, pod, fwk.snapshot.get(node_name), [], word_rejection=False)


def test_a_kept_verdict_is_not_read_after_the_node_or_its_nominated_pods_change() -> None:
    """n1 (4 CPU) holds a 1-CPU low-priority pod; a 3-CPU pod is nominated there. A 2-CPU
    preemptor cannot use n1 even without the low pod (3 + 2 > 4): "cannot help", kept. When the
    nominated pod leaves n1, the same preemptor can: the kept verdict is not read again; nor
    when the node itself changes."""
    from kschedctl.testing import make_node, new_framework

    low = make_pod("low").priority(1).req(cpu="1").node("n1").obj()
    fwk = new_framework(nodes=[make_node("n1").capacity(cpu="4", memory="8Gi", pods=10).obj()], pods=[low])
    nominator = Nominator()
    fwk.services.nominator = nominator
    plugin = fwk.instances["DefaultPreemption"]
    nominated = PodInfo(make_pod("big").priority(100).req(cpu="3").obj())
    nominator.add_nominated_pod(nominated, "n1")
    preemptor = make_pod("p").priority(100).req(cpu="2").obj()

    assert _dry_run_verdict(fwk, plugin, preemptor, "n1") == ([], 0, None)  # cannot help
    assert plugin._cannot_help  # kept
    assert _dry_run_verdict(fwk, plugin, make_pod("q").priority(100).req(cpu="2").obj(), "n1") == ([], 0, None)

    nominator.delete_nominated_pod_if_exists(nominated.pod)
    victims, _, status = _dry_run_verdict(fwk, plugin, preemptor, "n1")
    assert status is not None and status.is_success() and victims == []  # fits with the low pod kept

    nominator.add_nominated_pod(nominated, "n1")
    assert _dry_run_verdict(fwk, plugin, preemptor, "n1") == ([], 0, None)
    info = fwk.snapshot.get("n1")
    info.remove_pod(low)  # the node's content changes (its generation moves)
    info.add_pod(make_pod("low2").priority(1).req(cpu="1").node("n1").obj())
    info.allocatable.milli_cpu = 8000  # a resized node, as a NodeInfo after set_node
    info._bump()
    victims, _, status = _dry_run_verdict(fwk, plugin, preemptor, "n1")
    assert status is not None and status.is_success() and victims == []  # 1 + 3 + 2 <= 8


def test_kept_victims_are_counted_again_for_other_pdbs_and_filtered_for_each_pod() -> None:
    """n1 (2 CPU) holds two 1-CPU low-priority pods of app=low; a 2-CPU preemptor needs both
    gone. Under a PDB that allows one disruption, one victim violates it; the same node asked
    under other PDBs (another object, the same object changed, a pod already disrupted) counts
    again. A preemptor that does not tolerate a taint put on the node gets no kept victims."""
    from kschedctl.testing import make_node, new_framework

    lows = [make_pod(f"low{i}").priority(1).label("app", "low").req(cpu="1").node("n1").obj() for i in range(2)]
    fwk = new_framework(nodes=[make_node("n1").capacity(cpu="2", memory="8Gi", pods=10).obj()], pods=lows)
    fwk.services.nominator = Nominator()
    plugin = fwk.instances["DefaultPreemption"]

    def ask(pod: Any, pdbs: list[Any]) -> tuple[list[str], int, Any]:
        from kschedctl.framework.cycle_state import CycleState

        state = CycleState()
        fwk.run_pre_filter_plugins(state, pod, fwk.snapshot.node_info_list)
        victims, violating, status = plugin.select_victims_without_copy(state, pod, fwk.snapshot.get("n1"), pdbs, word_rejection=False)
        return sorted(v.name for v in victims), violating, status.code.name if status is not None else None

    preemptor = make_pod("p").priority(100).req(cpu="2").obj()
    one = make_pdb("pdb", {"app": "low"}, 1)
    assert ask(preemptor, [one]) == (["low0", "low1"], 1, "Success")
    assert plugin._victims_kept  # kept for this node, these PDBs
    assert ask(make_pod("q").priority(100).req(cpu="2").obj(), [one]) == (["low0", "low1"], 1, "Success")
    assert ask(preemptor, []) == (["low0", "low1"], 0, "Success")  # no PDB: counted again
    assert ask(preemptor, [make_pdb("pdb", {"app": "low"}, 2)]) == (["low0", "low1"], 0, "Success")
    assert ask(preemptor, [make_pdb("pdb", {"app": "low"}, 1, ("low0",))]) == (["low0", "low1"], 0, "Success")  # low0 already disrupted
    assert ask(preemptor, [one]) == (["low0", "low1"], 1, "Success")
    one.disruptions_allowed = 2  # the same object, changed
    assert ask(preemptor, [one]) == (["low0", "low1"], 0, "Success")

    info = fwk.snapshot.get("n1")
    node = make_node("n1").capacity(cpu="2", memory="8Gi", pods=10).taint("dedicated", "x", "NoSchedule").obj()
    info.node = node  # the same NodeInfo content for the count, a taint for TaintToleration
    assert ask(preemptor, [one]) == ([], 0, None)  # the taint rejects it: cannot help
    tolerating = make_pod("t").priority(100).req(cpu="2").toleration("dedicated", "x", "NoSchedule").obj()
    assert ask(tolerating, [one]) == (["low0", "low1"], 0, "Success")


def test_the_key_read_from_the_nominators_map_is_the_key_asked_of_it() -> None:
    """_keys_for reads the in-tree Nominator's node_versions map instead of calling
    node_version for each node; a nominator that offers only the method gets the same keys,
    on nodes with and without nominated pods, for a preemptor nominated or not."""
    from kschedctl.framework.resource import Resource
    from kschedctl.framework.types import NodeInfo
    from kschedctl.testing import make_node

    class MethodOnly:
        def __init__(self, inner: Nominator) -> None:
            self.nominated_pod_to_node = inner.nominated_pod_to_node
            self.node_version = inner.node_version

    nominator = Nominator()
    preemptor = make_pod("p").priority(10).req(cpu="1").obj()
    nodes = [NodeInfo(make_node(f"n{i}").capacity(cpu="4", memory="4Gi").obj()) for i in range(4)]
    nodes.append(NodeInfo())  # no node object: NodeInfo.name is ""
    req = Resource.from_list({"cpu": 1})
    for step in range(3):
        if step == 1:
            nominator.add_nominated_pod(PodInfo(make_pod("x").obj()), "n1")
        if step == 2:
            nominator.add_nominated_pod(PodInfo(preemptor), "n2")
        fast = default_preemption._keys_for(nominator, preemptor, req)
        slow = default_preemption._keys_for(MethodOnly(nominator), preemptor, req)
        assert fast is not None and slow is not None
        assert [fast(n) for n in nodes] == [slow(n) for n in nodes]
    assert fast(nodes[1])[2] != 0 and fast(nodes[2])[3] is True
