"""What PodTopologySpread's Filter and Score share: the parsed constraint, how a pod's
constraints (or the default ones) are built, and which pods and nodes are counted.

Upstream: pkg/scheduler/framework/plugins/podtopologyspread/common.go and
pkg/scheduler/framework/plugins/helper/spread.go (DefaultSelector, GetPodServices).

Selectors are ``LabelSelector | None`` as in ``kschedctl.api.labels``: ``None`` is
``labels.Nothing()`` (a nil labelSelector matches no pod) and an empty LabelSelector is
``labels.Everything()``; counting skips an empty selector altogether (countPodsMatchSelector).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kschedctl.api.errors import ObjectError
from kschedctl.api.labels import (
    LabelSelector,
    LabelSelectorRequirement,
    selector_matches,
)
from kschedctl.api.types import (
    TAINT_EFFECT_NO_EXECUTE,
    TAINT_EFFECT_NO_SCHEDULE,
    Node,
    Pod,
    TopologySpreadConstraint,
    find_matching_untolerated_taint,
)
from kschedctl.framework.types import NodeInfo, PodInfo

try:  # written in parallel by the NodeAffinity plugin; fall back to the plain match below
    from kschedctl.plugins.node_affinity.selector import (
        RequiredNodeAffinity as _RequiredNodeAffinity,
    )
except ImportError:  # pragma: no cover
    _RequiredNodeAffinity = None  # type: ignore[assignment,misc]
_REQUIRED_CACHE_KEY = "PodTopologySpread.required_node_affinity"

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HONOR = "Honor"
IGNORE = "Ignore"
MAX_INT32 = 2**31 - 1

# plugin.go systemDefaultConstraints: soft, so they only ever shape scoring.
SYSTEM_DEFAULT_CONSTRAINTS: tuple[TopologySpreadConstraint, ...] = (
    TopologySpreadConstraint(max_skew=3, topology_key=LABEL_HOSTNAME, when_unsatisfiable=SCHEDULE_ANYWAY, label_selector=None),
    TopologySpreadConstraint(max_skew=5, topology_key=LABEL_TOPOLOGY_ZONE, when_unsatisfiable=SCHEDULE_ANYWAY, label_selector=None),
)


@dataclass(frozen=True, slots=True)
class Constraint:
    """topologySpreadConstraint: a v1 constraint with its selector resolved and defaults applied."""

    max_skew: int
    topology_key: str
    selector: LabelSelector | None  # None: labels.Nothing()
    min_domains: int = 1
    node_affinity_policy: str = HONOR
    node_taints_policy: str = IGNORE

    def matches(self, labels: Mapping[str, str]) -> bool:
        return selector_matches(self.selector, labels)

    def match_node_inclusion_policies(self, pod: Pod, node: Node) -> bool:
        """matchNodeInclusionPolicies: Honor means the node must pass the pod's required
        node affinity / tolerate the node's NoSchedule and NoExecute taints to be counted."""
        if self.node_affinity_policy == HONOR and not pod_matches_node_selector_and_affinity(pod, node):
            return False
        if self.node_taints_policy == HONOR:
            taint = find_matching_untolerated_taint(node.taints, pod.tolerations, (TAINT_EFFECT_NO_SCHEDULE, TAINT_EFFECT_NO_EXECUTE))
            if taint is not None:
                return False
        return True


def pod_matches_node_selector_and_affinity(pod: Pod, node: Node) -> bool:
    """nodeaffinity.GetRequiredNodeAffinity(pod).Match(node): spec.nodeSelector (every key
    present with that value) AND the required node affinity terms (ORed), when set.

    NodeAffinity's RequiredNodeAffinity is used when available (it drops terms that fail to
    parse, as the lazy-error selector upstream does); it is built once per pod.
    """
    if _RequiredNodeAffinity is not None:
        required = pod.cache.get(_REQUIRED_CACHE_KEY)
        if required is None:
            required = _RequiredNodeAffinity(pod)
            pod.cache[_REQUIRED_CACHE_KEY] = required
        if not required.node_selector and required.required is None:
            return True  # nothing required: every node matches (the per-node call would agree)
        return bool(required.matches(node))
    labels = node.labels
    for key, value in pod.node_selector.items():
        if labels.get(key) != value:
            return False
    aff = pod.affinity.node_affinity if pod.affinity is not None else None
    if aff is not None and aff.required is not None:
        return aff.required.matches(node.name, labels)
    return True


