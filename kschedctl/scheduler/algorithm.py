"""SchedulingAlgorithm: the filter-and-score part of one scheduling attempt.

Upstream: pkg/scheduler/algorithm.go (older releases: schedule_one.go schedulePod,
findNodesThatFitPod, findNodesThatPassFilters, numFeasibleNodesToFind, prioritizeNodes,
selectHost). Upstream filters nodes in parallel; here nodes are visited one after another in
the same rotating order, which is what kube does with one worker: the search cancels only when
a worker finds feasible node numNodesToFind + 1 (``length > numNodesToFind``), which is then
dropped. So the nodes rejected after the numNodesToFind-th feasible one, up to that extra one,
are filtered and count as processed (they move nextStartNodeIndex); the dropped node does not.
A node whose filters fail with an Error stops the search the same way, and nextStartNodeIndex
still advances over what was processed before the attempt fails.

This is the one find-nodes-and-score path: `schedule`, `simulate` and pod groups call
schedule_pod, and so does `explain`, with ``find_all`` (every node filtered, every feasible one
scored) and an AttemptRecorder attached, which sees each node's status and each plugin's scores.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from typing import Any, cast

from kschedctl.api.types import Pod
from kschedctl.backend.cache.cache import Snapshot
from kschedctl.backend.cache.columnar import NodeBatch, columns_of
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.extender import EXTENDER_NAME, Extender
from kschedctl.framework.gosemantics import go_div
from kschedctl.framework.interface import ERROR, SUCCESS, Code, NodePluginScores, SparseStatuses, Status, all_success, by_identity
from kschedctl.framework.types import Diagnosis, FitError, NodeInfo, QueuedPodInfo
from kschedctl.lazy import numpy as np
from kschedctl.runtime.framework import Framework
from kschedctl.runtime.score_table import ScoreTable

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
ERR_NO_NODES_AVAILABLE = "no nodes available to schedule pods"


class SchedulingError(Exception):
    """An Error status during the attempt (not a FitError): the pod goes to the error backoff."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message())
        self.status = status


class NoNodesAvailable(SchedulingError):
    def __init__(self) -> None:
        super().__init__(Status(Code.UnschedulableAndUnresolvable, ERR_NO_NODES_AVAILABLE))


class ScheduleResult:
    """The chosen host and how many nodes were looked at; ``scores`` (one NodePluginScores per
    scored node, empty when only one node was feasible) is built on first use from the table."""

    def __init__(
        self,
        suggested_host: str,
        evaluated_nodes: int,
        feasible_nodes: int,
        scores: list[NodePluginScores] | None = None,
        table: ScoreTable | None = None,
        diagnosis: Diagnosis | None = None,
    ) -> None:
        self.suggested_host = suggested_host
        self.evaluated_nodes = evaluated_nodes
        self.feasible_nodes = feasible_nodes
        self._scores = scores
        self.table = table
        self.diagnosis = diagnosis  # the nodes the filters rejected in this attempt

    @property
    def scores(self) -> list[NodePluginScores]:
        if self._scores is None:
            self._scores = self.table.node_plugin_scores() if self.table is not None else []
        return self._scores

    def total_score_of(self, node_name: str) -> int | None:
        if self._scores is None and self.table is not None:
            return self.table.total_of(node_name)
        for s in self.scores:
            if s.name == node_name:
                return s.total_score
        return None

    def __repr__(self) -> str:
        return f"ScheduleResult({self.suggested_host!r}, evaluated_nodes={self.evaluated_nodes}, feasible_nodes={self.feasible_nodes})"


