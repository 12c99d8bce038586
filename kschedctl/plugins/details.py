"""The facts behind a Filter rejection, for `explain` (``nodes[NODE].details`` in -o json).

kube's Filter statuses say *that* a node was rejected ("node(s) had untolerated taint(s)");
these say *why*: the taint, the label the selector wanted and the node's value, the pod's
request against the node's allocatable and what is already requested there, the domain counts
of a topology spread constraint, the pods behind an anti-affinity rejection, the pod holding a
host port. Each in its plugin's package, as ``kschedctl.plugins.<package>.details``.

They are never on the Filter path: `explain`'s recorder calls them only for the (node, plugin)
pairs that were rejected, after the filters ran, with the CycleState the attempt's PreFilter
left. They read the plugin's own args (through the instance) and never write anything. A plugin
without a details function (an installed plugin may define ``filter_details`` with the same
signature) simply has none; a details function that fails leaves the node without details.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.types import NodeInfo

# (the plugin instance, the attempt's CycleState, the pod, the node) -> facts with a "summary"
DetailsFn = Callable[[Any, CycleState, Pod, NodeInfo], "dict[str, Any] | None"]

# plugin name -> the package (under kschedctl.plugins) whose details module holds its ``filter_details``
MODULES = {
    "TaintToleration": "taint_toleration",
    "NodeAffinity": "node_affinity",
    "NodeResourcesFit": "node_resources",
    "PodTopologySpread": "pod_topology_spread",
    "InterPodAffinity": "inter_pod_affinity",
    "NodePorts": "node_ports",
    "NodeName": "node_name",
    "NodeUnschedulable": "node_unschedulable",
    "VolumeZone": "volume_zone",
    "NodeVolumeLimits": "node_volume_limits",
    "VolumeBinding": "volume_binding",
    "VolumeRestrictions": "volume_restrictions",
}


def details_fn(name: str, plugin: Any) -> DetailsFn | None:
    """The details function of a plugin: the in-tree module's, else the plugin's own
    ``filter_details`` method, else None."""
    module = MODULES.get(name)
    if module is not None:
        fn: DetailsFn = importlib.import_module(f"kschedctl.plugins.{module}.details").filter_details
        return fn
    own = getattr(plugin, "filter_details", None)
    if callable(own):
        return lambda _pl, state, pod, info: own(state, pod, info)
    return None


def filter_details(name: str, plugin: Any, state: CycleState, pod: Pod, info: NodeInfo) -> dict[str, Any] | None:
    """The facts behind plugin ``name``'s rejection of ``info``, or None (no details function,
    or it failed: an explanation never fails the command)."""
    fn = details_fn(name, plugin)
    if fn is None or plugin is None:
        return None
    try:
        return fn(plugin, state, pod, info)
    except Exception:  # noqa: BLE001 - explanatory only: kube's status is shown either way
        return None


def format_quantity(resource: str, value: int) -> str:
    """A scheduler-unit amount as a person reads it: cpu in cores or millicores ("6", "500m"),
    memory and storage in binary units when exact ("16Gi"), anything else as a count."""
    if resource == "cpu":
        return str(value // 1000) if value % 1000 == 0 else f"{value}m"
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        for suffix, size in (("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
            if value and value % size == 0:
                return f"{value // size}{suffix}"
        return str(value)
    return str(value)


__all__ = ["MODULES", "DetailsFn", "details_fn", "filter_details", "format_quantity"]
