"""Nodes that fail a Filter the same way share one Status object (NodeResourcesFit.filter_batch,
Framework.run_filter_plugins_batch, the algorithm's chunk walk); the FitError histogram and
NodeToStatus.nodes_for_status_code count shared objects by their nodes. These tests check that
the sharing is invisible: same reasons, codes, counts and node order as one Status per node.
"""

from __future__ import annotations

from typing import Any

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code, Status
from kschedctl.framework.types import Diagnosis, FitError, NodeToStatus
from kschedctl.testing import make_node, make_pod, new_framework


def _cluster():
    """n0-n2 at their pod cap, n3-n4 short of cpu, n5 free, n6 too small for the pod at all."""
    nodes = [make_node(f"n{i}").capacity(cpu="4", memory="8Gi", pods="1" if i < 3 else "10").obj() for i in range(6)]
    nodes.append(make_node("n6").capacity(cpu="1", memory="8Gi", pods="10").obj())
    bound = [make_pod(f"b{i}").req(cpu="100m").node(f"n{i}").obj() for i in range(3)]
    bound += [make_pod(f"c{i}").req(cpu="3").node(f"n{i}").obj() for i in (3, 4)]
    return new_framework(nodes=nodes, pods=bound)


def test_runtime_batch_shares_one_status_per_outcome():
    fwk = _cluster()
    fwk.use_batch = True
    pod = make_pod("p").req(cpu="2").obj()
    infos = fwk.snapshot.list()
    state = CycleState()
    assert fwk.run_pre_filter_plugins(state, pod, infos)[1].is_success()
    batch = fwk.run_filter_plugins_batch(state, pod, infos)
    fwk.use_batch = False
    per_node = [fwk.run_filter_plugins_with_nominated_pods(state, pod, ni) for ni in infos]
    assert [(s.code, s.reasons, s.plugin) if s is not None else None for s in batch] == [
        (s.code, s.reasons, s.plugin) if not s.is_success() else None for s in per_node
    ]
    # n0-n2: "Too many pods" (one object); n3-n4: "Insufficient cpu" (another); n6 unresolvable.
    assert batch[0] is batch[1] is batch[2] and batch[3] is batch[4]
    assert batch[0] is not batch[3] and batch[5] is None
    assert batch[0].reasons == ["Too many pods"] and batch[3].reasons == ["Insufficient cpu"]
    assert batch[6].code == Code.UnschedulableAndUnresolvable and batch[3].code == Code.Unschedulable


@pytest.mark.parametrize("absent", [None, Status(Code.UnschedulableAndUnresolvable, "gone")], ids=["no-absent", "absent"])
def test_histogram_and_nodes_for_status_code_count_shared_statuses(absent):
    fwk = _cluster()
    infos = fwk.snapshot.list()
    pods_full = Status(Code.Unschedulable, "Too many pods", "Insufficient cpu", plugin="NodeResourcesFit")
    cpu = Status(Code.UnschedulableAndUnresolvable, "Insufficient cpu", plugin="NodeResourcesFit")
    shared, copies = NodeToStatus(), NodeToStatus()
    for ni, st in zip(infos[:5], [pods_full, cpu, pods_full, cpu, pods_full]):
        shared.set(ni.name, st)
        copies.set(ni.name, Status(st.code, *st.reasons, plugin=st.plugin))
    if absent is not None:
        shared.set_absent_nodes_status(absent)
        copies.set_absent_nodes_status(absent)
    a, b = FitError(make_pod("p").obj(), 7, Diagnosis(shared)), FitError(make_pod("p").obj(), 7, Diagnosis(copies))
    assert a.reason_histogram() == b.reason_histogram()
    assert list(a.reason_histogram()) == list(b.reason_histogram())  # same key order too
    assert a.reason_histogram()["Insufficient cpu"] == 5
    assert a.message() == b.message()
    for code in (Code.Unschedulable, Code.UnschedulableAndUnresolvable):
        want = [n.name for n in infos if copies.get(n.name).code == code]
        assert [n.name for n in shared.nodes_for_status_code(infos, code)] == want
    assert [n.name for n in shared.nodes_for_status_code(infos, Code.Unschedulable)] == ["n0", "n2", "n4"]


@pytest.mark.parametrize("kinds", [3, 12], ids=["few-objects", "many-objects"])
def test_histogram_counts_each_object_by_its_nodes(kinds):
    """FitError.reason_histogram (framework/types.go) counts a few shared objects by scans and
    many by a Counter: both give each reason its number of nodes, in order of first use."""
    statuses = [Status(Code.Unschedulable, f"reason {k}", "Too many pods") for k in range(kinds)]
    nts = NodeToStatus()
    want: dict[str, int] = {}
    for i in range(40):
        st = statuses[(i * 7) % kinds]
        nts.set(f"n{i:02d}", st)
        for reason in st.reasons:
            want[reason] = want.get(reason, 0) + 1
    histogram = FitError(make_pod("p").obj(), 40, Diagnosis(nts)).reason_histogram()
    assert histogram == want
    assert list(histogram) == list(want)
    assert histogram["Too many pods"] == 40


