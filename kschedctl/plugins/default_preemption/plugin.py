"""DefaultPreemption (PostFilter, PreEnqueue): evict lower-priority pods so a pod can fit.

Upstream: pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go. The plugin
is the preemption.Interface of the generic Evaluator (kschedctl/preemption/evaluator.py): it
decides who may preempt (preemptionPolicy, terminating victims on the nominated node), how
many nodes to dry-run (minCandidateNodesPercentage / minCandidateNodesAbsolute, random start
offset), and which pods to evict on one node (all lower-priority pods removed, then reprieved
one by one, PDB-violating ones first).

Pod-group preemption (workload-aware preemption, placement-based pod groups) is not modelled:
the gates that enable it are off by default in every emulated release.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kschedctl.api.types import Pod, PodDisruptionBudget
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.features import Features
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import (
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    PostFilterResult,
    QueueingHint,
    Status,
)
from kschedctl.framework.resource import Resource
from kschedctl.framework.types import NodeInfo, NodeToStatus, PodInfo, host_ports_of, summed_requests
from kschedctl.plugins import names
from kschedctl.plugins.default_preemption.args import (
    DefaultPreemptionArgs,
)
from kschedctl.plugins.node_affinity import NodeAffinity
from kschedctl.plugins.node_name import NodeName
from kschedctl.plugins.node_resources import NodeResourcesFit
from kschedctl.plugins.node_resources.fit import PRE_FILTER_STATE_KEY
from kschedctl.plugins.node_unschedulable import NodeUnschedulable
from kschedctl.plugins.node_volume_limits import NodeVolumeLimits
from kschedctl.plugins.taint_toleration import TaintToleration
from kschedctl.plugins.volume_binding import VolumeBinding
from kschedctl.plugins.volume_zone import VolumeZone
from kschedctl.preemption.evaluator import (
    Candidate,
    Evaluator,
    ScoreFunc,
    filter_pods_with_pdb_violation,
    more_important_pod,
    pod_start_time,
    sort_by_importance,
)

NAME = names.DefaultPreemption
PREEMPT_NEVER = "Never"
DISRUPTION_TARGET = "DisruptionTarget"
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
ERR_NO_VICTIMS = "No preemption victims found for incoming pod"
ERR_PREEMPTION_POLICY_NEVER = "not eligible due to preemptionPolicy=Never."
ERR_TERMINATING_ON_NOMINATED = "not eligible due to a terminating pod on the nominated node."

# (node_info, victim PodInfo, preemptor) -> may this victim be preempted (beyond lower priority)?
IsEligiblePodFunc = Callable[[NodeInfo, PodInfo, Pod], bool]


def _always_eligible(node_info: NodeInfo, victim: PodInfo, preemptor: Pod) -> bool:
    """The default IsEligiblePod: any lower-priority pod may be preempted."""
    return True


_SUCCESS = Status()  # shared, never mutated: the result of skipped no-op extension calls


@dataclass(frozen=True)
class _DryRunPlan:
    """Per-dry-run facts: run AddPod/RemovePod at all; the NodeResourcesFit filter to try
    first in reprieves (None when it is not an active Filter plugin of this cycle)."""

    extensions: bool
    fit: Any
    fit_only: bool = False
    # with fit_only: the other active Filter plugins (all node-only), in the profile's order
    node_filters: tuple[Any, ...] = ()
    # with fit_only: every active Filter plugin, Fit included, as (name, plugin) in the profile's order
    filters: tuple[tuple[str, Any], ...] = ()
    # with fit_only: the active plugins that read a node's pods on some nodes only
    # (_POD_BLIND_ON_SOME_NODES); fit_only holds on a node where each says its verdict ignores them
    pod_checks: tuple[Any, ...] = ()


# In-tree Filter plugins whose verdict reads only the Node object and cluster objects the dry
# run leaves alone (PVs, claims, classes; their own PreFilter state, which has no
# AddPod/RemovePod): removing or adding pods never changes it. VolumeBinding's Filter also
# records the node's PodVolumes in its state, which every copy of the CycleState shares
# (_State.clone returns itself): calling it on the node rather than a copy records the same.
_NODE_ONLY_FILTERS = (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, VolumeBinding, VolumeZone)
# In-tree Filter plugins that read the node's pods only on some nodes, and say where they do
# not (``verdict_ignores_pods(pod, node_info)``): NodeVolumeLimits, which counts the volumes of
# the pods there only when the pod brings a volume attachable there and the node has a limit.
_POD_BLIND_ON_SOME_NODES = (NodeVolumeLimits,)


_CANNOT_HELP_KEPT = 1 << 16  # DefaultPreemption._cannot_help starts again past this many keys


def _keys_for(nominator: Any, pod: Pod, req: Resource) -> Callable[[NodeInfo], tuple[Any, ...]] | None:
    """DefaultPreemption._cannot_help_key for this preemptor, as a function of the node: the
    preemptor's part (the Nominator's per-node version and its pod-to-node map, the pod's uid,
    its priority and cpu, memory and ephemeral-storage requests) read once. None without the
    in-tree Nominator's version and map."""
    version = getattr(nominator, "node_version", None)
    to_node = getattr(nominator, "nominated_pod_to_node", None)
    if version is None or not isinstance(to_node, dict):
        return None
    uid = pod.uid
    tail = (pod.effective_priority(), req.milli_cpu, req.memory, req.ephemeral_storage)
    # the in-tree Nominator's own map of node_version's answers (absent: 0), read without a
    # call per node: a dry run asks a key of every node it visits (~400 a preemptor)
    versions = getattr(nominator, "node_versions", None)

    def asked(name: str, _absent: int) -> Any:
        return version(name)

    version_of: Callable[[str, int], Any] = versions.get if isinstance(versions, dict) else asked

    def key_of(node_info: NodeInfo) -> tuple[Any, ...]:
        name = node_info.name
        return (name, node_info.generation, version_of(name, 0), to_node.get(uid) == name, *tail)

    return key_of


