"""Shared builders for the PodTopologySpread tests (upstream's fooSelector, barSelector, ...)."""

from __future__ import annotations

from typing import Any

from kschedctl.testing import make_node, make_pod, new_framework, only_plugins

# A profile with only PodTopologySpread (plus the mandatory queue sort and binder), so the
# tests do not depend on other plugins being implemented.
CONFIG = only_plugins("PodTopologySpread")


def exists(key: str) -> dict:
    return {"matchExpressions": [{"key": key, "operator": "Exists"}]}


FOO = exists("foo")
BAR = exists("bar")
TAINTS = [("node.kubernetes.io/unschedulable", "", "NoSchedule")]  # upstream's `taints`


def node(name: str, labels: dict[str, str], taints: list | None = None) -> Any:
    """A node with exactly these labels (no automatic hostname label), like st.MakeNode()."""
    b = make_node(name).set("metadata.labels", dict(labels))
    for key, value, effect in taints or ():
        b.taint(key, value, effect)
    return b.obj()


def pod(name: str, node_name: str = "", labels: dict[str, str] | None = None, ns: str = "default", terminating: bool = False) -> Any:
    b = make_pod(name, ns).labels(labels or {})
    if node_name:
        b.node(node_name)
    if terminating:
        b.terminating()
    return b.obj()


def plugin_for(nodes: list, pods: list, args: dict | None = None, objects: Any = None, version: Any = None) -> Any:
    """(plugin, framework) over a snapshot of these nodes and pods."""
    fwk = new_framework(_with_plugin_config(args) if args is not None else CONFIG, nodes=nodes, pods=pods, objects=objects, version=version)
    return fwk.instances["PodTopologySpread"], fwk


def _with_plugin_config(args: dict) -> str:
    import yaml

    doc = yaml.safe_load(CONFIG)
    doc["profiles"][0]["pluginConfig"] = [{"name": "PodTopologySpread", "args": dict(args)}]
    return yaml.safe_dump(doc)