def node_labels_match_spread_constraints(labels: Mapping[str, str], constraints: Sequence[Constraint]) -> bool:
    """nodeLabelsMatchSpreadConstraints: the node has every constraint's topology key."""
    return all(c.topology_key in labels for c in constraints)


def merge_match_label_keys(
    selector: LabelSelector | None, match_label_keys: Iterable[str], pod_labels: Mapping[str, str]
) -> LabelSelector | None:
    """mergeLabelSetWithSelector: `key In (pod's value)` for each matchLabelKeys key the pod has.

    A nil selector (Nothing) stays Nothing. A requirement the API server already merged into the
    labelSelector (MatchLabelKeysInPodTopologySpreadSelectorMerge) is not added a second time, so
    the keys are merged exactly once whichever side did it.
    """
    if selector is None:
        return None
    extra: list[LabelSelectorRequirement] = []
    present = set(selector.match_labels)
    for key in match_label_keys:
        if key not in pod_labels:
            continue
        value = pod_labels[key]
        req = LabelSelectorRequirement(key, "In", (value,))
        if (key, value) in present or req in selector.match_expressions or req in extra:
            continue
        extra.append(req)
    return selector.with_requirements(extra) if extra else selector


def filter_constraints(
    constraints: Iterable[TopologySpreadConstraint], pod_labels: Mapping[str, str], action: str, match_label_keys_enabled: bool
) -> list[Constraint]:
    """filterTopologySpreadConstraints: the constraints of one whenUnsatisfiable action, parsed.

    minDomains defaults to 1, nodeAffinityPolicy to Honor, nodeTaintsPolicy to Ignore
    (NodeInclusionPolicyInPodTopologySpread is GA and always on in the emulated releases).
    """
    out: list[Constraint] = []
    for c in constraints:
        if c.when_unsatisfiable != action:
            continue
        selector = c.label_selector
        if match_label_keys_enabled and c.match_label_keys:
            selector = merge_match_label_keys(selector, c.match_label_keys, pod_labels)
        out.append(
            Constraint(
                max_skew=c.max_skew,
                topology_key=c.topology_key,
                selector=selector,
                min_domains=c.min_domains if c.min_domains is not None else 1,
                node_affinity_policy=c.node_affinity_policy or HONOR,
                node_taints_policy=c.node_taints_policy or IGNORE,
            )
        )
    return out


def count_pods_match_selector(pod_infos: Iterable[PodInfo], selector: LabelSelector | None, namespace: str) -> int:
    """countPodsMatchSelector: pods of the namespace, not terminating, matching the selector.
    An empty selector counts nothing (selector.Empty()), a nil one matches nothing."""
    if selector is None or selector.is_empty():
        return 0
    count = 0
    for info in pod_infos:
        p = info.pod
        if p.meta.deletion_timestamp is not None or p.namespace != namespace:
            continue
        if selector.matches(p.labels):
            count += 1
    return count


def pod_labels_match_spread_constraints(constraints: Sequence[Constraint], labels: Mapping[str, str]) -> bool:
    return any(c.matches(labels) for c in constraints)


# --- default constraints (helper/spread.go) ---------------------------------------------------

_OWNER_KINDS = {("v1", "ReplicationController"): "rc", ("apps/v1", "ReplicaSet"): "rs", ("apps/v1", "StatefulSet"): "ss"}


def _controller_of(pod: Pod) -> dict[str, Any] | None:
    """metav1.GetControllerOfNoCopy: the owner reference with controller: true."""
    for ref in pod.meta.owner_references:
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def _find(objects: Iterable[Any], namespace: str, name: str) -> Any:
    for obj in objects:
        if obj.namespace == namespace and obj.name == name:
            return obj
    return None


def _spec_selector(obj: Any) -> Any:
    spec = obj.raw.get("spec") if isinstance(obj.raw, dict) else None
    return spec.get("selector") if isinstance(spec, dict) else None


