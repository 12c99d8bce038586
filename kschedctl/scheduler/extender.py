"""HTTP scheduler extenders, called as kube-scheduler calls them.

Upstream: pkg/scheduler/extender.go (HTTPExtender: Filter, Prioritize, ProcessPreemption, Bind,
IsInterested, send), scheduler.go buildExtenders (ignorable extenders last; the managed
resources ``ignoredByScheduler`` become NodeResourcesFit's ignoredResources), schedule_one.go
(findNodesThatPassExtenders, prioritizeNodes, extendersBinding) and
framework/preemption/preemption.go (callExtenders); the wire types are
k8s.io/kube-scheduler/extender/v1 (no JSON tags: Go's field names, decoded case-insensitively).

An extender's call is a POST of JSON to ``urlPrefix/verb`` within the configured timeout (5 s by
default; one deadline for the whole call, redirects and body included) over plain HTTP or TLS
(``tlsConfig``, made into one SSL context per extender when the run starts:
kschedctl/scheduler/extender_tls.py; the wire: kschedctl/scheduler/extender_http.py). A failing
call is an ``ExtenderError`` worded as Go's http client and json decoder word it (``Post "URL":
dial tcp ...: connect: connection refused``); the callers decide, as upstream does, whether it
fails the attempt or is skipped (``ignorable``). The answer is decoded as strictly as every
JSON input (kschedctl.api.json_decoding: no NaN, bounded nesting), then read as Go's
encoding/json reads the extender types (kschedctl/scheduler/extender_json.py). A password in
``urlPrefix`` is sent as Basic credentials, as Go does, and shown nowhere (``***``): not in
errors, warnings or the extender's name in explain.

The calls are deterministic given the server's answers: extenders are called one after the other
in configuration order (upstream prioritizes them concurrently; the sum is the same), and maps
the server returns are read in the order of the nodes that were sent.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from kschedctl.api.errors import InputError, ObjectError
from kschedctl.api.types import Node, Pod
from kschedctl.framework.extender import EXTENDER_NAME, MAX_EXTENDER_PRIORITY, Extender, Victims
from kschedctl.framework.gosemantics import go_quote, parse_duration
from kschedctl.framework.interface import MAX_NODE_SCORE, Code, Status
from kschedctl.framework.types import NodeInfo
from kschedctl.scheduler.extender_http import ExtenderError, HTTPClient, Response, display_url, url_secrets
from kschedctl.scheduler.extender_json import MISSING, decode, failed_map, get, go_array, go_int64, go_object, go_string
from kschedctl.scheduler.extender_tls import TLSConfigError, new_ssl_context, wants_tls_config

DEFAULT_EXTENDER_TIMEOUT = 5.0  # DefaultExtenderTimeout

# --- configuration ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ManagedResource:
    """One managedResources entry of an extender (config.ExtenderManagedResource): the resource, and whether
    NodeResourcesFit ignores it (ignoredByScheduler)."""

    name: str
    ignored_by_scheduler: bool = False


@dataclass(frozen=True)
class ExtenderConfig:
    """One entry of KubeSchedulerConfiguration ``extenders`` (config/v1 Extender), validated
    before (schema, validateExtenders)."""

    url_prefix: str
    filter_verb: str = ""
    preempt_verb: str = ""
    prioritize_verb: str = ""
    bind_verb: str = ""
    weight: int = 0
    enable_https: bool = False
    tls: dict[str, Any] | None = None
    http_timeout: float = 0.0  # seconds; 0: DefaultExtenderTimeout
    node_cache_capable: bool = False
    managed_resources: tuple[ManagedResource, ...] = ()
    ignorable: bool = False

    @staticmethod
    def from_dict(raw: dict[str, Any]) -> "ExtenderConfig":
        timeout = raw.get("httpTimeout")
        return ExtenderConfig(
            url_prefix=str(raw.get("urlPrefix") or ""),
            filter_verb=str(raw.get("filterVerb") or ""),
            preempt_verb=str(raw.get("preemptVerb") or ""),
            prioritize_verb=str(raw.get("prioritizeVerb") or ""),
            bind_verb=str(raw.get("bindVerb") or ""),
            weight=int(raw.get("weight") or 0),
            enable_https=bool(raw.get("enableHTTPS")),
            tls=dict(raw["tlsConfig"]) if isinstance(raw.get("tlsConfig"), dict) else None,
            http_timeout=parse_duration(timeout) if isinstance(timeout, str) and timeout else 0.0,
            node_cache_capable=bool(raw.get("nodeCacheCapable")),
            managed_resources=tuple(
                ManagedResource(str(r.get("name", "")), bool(r.get("ignoredByScheduler")))
                for r in raw.get("managedResources") or []
                if isinstance(r, dict)
            ),
            ignorable=bool(raw.get("ignorable")),
        )


def build_extenders(
    raw_extenders: Sequence[dict[str, Any]],
    warn: Callable[[str], None] | None = None,
    post: "Callable[..., tuple[int, bytes]] | None" = None,
    source: str | None = None,
) -> tuple[list["HTTPExtender"], list[str]]:
    """buildExtenders: the extenders, ignorable ones placed last, and the managed resources the
    scheduler is to ignore (NodeResourcesFit's ignoredResources in every profile). ``warn``
    hears of failed calls that were skipped. A tlsConfig that cannot be loaded stops the run
    here, as NewHTTPExtender stops kube-scheduler (InputError naming ``source``, the field)."""
    required: list[HTTPExtender] = []
    ignorable: list[HTTPExtender] = []
    ignored: list[str] = []
    for i, raw in enumerate(raw_extenders):
        cfg = ExtenderConfig.from_dict(raw)
        try:
            extender = HTTPExtender(cfg, post, warn)
        except TLSConfigError as exc:
            raise InputError(
                exc.message, file=source, obj="KubeSchedulerConfiguration", field=f"extenders[{i}].tlsConfig.{exc.field}"
            ) from None
        (ignorable if cfg.ignorable else required).append(extender)
        ignored += [r.name for r in cfg.managed_resources if r.ignored_by_scheduler]
    return required + ignorable, ignored


# --- the extender -------------------------------------------------------------------------------

F = TypeVar("F", bound=Callable[..., Any])


def _scrubbed(method: F) -> F:
    """The method's ExtenderError with the URL's secrets replaced: whatever builds the text (an
    extender may even echo the credentials it was sent in its Error field), none is shown."""

    @functools.wraps(method)
    def call(self: "HTTPExtender", *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except ExtenderError as err:
            text = str(err)
            for secret in self._secrets:
                text = text.replace(secret, "***")
            if text == str(err):
                raise
            raise ExtenderError(text) from None

    return call  # type: ignore[return-value]


class HTTPExtender:
    """HTTPExtender: one configured extender. ``post(url, body, timeout, tls) -> (status, body)``
    replaces the transport in tests; the default is an HTTPClient holding the extender's TLS
    context, built here once (TLSConfigError when the tlsConfig cannot be loaded)."""

    def __init__(
        self, config: ExtenderConfig, post: "Callable[..., tuple[int, bytes]] | None" = None, warn: Callable[[str], None] | None = None
    ) -> None:
        self.config = config
        self.timeout = config.http_timeout or DEFAULT_EXTENDER_TIMEOUT
        self.managed = {r.name for r in config.managed_resources}
        self._post = post
        self._warn = warn
        self._secrets = url_secrets(config.url_prefix)
        self._client: HTTPClient | None = None
        if post is None:
            tls = config.tls or {}
            context = new_ssl_context(tls, config.enable_https) if wants_tls_config(tls, config.enable_https) else None
            self._client = HTTPClient(context, str(tls.get("serverName") or ""))

    def skipped(self, call: str, err: Exception) -> None:
        """A failed call that did not fail the attempt: said once (kube logs it)."""
        if self._warn is not None:
            what = "ignorable extender skipped" if call != "prioritize" else "no score given by it"
            self._warn(f"extender {self.name}: {call} failed ({what}): {err}")

    # Name returns extenderURL to identify the extender (its password, if any, as ***).
    @property
    def name(self) -> str:
        return display_url(self.config.url_prefix)

    def is_ignorable(self) -> bool:
        return self.config.ignorable

    def supports_preemption(self) -> bool:
        return bool(self.config.preempt_verb)

    def is_binder(self) -> bool:
        return bool(self.config.bind_verb)

    def is_prioritizer(self) -> bool:
        return bool(self.config.prioritize_verb)

    def is_filter(self) -> bool:
        return bool(self.config.filter_verb)

    def is_interested(self, pod: Pod) -> bool:
        """IsInterested: no managed resources, or the pod requests or limits one of them (in a
        container or an init container)."""
        if not self.managed:
            return True
        for c in (*pod.containers, *pod.init_containers):
            if any(r in self.managed for r in (*c.requests, *c.limits)):
                return True
        return False

    # --- Filter ---------------------------------------------------------------------------
    @_scrubbed
    def filter(self, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[NodeInfo], dict[str, str], dict[str, str]]:
        """The nodes the extender keeps, and its FailedNodes and FailedAndUnresolvableNodes.

        A node-cache-capable extender gets and returns node names; another gets the Node
        objects and returns Node objects, which become NodeInfos holding only the node (as
        upstream: the scores computed on them then see no pods on those nodes)."""
        if not self.config.filter_verb:
            return list(nodes), {}, {}
        by_name = {n.name: n for n in nodes}
        result = self._send(self.config.filter_verb, self._node_args(pod, nodes))
        result = go_object(result, "v1.ExtenderFilterResult")
        error = go_string(get(result, "Error"), "ExtenderFilterResult.Error")
        if error:
            raise ExtenderError(error)
        names = get(result, "NodeNames")
        listed = get(result, "Nodes")
        kept: list[NodeInfo] = []
        if self.config.node_cache_capable and names not in (MISSING, None):
            for i, name in enumerate(go_array(names, "ExtenderFilterResult.NodeNames", "[]string")):
                name = go_string(name, f"ExtenderFilterResult.NodeNames.{i}")
                if name not in by_name:
                    raise ExtenderError(
                        f"extender {go_quote(self.name)} claims a filtered node {go_quote(name)} which is not found in the input node list"
                    )
                kept.append(by_name[name])
        elif listed not in (MISSING, None):
            items = get(go_object(listed, "v1.NodeList", "ExtenderFilterResult.Nodes"), "Items")
            for raw in go_array(items, "ExtenderFilterResult.Nodes.items", "[]v1.Node"):
                kept.append(NodeInfo(_node(raw)))
        failed = failed_map(get(result, "FailedNodes"), "FailedNodes")
        unresolvable = failed_map(get(result, "FailedAndUnresolvableNodes"), "FailedAndUnresolvableNodes")
        return kept, failed, unresolvable

    # --- Prioritize -----------------------------------------------------------------------
    @_scrubbed
    def prioritize(self, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[list[tuple[str, int]], int]:
        """(host, score) pairs and the extender's weight; without a prioritize verb every node
        gets 0 and the weight is 0."""
        if not self.config.prioritize_verb:
            return [(n.name, 0) for n in nodes], 0
        result = self._send(self.config.prioritize_verb, self._node_args(pod, nodes))
        out = []
        for entry in go_array(result, "v1.HostPriorityList", "v1.HostPriorityList", top=True):
            entry = go_object(entry, "v1.HostPriority")
            host = go_string(get(entry, "Host"), "HostPriority.Host")
            out.append((host, go_int64(get(entry, "Score"), "HostPriority.Score")))
        return out, self.config.weight

    # --- ProcessPreemption ------------------------------------------------------------------
    @_scrubbed
    def process_preemption(
        self, pod: Pod, node_to_victims: dict[str, Victims], node_info: Callable[[str], NodeInfo | None]
    ) -> dict[str, Victims | None]:
        """The candidates (node -> victims) the extender keeps, as it answers them (always as
        NodeNameToMetaVictims: pod UIDs, found again among the node's pods)."""
        if not self.supports_preemption():
            raise ExtenderError(f"preempt verb is not defined for extender {self.name} but run into ProcessPreemption")
        if self.config.node_cache_capable:
            victims_arg: dict[str, Any] = {
                "NodeNameToVictims": None,
                "NodeNameToMetaVictims": {
                    node: {"Pods": [{"UID": p.uid} for p in v.pods], "NumPDBViolations": v.num_pdb_violations}
                    for node, v in node_to_victims.items()
                },
            }
        else:
            victims_arg = {
                "NodeNameToVictims": {
                    node: {"Pods": [_pod_json(p) for p in v.pods], "NumPDBViolations": v.num_pdb_violations}
                    for node, v in node_to_victims.items()
                },
                "NodeNameToMetaVictims": None,
            }
        result = self._send(self.config.preempt_verb, {"Pod": _pod_json(pod), **victims_arg})
        meta = get(go_object(result, "v1.ExtenderPreemptionResult"), "NodeNameToMetaVictims")
        out: dict[str, Victims | None] = {}
        for node_name, mv in go_object(meta, "map[string]*v1.MetaVictims", "ExtenderPreemptionResult.NodeNameToMetaVictims").items():
            info = node_info(node_name)
            if info is None:
                raise ExtenderError(f"nodeinfo not found for node name {go_quote(node_name)}")
            if mv is None:
                out[node_name] = None  # checked by the caller, as upstream
                continue
            mv = go_object(mv, "v1.MetaVictims", f"ExtenderPreemptionResult.NodeNameToMetaVictims.{node_name}")
            victims = Victims(num_pdb_violations=go_int64(get(mv, "NumPDBViolations"), "MetaVictims.NumPDBViolations"))
            for meta_pod in go_array(get(mv, "Pods"), "MetaVictims.Pods", "[]*v1.MetaPod"):
                uid = (
                    go_string(get(go_object(meta_pod, "v1.MetaPod", "MetaVictims.Pods"), "UID"), "MetaPod.UID")
                    if meta_pod is not None
                    else ""
                )
                victims.pods.append(self._pod_on_node(uid, info))
            out[node_name] = victims
        return out

    def _pod_on_node(self, uid: str, info: NodeInfo) -> Pod:
        for p in info.pods:
            if p.pod.uid == uid:
                return p.pod
        raise ExtenderError(
            f"extender: {self.name} claims to preempt pod (UID: &{{{uid}}}) on node: {info.name}, but the pod is not found on that node"
        )

    # --- Bind -----------------------------------------------------------------------------
    @_scrubbed
    def bind(self, pod: Pod, node_name: str) -> None:
        if not self.is_binder():
            raise ExtenderError("unexpected empty bindVerb in extender")
        result = self._send(
            self.config.bind_verb, {"PodName": pod.name, "PodNamespace": pod.namespace, "PodUID": pod.uid, "Node": node_name}
        )
        error = go_string(get(go_object(result, "v1.ExtenderBindingResult"), "Error"), "ExtenderBindingResult.Error")
        if error:
            raise ExtenderError(error)

    # --- the wire -------------------------------------------------------------------------
    def _node_args(self, pod: Pod, nodes: Sequence[NodeInfo]) -> dict[str, Any]:
        """ExtenderArgs: node names for a node-cache-capable extender, else a NodeList."""
        if self.config.node_cache_capable:
            return {"Pod": _pod_json(pod), "Nodes": None, "NodeNames": [n.name for n in nodes]}
        items = [n.node.raw for n in nodes if n.node is not None]
        return {"Pod": _pod_json(pod), "Nodes": {"metadata": {}, "items": items}, "NodeNames": None}

    def _send(self, verb: str, args: dict[str, Any]) -> Any:
        """send: POST the JSON to urlPrefix/verb; a non-200 answer or undecodable JSON fails."""
        url = self.config.url_prefix.rstrip("/") + "/" + verb
        body = json.dumps(args, separators=(",", ":"), ensure_ascii=False).encode()
        if self._client is not None:
            response = self._client.post(url, body, self.timeout)
        else:
            assert self._post is not None
            response = Response(*self._post(url, body, self.timeout, self.config.tls))
        if response.status != 200:
            raise ExtenderError(f"failed {verb} with extender at URL {display_url(url)}, code {response.status}")
        return decode(response.body, response.cut)


def _pod_json(pod: Pod) -> dict[str, Any]:
    """The pod as the API holds it now (its current nomination and priority)."""
    raw = dict(pod.raw)
    spec = dict(raw.get("spec") or {})
    if pod.priority is not None:
        spec.setdefault("priority", pod.priority)
    raw["spec"] = spec
    status = {k: v for k, v in (raw.get("status") or {}).items() if k != "nominatedNodeName"}
    if pod.nominated_node_name:
        status["nominatedNodeName"] = pod.nominated_node_name
    raw["status"] = status
    return raw


def _node(raw: Any) -> Node:
    try:
        return Node.from_dict(go_object(raw, "v1.Node", "ExtenderFilterResult.Nodes.items"))
    except ObjectError as exc:
        raise ExtenderError(f"json: cannot unmarshal a Node returned by the extender: {exc.field}: {exc.message}") from None


# --- how the scheduler uses them (schedule_one.go, preemption.go) ------------------------------


def find_nodes_that_pass_extenders(
    extenders: Sequence[Extender], pod: Pod, feasible: list[NodeInfo], set_status: Callable[[str, Status], None]
) -> list[NodeInfo]:
    """findNodesThatPassExtenders: the filter extenders one after another, each on the nodes the
    previous ones kept; their failed nodes get Unschedulable (FailedNodes) or
    UnschedulableAndUnresolvable (FailedAndUnresolvableNodes, which wins) statuses. An error
    fails the attempt, unless the extender is ignorable (then it is skipped)."""
    for extender in extenders:
        if not feasible:
            break
        if not extender.is_interested(pod):
            continue
        try:
            kept, failed, unresolvable = extender.filter(pod, feasible)
        except ExtenderError as err:
            if extender.is_ignorable():
                extender.skipped("filter", err)
                continue
            raise
        # (the statuses name the extender as their plugin, for explain; upstream's have none)
        for name, message in _in_node_order(unresolvable, feasible):
            set_status(name, Status(Code.UnschedulableAndUnresolvable, message, plugin=extender.name))
        for name, message in _in_node_order(failed, feasible):
            if name not in unresolvable:
                set_status(name, Status(Code.Unschedulable, message, plugin=extender.name))
        feasible = kept
    return feasible


def _in_node_order(failed: dict[str, str], nodes: Sequence[NodeInfo]) -> list[tuple[str, str]]:
    """A failed-nodes map in the order of the nodes sent, then any other names (Go iterates the
    map at random; the statuses set do not depend on the order)."""
    order = {n.name: i for i, n in enumerate(nodes)}
    return sorted(failed.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0]))