def _counts(req: Any) -> bool:
    """Whether the dry run counts the preemptor's requests (_counted_victims): NodeResourcesFit's
    PreFilter state, asking no scalar resource (cpu, memory and ephemeral storage only)."""
    return isinstance(req, Resource) and not any(req.scalar_resources.values())


def _node_filters_pass(plan: "_DryRunPlan", state: CycleState, pod: Pod, node_info: NodeInfo) -> bool | None:
    """Whether every Filter of the plan that reads only the node (or the pod) passes it there:
    False at the first rejection, None when one raises (the general path reports it)."""
    for pl in plan.node_filters:
        try:
            st = pl.filter(state, pod, node_info)
        except Exception:  # noqa: BLE001 - the general path reports it
            return None
        if st is not None and st.code != Code.Success:
            return False
    return True


def _same_pdb(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Whether two marks of DefaultPreemption._victims_for name the same PDB as it was: the same
    object, selector and metadata objects, disruptionsAllowed and disruptedPods."""
    return a[0] is b[0] and a[1] == b[1] and a[2] == b[2] and a[3] is b[3] and a[4] is b[4]


def _importance_key(pi: PodInfo) -> tuple[int, float]:
    return -pi.priority, pod_start_time(pi.pod)


def _add_requests(total: Resource, req: Resource) -> None:
    """What NodeInfo.add_pod_info adds to ``requested`` (types.NodeInfo._update, sign +1)."""
    total.milli_cpu += req.milli_cpu
    total.memory += req.memory
    total.ephemeral_storage += req.ephemeral_storage
    for name, value in req.scalar_resources.items():
        total.scalar_resources[name] = total.scalar_resources.get(name, 0) + value


class _Usage:
    """A NodeInfo's allocatable, requested and pod count (``num_pods``, all that
    fits_request reads of the pods), changed as add/remove_pod would."""

    __slots__ = ("allocatable", "requested", "num_pods")

    def __init__(self, node_info: NodeInfo) -> None:
        self.allocatable = node_info.allocatable
        self.requested = node_info.requested.clone()
        self.num_pods = node_info.num_pods

    def change(self, req: Resource, sign: int) -> None:
        """types.NodeInfo._update's arithmetic on ``requested``, and the pod count."""
        r = self.requested
        r.milli_cpu += sign * req.milli_cpu
        r.memory += sign * req.memory
        r.ephemeral_storage += sign * req.ephemeral_storage
        for name, value in req.scalar_resources.items():
            r.scalar_resources[name] = r.scalar_resources.get(name, 0) + sign * value
        self.num_pods += sign


class _WithNominated:
    """A node as the Filter's first pass sees it (its pods plus the nominated ones), for
    NodeResourcesFit only: allocatable, requested and the pod count, no copy of the NodeInfo."""

    __slots__ = ("allocatable", "requested", "num_pods")

    def __init__(self, node_info: "NodeInfo | _Usage", extra: Resource, count: int) -> None:
        self.allocatable = node_info.allocatable
        requested = node_info.requested.clone()
        _add_requests(requested, extra)
        self.requested = requested
        self.num_pods = node_info.num_pods + count


def _fits(fit: Any, state: CycleState, pod: Pod, node_info: Any) -> bool | None:
    """NodeResourcesFit's verdict on this node as it is; None (do not know) if it raises."""
    try:
        st = fit.filter(state, pod, node_info)
    except Exception:  # noqa: BLE001 - the full filter run reports it
        return None
    return st is None or st.code == Code.Success


def _fits_with_nominated(fit: Any, state: CycleState, pod: Pod, usage: "_Usage", nominated: tuple[Resource, int] | None) -> bool | None:
    """NodeResourcesFit's verdict over both passes of the Filter with nominated pods: the node
    with the nominated pods (when there are any to add), then as it is; None if Fit raises."""
    fits = _fits(fit, state, pod, usage)
    if fits is not False and nominated is not None:
        with_nominated = _fits(fit, state, pod, _WithNominated(usage, *nominated))
        fits = False if with_nominated is False else (fits and with_nominated)
    return fits


class _FilterFit:
    """A node's requests and pod count as pods are removed and added back (_Usage), judged
    by NodeResourcesFit's own Filter over both passes (_fits_with_nominated)."""

    def __init__(self, fit: Any, state: CycleState, pod: Pod, node_info: NodeInfo, nominated: tuple[Resource, int] | None) -> None:
        self.fit, self.state, self.pod, self.nominated = fit, state, pod, nominated
        self.usage = _Usage(node_info)

    def change(self, pi: PodInfo | None, sign: int) -> bool | None:
        """Adds (+1) or removes (-1) the pod's requests; the verdict on the result (None: Fit raised)."""
        if pi is not None:
            self.usage.change(pi.requests, sign)
        return _fits_with_nominated(self.fit, self.state, self.pod, self.usage, self.nominated)