class AttemptRecorder:
    """Watches attempts of the algorithm, read-only: what the filters said of the nodes, the
    scores, the chosen host. Attached to a SchedulingAlgorithm (``recorders``), it sees the
    very calls the attempt makes; `explain` builds its per-node table with one, `diff`
    classifies moves with one. Every method does nothing here: override what you need."""

    def filtered(
        self,
        qpi: QueuedPodInfo,
        state: CycleState,
        nodes: Sequence[NodeInfo],
        feasible: Sequence[NodeInfo],
        diagnosis: Diagnosis,
        error: Status,
    ) -> None:
        """After the filters (plugins, then extenders): the nodes PreFilter saw, those that
        passed, and the diagnosis of the others. ``error`` is the Error that ended the search,
        else Success; when it came from PreFilter or a filter extender, the diagnosis gives it
        as the status of the nodes it befell (every node, or those the extenders were asked).
        ``state`` is the attempt's CycleState as the filters left it (what a plugin learnt
        about each node, e.g. the devices DynamicResources would allocate there): read it,
        never write it."""

    def scored(self, qpi: QueuedPodInfo, table: ScoreTable) -> None:
        """After PreScore and Score: the weighted scores of the feasible nodes, by plugin (and
        by prioritizing extender)."""

    def chose(self, qpi: QueuedPodInfo, result: ScheduleResult) -> None:
        """The attempt chose a host (before assume, Reserve and Permit)."""