@dataclass
class ExtenderScores:
    """One prioritizing extender's column: its scores (raw, 0..MaxExtenderPriority as the
    extender answered) by node and its multiplier weight × MaxNodeScore / MaxExtenderPriority."""

    name: str
    multiplier: int
    scores: dict[str, int]


def prioritize_with_extenders(extenders: Sequence[Extender], pod: Pod, nodes: Sequence[NodeInfo]) -> list[ExtenderScores]:
    """prioritizeNodes' extender part: each interested extender's scores; a failing one gives
    none (upstream only logs it). The final score of a node is score × weight ×
    (MaxNodeScore / MaxExtenderPriority), added to the plugins' total."""
    out = []
    for extender in extenders:
        # (an extender without a prioritize verb gives every node 0, weight 0: left out)
        if not extender.is_prioritizer() or not extender.is_interested(pod):
            continue
        try:
            scores, weight = extender.prioritize(pod, nodes)
        except ExtenderError as err:
            extender.skipped("prioritize", err)
            continue
        by_node: dict[str, int] = {}
        for host, score in scores:
            by_node[host] = by_node.get(host, 0) + score
        out.append(ExtenderScores(extender.name, weight * (MAX_NODE_SCORE // MAX_EXTENDER_PRIORITY), by_node))
    return out


def extenders_binding(extenders: Sequence[Extender], pod: Pod, node_name: str) -> tuple[bool, Status]:
    """extendersBinding: the first interested binder binds the pod (an ignorable one that fails
    is skipped); (False, Success) when none did, and the Bind plugins run."""
    for extender in extenders:
        if not extender.is_binder() or not extender.is_interested(pod):
            continue
        try:
            extender.bind(pod, node_name)
        except ExtenderError as err:
            if extender.is_ignorable():
                extender.skipped("bind", err)
                continue
            return True, Status(Code.Error, str(err))
        return True, Status()
    return False, Status()


__all__ = [
    "DEFAULT_EXTENDER_TIMEOUT",
    "EXTENDER_NAME",
    "MAX_EXTENDER_PRIORITY",
    "ExtenderConfig",
    "ExtenderError",
    "ExtenderScores",
    "HTTPExtender",
    "Victims",
    "build_extenders",
    "extenders_binding",
    "find_nodes_that_pass_extenders",
    "prioritize_with_extenders",
]