def _counted_victims(
    req: Resource,
    node_info: NodeInfo,
    nominated: tuple[Resource, int] | None,
    potential: Sequence[PodInfo],
    removed: tuple[int, int, int] | None = None,
) -> Callable[[Sequence[PodInfo], Sequence[PodInfo]], tuple[list[PodInfo], int]] | None:
    """_FilterFit's verdicts as integer arithmetic, for a pod asking for no scalar resource:
    fitsRequest then checks only the pod count, cpu, memory and ephemeral storage (a request
    of 0 always fits), so the node's scalar resources and Fit's ignored resources play no part;
    both passes of the Filter with nominated pods (the node with them, then without).

    None when the pod does not fit even with every ``potential`` pod removed; otherwise the
    reprieve loop: (violating, non-violating) pods in order -> (victims, PDB-violating victims).
    ``removed``: the summed (cpu, memory, ephemeral storage) requests of ``potential``, when
    the caller has them (_potential_victims keeps them).
    """
    wc, wm, we = req.milli_cpu, req.memory, req.ephemeral_storage
    a = node_info.allocatable
    # the room each pass leaves for requests and pods: allocatable minus the nominated pods
    passes = [(a.milli_cpu, a.memory, a.ephemeral_storage, a.allowed_pod_number)]
    if nominated is not None:
        extra, n = nominated
        passes.insert(
            0,
            (
                a.milli_cpu - extra.milli_cpu,
                a.memory - extra.memory,
                a.ephemeral_storage - extra.ephemeral_storage,
                a.allowed_pod_number - n,
            ),
        )
    used = node_info.requested
    cpu, mem, eph, count = used.milli_cpu, used.memory, used.ephemeral_storage, node_info.num_pods - len(potential)
    if removed is None:
        removed = summed_requests(potential)
    cpu, mem, eph = cpu - removed[0], mem - removed[1], eph - removed[2]

    def fits(cpu: int, mem: int, eph: int, count: int) -> bool:
        for ac, am, ae, ap in passes:
            if not (count + 1 <= ap and (wc <= 0 or wc <= ac - cpu) and (wm <= 0 or wm <= am - mem) and (we <= 0 or we <= ae - eph)):
                return False
        return True

    if not fits(cpu, mem, eph, count):
        return None

    def reprieve(violating: Sequence[PodInfo], non_violating: Sequence[PodInfo]) -> tuple[list[PodInfo], int]:
        nonlocal cpu, mem, eph, count
        victims: list[PodInfo] = []
        num_violating = 0
        for group_violating, group in ((True, violating), (False, non_violating)):
            for pi in group:
                r = pi.requests
                if fits(cpu + r.milli_cpu, mem + r.memory, eph + r.ephemeral_storage, count + 1):
                    cpu += r.milli_cpu
                    mem += r.memory
                    eph += r.ephemeral_storage
                    count += 1
                else:
                    victims.append(pi)
                    num_violating += group_violating
        return victims, num_violating

    return reprieve