def default_selector(pod: Pod, objects: Any) -> LabelSelector:
    """helper.DefaultSelector: the Services selecting the pod (in its namespace) merged into one
    label set, plus the selector of the pod's controller when it is a ReplicationController,
    ReplicaSet or StatefulSet that exists. The result may be empty (no constraints then)."""
    label_set: dict[str, str] = {}
    for svc in getattr(objects, "services", ()) or ():
        if svc.namespace != pod.namespace:
            continue
        sel = _spec_selector(svc)
        if not isinstance(sel, dict):  # services with nil selectors match nothing
            continue
        sel = {str(k): "" if v is None else str(v) for k, v in sel.items()}
        if all(pod.labels.get(k) == v for k, v in sel.items()):
            label_set.update(sel)
    extra: tuple[LabelSelectorRequirement, ...] = ()
    owner = _controller_of(pod)
    kind = _OWNER_KINDS.get((str(owner.get("apiVersion", "")), str(owner.get("kind", "")))) if owner else None
    if owner is not None and kind is not None:
        name = str(owner.get("name", ""))
        if kind == "rc":
            rc = _find(getattr(objects, "replication_controllers", ()) or (), pod.namespace, name)
            sel = _spec_selector(rc) if rc is not None else None
            if isinstance(sel, dict):
                label_set.update({str(k): "" if v is None else str(v) for k, v in sel.items()})
        else:
            pool = getattr(objects, "replica_sets" if kind == "rs" else "stateful_sets", ()) or ()
            owner_obj = _find(pool, pod.namespace, name)
            if owner_obj is not None:
                try:
                    parsed = LabelSelector.from_dict(_spec_selector(owner_obj), "spec.selector")
                except ObjectError:
                    parsed = None  # LabelSelectorAsSelector failed: ignored
                if parsed is not None:  # nil selector: Nothing, which has no requirements to add
                    extra = tuple(LabelSelectorRequirement(k, "In", (v,)) for k, v in parsed.match_labels)
                    extra += parsed.match_expressions
    return LabelSelector(tuple(label_set.items()), extra)


def build_default_constraints(
    pod: Pod, defaults: Sequence[TopologySpreadConstraint], objects: Any, action: str, match_label_keys_enabled: bool
) -> list[Constraint]:
    """buildDefaultConstraints: the defaults of this action, all with the pod's derived selector;
    none at all when that selector is empty. Both questions are asked before a Constraint is
    built: a pod no Service or controller selects (most pods of a cycle, every cycle) builds
    none."""
    if not any(c.when_unsatisfiable == action for c in defaults):
        return []
    selector = default_selector(pod, objects)
    if selector.is_empty():
        return []
    constraints = filter_constraints(defaults, pod.labels, action, match_label_keys_enabled)
    return [
        Constraint(c.max_skew, c.topology_key, selector, c.min_domains, c.node_affinity_policy, c.node_taints_policy) for c in constraints
    ]


# count_pods_match_selector per (selector, namespace) and NodeInfo generation. A generation is
# drawn from a global counter at every change of a NodeInfo (set_node, add/remove pod) and is
# copied by clone(), so it names one content of a node's pod list: the nodes a cycle did not
# change reuse the counts of the previous cycles instead of matching all their pods again.
_COUNT_MEMO: dict[tuple[Any, ...], dict[int, int]] = {}
_COUNT_MEMO_SELECTORS = 256
_COUNT_MEMO_NODES = 1 << 17


def count_node_pods_match_selector(node_info: NodeInfo, selector: LabelSelector | None, namespace: str) -> int:
    """count_pods_match_selector(node_info.pods, selector, namespace), memoised by generation."""
    if selector is None or selector.is_empty():
        return 0
    gen = node_info.generation
    if not gen:
        return count_pods_match_selector(node_info.pods, selector, namespace)
    key = (selector, namespace)
    memo = _COUNT_MEMO.get(key)
    if memo is None:
        if len(_COUNT_MEMO) >= _COUNT_MEMO_SELECTORS:
            _COUNT_MEMO.clear()
        memo = _COUNT_MEMO[key] = {}
    count = memo.get(gen)
    if count is None:
        if len(memo) >= _COUNT_MEMO_NODES:
            memo.clear()
        count = memo[gen] = count_pods_match_selector(node_info.pods, selector, namespace)
    return count