def test_diagnosis_of_unschedulable_pod_same_batched_and_per_node():
    from kschedctl.framework.types import PodInfo, QueuedPodInfo
    from kschedctl.scheduler.algorithm import SchedulingAlgorithm

    out = []
    for batched in (True, False):
        fwk = _cluster()
        fwk.use_batch = batched
        pod = make_pod("p").req(cpu="5").obj()
        qpi = QueuedPodInfo(PodInfo.of(pod))
        feasible, diagnosis = SchedulingAlgorithm().find_nodes_that_fit_pod(fwk, CycleState(), qpi, fwk.snapshot)
        assert feasible == []
        fe = FitError(pod, fwk.snapshot.num_nodes(), diagnosis)
        out.append(
            (
                fe.message(),
                sorted(diagnosis.unschedulable_plugins),
                {k: (v.code, v.reasons, v.plugin) for k, v in diagnosis.node_to_status.node_to_status.items()},
            )
        )
    assert out[0] == out[1]
    assert out[0][0] == "0/7 nodes are available: 3 Too many pods, 7 Insufficient cpu."


def test_recorded_rejections_count_before_they_are_named():
    """NodeToStatus.record (a search's rejections) keeps the nodes unnamed until the map is
    read, and every read sees what set() node by node would have left: the size the search
    moves nextStartNodeIndex by (findNodesThatFitPod), a set() after a record overriding it,
    and a node set before (the nominated node, evaluated first) counted once."""
    infos = _cluster().snapshot.list()
    a = Status(Code.Unschedulable, "Too many pods", plugin="NodeResourcesFit")
    b = Status(Code.UnschedulableAndUnresolvable, "node(s) didn't match Pod's node affinity/selector", plugin="NodeAffinity")
    c = Status(Code.Unschedulable, "Insufficient cpu", plugin="NodeResourcesFit")

    def steps(nts: NodeToStatus, lazy: bool) -> list[Any]:
        seen = []
        for nodes, statuses in ((infos[:3], [a, b, a]), (infos[4:6], [b, b])):
            if lazy:
                nts.record(nodes, statuses)
            else:
                for ni, st in zip(nodes, statuses):
                    nts.set(ni.name, st)
            seen.append(nts.len())
        nts.set(infos[1].name, c)
        seen += [nts.len(), nts.get(infos[1].name), nts.get(infos[6].name).code, dict(nts.node_to_status)]
        return seen

    lazy = NodeToStatus()
    lazy.record(infos[:2], [a, b])
    assert lazy.len() == 2 and lazy._statuses == {}  # counted, not yet named
    assert steps(NodeToStatus(), True) == steps(NodeToStatus(), False)
    assert steps(NodeToStatus(), True)[:3] == [3, 5, 5]

    nominated = NodeToStatus()
    nominated.set(infos[0].name, c)
    nominated.record(infos[:3], [a, b, a])
    assert nominated.len() == 3 and nominated.get(infos[0].name) is a
    nominated.node_to_status = {infos[6].name: b}  # a map given whole replaces what was recorded
    assert nominated.len() == 1 and nominated.node_to_status == {infos[6].name: b}


@pytest.mark.parametrize("absent", [None, Status(Code.UnschedulableAndUnresolvable, "gone")], ids=["no-absent", "absent"])
def test_unnamed_rejections_answer_as_named_ones(absent):
    """A failed search's rejections, recorded and never named, give the histogram (its order
    too), the message, the nodes for a code and get("") that the same statuses set node by node
    give; nodes for a code found by identity among the list the search walked, and by name
    among other NodeInfos of the same nodes (clones). Preemption reads these for every pod that
    fits nowhere: naming the nodes twice was most of its cost on a full cluster."""
    infos = _cluster().snapshot.list()
    a = Status(Code.Unschedulable, "Too many pods", plugin="NodeResourcesFit")
    b = Status(Code.Unschedulable, "Insufficient cpu", plugin="NodeResourcesFit")
    lazy, named = NodeToStatus(), NodeToStatus()
    for nodes, statuses in ((infos[:3], [a, a, a]), (infos[3:6], [b, b, a])):
        lazy.record(nodes, statuses)
        for ni, st in zip(nodes, statuses):
            named.set(ni.name, st)
    for nts in (lazy, named):
        if absent is not None:
            nts.set_absent_nodes_status(absent)
    errors = [FitError(make_pod("p").obj(), 7, Diagnosis(nts)) for nts in (lazy, named)]
    assert list(errors[0].reason_histogram().items()) == list(errors[1].reason_histogram().items())
    assert errors[0].message() == errors[1].message()
    assert lazy.get("") is lazy.absent_nodes_status
    assert lazy._statuses == {}  # none of the above named a node
    for code in (Code.Unschedulable, Code.UnschedulableAndUnresolvable):
        want = [n.name for n in infos if named.get(n.name).code == code]
        assert [n.name for n in lazy.nodes_for_status_code(infos, code)] == want
        clones = [ni.clone() for ni in infos]
        assert [n.name for n in lazy.nodes_for_status_code(clones, code)] == want