class DefaultPreemption:
    # The dry-run shortcuts of _plan (exactly equivalent; off only to test that equivalence).
    dry_run_shortcuts = True

    def __init__(self, args: DefaultPreemptionArgs | dict[str, Any] | None, handle: Handle, features: Features | None = None) -> None:
        features = features if features is not None else handle.features
        dp_args = DefaultPreemptionArgs.of(args, features)
        self.min_candidate_nodes_percentage = int(dp_args.min_candidate_nodes_percentage or 0)
        self.min_candidate_nodes_absolute = int(dp_args.min_candidate_nodes_absolute or 0)
        self.async_preemption = features.scheduler_async_preemption
        self.handle = handle
        self.evaluator = Evaluator(NAME, handle, self)
        # Extension hooks, as the exported fields of upstream's plugin struct.
        self.is_eligible_pod: IsEligiblePodFunc = _always_eligible
        self.more_important_pod: Callable[[Pod, Pod], bool] = more_important_pod
        # getOffsetRand: rand.Int31n(n) from the run's seeded random source; tests may replace it.
        self.offset_rand: Callable[[int], int] = self._rand_int31n
        # (pod, handle, skipped filter plugins, plan) of the last dry run (_plan)
        self._plan_cache: tuple[Pod, Any, set[str], _DryRunPlan] | None = None
        # node name -> (its latest NodeInfo asked, (generation, pod count, priority), its potential
        # victims, their summed requests): one entry per node, so at most one NodeInfo per node
        # is held here
        self._potential_cache: dict[str, tuple[NodeInfo, tuple[int, int, int], list[PodInfo], tuple[int, int, int]]] = {}
        # (snapshot, its generation, its node count, the lowest pod priority on its nodes)
        self._lowest_kept: tuple[Any, Any, int, int | None] | None = None
        # The keys (_cannot_help_key) of the nodes where NodeResourcesFit rejects a preemptor even
        # without every lower-priority pod: the dry run of a wave of like preemptors asks each
        # node again and again while neither the node nor its nominated pods change.
        self._cannot_help: set[tuple[Any, ...]] = set()
        # The same keys, for the nodes that can help: the victims _counted_victims chose there
        # and how many of them violate a PDB, for the PDBs of _victims_pdbs (the counting reads
        # nothing else; the Filter plugins that read the pod still run on every ask).
        self._victims_kept: dict[tuple[Any, ...], tuple[tuple[Pod, ...], int]] = {}
        # (the PDB list of the last dry run, each PDB with what filter_pods_with_pdb_violation
        # reads of it that may change): a different one empties _victims_kept
        self._victims_pdbs: tuple[Sequence[PodDisruptionBudget], list[tuple[Any, ...]]] | None = None
        # (pod, its requests, the Nominator, _keys_for of them) of the last key made
        self._key_part: tuple[Pod, Resource, Any, Any] | None = None

    def name(self) -> str:
        return NAME

    def _rand_int31n(self, n: int) -> int:
        return self.handle.rng.randrange(n) if n > 0 else 0

    # --- PostFilter ------------------------------------------------------------------------
    def post_filter(self, state: CycleState, pod: Pod, m: NodeToStatus) -> tuple[PostFilterResult | None, Status]:
        result, status = self.evaluator.preempt(state, pod, m)
        msg = status.message()
        if msg:
            return result, Status(status.code, "preemption: " + msg, err=status.err)
        return result, status

    # --- PreEnqueue ------------------------------------------------------------------------
    def pre_enqueue(self, pod: Pod) -> Status | None:
        """Always admits the pod.

        Upstream (SchedulerAsyncPreemption) holds a preemptor here, "waiting for the preemption
        for this pod to be finished", while the victims' API deletions run in a goroutine. The
        simulation applies preemption synchronously inside PostFilter, so by the time the pod
        could be re-queued its victims are gone and there is nothing to wait for.
        """
        return None

    def pre_enqueue_always_admits(self, pod: Pod) -> bool:
        """PreEnqueue admits every pod (Framework.pre_enqueue_share_key)."""
        return True

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """With async preemption: AssignedPod/Delete, whose hint always skips (upstream)."""
        if self.async_preemption:
            return [ClusterEventWithHint(ClusterEvent("AssignedPod", "Delete"), lambda pod, old, new: QueueingHint.QueueSkip)]
        return []

    # --- preemption.Interface --------------------------------------------------------------
    def calculate_num_candidates(self, num_nodes: int) -> int:
        """n × percentage int/ 100, at least minCandidateNodesAbsolute, at most n."""
        n = num_nodes * self.min_candidate_nodes_percentage // 100
        n = max(n, self.min_candidate_nodes_absolute)
        return min(n, num_nodes)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        return self.offset_rand(num_nodes), self.calculate_num_candidates(num_nodes)

    def ordered_score_funcs(self, nodes_to_victims: dict[str, Candidate]) -> list[ScoreFunc] | None:
        return None  # the default criteria of pickOneNodeForPreemption

    def is_preemption_allowed(self, node_info: NodeInfo, victim: PodInfo, preemptor: Pod) -> bool:
        """Strictly lower priority than the preemptor, and IsEligiblePod agrees."""
        return victim.pod.effective_priority() < preemptor.effective_priority() and self.is_eligible_pod(node_info, victim, preemptor)

    def pod_eligible_to_preempt_others(self, pod: Pod, nominated_node_status: Status | None) -> tuple[bool, str]:
        """PodEligibleToPreemptOthers: preemptionPolicy Never, or victims still terminating."""
        if pod.preemption_policy == PREEMPT_NEVER:
            return False, ERR_PREEMPTION_POLICY_NEVER
        nominated = pod.nominated_node_name
        if nominated:
            # The nominated node cannot host the pod anyway: let it preempt elsewhere.
            if nominated_node_status is not None and nominated_node_status.code == Code.UnschedulableAndUnresolvable:
                return True, ""
            node_info = self.handle.snapshot_shared_lister().get(nominated)
            if node_info is not None:
                for p in node_info.pods:
                    if self.is_preemption_allowed(node_info, p, pod) and pod_terminating_by_preemption(p.pod):
                        return False, ERR_TERMINATING_ON_NOMINATED
        return True, ""

    def select_victims_on_node(
        self, state: CycleState, pod: Pod, node_info: NodeInfo, pdbs: Sequence[PodDisruptionBudget]
    ) -> tuple[list[Pod], int, Status]:
        """SelectVictimsOnNode: the fewest lower-priority pods whose removal lets the pod fit.

        ``state`` and ``node_info`` are copies (the dry run clones them). Two shortcuts keep
        the outcome exactly upstream's (see _DryRunPlan): AddPod/RemovePod are not run when no
        PreFilter plugin of this cycle has extensions (they would be no-ops returning
        Success), and a reprieve whose node fails NodeResourcesFit is decided without the
        other filters (the full run could not succeed: its last pass is on this very node).
        """
        fh = self.handle
        plan = self._plan(state, pod)
        run_extensions = plan.extensions

        def remove(pi: PodInfo) -> Status:
            node_info.remove_pod(pi.pod)
            if not run_extensions:
                return _SUCCESS
            return fh.run_pre_filter_extension_remove_pod(state, pod, pi, node_info)

        def add(pi: PodInfo) -> Status:
            node_info.add_pod_info(pi)
            if not run_extensions:
                return _SUCCESS
            return fh.run_pre_filter_extension_add_pod(state, pod, pi, node_info)

        potential = [pi for pi in node_info.pods if self.is_preemption_allowed(node_info, pi, pod)]
        if not run_extensions:
            node_info.remove_pod_infos(potential)  # no AddPod/RemovePod to run: one pass
        else:
            for pi in potential:
                st = remove(pi)
                if not st.is_success():
                    return [], 0, Status(Code.Error, st.message(), err=st.err)
        if not potential:
            return [], 0, Status(Code.UnschedulableAndUnresolvable, ERR_NO_VICTIMS)

        # Even without every lower-priority pod the pod does not fit: this node cannot help.
        # (Affinity of the preemptor to the victims themselves is deliberately not considered.)
        st = fh.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        if not st.is_success():
            return [], 0, st

        self._sort(potential)
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        victims: list[PodInfo] = []
        fit = plan.fit
        nominated = self._nominated_requests(pod, node_info) if fit is not None else None

        # fit_only: the reprieves need nothing of the node but its requests and pod count, so
        # they are counted here instead of adding and removing pods on the NodeInfo copy
        # (which is dropped afterwards); ``done`` can replay them onto it if Fit ever raises.
        fit_only = self._fit_only_on(plan, pod, node_info)
        usage = _Usage(node_info) if fit_only and fit is not None else None
        done: list[tuple[PodInfo, bool]] = []
        # Without AddPod/RemovePod, a reprieve that NodeResourcesFit rejects is decided on these
        # counts (_Usage, kept equal to the copy's) without adding the pod to the copy and
        # removing it again, which together leave the copy as it was: its pods, requests and
        # PVC counts (its generation too: a filter's cache of the copy stays right). Not for a
        # pod with host ports, whose removal also drops a port another pod still uses
        # (HostPortInfo is a set, upstream's too), a change the next filters would see.
        counts = _Usage(node_info) if fit is not None and usage is None and not run_extensions else None

        def reprieve(pi: PodInfo) -> tuple[bool, Status]:
            nonlocal usage, counts
            if counts is not None and not host_ports_of(pi.pod):
                counts.change(pi.requests, 1)
                verdict = _fits_with_nominated(fit, state, pod, counts, nominated)
                if verdict is False:
                    counts.change(pi.requests, -1)
                    victims.append(pi)
                    return False, _SUCCESS
                if verdict is None:
                    counts = None  # Fit raised: the full filter run below reports it
                else:
                    add(pi)  # no extensions: always Success
                    if fh.run_filter_plugins_with_nominated_pods(state, pod, node_info).is_success():
                        return True, _SUCCESS
                    remove(pi)
                    counts.change(pi.requests, -1)
                    victims.append(pi)
                    return False, _SUCCESS
            if counts is not None:  # a pod with host ports: the general steps, counts kept equal
                counts.change(pi.requests, 1)
            fits, st = reprieve_on_copy(pi)
            if counts is not None and st.is_success() and not fits:
                counts.change(pi.requests, -1)
            return fits, st

        def reprieve_on_copy(pi: PodInfo) -> tuple[bool, Status]:
            nonlocal usage
            if usage is not None:
                usage.change(pi.requests, 1)
                fits = _fits(fit, state, pod, usage)
                if fits is not False and nominated is not None:
                    with_nominated = _fits(fit, state, pod, _WithNominated(usage, *nominated))
                    fits = False if with_nominated is False else (fits and with_nominated)
                if fits is not None:
                    if not fits:
                        usage.change(pi.requests, -1)
                        victims.append(pi)
                    done.append((pi, fits))
                    return fits, _SUCCESS
                usage = None
                for qi, kept in done:  # no AddPod/RemovePod in fit_only: the NodeInfo is all
                    node_info.add_pod_info(qi)
                    if not kept:
                        node_info.remove_pod(qi.pod)
            st = add(pi)
            if not st.is_success():
                return False, st
            fits = None
            if fit is not None:
                # NodeResourcesFit on the node as each Filter pass sees it: a rejection
                # decides; with fit_only, so does a pass (the other filters passed above and
                # read nothing that changes here)
                fits = _fits(fit, state, pod, node_info)
                if fits is not False and nominated is not None:
                    with_nominated = _fits(fit, state, pod, _WithNominated(node_info, *nominated))
                    fits = False if with_nominated is False else (fits and with_nominated)
                if fits is True and not fit_only:
                    fits = None
            if fits is None:
                fits = fh.run_filter_plugins_with_nominated_pods(state, pod, node_info).is_success()
            if not fits:
                st = remove(pi)
                if not st.is_success():
                    return False, st
                victims.append(pi)
            return fits, _SUCCESS

        num_violating = 0
        for pi in violating:
            fits, st = reprieve(pi)
            if not st.is_success():
                return [], 0, Status(Code.Error, st.message(), err=st.err)
            if not fits:
                num_violating += 1
        for pi in non_violating:
            _, st = reprieve(pi)
            if not st.is_success():
                return [], 0, Status(Code.Error, st.message(), err=st.err)

        if violating and non_violating:
            self._sort(victims)
        return [pi.pod for pi in victims], num_violating, Status()

    def select_victims_without_copy(
        self, state: CycleState, pod: Pod, node_info: NodeInfo, pdbs: Sequence[PodDisruptionBudget], word_rejection: bool = True
    ) -> tuple[list[Pod], int, Status | None] | None:
        """SelectVictimsOnNode without copying the node or the cycle state, when the answer is
        plain arithmetic; None means "use select_victims_on_node on copies".

        It applies when the active Filter plugins are NodeResourcesFit and node-only ones (or
        ones that ignore the pods on this node: _fit_only_on) and no PreFilter extension runs
        (_DryRunPlan.fit_only): removing the lower-priority pods and
        adding them back one by one then changes nothing any filter reads but the node's
        requests and pod count, which are counted here (_Usage) while ``node_info`` and
        ``state`` are only read (VolumeBinding records the node's PodVolumes in the state its
        copies share, as on a copy). A node that fails even with every lower-priority pod removed
        gets the Filter's status (_unfit_without_potential); with ``word_rejection`` False the
        status is None instead ("cannot help", worded on demand by a call with True: the dry
        run needs the words only when no node can help). A filter that raises goes to the
        general path.

        Before any of that, two answers for every plan: a node without a pod below the
        preemptor's priority gets SelectVictimsOnNode's "no victims" status at once
        (no_victims_on), and, when the words are not asked for, a node that NodeResourcesFit
        rejects even without its lower-priority pods is "cannot help"
        (_fit_rejects_without_potential). Both verdicts of a count, "cannot help" and the
        victims chosen, are kept under the node's and the preemptor's key (_cannot_help_key;
        the victims also under the PDBs, _victims_for) for the next preemptor of a wave.
        """
        if self.no_victims_on(pod, node_info):
            return [], 0, Status(Code.UnschedulableAndUnresolvable, ERR_NO_VICTIMS)
        plan = self._plan(state, pod)
        fit = plan.fit
        if fit is None or node_info.node is None:
            return None
        if not plan.fit_only:
            return None if word_rejection else self._fit_rejects_without_potential(state, pod, node_info, fit)
        req = state.get(PRE_FILTER_STATE_KEY)
        counting = _counts(req)
        kept = self._cannot_help_key(pod, node_info, req) if counting and not word_rejection else None
        if kept is not None and kept in self._cannot_help:
            return [], 0, None  # as below, for this node, its nominated pods and such a pod before
        known = self._victims_for(pdbs).get(kept) if kept is not None else None
        if known is not None:
            return self._known_victims(plan, state, pod, node_info, known)
        potential, removed = self._potential_victims(pod, node_info)
        if not potential:
            return [], 0, Status(Code.UnschedulableAndUnresolvable, ERR_NO_VICTIMS)
        nominated = self._nominated_requests(pod, node_info)
        counted = _counted_victims(req, node_info, nominated, potential, removed) if counting else None
        if counting and counted is None and not word_rejection:
            # Fit rejects the node even without its lower-priority pods: it cannot help, whatever
            # the other filters read (_fit_rejects_without_potential's answer, for any plan), so
            # the nodes a wave of nominated pods fills are dropped before the per-node checks
            if kept is not None:
                if len(self._cannot_help) >= _CANNOT_HELP_KEPT:
                    self._cannot_help.clear()
                self._cannot_help.add(kept)
            return [], 0, None
        if not self._fit_only_on(plan, pod, node_info):
            if word_rejection or counted is not None:
                return None
            return self._fit_rejects_without_potential(state, pod, node_info, fit)

        def cannot_help() -> tuple[list[Pod], int, Status | None] | None:
            """Even without its lower-priority pods the node does not take the pod."""
            if not word_rejection:
                return [], 0, None
            return self._unfit_without_potential(plan, state, pod, node_info, potential, nominated)

        if counting:
            if counted is None:
                return cannot_help()
        else:
            fit_at = _FilterFit(fit, state, pod, node_info, nominated).change
            for pi in potential:
                fit_at(pi, -1)
            if fit_at(None, 0) is not True:
                return None
        passed = _node_filters_pass(plan, state, pod, node_info)
        if passed is None:
            return None
        if not passed:
            return cannot_help()

        self._sort(potential)
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        if counted is not None:
            victims, num_violating = counted(violating, non_violating)
        else:
            victims, num_violating = [], 0
            for group_violating, group in ((True, violating), (False, non_violating)):
                for pi in group:
                    fits = fit_at(pi, 1)
                    if fits is None:
                        return None
                    if not fits:
                        fit_at(pi, -1)
                        victims.append(pi)
                        num_violating += group_violating
        if violating and non_violating:
            self._sort(victims)
        chosen = [pi.pod for pi in victims]
        if kept is not None:  # counted (a key is made only for a count)
            if len(self._victims_kept) >= _CANNOT_HELP_KEPT:
                self._victims_kept.clear()
            self._victims_kept[kept] = (tuple(chosen), num_violating)
        return chosen, num_violating, Status()

    def kept_cannot_help(self, state: CycleState, pod: Pod) -> Callable[[NodeInfo], bool] | None:
        """A test, for one dry run, of the nodes select_victims_without_copy (words not asked
        for) would answer "cannot help" from a kept key: the checks it makes before that look-up
        (the plan, the count, the key's preemptor part) made once, not once a node. A node that
        has a key kept had a lower-priority pod at that generation, so no_victims_on, which
        select_victims_without_copy asks first, says False there. None when the keys do not
        apply to this pod (the dry run then asks select_victims_without_copy of every node).
        Late in a wave of preemptors most visited nodes are such nodes: the ones earlier
        preemptors filled."""
        plan = self._plan(state, pod)
        if plan.fit is None or not plan.fit_only:
            return None
        req = state.get(PRE_FILTER_STATE_KEY)
        key_of = self._node_keys(pod, req) if _counts(req) else None
        if key_of is None:
            return None
        kept = self._cannot_help

        def known(node_info: NodeInfo) -> bool:
            return node_info.node is not None and key_of(node_info) in kept

        return known

    def _known_victims(
        self, plan: "_DryRunPlan", state: CycleState, pod: Pod, node_info: NodeInfo, known: tuple[tuple[Pod, ...], int]
    ) -> tuple[list[Pod], int, Status | None] | None:
        """The answer on a node whose victims were counted before for the same key and PDBs:
        the checks of the pod that the count does not cover run again, as they would after
        counting (the plugins that may read the node's pods here; the Filters that read only
        the node, which also record what they found in the state), then the victims kept."""
        if not self._fit_only_on(plan, pod, node_info):
            return None
        passed = _node_filters_pass(plan, state, pod, node_info)
        if passed is None:
            return None
        if not passed:
            return [], 0, None
        victims, num_violating = known
        return list(victims), num_violating, Status()

    def _victims_for(self, pdbs: Sequence[PodDisruptionBudget]) -> dict[tuple[Any, ...], tuple[tuple[Pod, ...], int]]:
        """_victims_kept, emptied first when ``pdbs`` are not those it was counted with: other
        PDB objects, or the same with another disruptionsAllowed, disruptedPods or selector
        (the PDBs are held, so an object's identity is not reused while it is compared). A
        list is looked at once: the evaluator hands each dry run a list of its own, and no PDB
        changes during one dry run."""
        seen = self._victims_pdbs
        if seen is not None and seen[0] is pdbs:
            return self._victims_kept
        marks = [(pdb, pdb.disruptions_allowed, pdb.disrupted_pods, pdb.selector, pdb.meta) for pdb in pdbs]
        if seen is None or len(seen[1]) != len(marks) or any(not _same_pdb(a, b) for a, b in zip(seen[1], marks)):
            self._victims_kept.clear()
        self._victims_pdbs = (pdbs, marks)
        return self._victims_kept

    def _cannot_help_key(self, pod: Pod, node_info: NodeInfo, req: Resource) -> tuple[Any, ...] | None:
        """What _counted_victims' "cannot help" reads, as a key (None: not keyable): the node's
        content (its name and generation: allocatable, requested, pods), its nominated pods
        (the in-tree Nominator's version of the node's list, and whether the preemptor is one
        of them: the first pass leaves it out), the preemptor's priority (which pods are
        potential victims, which nominated pods count) and its cpu, memory and ephemeral
        storage requests (the only ones counted: no scalar resource is asked). Only with the
        default IsEligiblePod (a custom one may read anything). The preemptor's part is worked
        out once per (pod, requests, Nominator): a dry run asks it for every node."""
        key_of = self._node_keys(pod, req)
        return None if key_of is None else key_of(node_info)

    def _node_keys(self, pod: Pod, req: Resource) -> Callable[[NodeInfo], tuple[Any, ...]] | None:
        """_cannot_help_key's function of the node for this preemptor, kept
        for the last (pod, requests, Nominator: _keys_for); None when no key is made (a custom
        IsEligiblePod may read anything; no in-tree Nominator)."""
        if self.is_eligible_pod is not _always_eligible:
            return None
        nominator = self.handle.nominator
        part = self._key_part
        if part is None or part[0] is not pod or part[1] is not req or part[2] is not nominator:
            part = self._key_part = (pod, req, nominator, _keys_for(nominator, pod, req))
        return part[3]

    @staticmethod
    def _fit_only_on(plan: _DryRunPlan, pod: Pod, node_info: NodeInfo) -> bool:
        """Whether the plan's fit_only reading holds on this node: NodeResourcesFit is the only
        active filter whose verdict there depends on the node's pods (the plan's pod_checks each
        say they ignore them here; one that raises is taken as "not here")."""
        if not plan.fit_only:
            return False
        for pl in plan.pod_checks:
            try:
                if not pl.verdict_ignores_pods(pod, node_info):
                    return False
            except Exception:  # noqa: BLE001 - the general path runs the Filter and reports it
                return False
        return True

    def no_victims_on(self, pod: Pod, node_info: NodeInfo) -> bool:
        """Whether SelectVictimsOnNode would find no potential victim on the node, told from the
        node's lowest pod priority (NodeInfo.lowest_pod_priority, remembered per generation)
        without walking its pods: no pod below the preemptor's priority. Only with the default
        IsEligiblePod (any lower-priority pod may go); False (do not know) otherwise."""
        if self.is_eligible_pod is not _always_eligible or not self.dry_run_shortcuts:
            return False
        lowest = node_info.lowest_pod_priority()
        return lowest is None or lowest >= pod.effective_priority()

    def no_victims_anywhere(self, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """The status SelectVictimsOnNode gives every one of ``nodes`` when none of them has a
        potential victim (UnschedulableAndUnresolvable, "No preemption victims found for
        incoming pod", each node's state unchanged), so the dry run can answer at once; None
        when some node may have one (or the shortcuts are off)."""
        if self.is_eligible_pod is not _always_eligible or not self.dry_run_shortcuts:
            return None
        priority = pod.effective_priority()
        lowest = self._lowest_priority_on(nodes)
        if lowest is not None and lowest < priority:
            return None
        return Status(Code.UnschedulableAndUnresolvable, ERR_NO_VICTIMS)

    def _lowest_priority_on(self, nodes: Sequence[NodeInfo]) -> int | None:
        """The lowest priority of any pod on ``nodes`` (None: no pod). For the whole node list
        of a Cache-kept snapshot it is kept until the snapshot's generation moves (its
        NodeInfos are replaced, never edited, so the list's content has not changed): every
        pod that fits nowhere asks it again, over every node."""
        handle = getattr(self, "handle", None)
        snapshot = handle.snapshot_shared_lister() if handle is not None else None
        whole = getattr(snapshot, "tracks_rows", False) and nodes is getattr(snapshot, "node_info_list", None)
        key = (snapshot, getattr(snapshot, "generation", None), len(nodes)) if whole else None
        kept: tuple[Any, Any, int, int | None] | None = getattr(self, "_lowest_kept", None)
        if key is not None and kept is not None and kept[0] is key[0] and kept[1:3] == key[1:]:
            return kept[3]
        lowest: int | None = None
        for node_info in nodes:
            p = node_info.lowest_pod_priority()
            if p is not None and (lowest is None or p < lowest):
                lowest = p
        if key is not None:
            self._lowest_kept = (*key, lowest)
        return lowest

    def _fit_rejects_without_potential(
        self, state: CycleState, pod: Pod, node_info: NodeInfo, fit: Any
    ) -> tuple[list[Pod], int, Status | None] | None:
        """([], 0, None), "cannot help, not worded", when NodeResourcesFit alone rejects the node
        with every lower-priority pod removed, in either pass of the Filter with nominated pods
        (the node with them, then as it is); None (the general path) otherwise.

        For any plan: Fit's verdict reads only the pod's PreFilter request (which no AddPod or
        RemovePod extension touches) and the node's allocatable, requested and pod count, so
        when it rejects, RunFilterPluginsWithNominatedPods on the copy cannot succeed, and
        neither can anything run before it (a RemovePod or AddPod error): the node is no
        candidate. Which plugin rejects first, and how, matters only for the words, which the
        dry run asks for (word_rejection) only when no node can help."""
        potential, removed = self._potential_victims(pod, node_info)
        if not potential:
            return None
        nominated = self._nominated_requests(pod, node_info)
        req = state.get(PRE_FILTER_STATE_KEY)
        if isinstance(req, Resource) and not any(req.scalar_resources.values()):
            # Fit's verdict as integer arithmetic (_counted_victims): None when it rejects
            return ([], 0, None) if _counted_victims(req, node_info, nominated, potential, removed) is None else None
        usage = _Usage(node_info)
        for pi in potential:
            usage.change(pi.requests, -1)
        fits = _fits_with_nominated(fit, state, pod, usage, nominated)
        return ([], 0, None) if fits is False else None

    def _unfit_without_potential(
        self,
        plan: _DryRunPlan,
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        potential: Sequence[PodInfo],
        nominated: tuple[Resource, int] | None,
    ) -> tuple[list[Pod], int, Status] | None:
        """SelectVictimsOnNode's answer for a node where the pod does not fit even with every
        lower-priority pod removed, without the copies: the status of the Filter with nominated
        pods on that node, worded as run_filter_plugins words it (the first rejecting plugin in
        the profile's order, tagged with its name). Only for a fit_only plan: the node-only
        filters see the node as it is and Fit sees the requests and pod count that remain (plus
        the nominated pods in the first pass). None (the general path) if a filter raises or
        errs, or if nothing rejects after all."""
        usage = _Usage(node_info)
        for pi in potential:
            usage.change(pi.requests, -1)
        views: list[Any] = [usage] if nominated is None else [_WithNominated(usage, *nominated), usage]
        for view in views:
            for name, pl in plan.filters:
                try:
                    st = pl.filter(state, pod, view if pl is plan.fit else node_info)
                except Exception:  # noqa: BLE001 - the general path reports it
                    return None
                if st is None or st.code == Code.Success:
                    continue
                if not st.is_rejected():
                    return None
                st.plugin = name
                return [], 0, st
        return None

    def _potential_victims(self, pod: Pod, node_info: NodeInfo) -> tuple[list[PodInfo], tuple[int, int, int] | None]:
        """The node's pods that may be preempted (is_preemption_allowed), in the node's order (a
        new list the caller may sort), and their summed (cpu, memory, ephemeral storage)
        requests when they are kept (None: _counted_victims sums them). With the default
        IsEligiblePod, the pods below the preemptor's priority, remembered with their sums per
        node for its generation and that priority (the dry runs of one wave of preemptors ask
        the same nodes over and over)."""
        if self.is_eligible_pod is not _always_eligible:
            return [pi for pi in node_info.pods if self.is_preemption_allowed(node_info, pi, pod)], None
        priority = pod.effective_priority()
        key = (node_info.generation, node_info.num_pods, priority)
        name = node_info.name
        cached = self._potential_cache.get(name)
        if cached is not None and cached[0] is node_info and cached[1] == key:
            return list(cached[2]), cached[3]
        potential = [pi for pi in node_info.pods if pi.priority < priority]
        sums = summed_requests(potential)
        self._potential_cache[name] = (node_info, key, potential, sums)
        return list(potential), sums

    def _nominated_requests(self, pod: Pod, node_info: NodeInfo) -> tuple[Resource, int] | None:
        """The summed requests and count of the nominated pods the Filter's first pass would add
        to this node (runtime._add_nominated_pods: priority >= the pod's, not the pod itself);
        None when that pass would not run. They stay fixed for the whole dry run."""
        nominator = self.handle.nominator
        if nominator is None or node_info.node is None:
            return None
        by_node = getattr(nominator, "nominated_pods", None)
        if isinstance(by_node, dict):  # the in-tree Nominator: read, not copied (most nodes have none)
            infos = by_node.get(node_info.node.meta.name)
        else:
            infos = nominator.nominated_pods_for_node(node_info.name)
        if not infos:
            return None
        priority = pod.effective_priority()
        total = Resource()
        count = 0
        for pi in infos:
            if pi.priority >= priority and pi.pod.uid != pod.uid:
                _add_requests(total, pi.requests)
                count += 1
        return (total, count) if count else None

    def _sort(self, infos: list[PodInfo]) -> None:
        """sort_by_importance; with the default MoreImportantPod as a key sort (priority
        descending, start time ascending), which orders exactly as the comparison (both are
        stable and the comparison is that key's order)."""
        if self.more_important_pod is more_important_pod:
            infos.sort(key=_importance_key)
        else:
            sort_by_importance(infos, lambda pi: pi.pod, self.more_important_pod)

    def _plan(self, state: CycleState, pod: Pod) -> "_DryRunPlan":
        """What every node of one dry run shares (same pod, same skipped plugins): computed
        once per PostFilter call rather than once per candidate node."""
        fh = self.handle
        skip = state.skip_filter_plugins
        cached = self._plan_cache
        if not self.dry_run_shortcuts:
            return _DryRunPlan(True, None)
        if cached is not None and cached[0] is pod and cached[1] is fh and cached[2] == skip:
            return cached[3]
        extensions = fh.has_pre_filter_extensions(state)
        fit = None
        filters = fh.plugins("filter")
        if names.NodeResourcesFit not in skip:
            # the in-tree class only: its Filter reads nothing of a node but allocatable,
            # requested and the pod count, which _WithNominated relies on
            fit = next((pl for name, pl in filters if name == names.NodeResourcesFit and type(pl) is NodeResourcesFit), None)
        fit_only = False
        node_filters: tuple[Any, ...] = ()
        named: tuple[tuple[str, Any], ...] = ()
        pod_checks: tuple[Any, ...] = ()
        if fit is not None and not extensions:
            active = [(name, pl) for name, pl in filters if name not in skip]
            fit_only = all(pl is fit or type(pl) in _NODE_ONLY_FILTERS or type(pl) in _POD_BLIND_ON_SOME_NODES for _, pl in active)
            if fit_only:
                node_filters = tuple(pl for _, pl in active if pl is not fit)
                named = tuple(active)
                pod_checks = tuple(pl for _, pl in active if type(pl) in _POD_BLIND_ON_SOME_NODES)
        plan = _DryRunPlan(extensions, fit, fit_only, node_filters, named, pod_checks)
        self._plan_cache = (pod, fh, set(skip), plan)
        return plan


def pod_terminating_by_preemption(pod: Pod) -> bool:
    """Being deleted, and its first DisruptionTarget condition is True/PreemptionByScheduler."""
    if pod.meta.deletion_timestamp is None:
        return False
    for cond in pod.conditions:
        if cond.get("type") == DISRUPTION_TARGET:
            return cond.get("status") == "True" and cond.get("reason") == REASON_PREEMPTION_BY_SCHEDULER
    return False


# --- args (apis/config/v1/defaults.go, validation/validation_pluginargs.go) ----------------
