"""PreFilter, its extensions (AddPod / RemovePod), Filter (per node, in batches, with the
nominated pods) and PostFilter: framework.go's RunPreFilterPlugins, RunFilterPlugins,
RunFilterPluginsWithNominatedPods and RunPostFilterPlugins.
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Iterable, Mapping, Sequence
from itertools import compress, repeat
from typing import Any, cast

from kschedctl.backend.cache.columnar import NodeBatch, as_batch
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import (
    ERROR,
    SKIP,
    SUCCESS,
    UNRESOLVABLE,
    UNSCHEDULABLE,
    Code,
    PostFilterResult,
    PreFilterResult,
    SparseStatuses,
    Status,
    all_success,
    by_identity,
)
from kschedctl.framework.types import NodeInfo, NodeToStatus, PodInfo, all_node_names
from kschedctl.lazy import quiet_log
from kschedctl.runtime.calls import PluginCalls
from kschedctl.runtime.guard import LOGGER, as_status, optional, pair, raised, status_of, wrong
from kschedctl.runtime.sandbox import describe


def _record_filter_results(
    name: str,
    alive: list[int],
    results: list[Status | None],
    out: list[Status | None],
    distinct: Mapping[int, Status | None],
    failing: list[int] | None = None,
    rejected: list[int] | None = None,
    kinds: dict[int, Status] | None = None,
) -> list[int] | None:
    """Record one Filter plugin's rejections of the nodes still passing (positions ``alive``)
    into ``out``; return the positions that passed.

    A plugin may return one Status object for many nodes (filter_batch groups nodes by
    outcome), so each distinct object is looked at once: its plugin is set, an error becomes
    the runtime's Error status (one per distinct object), and every node that got it records
    it as is. Recorded statuses are never mutated afterwards, so the sharing cannot be seen.
    ``distinct`` is {id: status} of ``results``. None (nothing recorded) when a result is not
    a Status or None: the caller asks the per-node calls, which say what is wrong.
    ``failing``: where ``results`` holds its Statuses (SparseStatuses), so that only those
    positions are visited; the recorded positions are then appended to ``rejected``, and the
    Statuses recorded there to ``kinds`` ({id: Status}).
    """
    if failing is None and len(distinct) == 1 and results[0] is None:  # every node passed: nothing to record
        return alive
    verdict: dict[int, Status | None] = {}
    same = True
    for st in distinct.values():
        if st is not None and st.__class__ is not Status:
            return None
    for key, st in distinct.items():
        if st is None or st.code == SUCCESS:
            verdict[key] = None
            same = same and st is None
            continue
        st.plugin = name
        if not st.is_rejected():
            st = Status(Code.Error, f'running "{name}" filter plugin: {st.message()}', plugin=name, err=st.err)
            same = False
        verdict[key] = st
    if failing is not None:
        if kinds is not None:
            kinds.update({id(st): st for st in verdict.values() if st is not None})
        return _record_failing(alive, results, failing, out, verdict, rejected)
    recorded = results if same else list(map(verdict.__getitem__, map(id, results)))
    passed = list(compress(alive, map(operator.is_, recorded, repeat(None))))
    if len(passed) == len(alive):
        return alive
    _record_at(alive, recorded, out)
    return passed


def _record_at(alive: list[int], recorded: list[Status | None], out: list[Status | None]) -> None:
    """out[alive[i]] = recorded[i] wherever recorded[i] is a Status (``out`` is None at every
    position of ``alive``): one slice assignment when ``alive`` is every position."""
    if len(alive) == len(out):  # ascending, distinct, as many as out: 0, 1, ..., n - 1
        out[:] = recorded
        return
    for position, st in compress(zip(alive, recorded), map(operator.is_not, recorded, repeat(None))):
        out[position] = st


def _batch_statuses(results: list[Status | None]) -> tuple[list[int] | None, Mapping[int, Status | None] | None]:
    """(failing, distinct) of one plugin's batch for _record_filter_results, looked at only as
    far as needed: ``distinct`` None when the batch passed every node (all_success: one list
    comparison in C, or a SparseStatuses without failing positions); ``failing`` the positions
    of a SparseStatuses, None when the batch had to be walked object by object."""
    failing = results.failing if results.__class__ is SparseStatuses else None
    if failing is not None:
        return failing, (cast(SparseStatuses, results).distinct() if failing else None)
    if all_success(results):
        return None, None
    return None, by_identity(results)


_POSITION = operator.itemgetter(0)  # (position, added pods) -> position
_KEPT_PRIORITIES = 16  # pod priorities whose first-pass adds are kept at once (_adds_for_priority)
_RECORD_AT_ONCE = 32  # failing nodes from which _record_failing records them by C-level walks


def _added_by_first_pass(nominated: Iterable[PodInfo], priority: int, uid: str | None) -> list[PodInfo]:
    """addGENominatedPods' choice among a node's nominated pods: priority >= ``priority``, and
    not the pod being scheduled (``uid``; None when it is nominated elsewhere)."""
    return [pi for pi in nominated if pi.priority >= priority and pi.pod.uid != uid]


def _recorded_error(statuses: Iterable[Any]) -> bool:
    """Whether recording these statuses may put an Error into the batch: a Status that is
    neither a success nor a rejection (_record_filter_results makes it the runtime's Error),
    or anything else (not recorded, but then the exact path is the safe answer)."""
    return any(st is not None and (st.__class__ is not Status or not (st.code == Code.Success or st.is_rejected())) for st in statuses)


def _record_failing(
    alive: list[int],
    results: list[Status | None],
    failing: list[int],
    out: list[Status | None],
    verdict: dict[int, Status | None],
    rejected: list[int] | None,
) -> list[int]:
    """_record_filter_results for a result that says where its Statuses are (``failing``,
    ascending, into ``alive``): the recording and the list of positions still passing cost
    the failing nodes, not the batch. Many failing nodes, none of them with a Success Status
    (half of the cluster, for SchedulingPodAntiAffinity; all of it, for a preemptor), are
    recorded by C-level walks: the batch itself when its Statuses are recorded as they came."""
    if len(failing) >= _RECORD_AT_ONCE and None not in verdict.values():
        if all(key == id(st) for key, st in verdict.items()):
            _record_at(alive, results, out)  # every position not failing holds None
        else:
            _record_at(alive, list(map(verdict.get, map(id, results), repeat(None))), out)
        if rejected is not None:
            rejected.extend(map(alive.__getitem__, failing))
        if len(failing) == len(alive):
            return []
        return list(compress(alive, map(operator.is_, results, repeat(None))))
    passed = list(alive)
    for i in reversed(failing):
        st = verdict[id(results[i])]
        if st is None:
            continue  # a Success Status: the node passed
        out[alive[i]] = st
        if rejected is not None:
            rejected.append(alive[i])
        del passed[i]
    return passed


class FilterPoints(PluginCalls):
    """PreFilter, PreFilterExtensions, Filter and PostFilter of one profile."""

    # --- PreFilter -------------------------------------------------------------------------
    def run_pre_filter_plugins(
        self, state: CycleState, pod: Any, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status, set[str]]:
        """Returns (merged result, status, plugin names): the rejecting plugins on failure,
        the plugins that narrowed the node set on success (framework.go RunPreFilterPlugins)."""
        result: PreFilterResult | None = None
        plugins_with_nodes: list[str] = []
        returned: Status | None = None
        skip = state.skip_filter_plugins
        for pl, name in self._named("preFilter"):
            try:  # PluginCalls._call, inlined (see there)
                out = pl.pre_filter(state, pod, nodes)
            except Exception as exc:  # noqa: BLE001 - plugin code may raise anything
                out = raised(name, "PreFilter", exc)
            if (
                out.__class__ is tuple
                and len(out) == 2
                and (out[0] is None or out[0].__class__ is PreFilterResult)
                and (out[1] is None or out[1].__class__ is Status)
            ):
                r, st = out  # the common case, checked cheaply; a None status is a success
            else:
                out = pair(
                    name,
                    "PreFilter",
                    out,
                    lambda r: r is None or isinstance(r, PreFilterResult),
                    "a (PreFilterResult | None, Status | None) pair",
                )
                r, st = (None, out) if isinstance(out, Status) else out
            if st is not None and st.code != SUCCESS:
                if st.code == SKIP:
                    skip.add(name)
                    continue
                st.plugin = name
                if st.code == UNRESOLVABLE:
                    return None, st, {name}
                if st.code == UNSCHEDULABLE:
                    returned = st  # the last one is returned; the others run for preemption
                    continue
                msg = f'running PreFilter plugin "{name}": {st.message()}'
                return None, Status(Code.Error, msg, plugin=name, err=st.err), set()
            if r is not None and not r.all_nodes():
                plugins_with_nodes.append(name)
            result = r if result is None else result.merge(r)
            if result is not None and not result.all_nodes() and not result.node_names:
                names = sorted(set(plugins_with_nodes))
                if len(names) == 1:
                    msg = f"node(s) didn't satisfy plugin {names[0]}"
                else:
                    msg = f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously"
                return result, Status(Code.UnschedulableAndUnresolvable, msg, plugin=name), set(plugins_with_nodes)
        # The set names the plugins that narrowed the nodes, also beside an Unschedulable
        # status (whose plugin the diagnosis adds): on success it words the absent-node status
        # "node(s) didn't satisfy plugin(s) [...]".
        return result, returned or Status(), set(plugins_with_nodes)

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod: Any, info: PodInfo, node_info: NodeInfo) -> Status:
        return self._run_pre_filter_extension(state, pod, info, node_info, "AddPod", "add_pod")

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod: Any, info: PodInfo, node_info: NodeInfo) -> Status:
        return self._run_pre_filter_extension(state, pod, info, node_info, "RemovePod", "remove_pod")

    def _pre_filter_extensions(self, pl: Any, name: str) -> Any:
        """The plugin's PreFilterExtensions (None: it has none); a Status when asking failed."""
        if self._opt(pl, "pre_filter_extensions") is None:
            return None
        ext = self._call(name, "PreFilterExtensions", pl, "pre_filter_extensions")
        if ext is None or isinstance(ext, Status):
            return ext
        if not (self._has(ext, "add_pod") and self._has(ext, "remove_pod")):
            return wrong(name, "PreFilterExtensions", ext, "None or an object with add_pod and remove_pod")
        return ext

    def _run_pre_filter_extension(self, state: CycleState, pod: Any, info: PodInfo, node_info: NodeInfo, what: str, method: str) -> Status:
        """AddPod / RemovePod of every PreFilter plugin not skipped this cycle (framework.go)."""
        skip = state.skip_filter_plugins
        for pl, name in self._named("preFilter"):
            if name in skip:
                continue
            ext = self._pre_filter_extensions(pl, name)
            if ext is None:
                continue
            if isinstance(ext, Status):
                st = ext
            else:
                st = as_status(name, what, self._call(name, what, ext, method, state, pod, info, node_info))
            if not st.is_success():
                return Status(Code.Error, f'running {what} on PreFilter plugin "{name}": {st.message()}', plugin=name)
        return Status()

    def has_pre_filter_extensions(self, state: CycleState) -> bool:
        """Whether AddPod / RemovePod would call any plugin for this state: when not, running
        them is a no-op returning Success, which preemption's dry run uses to skip the calls."""
        skip = state.skip_filter_plugins
        return any(name not in skip and self._pre_filter_extensions(pl, name) is not None for pl, name in self._named("preFilter"))

    # --- Filter ----------------------------------------------------------------------------
    def run_filter_plugins(self, state: CycleState, pod: Any, node_info: NodeInfo) -> Status:
        """The first non-success status, tagged with its plugin (framework.go RunFilterPlugins)."""
        skip = state.skip_filter_plugins
        for pl, name in self._named("filter"):
            if name in skip:
                continue
            try:  # inline rather than _call: this is the hottest loop of a run
                st = pl.filter(state, pod, node_info)
            except Exception as exc:  # noqa: BLE001 - plugin code may raise anything
                st = raised(name, "Filter", exc)
            if st is None:
                continue
            if st.__class__ is not Status:
                st = status_of(name, "Filter", st)
            if st.code == SUCCESS:
                continue
            st.plugin = name
            if not st.is_rejected():
                return Status(Code.Error, f'running "{name}" filter plugin: {st.message()}', plugin=name, err=st.err)
            return st
        return Status()

    def first_passing_node(self, state: CycleState, pod: Any, nodes: Sequence[NodeInfo]) -> int | None:
        """The position of the first of ``nodes`` that run_filter_plugins lets through, as a walk
        calling it node by node in this order finds it (cluster-autoscaler's FitsAnyNodeMatching);
        None when none does.

        With batches and no nominated pod on these nodes, the nodes are filtered in chunks that
        double (run_filter_plugins_batch gives each node run_filter_plugins' status) until one
        holds a success: the walk of thousands of added nodes an estimate makes per pod costs a
        few batches instead of a call per node. From a node whose status is an Error the walk
        goes on node by node (a plugin called per node gives the nodes after its Error that Error
        without asking; a walk asks them)."""
        n = len(nodes)
        pos = 0
        nominated = self._nominated_node_names()
        if n > 1 and nominated is not None and self.batches() and not (nominated and any(ni.name in nominated for ni in nodes)):
            size = 64
            while pos < n:
                chunk = nodes[pos : pos + size]
                statuses = self.run_filter_plugins_batch(state, pod, chunk)
                errored = -1
                for i, st in enumerate(statuses):
                    if st is None or st.code == SUCCESS:
                        return pos + i
                    if st.code == ERROR:
                        errored = i
                        break
                if errored >= 0:
                    pos += errored + 1  # that node's own Error: the walk goes on after it
                    break
                pos += len(chunk)
                size *= 2
        for i in range(pos, n):
            if self.run_filter_plugins(state, pod, nodes[i]).code == SUCCESS:
                return i
        return None

    def run_each_filter_plugin(self, state: CycleState, pod: Any, node_info: NodeInfo) -> list[Status]:
        """Every Filter plugin's non-success status on the node, in the profile's order, each
        tagged with its plugin: what RunFilterPlugins would find if it did not stop at the first
        failure (`explain --all-filters`, for near-misses). Never on the scheduling path."""
        out: list[Status] = []
        for pl, name in self._named("filter"):
            if name in state.skip_filter_plugins:
                continue
            try:
                st = pl.filter(state, pod, node_info)
            except Exception as exc:  # noqa: BLE001 - plugin code may raise anything
                st = raised(name, "Filter", exc)
            if st is None:
                continue
            if st.__class__ is not Status:
                st = status_of(name, "Filter", st)
            if st.code != Code.Success:
                st.plugin = name
                out.append(st)
        return out

    def _filter_per_node(self, pl: Any, name: str, state: CycleState, pod: Any, nodes: Sequence[NodeInfo]) -> list[Status | None]:
        """One plugin's Filter over nodes, one call each. After the first Error the remaining
        nodes get that same Error without a call: the search stops at the first Error in node
        order, so they are never looked at, and a failing (or hung) plugin is not called
        once per node."""
        results: list[Status | None] = []
        fn = optional(pl, "filter")
        if fn is None:
            return [raised(name, "Filter", AttributeError("filter"))] * len(nodes)
        for ni in nodes:
            try:
                st = fn(state, pod, ni)
            except Exception as exc:  # noqa: BLE001
                st = raised(name, "Filter", exc)
            if st is not None and st.__class__ is not Status:
                st = status_of(name, "Filter", st)
            results.append(st)
            if st is not None and st.code == ERROR:
                results.extend(repeat(st, len(nodes) - len(results)))
                break
        return results

    def run_filter_plugins_batch(self, state: CycleState, pod: Any, nodes: Sequence[NodeInfo]) -> list[Status | None]:
        """run_filter_plugins for many nodes at once: the status each node would get from it
        (None for Success, so that no object is made for a feasible node).

        Plugins run in order over the nodes still passing; a plugin with ``filter_batch`` sees
        them all in one call, any other plugin (or a batch call that raises or returns
        something else than one Status or None per node) is called per node. Every node gets
        exactly the first non-success status, as in the per-node loop. Nodes with nominated
        pods take the two-pass path of run_filter_plugins_with_nominated_pods.
        """
        n = len(nodes)
        nominated = self._nominated_node_names()
        if nominated is None:
            return [self.run_filter_plugins_with_nominated_pods(state, pod, ni) for ni in nodes]
        # Both made at the first status to record: a chunk every plugin passes whole (most
        # chunks of most cycles) builds neither, and its answer is n times None.
        out: list[Status | None] | None = None  # the statuses
        alive: list[int] | None = None  # the positions still passing (None: all n)
        two_pass: list[tuple[int, Sequence[PodInfo]]] = []  # (position, the nominated pods pass 1 adds)
        errored = False  # whether ``out`` holds an Error (read only with two_pass)
        if nominated:
            with_adds = self._nodes_with_adds(pod, nodes, nominated)
            if with_adds and self._first_pass_batchable(state):
                two_pass = with_adds
            elif with_adds:  # the two passes on copies, node by node
                out = [None] * n
                for i, _ in with_adds:
                    st = out[i] = self.run_filter_plugins_with_nominated_pods(state, pod, nodes[i])
                    errored = errored or _recorded_error((st,))
                copied = {i for i, _ in with_adds}
                alive = [i for i in range(n) if i not in copied]
        full = as_batch(nodes, self.snapshot)
        skip = state.skip_filter_plugins
        # the positions given a Status, while every recording went through SparseStatuses
        rejected: list[int] | None = [] if alive is None else None
        kinds: dict[int, Status] = {}  # the Statuses recorded at ``rejected``, by id
        subset: tuple[list[int], NodeBatch] | None = None  # (alive, its sub-batch), while alive is that list
        for pl, name in self._named("filter"):
            if alive is not None and not alive:
                break
            if name in skip:
                continue
            if alive is None or len(alive) == n:
                sub = full
            else:
                if subset is None or subset[0] is not alive:
                    subset = (alive, full.subset(alive))
                sub = subset[1]
            results: Any = None
            batch_fn = self._opt(pl, "filter_batch")
            if batch_fn is not None:
                try:
                    results = batch_fn(state, pod, sub)  # None: "use the per-node form"
                    if results is not None and not isinstance(results, list):
                        results = list(results)
                    if results is not None and len(results) != len(sub):
                        results = None  # not one result per node: the per-node calls below
                except Exception:  # noqa: BLE001 - the per-node calls below report it exactly
                    quiet_log(LOGGER, "debug", "filter_batch of %s raised; per-node fallback", name, exc_info=True)
                    results = None
            if results is not None:
                failing, distinct = _batch_statuses(results)
                if distinct is None:
                    continue  # every node passed: nothing to record (the common case)
                if failing is None:
                    rejected = None  # where the Statuses are is no longer known
                if out is None:
                    out = [None] * n
                passing = list(range(n)) if alive is None else alive
                recorded = _record_filter_results(name, passing, results, out, distinct, failing, rejected, kinds)
                if recorded is not None:
                    errored = errored or _recorded_error(distinct.values())
                    alive = recorded
                    continue
            rejected = None
            results = self._filter_per_node(pl, name, state, pod, sub)
            if out is None:
                out = [None] * n
            passing = list(range(n)) if alive is None else alive
            distinct = by_identity(results)
            alive = _record_filter_results(name, passing, results, out, distinct) or []
            errored = errored or _recorded_error(distinct.values())
        if two_pass:
            if out is None:
                out = [None] * n
            if errored:
                # An Error in the plain pass may have been repeated onto later nodes without a call
                # (_filter_per_node), which is exact only while the walk stops there; a first-pass
                # rejection of that node would let it go on. Rare: every node the two-pass way.
                return [self.run_filter_plugins_with_nominated_pods(state, pod, ni) for ni in nodes]
            self._first_pass_with_added_pods(state, pod, full, two_pass, out)
            rejected = None
        if out is None:
            return [None] * n
        if rejected is not None:
            return SparseStatuses(out, sorted(rejected), kinds.values())
        return out

    def _nodes_with_adds(
        self, pod: Any, nodes: Sequence[NodeInfo], nominated: Mapping[str, list[PodInfo]]
    ) -> list[tuple[int, Sequence[PodInfo]]]:
        """(position, the nominated pods the first pass adds) for the nodes of ``nodes`` where
        it adds some (_nominated_pods_to_add), in order. Read from the lists kept for the
        pod's priority (_adds_for_priority) by one lookup per node; the pod's own nominated
        node, whose list holds the pod itself, is worked out afresh."""
        priority = pod.effective_priority()
        kept = self._adds_for_priority(priority)
        names = all_node_names(nodes)
        if kept is None or names is None:
            return [
                (i, added)
                for i, ni in enumerate(nodes)
                if ni.name in nominated and (added := self._nominated_pods_to_add(pod, priority, ni, nominated[ni.name]))
            ]
        found: list[tuple[int, Sequence[PodInfo]]] = [(i, a) for i, a in enumerate(map(kept.get, names)) if a is not None]
        own = getattr(self.services.nominator, "nominated_pod_to_node", {}).get(pod.uid)
        if own is not None and own in nominated and own in names:
            at = names.index(own)
            found = [(i, a) for i, a in found if i != at]
            mine = self._nominated_pods_to_add(pod, priority, nodes[at], nominated[own])
            if mine:
                bisect.insort(found, (at, mine), key=_POSITION)
        return found

    def _adds_for_priority(self, priority: int) -> dict[str, tuple[PodInfo, ...]] | None:
        """node name -> the nominated pods the first pass adds there for a pod of ``priority``
        nominated elsewhere (non-empty ones only), kept across cycles and brought up to date
        from the nodes whose list changed since (the nominator's node versions above the
        ``changes`` it was read at). Between two cycles of a preemption-heavy run one or two
        lists change while hundreds of nodes have nominated pods. The lists are tuples: they
        are handed to the plugins' first pass, sandboxed plugins included, and no plugin can
        edit what a later cycle reads. None for a nominator that does not say what changed."""
        nominator = self.services.nominator
        versions = getattr(nominator, "node_versions", None)
        lists = getattr(nominator, "nominated_pods", None)
        changes = getattr(nominator, "changes", None)
        if not isinstance(versions, dict) or not isinstance(lists, dict) or not isinstance(changes, int):
            return None
        owner, by_priority = self._kept_adds_by_node
        if owner is not nominator:  # versions name one nominator's lists
            by_priority = {}
            self._kept_adds_by_node = (nominator, by_priority)
        entry = by_priority.get(priority)
        if entry is None:
            if len(by_priority) >= _KEPT_PRIORITIES:
                by_priority.clear()
            entry = by_priority[priority] = (-1, {})
        seen, kept = entry
        if seen == changes:
            return kept
        for name in [name for name, version in versions.items() if version > seen]:
            added = tuple(_added_by_first_pass(lists.get(name, ()), priority, None))
            if added:
                kept[name] = added
            else:
                kept.pop(name, None)
        by_priority[priority] = (changes, kept)
        return kept

    @staticmethod
    def _nominated_pods_to_add(pod: Any, priority: int, node_info: NodeInfo, nominated: Sequence[PodInfo]) -> list[PodInfo]:
        """Of the pods nominated to this node, those the Filter's first pass adds (addGENominatedPods:
        priority >= the pod's, ``priority``, and not the pod itself)."""
        if node_info.node is None:
            return []
        return _added_by_first_pass(nominated, priority, pod.uid)

    def nominated_pods_added(self, pod: Any, node_info: NodeInfo) -> list[PodInfo]:
        """The pods nominated to the node that the Filter's first pass adds for ``pod``
        (addGENominatedPods), as the filters see them: explain names them."""
        nominator = self.services.nominator
        if nominator is None:
            return []
        return self._nominated_pods_to_add(pod, pod.effective_priority(), node_info, nominator.nominated_pods_for_node(node_info.name))

    def _first_pass_batchable(self, state: CycleState) -> bool:
        """Whether the first pass (the node plus its nominated pods) can be asked of the plugins
        in a batch: no AddPod extension would run (so the pass sees this very CycleState) and
        every active Filter plugin has ``filter_batch_with_added_pods``. Otherwise the nodes
        with nominated pods take the two passes on copies and stay out of the plain batch: a
        plugin without the method (a third-party one) is called as the two-pass loop calls
        it, and a hung one is not asked again for every node after an Error."""
        if self.has_pre_filter_extensions(state):
            return False
        skip = state.skip_filter_plugins
        return all(self._opt(pl, "filter_batch_with_added_pods") is not None for pl, name in self._named("filter") if name not in skip)

    def _first_pass_with_added_pods(
        self, state: CycleState, pod: Any, full: NodeBatch, two_pass: list[tuple[int, Sequence[PodInfo]]], out: list[Status | None]
    ) -> None:
        """run_filter_plugins_with_nominated_pods for the nodes of ``two_pass``, whose plain
        (second-pass) statuses are already in ``out``: the first pass is asked of every plugin
        at once (``filter_batch_with_added_pods``) and its rejection, when there is one, is the
        node's status, as in the two-pass loop (a success leaves the plain status). A plugin
        that cannot say (None, a wrong result, an exception) sends the nodes still undecided
        through the two-pass loop itself, which reports exactly."""
        positions = [i for i, _ in two_pass]
        added = [pods for _, pods in two_pass]
        first: list[Status | None] = [None] * len(positions)
        alive = list(range(len(positions)))
        decided: set[int] = set()  # positions the two-pass loop answered
        skip = state.skip_filter_plugins
        # (alive, its sub-batch, its added pods): made again only when a plugin rejected some
        # node (_record_filter_results hands the same list back when every node passed)
        asked: tuple[list[int], NodeBatch, list[Sequence[PodInfo]]] | None = None
        for pl, name in self._named("filter"):
            if not alive:
                break
            if name in skip:
                continue
            if asked is None or asked[0] is not alive:
                asked = (alive, full.subset([positions[a] for a in alive]), [added[a] for a in alive])
            recorded = None
            try:
                results = self._opt(pl, "filter_batch_with_added_pods")(state, pod, asked[1], list(asked[2]))
                if results is not None:
                    if not isinstance(results, list):
                        results = list(results)
                    if len(results) == len(alive):
                        failing, distinct = _batch_statuses(results)
                        recorded = alive if distinct is None else _record_filter_results(name, alive, results, first, distinct, failing)
            except Exception:  # noqa: BLE001 - the two-pass loop below reports it exactly
                quiet_log(LOGGER, "debug", "filter_batch_with_added_pods of %s raised; two-pass fallback", name, exc_info=True)
            if recorded is None:
                for a in alive:
                    i = positions[a]
                    out[i] = self.run_filter_plugins_with_nominated_pods(state, pod, full[i])
                decided = set(alive)
                break
            alive = recorded
        for a, i in enumerate(positions):
            if a not in decided and first[a] is not None:
                out[i] = first[a]

    def _nominated_node_names(self) -> Any:
        """The names of nodes with nominated pods (a dict or set); None when unknown."""
        nominator = self.services.nominator
        if nominator is None:
            return ()
        pods = getattr(nominator, "nominated_pods", None)
        return pods if isinstance(pods, dict) else None

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Any, node_info: NodeInfo) -> Status:
        """Two passes: with the nominated pods of equal or higher priority, then without (5.6)."""
        nominated = self._nominated_node_names()
        if nominated is not None and node_info.name not in nominated:
            return self.run_filter_plugins(state, pod, node_info)  # nothing to add: one pass
        nominator = self.services.nominator
        pods_added = False
        status = Status()
        for i in range(2):
            state_to_use, info_to_use = state, node_info
            if i == 0:
                pods_added, state_to_use, info_to_use, st = self._add_nominated_pods(state, pod, node_info, nominator)
                if not st.is_success():
                    return st
            elif not pods_added or not status.is_success():
                break
            status = self.run_filter_plugins(state_to_use, pod, info_to_use)
            if not status.is_success() and not status.is_rejected():
                return status
        return status

    def _add_nominated_pods(
        self, state: CycleState, pod: Any, node_info: NodeInfo, nominator: Any
    ) -> tuple[bool, CycleState, NodeInfo, Status]:
        if nominator is None:
            return False, state, node_info, Status()
        to_add = self._nominated_pods_to_add(pod, pod.effective_priority(), node_info, nominator.nominated_pods_for_node(node_info.name))
        if not to_add:
            return False, state, node_info, Status()  # none would be added: no copies needed
        info_out = node_info.clone()
        try:
            state_out = state.clone()  # plugins' state data clone themselves
        except Exception as exc:  # noqa: BLE001
            return False, state, node_info, Status(Code.Error, f"cloning the cycle state: {describe(exc)}", err=exc)
        for pi in to_add:
            info_out.add_pod_info(pi)
            st = self.run_pre_filter_extension_add_pod(state_out, pod, pi, info_out)
            if not st.is_success():
                return False, state, node_info, st
        return True, state_out, info_out, Status()

    # --- PostFilter ------------------------------------------------------------------------
    def run_post_filter_plugins(self, state: CycleState, pod: Any, node_to_status: NodeToStatus) -> tuple[PostFilterResult | None, Status]:
        reasons: list[str] = []
        result: PostFilterResult | None = None
        rejector = ""
        for pl, name in self._named("postFilter"):
            out = pair(
                name,
                "PostFilter",
                self._call(name, "PostFilter", pl, "post_filter", state, pod, node_to_status),
                lambda r: r is None or isinstance(r, PostFilterResult),
                "a (PostFilterResult | None, Status | None) pair",
            )
            r, st = (None, out) if isinstance(out, Status) else out
            if st.is_success() or st.code == Code.UnschedulableAndUnresolvable:
                st.plugin = name
                return r, st
            if not st.is_rejected():
                return None, Status(Code.Error, st.message(), plugin=name, err=st.err)
            reasons.extend(st.reasons)
            rejector = rejector or name
            if r is not None and r.mode != "Noop":
                result = r
        return result, Status(Code.Unschedulable, *reasons, plugin=rejector)


__all__ = ["FilterPoints"]