class SchedulingAlgorithm:
    """schedulePod and its steps. ``find_all`` turns sampling off for `explain`: every node is
    filtered (an Error on one node is that node's status, the search goes on), no nominated
    node is tried first, and every feasible node is scored, even a single one."""

    def __init__(self, percentage_of_nodes_to_score: int = 0, rng: random.Random | None = None, find_all: bool = False) -> None:
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score
        self.next_start_node_index = 0
        self.rng = rng or random.Random()
        self.extenders: list[Extender] = []  # the scheduler's HTTP extenders (sched.Extenders)
        self.find_all = find_all
        self.recorders: list[AttemptRecorder] = []
        # (feasible, visited) of the last search that found a node: sizes the next one's chunks
        self.last_pass = (1, 1)

    # --- schedulePod -----------------------------------------------------------------------
    def schedule_pod(self, fwk: Framework, state: CycleState, qpi: QueuedPodInfo, snapshot: Snapshot) -> ScheduleResult:
        pod = qpi.pod
        if snapshot.num_nodes() == 0:
            raise NoNodesAvailable()
        feasible, diagnosis = self.find_nodes_that_fit_pod(fwk, state, qpi, snapshot, self.find_all)
        if not feasible:
            raise FitError(pod, snapshot.num_nodes(), diagnosis)
        evaluated = len(feasible) + diagnosis.node_to_status.len()
        if len(feasible) == 1 and not self.find_all:
            # With one feasible node there is nothing to compare: no PreScore, no Score.
            return self._chose(qpi, ScheduleResult(feasible[0].name, evaluated, 1, diagnosis=diagnosis))
        table = self.prioritize_nodes(fwk, state, pod, feasible)
        for recorder in self.recorders:
            recorder.scored(qpi, table)
        host = self.select_host_from_table(table)
        return self._chose(qpi, ScheduleResult(host, evaluated, len(feasible), table=table, diagnosis=diagnosis))

    def _chose(self, qpi: QueuedPodInfo, result: ScheduleResult) -> ScheduleResult:
        for recorder in self.recorders:
            recorder.chose(qpi, result)
        return result

    def find_nodes_that_fit_pod(
        self, fwk: Framework, state: CycleState, qpi: QueuedPodInfo, snapshot: Snapshot, find_all: bool = False
    ) -> tuple[list[NodeInfo], Diagnosis]:
        """findNodesThatFitPod: PreFilter, then the filters and the filter extenders over the
        nodes it leaves; the recorders see the outcome, an Error included."""
        diagnosis = Diagnosis()
        all_nodes = snapshot.list()
        try:
            feasible = self._fit(fwk, state, qpi, snapshot, all_nodes, diagnosis, find_all)
        except SchedulingError as err:
            self._filtered(qpi, state, all_nodes, [], diagnosis, err.status)
            raise
        self._filtered(qpi, state, all_nodes, feasible, diagnosis, Status())
        return feasible, diagnosis

    def _filtered(
        self,
        qpi: QueuedPodInfo,
        state: CycleState,
        nodes: Sequence[NodeInfo],
        feasible: Sequence[NodeInfo],
        diagnosis: Diagnosis,
        error: Status,
    ) -> None:
        for recorder in self.recorders:
            recorder.filtered(qpi, state, nodes, feasible, diagnosis, error)

    def _fit(
        self,
        fwk: Framework,
        state: CycleState,
        qpi: QueuedPodInfo,
        snapshot: Snapshot,
        all_nodes: list[NodeInfo],
        diagnosis: Diagnosis,
        find_all: bool,
    ) -> list[NodeInfo]:
        pod = qpi.pod
        pre_res, status, plugins = fwk.run_pre_filter_plugins(state, pod, all_nodes)
        # The plugins that narrowed the nodes (on success) or rejected (findNodesThatFitPod):
        # the queueing hints of these plugins may requeue the pod.
        diagnosis.unschedulable_plugins = set(plugins)
        if not status.is_success():
            # Every node gets the same status, so that preemption (and a recorder) sees it too.
            diagnosis.node_to_status.set_absent_nodes_status(status)
            if not status.is_rejected():
                raise SchedulingError(status)
            diagnosis.pre_filter_msg = status.message()
            _add_plugin_status(diagnosis, status)
            return []

        if not find_all and pod.nominated_node_name:
            feasible = self._evaluate_nominated_node(fwk, state, pod, snapshot, diagnosis)
            if feasible:
                return feasible

        nodes: Sequence[NodeInfo] = all_nodes
        if pre_res is not None and not pre_res.all_nodes():
            # Upstream iterates a hash set; the snapshot's node order is our deterministic choice.
            nodes = _narrowed(all_nodes, pre_res.node_names or set(), snapshot)
            diagnosis.node_to_status.set_absent_nodes_status(
                Status(Code.UnschedulableAndUnresolvable, f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(plugins))}]")
            )
        num_to_find = len(nodes) if find_all else self.num_nodes_to_find(fwk, len(nodes))
        feasible, error = self._pass_filters(fwk, state, pod, diagnosis, nodes, num_to_find, find_all)
        if not find_all and all_nodes:
            # Updated whether or not a filter failed with an Error, so that every node gets its
            # turn (findNodesThatFitPod).
            processed = len(feasible) + diagnosis.node_to_status.len()
            self.next_start_node_index = (self.next_start_node_index + processed) % len(all_nodes)
            if feasible:
                self.last_pass = (len(feasible), processed)
        if error is not None:
            raise SchedulingError(error)
        return self.find_nodes_that_pass_extenders(pod, feasible, diagnosis)

    def find_nodes_that_pass_extenders(self, pod: Pod, feasible: list[NodeInfo], diagnosis: Diagnosis) -> list[NodeInfo]:
        """The filter extenders after the plugins (findNodesThatPassExtenders); when they drop
        nodes, "Extender" joins the unschedulable plugins (any event retries the pod)."""
        if not self.extenders:
            return feasible
        # the HTTP extenders' modules (~70 KB of bytecode) only once a configuration has them
        from kschedctl.scheduler.extender import ExtenderError, find_nodes_that_pass_extenders

        try:
            kept = find_nodes_that_pass_extenders(self.extenders, pod, feasible, diagnosis.node_to_status.set)
        except ExtenderError as err:
            status = Status(Code.Error, str(err))
            for info in feasible:  # the nodes the extenders were asked about: a recorder shows it there
                diagnosis.node_to_status.set(info.name, status)
            raise SchedulingError(status) from None
        if len(kept) != len(feasible):
            diagnosis.unschedulable_plugins.add(EXTENDER_NAME)
        return kept

    def _evaluate_nominated_node(
        self, fwk: Framework, state: CycleState, pod: Pod, snapshot: Snapshot, diagnosis: Diagnosis
    ) -> list[NodeInfo]:
        """evaluateNominatedNode: the nominated node alone, first. An Error there is only logged
        upstream (the full search follows); a rejection stays in the diagnosis."""
        info = snapshot.get(pod.nominated_node_name)
        if info is None:
            return []
        feasible, error = self._pass_filters(fwk, state, pod, diagnosis, [info], 1)
        if error is not None:
            return []
        if not self.extenders:
            return feasible
        from kschedctl.scheduler.extender import ExtenderError, find_nodes_that_pass_extenders

        try:
            return find_nodes_that_pass_extenders(self.extenders, pod, feasible, diagnosis.node_to_status.set)
        except ExtenderError:
            return []  # only logged upstream too: the full search follows

    def find_nodes_that_pass_filters(
        self,
        fwk: Framework,
        state: CycleState,
        pod: Any,
        diagnosis: Diagnosis,
        nodes: Sequence[NodeInfo],
        num_to_find: int,
        find_all: bool = False,
    ) -> list[NodeInfo]:
        """findNodesThatPassFilters: the feasible nodes; an Error status raises SchedulingError."""
        feasible, error = self._pass_filters(fwk, state, pod, diagnosis, nodes, num_to_find, find_all)
        if error is not None:
            raise SchedulingError(error)
        return feasible

    def _pass_filters(
        self,
        fwk: Framework,
        state: CycleState,
        pod: Any,
        diagnosis: Diagnosis,
        nodes: Sequence[NodeInfo],
        num_to_find: int,
        find_all: bool = False,
    ) -> tuple[list[NodeInfo], Status | None]:
        """The search of findNodesThatPassFilters with one worker: (feasible nodes, the first
        Error status or None). Nodes are filtered from nextStartNodeIndex until feasible node
        num_to_find + 1 turns up (dropped), an Error stops it, or the nodes run out.

        With ``find_all`` (explain) a node whose filters fail with an Error keeps that status
        and the walk goes on, one node at a time: a batch would give the nodes after an Error
        that same Error without asking the plugin."""
        n = len(nodes)
        num_to_find = min(num_to_find, n)
        if n == 0:
            return [], None
        start = self.next_start_node_index
        if not fwk.has_filter_plugins():
            return [nodes[(start + i) % n] for i in range(num_to_find)], None
        if n > 1 and not find_all and fwk.batches():
            return self._pass_filters_batched(fwk, state, pod, diagnosis, nodes, num_to_find, start)
        feasible: list[NodeInfo] = []
        for i in range(n):
            info = nodes[(start + i) % n]
            status = fwk.run_filter_plugins_with_nominated_pods(state, pod, info)
            if status.code == ERROR and not find_all:
                return feasible, status
            if status.is_success():
                if len(feasible) == num_to_find:
                    break  # one feasible node too many: the search stops, the node is dropped
                feasible.append(info)
            else:
                diagnosis.node_to_status.set(info.name, status)
                _add_plugin_status(diagnosis, status)
        return feasible, None

    def _pass_filters_batched(
        self, fwk: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis, nodes: Sequence[NodeInfo], num_to_find: int, start: int
    ) -> tuple[list[NodeInfo], Status | None]:
        """The same visit as the per-node loop, evaluated in chunks of the rotated order.

        A chunk is filtered at once (Framework.run_filter_plugins_batch), then walked in order
        with the per-node loop's rules: the first Error stops, rejections are recorded, and
        the walk stops at the feasible node after the num_to_find-th, so nodes filtered past
        that point (wasted work, nothing else) leave no trace.
        """
        n = len(nodes)
        feasible: list[NodeInfo] = []
        nts = diagnosis.node_to_status
        columns = columns_of(fwk.snapshot)
        own = columns is not None and nodes is getattr(fwk.snapshot, "node_info_list", None)
        known = own  # whether every chunk so far had its rows from the snapshot's own list
        pos = 0
        while pos < n:
            need = num_to_find - len(feasible) + 1  # the search stops at one feasible node more
            size = min(n - pos, max(self._chunk_for(need), 32))
            first = (start + pos) % n
            if first + size <= n:
                chunk = nodes[first : first + size]
            else:
                chunk = list(nodes[first:]) + list(nodes[: size - (n - first)])
            # the snapshot's own node list: a chunk's rows are its positions (no per-node check)
            rows = columns.range_rows(fwk.snapshot, first, size) if own and columns is not None else None
            known = known and rows is not None
            batch = NodeBatch(chunk, columns, rows)
            statuses = fwk.run_filter_plugins_batch(state, pod, batch)
            # Nodes failing the same way share one Status object: look at each object once
            # (a Success Status passes as None does; list.count(None) would call Status.__eq__
            # on every rejected node of the chunk). SparseStatuses say where the Statuses are.
            failing: list[int] | None = statuses.failing if statuses.__class__ is SparseStatuses else None
            distinct: Any = None
            if failing is not None:
                if failing:
                    distinct = cast("SparseStatuses", statuses).distinct().values()
            elif not all_success(statuses):
                distinct = by_identity(statuses).values()
            if distinct is None or all(st is None or st.code == SUCCESS for st in distinct):  # the whole chunk is feasible
                if size >= need:  # it holds the node one past the limit
                    if not feasible:  # scoring reuses the chunk's rows
                        return batch.head(need - 1), None
                    feasible.extend(chunk[: need - 1])
                    return _with_rows(feasible, columns, known), None
                feasible.extend(chunk)
                pos += size
                continue
            if (failing is None or len(failing) == len(statuses)) and all(
                st is not None and st.code not in _KEEP_WALKING for st in distinct
            ):
                # Every node rejected: the walk below would record them all, in order.
                # (the check above saw no None)
                nts.record(chunk, cast("list[Status]", statuses))
                for status in cast("Iterable[Status]", distinct):
                    _add_plugin_status(diagnosis, status)
                pos += size
                continue
            if failing is not None:
                done, error = _walk_failing(chunk, statuses, failing, distinct, num_to_find, feasible, diagnosis)
            else:
                done, error = _walk_mixed_chunk(chunk, statuses, distinct, num_to_find, feasible, diagnosis)
            if done:
                return _with_rows(feasible, columns, known), error
            pos += size
        return _with_rows(feasible, columns, known), None

    def _chunk_for(self, need: int) -> int:
        """How many nodes a chunk filters to find ``need`` feasible ones: a quarter more than
        that, over the share of nodes that passed in the last search that found one. Where the
        cluster fills up for the pod (SchedulingPodAntiAffinity 500: half the nodes fail it
        midway), chunks sized for a cluster that passes took 2.5 batches a cycle. Only the work
        depends on it: nodes filtered past the search's end leave no trace."""
        passed, visited = self.last_pass
        return (need + need // 4) * visited // passed

    def num_nodes_to_find(self, fwk: Framework, num_all_nodes: int) -> int:
        """One node is enough for a profile that neither scores (plugins, prioritizing
        extenders) nor has extender filters."""
        if not fwk.has_score_plugins() and not any(e.is_filter() or e.is_prioritizer() for e in self.extenders):
            return 1
        return self.num_feasible_nodes_to_find(fwk.percentage_of_nodes_to_score, num_all_nodes)

    def num_feasible_nodes_to_find(self, profile_percentage: int | None, num_all_nodes: int) -> int:
        if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
            return num_all_nodes
        percentage = profile_percentage if profile_percentage is not None else self.percentage_of_nodes_to_score
        if percentage == 0:
            percentage = max(50 - go_div(num_all_nodes, 125), MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
        num = go_div(num_all_nodes * percentage, 100)
        return max(num, MIN_FEASIBLE_NODES_TO_FIND)

    # --- scoring ---------------------------------------------------------------------------
    def prioritize_nodes(self, fwk: Framework, state: CycleState, pod: Any, nodes: Sequence[NodeInfo]) -> ScoreTable:
        """prioritizeNodes: PreScore, then Score (normalized, weighted) and the prioritizing
        extenders, kept by plugin (no per-node objects; ScoreTable.node_plugin_scores gives
        upstream's view). Without Score plugins and extenders every node scores 1, so the
        choice is random among them."""
        if not fwk.has_score_plugins() and not self.extenders:
            table = ScoreTable([n.name for n in nodes])
            table.totals = [1] * len(nodes)
            return table
        status = fwk.run_pre_score_plugins(state, pod, nodes)
        if not status.is_success():
            raise SchedulingError(status)
        scored, status = fwk.run_score_plugins_table(state, pod, nodes)
        if scored is None or not status.is_success():
            raise SchedulingError(status)
        if self.extenders:
            self.add_extender_scores(scored, pod, nodes)
        return scored

    def add_extender_scores(self, table: ScoreTable, pod: Pod, nodes: Sequence[NodeInfo]) -> None:
        """prioritizeNodes' extender part: each prioritizing extender's score × weight ×
        (MaxNodeScore / MaxExtenderPriority) added to the nodes' totals, as one more column
        (named by the extender's URL, its weight the multiplier)."""
        from kschedctl.scheduler.extender import prioritize_with_extenders

        for column in prioritize_with_extenders(self.extenders, pod, nodes):
            values = [column.scores.get(name, 0) for name in table.names]
            table.plugins.append((column.name, column.multiplier, values))
            table.totals = [t + v * column.multiplier for t, v in zip(table.totals, values)]

    def select_host_from_table(self, table: ScoreTable) -> str:
        """The highest total score; ties broken uniformly at random, from the seeded source.

        Upstream draws a random tiebreaker per scored node (or, before 1.35, reservoir-samples
        with probability 1/k); every such rule picks uniformly among the nodes tied at the top,
        and so does one draw over the tied nodes, which costs one random number per pod (none
        without a tie).
        """
        tied = table.best_positions()
        if not tied:
            raise SchedulingError(Status(Code.Error, "empty priorityList"))
        return table.name_at(tied[0] if len(tied) == 1 else tied[self.rng.randrange(len(tied))])

    def select_host_from_totals(self, names: list[str], totals: list[int]) -> str:
        """select_host_from_table over a name and a total per node."""
        table = ScoreTable(names)
        table.totals = totals
        return self.select_host_from_table(table)

    def select_host(self, scores: list[NodePluginScores]) -> str:
        return self.select_host_from_totals([s.name for s in scores], [s.total_score for s in scores])


def _with_rows(feasible: list[NodeInfo], columns: Any, known: bool) -> list[NodeInfo]:
    """The feasible nodes of a search over more than one chunk, as a NodeBatch with their
    rows when every chunk was a stretch of the snapshot's own node list (``known``, rows
    synced by range_rows), so scoring reads the columns without finding and checking each
    node's row (~25 us for 230 nodes, every such cycle)."""
    if not known or not feasible:
        return feasible
    return NodeBatch(feasible, columns, columns.member_rows(feasible))


_KEEP_WALKING = (Code.Success, Code.Error)  # codes the per-node walk does not just record


_FEASIBLE, _REJECTED, _ERROR = 0, 1, 2


def _walk_mixed_chunk(
    chunk: Sequence[NodeInfo],
    statuses: list[Status | None],
    distinct: Any,
    num_to_find: int,
    feasible: list[NodeInfo],
    diagnosis: Diagnosis,
) -> tuple[bool, Status | None]:
    """The per-node walk over one chunk of mixed outcomes, on arrays: the walk stops at the
    first Error, or at the feasible node after the num_to_find-th; the nodes before that
    point are recorded (rejections in node order, feasible nodes appended) exactly as the
    node-by-node loop records them. Returns (search over, the Error status or None)."""
    kind_of = {id(st): _FEASIBLE if st is None or st.code == SUCCESS else _ERROR if st.code == ERROR else _REJECTED for st in distinct}
    kinds = np.fromiter(map(kind_of.__getitem__, map(id, statuses)), np.int8, len(statuses))
    errors = (kinds == _ERROR).nonzero()[0]
    end = int(errors[0]) if len(errors) else len(statuses)
    ok = (kinds[:end] == _FEASIBLE).nonzero()[0]
    ok, end, done = _stop_after_room(ok, end, len(errors) > 0, num_to_find - len(feasible))
    # A _REJECTED row has its Status (only _FEASIBLE rows have None).
    _record_walked(chunk, statuses, (kinds[:end] == _REJECTED).nonzero()[0].tolist(), ok, feasible, diagnosis)
    if done and end < len(statuses) and kinds[end] == _ERROR:
        return True, statuses[end]
    return done, None


def _walk_failing(
    chunk: Sequence[NodeInfo],
    statuses: list[Status | None],
    failing: list[int],
    distinct: Any,
    num_to_find: int,
    feasible: list[NodeInfo],
    diagnosis: Diagnosis,
) -> tuple[bool, Status | None]:
    """_walk_mixed_chunk when the chunk's Statuses are known to sit at ``failing`` (ascending;
    every other node passed, and none of those Statuses is a Success): the same walk, the same
    records, at the cost of the failing nodes and one mask over the chunk."""
    n = len(statuses)
    errors = {id(st) for st in distinct if st.code == Code.Error}
    end = next((i for i in failing if id(statuses[i]) in errors), n) if errors else n
    passed = np.ones(n, bool)
    passed[failing] = False
    ok, end, done = _stop_after_room(passed[:end].nonzero()[0], end, bool(errors), num_to_find - len(feasible))
    only = next(iter(distinct)) if len(distinct) == 1 else None  # every rejection's Status
    _record_walked(chunk, statuses, failing[: bisect_left(failing, end)], ok, feasible, diagnosis, only)
    if done and end < n and id(statuses[end]) in errors:
        return True, statuses[end]
    return done, None


def _stop_after_room(ok: np.ndarray, end: int, done: bool, room: int) -> tuple[np.ndarray, int, bool]:
    """The walk's stop at the feasible node one past the limit (``room`` more to find): the
    feasible positions it keeps, where it ends, and whether the search is over."""
    if len(ok) > room:
        return ok[:room], int(ok[room]), True
    return ok, end, done


def _record_walked(
    chunk: Sequence[NodeInfo],
    statuses: list[Status | None],
    rejected: list[int],
    ok: np.ndarray,
    feasible: list[NodeInfo],
    diagnosis: Diagnosis,
    only: Status | None = None,
) -> None:
    """What the per-node walk records of the nodes it passed: the rejected ones (positions
    with their Status, in node order) into the diagnosis, the feasible ones appended.
    ``only``: the one Status every rejection of the chunk shares, when the caller knows it."""
    if rejected:
        picked = cast("list[Status]", list(map(statuses.__getitem__, rejected)))
        diagnosis.node_to_status.record(list(map(chunk.__getitem__, rejected)), picked)
        for status in (only,) if only is not None else by_identity(picked).values():
            _add_plugin_status(diagnosis, status)
    feasible.extend(map(chunk.__getitem__, ok.tolist()))


def _add_plugin_status(diagnosis: Diagnosis, status: Status) -> None:
    """Diagnosis.AddPluginStatus: remember which plugin rejected (or is pending)."""
    if not status.plugin:
        return
    if status.is_rejected():  # Pending counts as rejected too (framework/types.go)
        diagnosis.unschedulable_plugins.add(status.plugin)
    if status.code == Code.Pending:
        diagnosis.pending_plugins.add(status.plugin)


def _narrowed(all_nodes: list[NodeInfo], wanted: set[str], snapshot: Any) -> list[NodeInfo]:
    """The nodes of ``all_nodes`` named in a PreFilterResult, in all_nodes' order. For a few names
    among many nodes (a DaemonSet pod's matchFields on metadata.name: one of 15,000), each name is
    looked up in the snapshot and the NodeInfo found must sit at its ``index`` in all_nodes; they
    are then ordered by index, the same list as the walk over every node gives. Otherwise, or
    when a name is not found so, the walk."""
    if len(wanted) * 8 < len(all_nodes):
        get = getattr(snapshot, "get", None)
        if get is not None:
            count = len(all_nodes)
            found: list[NodeInfo] = []
            for name in wanted:
                info = get(name)
                index = getattr(info, "index", -1)
                if info is None or not 0 <= index < count or all_nodes[index] is not info:
                    break
                found.append(info)
            else:
                found.sort(key=lambda info: info.index)
                return found
    return [n for n in all_nodes if n.name in wanted]
