"""Shared helpers for the InterPodAffinity tests (upstream interpodaffinity/*_test.go fixtures)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kschedctl.api.objects import ClusterObjects
from kschedctl.api.types import Namespace, Node, Pod
from kschedctl.plugins.inter_pod_affinity import InterPodAffinity
from kschedctl.testing import make_node, make_pod, new_framework

# scoring_test.go `namespaces`: two teams, two sub-teams each.
TEAM_NAMESPACES = {
    "subteam1.team1": {"team": "team1"},
    "subteam2.team1": {"team": "team1"},
    "subteam1.team2": {"team": "team2"},
    "subteam2.team2": {"team": "team2"},
}


def node(name: str, labels: dict[str, str]) -> Node:
    """A node with exactly these labels (upstream test nodes carry no hostname label)."""
    return make_node(name).set("metadata.labels", dict(labels)).obj()


def pods_named(builders: Iterable[Any], prefix: str = "p") -> list[Pod]:
    """Objects from builders, renamed p0, p1, ... so that uids differ (upstream pods are unnamed)."""
    out = []
    for i, b in enumerate(builders):
        b.raw["metadata"]["name"] = f"{prefix}{i}"
        b.raw["metadata"]["uid"] = f"{b.raw['metadata'].get('namespace', 'default')}-{prefix}{i}-uid"
        out.append(b.obj())
    return out


def term(
    key: str,
    op: str,
    values: list[str] | None = None,
    topology_key: str = "",
    *,
    namespaces: list[str] | None = None,
    ns_selector: dict | None = None,
) -> dict:
    expr: dict[str, Any] = {"key": key, "operator": op}
    if values is not None:
        expr["values"] = values
    t: dict[str, Any] = {"labelSelector": {"matchExpressions": [expr]}, "topologyKey": topology_key}
    if namespaces is not None:
        t["namespaces"] = namespaces
    if ns_selector is not None:
        t["namespaceSelector"] = ns_selector
    return t


def multi_term(exprs: list[dict], topology_key: str) -> dict:
    return {"labelSelector": {"matchExpressions": exprs}, "topologyKey": topology_key}


TEAM1_SELECTOR = {"matchExpressions": [{"key": "team", "operator": "In", "values": ["team1"]}]}


def objects_with(namespaces: dict[str, dict[str, str]] | None) -> ClusterObjects:
    objects = ClusterObjects()
    for name, labels in (namespaces or {}).items():
        objects.namespaces[name] = Namespace.from_dict(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}
        )
    return objects


def new_plugin(
    nodes: list[Node], pods: list[Pod], args: dict | None = None, namespaces: dict[str, dict[str, str]] | None = None
) -> tuple[InterPodAffinity, Any]:
    """The plugin over a real Snapshot and ClusterObjects (what a Framework hands it)."""
    fwk = new_framework(nodes=nodes, pods=pods, objects=objects_with(namespaces))
    return InterPodAffinity(args, fwk.handle), fwk.snapshot


__all__ = ["TEAM1_SELECTOR", "TEAM_NAMESPACES", "make_pod", "multi_term", "new_plugin", "node", "pods_named", "term"]
