"""Seeded cluster generators, one per category. Each returns a Case: the snapshot objects, the
KubeSchedulerConfiguration, feature gates and the harness modes that apply.

Nodes and pods are deliberately heterogeneous (capacities, requests, labels) so that equal best
scores are rare; both sides then apply the same tie rule (lowest node name) anyway.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import objects as o
from .generate_more import gang_extras, gen_images, gen_owners, gen_sampling_large, preemption_extras, resources_extras
from .objects import BETA_REGION, BETA_ZONE, HOSTNAME, REGION, ZONE


@dataclass
class Case:
    category: str
    seed: int
    objects: list[dict]
    config: dict
    gates: str = ""
    release: str = "1.35"  # kube release of the oracle; kschedctl runs --kube-version of the same
    modes: tuple[str, ...] = ("sequential", "explain")
    explain_limit: int = 12  # pending pods explained per cluster (one kschedctl call each)
    notes: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.category}-{self.seed}"

    def pending(self) -> list[dict]:
        return [x for x in self.objects if x["kind"] == "Pod" and not x["spec"].get("nodeName")]


# --- shared pieces ----------------------------------------------------------------------------


def _zones(rng: random.Random, k: int) -> list[str]:
    return [f"zone-{c}" for c in "abcdefgh"[:k]]


def _nodes(
    rng: random.Random,
    n: int,
    zones: list[str],
    *,
    beta: float = 0.0,
    taint_p: float = 0.0,
    unsched_p: float = 0.0,
    label_fn: Callable[[random.Random, int], dict] | None = None,
    width: int = 3,
    pods: tuple[int, int] = (20, 110),
) -> list[dict]:
    out = []
    for i in range(n):
        labels: dict[str, str] = {}
        zone = rng.choice(zones) if zones else None
        if zone:
            r = rng.random()
            if r < beta / 2:  # beta labels only
                labels[BETA_ZONE] = zone
                labels[BETA_REGION] = "region-1"
            elif r < beta:  # both, sometimes disagreeing
                labels[ZONE] = zone
                labels[REGION] = "region-1"
                labels[BETA_ZONE] = rng.choice(zones)
                labels[BETA_REGION] = "region-1"
            else:
                labels[ZONE] = zone
                labels[REGION] = "region-1"
        if label_fn:
            labels.update(label_fn(rng, i))
        taints = []
        if rng.random() < taint_p:
            taints.append(
                {
                    "key": rng.choice(["dedicated", "gpu", "spot"]),
                    "value": rng.choice(["a", "b"]),
                    "effect": rng.choice(["NoSchedule", "PreferNoSchedule", "NoExecute"]),
                }
            )
        out.append(
            o.node(
                f"n{i:0{width}d}",
                rng.randrange(2000, 64001, 250),
                rng.randrange(4096, 131073, 256),
                pods=rng.randint(*pods),
                labels=labels,
                taints=taints or None,
                unschedulable=rng.random() < unsched_p,
            )
        )
    return out


def _bound(
    rng: random.Random,
    seq: o.PodSeq,
    nodes: list[dict],
    k: int,
    *,
    labels_fn=None,
    ns_choices=("default",),
    priority_fn=None,
    prefix: str = "b",
) -> list[dict]:
    out = []
    for i in range(k):
        nd = rng.choice(nodes)
        alloc_cpu = _milli(nd["status"]["allocatable"]["cpu"])
        cpu = rng.randrange(50, max(100, alloc_cpu // 6), 50)
        labels = labels_fn(rng, i) if labels_fn else {"app": rng.choice(["web", "db", "cache"])}
        out.append(
            seq.pod(
                f"{prefix}{i}",
                [o.container(cpu_m=cpu, mem_mi=rng.randrange(64, 4096, 64))],
                ns=rng.choice(ns_choices),
                node_name=nd["metadata"]["name"],
                labels=labels,
                priority=priority_fn(rng) if priority_fn else None,
            )
        )
    return out


def _milli(q: str) -> int:
    return int(q[:-1]) if q.endswith("m") else int(float(q) * 1000)


def _req(rng: random.Random, big: bool = False) -> tuple[int, int]:
    if big:
        return rng.randrange(4000, 40000, 250), rng.randrange(8192, 65536, 256)
    return rng.randrange(50, 6000, 50), rng.randrange(64, 12288, 64)


def _profile(name: str = "default-scheduler", plugins: dict | None = None, args: list | None = None, percentage: int | None = None) -> dict:
    p: dict[str, Any] = {"schedulerName": name}
    if plugins:
        p["plugins"] = plugins
    if args:
        p["pluginConfig"] = args
    if percentage is not None:
        p["percentageOfNodesToScore"] = percentage
    return p


# --- categories -------------------------------------------------------------------------------


def gen_sampling(rng: random.Random, seed: int) -> Case:
    """percentageOfNodesToScore with several profiles on 100-400 nodes; node tree with beta labels."""
    n = rng.randint(100, 400)
    zones = _zones(rng, rng.randint(1, 6))
    nodes = _nodes(rng, n, zones, beta=rng.choice([0.0, 0.2, 0.5]), taint_p=rng.choice([0.0, 0.1, 0.3]), unsched_p=0.03)
    seq = o.PodSeq()
    bound = _bound(rng, seq, nodes, rng.randint(0, n))
    profiles = [_profile(percentage=rng.choice([None, None, 5, 20, 60]))]
    names = ["default-scheduler"]
    if rng.random() < 0.6:
        profiles.append(_profile("no-score", {"score": {"disabled": [{"name": "*"}]}}, percentage=rng.choice([None, 10])))
        names.append("no-score")
    if rng.random() < 0.5:
        profiles.append(
            _profile(
                "binpack",
                args=[
                    {
                        "name": "NodeResourcesFit",
                        "args": {
                            "scoringStrategy": {
                                "type": "MostAllocated",
                                "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
                            }
                        },
                    }
                ],
                percentage=rng.choice([None, 30, 100]),
            )
        )
        names.append("binpack")
    # No profile without Filter plugins here: the harness's -sample recording learns the
    # feasible nodes from Filter calls and has none to learn from then.
    pending = []
    for i in range(rng.randint(20, 60)):
        cpu, mem = _req(rng)
        spec: dict[str, Any] = {"schedulerName": rng.choice(names)}
        if rng.random() < 0.3:
            spec["tolerations"] = [{"key": rng.choice(["dedicated", "gpu", "spot"]), "operator": "Exists"}]
        if rng.random() < 0.2 and zones:
            spec["nodeSelector"] = {ZONE: rng.choice(zones)}
        pending.append(seq.pod(f"p{i}", [o.container(cpu_m=cpu, mem_mi=mem)], labels={"app": "web"}, **spec))
    cfg = o.config(profiles, percentage=rng.choice([None, 0, 10, 50]), parallelism=1)
    return Case("sampling", seed, nodes + bound + pending, cfg, modes=("sample", "explain"), explain_limit=6)


EXPLAIN_SAMPLING_SIZES = (150, 500, 1000, 3000)


def gen_explain_sampling(rng: random.Random, seed: int) -> Case:
    """explain's sampling and nomination statements on 150-3,000 nodes (the size cycles with the
    seed): adaptive percentageOfNodesToScore, explicit percentages globally and per profile, and
    pods nominated to some nodes (status.nominatedNodeName) at the first pod's priority (counted
    for it: addGENominatedPods takes equal or higher) and below it (not counted). The first
    pending pod (p0, priority 100, created first) heads kube's queue, so its attempt sees the
    snapshot as given; ``low`` (priority 0) sees every nominated pod. Compared by
    explain_sampling.py, not by the sequential/explain comparisons."""
    n = EXPLAIN_SAMPLING_SIZES[(seed - 1) % len(EXPLAIN_SAMPLING_SIZES)]
    zones = _zones(rng, rng.randint(1, 5))
    nodes = _nodes(rng, n, zones, beta=rng.choice([0.0, 0.2]), taint_p=rng.choice([0.0, 0.1, 0.3]), unsched_p=0.03, width=4)
    seq = o.PodSeq()
    bound = _bound(rng, seq, nodes, rng.randint(n // 4, n))
    shape = rng.choice(["adaptive", "adaptive", "global", "profile"])
    global_pct = {"adaptive": rng.choice([None, 0]), "global": rng.choice([5, 10, 20, 40, 70, 100]), "profile": rng.choice([None, 30])}[
        shape
    ]
    profiles = [_profile(percentage=rng.choice([5, 15, 40, 60]) if shape == "profile" else None)]
    names = ["default-scheduler"]
    if rng.random() < 0.5:
        profiles.append(
            _profile(
                "binpack",
                args=[
                    {
                        "name": "NodeResourcesFit",
                        "args": {
                            "scoringStrategy": {
                                "type": "MostAllocated",
                                "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
                            }
                        },
                    }
                ],
                percentage=rng.choice([None, 10, 50]) if shape == "profile" else None,
            )
        )
        names.append("binpack")
    profile = rng.choice(names)
    cpu, mem = _req(rng)
    spec: dict[str, Any] = {"schedulerName": profile}
    if rng.random() < 0.3:
        spec["tolerations"] = [{"key": rng.choice(["dedicated", "gpu", "spot"]), "operator": "Exists"}]
    if rng.random() < 0.2 and len(zones) > 1:
        spec["nodeSelector"] = {ZONE: rng.choice(zones)}
    pending = [seq.pod("p0", [o.container(cpu_m=cpu, mem_mi=mem)], labels={"app": "web"}, priority=100, **spec)]
    # nominated pods: half on the first nodes by name (inside any sample from start index 0)
    head = nodes[:100]
    for i in range(rng.randint(3, 12)):
        nd = rng.choice(head) if rng.random() < 0.5 else rng.choice(nodes)
        alloc = _milli(nd["status"]["allocatable"]["cpu"])
        big = rng.randrange(alloc // 2, alloc + 1, 50) if rng.random() < 0.8 else rng.randrange(50, 500, 50)
        pod = seq.pod(
            f"nom{i}",
            [o.container(cpu_m=max(big, 50), mem_mi=rng.randrange(64, 2048, 64))],
            labels={"app": "batch"},
            priority=rng.choice([100, 100, 10]),
            schedulerName=rng.choice(names),
        )
        pod["status"]["nominatedNodeName"] = nd["metadata"]["name"]
        pending.append(pod)
    cpu, mem = _req(rng)
    pending.append(seq.pod("low", [o.container(cpu_m=cpu, mem_mi=mem)], labels={"app": "web"}, priority=0, schedulerName=rng.choice(names)))
    cfg = o.config(profiles, percentage=global_pct, parallelism=1)
    return Case(
        "explain-sampling",
        seed,
        nodes + bound + pending,
        cfg,
        modes=("explain-sampling",),
        notes=[f"{n} nodes, percentageOfNodesToScore {shape}"],
    )


TAINT_KEYS = ["dedicated", "gpu", "spot", "example.com/maint"]


def gen_taints(rng: random.Random, seed: int) -> Case:
    """Taints with every effect; tolerations with Equal/Exists, empty keys, empty effects, seconds."""
    zones = _zones(rng, rng.randint(1, 3))
    nodes = _nodes(rng, rng.randint(5, 30), zones, width=2)
    for nd in nodes:
        taints = []
        for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
            taints.append(
                {
                    "key": rng.choice(TAINT_KEYS),
                    "value": rng.choice(["", "a", "b"]),
                    "effect": rng.choice(["NoSchedule", "PreferNoSchedule", "NoExecute"]),
                }
            )
        if rng.random() < 0.1:
            nd["spec"]["unschedulable"] = True
            taints.append({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"})
        uniq = {(t["key"], t["effect"]): t for t in taints}  # the API rejects duplicate key/effect
        if uniq:
            nd["spec"]["taints"] = list(uniq.values())
    seq = o.PodSeq()
    bound = _bound(rng, seq, nodes, rng.randint(0, 2 * len(nodes)))
    pending = []
    for i in range(rng.randint(5, 25)):
        tols = []
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            op = rng.choice(["Equal", "Exists", ""])
            t: dict[str, Any] = {}
            key = rng.choice(TAINT_KEYS + ["", "node.kubernetes.io/unschedulable"])
            if op == "Exists" and rng.random() < 0.2:
                key = ""
            if key:
                t["key"] = key
            if op:
                t["operator"] = op
            if op != "Exists" and key:
                t["value"] = rng.choice(["", "a", "b"])
            if op != "Exists" and not key:
                t["key"] = rng.choice(TAINT_KEYS)  # an empty key needs operator Exists (validation)
            eff = rng.choice(["", "NoSchedule", "PreferNoSchedule", "NoExecute"])
            if eff:
                t["effect"] = eff
            if eff == "NoExecute" and rng.random() < 0.5:
                t["tolerationSeconds"] = rng.choice([0, 30, 300])
            tols.append(t)
        cpu, mem = _req(rng)
        pending.append(seq.pod(f"p{i}", [o.container(cpu_m=cpu, mem_mi=mem)], tolerations=tols or None))
    return Case("taints", seed, nodes + bound + pending, o.config())


def _label_fn(rng: random.Random, i: int) -> dict:
    out = {"tier": rng.choice(["web", "db", "batch", "edge"]), "gen": str(rng.randint(1, 9))}
    if rng.random() < 0.6:
        out["disk"] = rng.choice(["ssd", "hdd"])
    if rng.random() < 0.3:
        out["gpu"] = rng.choice(["a100", "t4"])
    return out


def _match_expression(rng: random.Random, node_names: list[str]) -> dict:
    key = rng.choice(["tier", "disk", "gen", "gpu", "missing"])
    op = rng.choice(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"])
    values: list[str] = []
    if op in ("In", "NotIn"):
        pool = {
            "tier": ["web", "db", "batch", "edge"],
            "disk": ["ssd", "hdd"],
            "gen": [str(x) for x in range(1, 10)],
            "gpu": ["a100", "t4"],
            "missing": ["x"],
        }[key]
        values = rng.sample(pool, rng.randint(1, min(3, len(pool))))
    elif op in ("Gt", "Lt"):
        key = "gen"
        values = [str(rng.randint(0, 9))]
    e: dict[str, Any] = {"key": key, "operator": op}
    if values:
        e["values"] = values
    return e


def _node_selector_term(rng: random.Random, node_names: list[str]) -> dict:
    term: dict[str, Any] = {}
    if rng.random() < 0.85:
        term["matchExpressions"] = [_match_expression(rng, node_names) for _ in range(rng.randint(1, 2))]
    if rng.random() < 0.25:
        # validation: a node field selector with In/NotIn takes exactly one value
        term["matchFields"] = [{"key": "metadata.name", "operator": rng.choice(["In", "NotIn"]), "values": rng.sample(node_names, 1)}]
    return term or {"matchExpressions": [_match_expression(rng, node_names)]}


def gen_nodeaffinity(rng: random.Random, seed: int) -> Case:
    """Required terms (every operator, matchFields), nodeSelector, preferred terms, addedAffinity."""
    zones = _zones(rng, rng.randint(1, 3))
    nodes = _nodes(rng, rng.randint(5, 40), zones, label_fn=_label_fn, width=2)
    names = [n["metadata"]["name"] for n in nodes]
    seq = o.PodSeq()
    bound = _bound(rng, seq, nodes, rng.randint(0, len(nodes)))
    pending = []
    for i in range(rng.randint(5, 25)):
        spec: dict[str, Any] = {}
        aff: dict[str, Any] = {}
        if rng.random() < 0.7:
            aff["requiredDuringSchedulingIgnoredDuringExecution"] = {
                "nodeSelectorTerms": [_node_selector_term(rng, names) for _ in range(rng.randint(1, 3))]
            }
        if rng.random() < 0.6:
            aff["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": rng.randint(1, 100), "preference": _node_selector_term(rng, names)} for _ in range(rng.randint(1, 3))
            ]
        if aff:
            spec["affinity"] = {"nodeAffinity": aff}
        if rng.random() < 0.25:
            spec["nodeSelector"] = {"tier": rng.choice(["web", "db", "batch", "edge"])}
        cpu, mem = _req(rng)
        pending.append(seq.pod(f"p{i}", [o.container(cpu_m=cpu, mem_mi=mem)], **spec))
    profiles = None
    if rng.random() < 0.3:
        args: dict[str, Any] = {"addedAffinity": {}}
        if rng.random() < 0.5:
            args["addedAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["edge"]}]}]
            }
        args["addedAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": rng.randint(1, 100), "preference": {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}}
        ]
        profiles = [_profile(args=[{"name": "NodeAffinity", "args": args}])]
    return Case("nodeaffinity", seed, nodes + bound + pending, o.config(profiles))


def gen_spread(rng: random.Random, seed: int) -> Case:
    """PodTopologySpread: minDomains, nodeAffinityPolicy, nodeTaintsPolicy, matchLabelKeys."""
    zones = _zones(rng, rng.randint(2, 5))

    def labels(r: random.Random, i: int) -> dict:
        out = {"rack": f"rack-{r.randint(0, 5)}"} if r.random() < 0.8 else {}
        if r.random() < 0.4:
            out["tier"] = r.choice(["web", "db"])
        return out

    nodes = _nodes(rng, rng.randint(6, 40), zones, taint_p=0.2, label_fn=labels, width=2)
    for nd in nodes:  # some nodes lack the zone label
        if rng.random() < 0.1:
            nd["metadata"]["labels"].pop(ZONE, None)
    seq = o.PodSeq()
    apps = ["web", "api", "db"]
    hashes = ["h1", "h2"]

    def blabels(r: random.Random, i: int) -> dict:
        return {"app": r.choice(apps), "pod-template-hash": r.choice(hashes)}

    bound = _bound(rng, seq, nodes, rng.randint(0, 3 * len(nodes)), labels_fn=blabels)
    pending = []
    for i in range(rng.randint(5, 30)):
        app = rng.choice(apps)
        labels_ = {"app": app, "pod-template-hash": rng.choice(hashes)}
        cons = []
        for _ in range(rng.choice([0, 1, 1, 2])):
            when = rng.choice(["DoNotSchedule", "ScheduleAnyway"])
            c: dict[str, Any] = {
                "maxSkew": rng.randint(1, 3),
                "topologyKey": rng.choice([ZONE, HOSTNAME, "rack"]),
                "whenUnsatisfiable": when,
                "labelSelector": {"matchLabels": {"app": app}}
                if rng.random() < 0.8
                else {"matchExpressions": [{"key": "app", "operator": "In", "values": rng.sample(apps, 2)}]},
            }
            if when == "DoNotSchedule" and rng.random() < 0.4:
                c["minDomains"] = rng.randint(1, 6)
            if rng.random() < 0.4:
                c["nodeAffinityPolicy"] = rng.choice(["Honor", "Ignore"])
            if rng.random() < 0.4:
                c["nodeTaintsPolicy"] = rng.choice(["Honor", "Ignore"])
            if rng.random() < 0.3:
                c["matchLabelKeys"] = ["pod-template-hash"]
            if not any(x["topologyKey"] == c["topologyKey"] and x["whenUnsatisfiable"] == when for x in cons):
                cons.append(c)
        spec: dict[str, Any] = {}
        if cons:
            spec["topologySpreadConstraints"] = cons
        if rng.random() < 0.3:
            spec["nodeSelector"] = {"tier": rng.choice(["web", "db"])}
        if rng.random() < 0.3:
            spec["tolerations"] = [{"operator": "Exists"}]
        cpu, mem = _req(rng)
        pending.append(seq.pod(f"p{i}", [o.container(cpu_m=cpu, mem_mi=mem)], labels=labels_, **spec))
    profiles = None
    if rng.random() < 0.3:
        profiles = [
            _profile(
                args=[
                    {
                        "name": "PodTopologySpread",
                        "args": {
                            "defaultingType": "List",
                            "defaultConstraints": [
                                {
                                    "maxSkew": rng.randint(1, 3),
                                    "topologyKey": rng.choice([ZONE, HOSTNAME]),
                                    "whenUnsatisfiable": rng.choice(["DoNotSchedule", "ScheduleAnyway"]),
                                }
                            ],
                        },
                    }
                ]
            )
        ]
    return Case("spread", seed, nodes + bound + pending, o.config(profiles))


def _pod_affinity_term(rng: random.Random, namespaces: list[str], apps: list[str]) -> dict:
    term: dict[str, Any] = {"topologyKey": rng.choice([HOSTNAME, ZONE, HOSTNAME])}
    r = rng.random()
    if r < 0.6:
        term["labelSelector"] = {"matchLabels": {"app": rng.choice(apps)}}
    elif r < 0.9:
        term["labelSelector"] = {
            "matchExpressions": [{"key": "app", "operator": rng.choice(["In", "NotIn"]), "values": rng.sample(apps, 2)}]
        }
    # r >= 0.9: no selector (matches nothing)
    r = rng.random()
    if r < 0.25:
        term["namespaces"] = rng.sample(namespaces, rng.randint(1, len(namespaces)))
    elif r < 0.45:
        term["namespaceSelector"] = {}
    elif r < 0.65:
        term["namespaceSelector"] = {"matchLabels": {"team": rng.choice(["a", "b"])}}
    elif r < 0.75:
        term["namespaceSelector"] = {"matchExpressions": [{"key": "team", "operator": "Exists"}]}
        if rng.random() < 0.5:
            term["namespaces"] = [rng.choice(namespaces)]
    if rng.random() < 0.15 and "labelSelector" in term:
        term["matchLabelKeys"] = ["version"]
    elif rng.random() < 0.1 and "labelSelector" in term:
        term["mismatchLabelKeys"] = ["version"]
    return term


def _pod_affinity(rng: random.Random, namespaces: list[str], apps: list[str], p_req: float = 0.5) -> dict:
    aff: dict[str, Any] = {}
    for kind in ("podAffinity", "podAntiAffinity"):
        part: dict[str, Any] = {}
        if rng.random() < p_req:
            part["requiredDuringSchedulingIgnoredDuringExecution"] = [
                _pod_affinity_term(rng, namespaces, apps) for _ in range(rng.randint(1, 2))
            ]
        if rng.random() < 0.5:
            part["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": rng.randint(1, 100), "podAffinityTerm": _pod_affinity_term(rng, namespaces, apps)}
                for _ in range(rng.randint(1, 2))
            ]
        if part:
            aff[kind] = part
    return aff


def gen_interpod(rng: random.Random, seed: int) -> Case:
    """InterPodAffinity: required/preferred (anti-)affinity, namespaces, namespaceSelector,
    existing pods' terms (symmetry), matchLabelKeys, hardPodAffinityWeight."""
    zones = _zones(rng, rng.randint(1, 4))
    nodes = _nodes(rng, rng.randint(4, 30), zones, width=2)
    nss = ["default", "team-a", "team-b", "other"]
    ns_objs = [o.namespace("default"), o.namespace("team-a", {"team": "a"}), o.namespace("team-b", {"team": "b"}), o.namespace("other")]
    apps = ["web", "db", "cache", "queue"]
    seq = o.PodSeq()
    bound = []
    for i in range(rng.randint(0, 2 * len(nodes))):
        nd = rng.choice(nodes)
        spec: dict[str, Any] = {}
        if rng.random() < 0.3:
            aff = _pod_affinity(rng, nss, apps, p_req=0.3)
            aff.pop("podAffinity", None) if rng.random() < 0.5 else None
            if aff:
                spec["affinity"] = aff
        bound.append(
            seq.pod(
                f"b{i}",
                [o.container(cpu_m=rng.randrange(50, 1500, 50), mem_mi=rng.randrange(64, 2048, 64))],
                ns=rng.choice(nss),
                node_name=nd["metadata"]["name"],
                labels={"app": rng.choice(apps), "version": rng.choice(["v1", "v2"])},
                **spec,
            )
        )
    pending = []
    for i in range(rng.randint(5, 25)):
        spec = {}
        aff = _pod_affinity(rng, nss, apps)
        if aff:
            spec["affinity"] = aff
        cpu, mem = _req(rng)
        pending.append(
            seq.pod(
                f"p{i}",
                [o.container(cpu_m=cpu, mem_mi=mem)],
                ns=rng.choice(nss),
                labels={"app": rng.choice(apps), "version": rng.choice(["v1", "v2"])},
                **spec,
            )
        )
    profiles = None
    if rng.random() < 0.3:
        profiles = [
            _profile(
                args=[
                    {
                        "name": "InterPodAffinity",
                        "args": {
                            "hardPodAffinityWeight": rng.choice([0, 1, 50, 100]),
                            "ignorePreferredTermsOfExistingPods": rng.random() < 0.3,
                        },
                    }
                ]
            )
        ]
    return Case("interpod", seed, ns_objs + nodes + bound + pending, o.config(profiles))


def gen_resources(rng: random.Random, seed: int) -> Case:
    """Host ports, sidecars (restartable init containers), init containers, pod-level resources,
    overhead, extended resources, scoring strategies."""
    zones = _zones(rng, rng.randint(1, 3))
    nodes = _nodes(rng, rng.randint(4, 30), zones, width=2, pods=(3, 40))
    for nd in nodes:
        if rng.random() < 0.4:
            g = str(rng.randint(1, 8))
            nd["status"]["allocatable"]["example.com/gpu"] = g
            nd["status"]["capacity"]["example.com/gpu"] = g
        if rng.random() < 0.3:
            s = f"{rng.randint(1, 200)}Gi"
            nd["status"]["allocatable"]["ephemeral-storage"] = s
            nd["status"]["capacity"]["ephemeral-storage"] = s
    seq = o.PodSeq()

    def ports(r: random.Random, used: set[tuple[str, str, int]]) -> list | None:
        """Host ports of one container; ``used`` holds the pod's (protocol, hostIP, hostPort):
        validation refuses one used twice in a pod."""
        if r.random() > 0.4:
            return None
        out = []
        for _ in range(r.randint(1, 2)):
            p: dict[str, Any] = {
                "containerPort": r.choice([80, 443, 8080]),
                "hostPort": r.choice([80, 443, 8080, 9000]),
                "protocol": r.choice(["TCP", "TCP", "UDP", "SCTP"]),
            }
            if r.random() < 0.3:
                p["hostIP"] = r.choice(["0.0.0.0", "10.0.0.1", "10.0.0.2", "127.0.0.1"])
            key = (p["protocol"], p.get("hostIP", ""), p["hostPort"])
            if key not in used:
                used.add(key)
                out.append(p)
        return out or None

    def make(name: str, node_name: str | None) -> dict:
        cpu, mem = _req(rng)
        extra: dict[str, str] = {}
        if rng.random() < 0.25:
            extra["example.com/gpu"] = str(rng.randint(1, 3))
        if rng.random() < 0.2:
            extra["ephemeral-storage"] = f"{rng.randint(1, 50)}Gi"
        used: set[tuple[str, str, int]] = set()
        cs = [
            o.container(
                "main",
                cpu_m=cpu if rng.random() < 0.9 else None,
                mem_mi=mem if rng.random() < 0.9 else None,
                ports=ports(rng, used),
                extra=extra,
            )
        ]
        if rng.random() < 0.3:
            cs.append(o.container("side", cpu_m=rng.randrange(0, 2000, 50), mem_mi=rng.randrange(0, 2048, 64), ports=ports(rng, used)))
        spec: dict[str, Any] = {}
        inits = []
        for j in range(rng.choice([0, 0, 1, 2])):
            c = o.container(f"init{j}", cpu_m=rng.randrange(0, 8000, 100), mem_mi=rng.randrange(0, 8192, 64))
            if rng.random() < 0.5:
                c["restartPolicy"] = "Always"  # a sidecar
            inits.append(c)
        if inits:
            spec["initContainers"] = inits
        if rng.random() < 0.2:
            # pod-level requests: validation wants them >= the containers' aggregate (here: >= the
            # sum of every container, init ones included), for cpu and memory only
            every = cs + inits
            cpu_sum = sum(_milli(c["resources"].get("requests", {}).get("cpu", "0")) for c in every)
            mem_sum = sum(int(c["resources"].get("requests", {}).get("memory", "0Mi")[:-2]) for c in every)
            spec["resources"] = {
                "requests": {
                    "cpu": o.quantity_m(cpu_sum + rng.randrange(0, 4000, 250)),
                    "memory": f"{mem_sum + rng.randrange(0, 4096, 256)}Mi",
                }
            }
        if rng.random() < 0.15:
            spec["overhead"] = {"cpu": o.quantity_m(rng.randrange(50, 500, 50)), "memory": f"{rng.randrange(16, 256, 16)}Mi"}
        return seq.pod(name, cs, node_name=node_name, **spec)

    bound = [make(f"b{i}", rng.choice(nodes)["metadata"]["name"]) for i in range(rng.randint(0, len(nodes)))]
    pending = [make(f"p{i}", None) for i in range(rng.randint(5, 25))]
    profiles = None
    r = rng.random()
    if r < 0.2:
        profiles = [
            _profile(
                args=[
                    {
                        "name": "NodeResourcesFit",
                        "args": {
                            "scoringStrategy": {
                                "type": "MostAllocated",
                                "resources": [
                                    {"name": "cpu", "weight": rng.randint(1, 5)},
                                    {"name": "memory", "weight": rng.randint(1, 5)},
                                    {"name": "example.com/gpu", "weight": rng.randint(1, 5)},
                                ],
                            }
                        },
                    }
                ]
            )
        ]
    elif r < 0.4:
        profiles = [
            _profile(
                args=[
                    {
                        "name": "NodeResourcesFit",
                        "args": {
                            "scoringStrategy": {
                                "type": "RequestedToCapacityRatio",
                                "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
                                "requestedToCapacityRatio": {
                                    "shape": [
                                        {"utilization": 0, "score": rng.randint(0, 10)},
                                        {"utilization": rng.randint(30, 70), "score": rng.randint(0, 10)},
                                        {"utilization": 100, "score": rng.randint(0, 10)},
                                    ]
                                },
                            }
                        },
                    }
                ]
            )
        ]
    elif r < 0.5:
        profiles = [
            _profile(
                args=[
                    {
                        "name": "NodeResourcesBalancedAllocation",
                        "args": {
                            "resources": [
                                {"name": "cpu", "weight": 1},
                                {"name": "memory", "weight": 1},
                                {"name": "example.com/gpu", "weight": 1},
                            ]
                        },
                    }
                ]
            )
        ]
    profiles = resources_extras(seed, nodes + bound + pending, profiles)
    return Case("resources", seed, nodes + bound + pending, o.config(profiles))


CSI = "csi.example.com"  # a CSI driver name the API server admits (a DNS-1123 subdomain)
GCE_PD = "pd.csi.storage.gke.io"


def gen_volumes(rng: random.Random, seed: int) -> Case:
    """PVC/PV/StorageClass/CSINode combinations: bound claims with node affinity and zone
    labels (GA and beta), WaitForFirstConsumer and Immediate classes, static binding, missing
    claims, ReadWriteOncePod, CSI attach limits, inline disks (VolumeRestrictions)."""
    zones = _zones(rng, rng.randint(1, 3))
    nodes = _nodes(rng, rng.randint(3, 20), zones, beta=0.3, width=2)
    names = [n["metadata"]["name"] for n in nodes]
    objs: list[dict] = []

    def sc(name: str, mode: str, prov: str, **kw: object) -> dict:
        return {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": name},
            "provisioner": prov,
            "volumeBindingMode": mode,
            "reclaimPolicy": "Delete",
            **kw,
        }

    objs += [
        sc("fast", "Immediate", CSI),
        sc("local", "WaitForFirstConsumer", "kubernetes.io/no-provisioner"),
        sc("late", "WaitForFirstConsumer", CSI),
        sc(
            "zonal",
            "WaitForFirstConsumer",
            CSI,
            allowedTopologies=[{"matchLabelExpressions": [{"key": ZONE, "values": rng.sample(zones, rng.randint(1, len(zones)))}]}],
        ),
    ]
    for nd in nodes:
        if rng.random() < 0.8:
            drivers = [{"name": CSI, "nodeID": nd["metadata"]["name"]}]
            if rng.random() < 0.7:
                drivers[0]["allocatable"] = {"count": rng.randint(0, 4)}
            if rng.random() < 0.3:
                drivers.append({"name": GCE_PD, "nodeID": nd["metadata"]["name"], "allocatable": {"count": rng.randint(0, 3)}})
            objs.append(
                {
                    "apiVersion": "storage.k8s.io/v1",
                    "kind": "CSINode",
                    "metadata": {"name": nd["metadata"]["name"]},
                    "spec": {"drivers": drivers},
                }
            )
    pvs: list[dict] = []
    for i in range(rng.randint(0, 15)):
        cls = rng.choice(["local", "zonal", "", "late"])
        spec: dict[str, Any] = {
            "capacity": {"storage": f"{rng.choice([1, 5, 10, 50])}Gi"},
            "accessModes": [rng.choice(["ReadWriteOnce", "ReadWriteOnce", "ReadWriteOncePod", "ReadOnlyMany"])],
            "persistentVolumeReclaimPolicy": "Retain",
            "volumeMode": "Filesystem",
            "csi": {"driver": CSI, "volumeHandle": f"vol-{i}"},
        }
        if cls:
            spec["storageClassName"] = cls
        labels: dict[str, str] = {}
        r = rng.random()
        if r < 0.4:
            spec["nodeAffinity"] = {
                "required": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": HOSTNAME, "operator": "In", "values": rng.sample(names, rng.randint(1, min(2, len(names))))}
                            ]
                        }
                    ]
                }
            }
        elif r < 0.7:
            spec["nodeAffinity"] = {
                "required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": ZONE, "operator": "In", "values": [rng.choice(zones)]}]}]}
            }
        if rng.random() < 0.4:
            key = rng.choice([ZONE, BETA_ZONE])
            labels[key] = "__".join(rng.sample(zones, rng.randint(1, len(zones))))
        pv = {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": f"pv{i}", **({"labels": labels} if labels else {})},
            "spec": spec,
            "status": {"phase": "Available"},
        }
        pvs.append(pv)
    objs += pvs
    claims: list[dict] = []
    free_pvs = list(pvs)
    rng.shuffle(free_pvs)
    for i in range(rng.randint(1, 20)):
        mode = rng.choice(["ReadWriteOnce", "ReadWriteOnce", "ReadWriteOncePod"])
        spec = {"accessModes": [mode], "resources": {"requests": {"storage": f"{rng.choice([1, 2, 5, 20])}Gi"}}, "volumeMode": "Filesystem"}
        meta: dict[str, Any] = {"name": f"claim{i}", "namespace": "default", "uid": f"pvc-uid-{i}"}
        status: dict[str, Any] = {"phase": "Pending"}
        r = rng.random()
        if r < 0.35 and free_pvs:
            pv = free_pvs.pop()
            spec["volumeName"] = pv["metadata"]["name"]
            spec["accessModes"] = pv["spec"]["accessModes"]
            spec["storageClassName"] = pv["spec"].get("storageClassName", "")
            meta["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
            pv["spec"]["claimRef"] = {
                "kind": "PersistentVolumeClaim",
                "namespace": "default",
                "name": meta["name"],
                "uid": meta["uid"],
                "apiVersion": "v1",
            }
            pv["status"]["phase"] = "Bound"
            status = {"phase": "Bound", "accessModes": spec["accessModes"], "capacity": pv["spec"]["capacity"]}
        else:
            spec["storageClassName"] = rng.choice(["local", "zonal", "late", "late", "local", "fast", "", "missing-class"])
        claims.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec, "status": status})
    objs += claims
    seq = o.PodSeq()

    def volumes(r: random.Random) -> list | None:
        vols = []
        for j in range(r.choice([0, 1, 1, 2, 3])):
            k = r.random()
            if k < 0.75:
                name = r.choice(claims)["metadata"]["name"] if r.random() < 0.96 else "claim-missing"
                vols.append({"name": f"v{j}", "persistentVolumeClaim": {"claimName": name}})
            elif k < 0.85:
                vols.append(
                    {"name": f"v{j}", "gcePersistentDisk": {"pdName": r.choice(["disk-a", "disk-b"]), "readOnly": r.random() < 0.5}}
                )
            elif k < 0.92:
                vols.append({"name": f"v{j}", "awsElasticBlockStore": {"volumeID": r.choice(["vol-1", "vol-2"])}})
            else:
                vols.append({"name": f"v{j}", "emptyDir": {}})
        uniq = {v["persistentVolumeClaim"]["claimName"] if "persistentVolumeClaim" in v else v["name"]: v for v in vols}
        return list(uniq.values()) or None

    bound = []
    for i in range(rng.randint(0, len(nodes))):
        nd = rng.choice(nodes)["metadata"]["name"]
        vols = volumes(rng)
        if vols:  # bound pods only use bound claims (or inline disks)
            vols = [
                v
                for v in vols
                if "persistentVolumeClaim" not in v
                or any(c["metadata"]["name"] == v["persistentVolumeClaim"]["claimName"] and c["spec"].get("volumeName") for c in claims)
            ] or None
        bound.append(
            seq.pod(
                f"b{i}", [o.container(cpu_m=rng.randrange(50, 1000, 50), mem_mi=rng.randrange(64, 1024, 64))], node_name=nd, volumes=vols
            )
        )
    pending = []
    for i in range(rng.randint(3, 20)):
        cpu, mem = _req(rng)
        vols = volumes(rng) or []
        if rng.random() < 0.2:  # a generic ephemeral volume: the claim "<pod>-<volume>", owned by the pod
            cls = rng.choice(["local", "late", "fast"])
            vols.append(
                {
                    "name": "scratch",
                    "ephemeral": {
                        "volumeClaimTemplate": {
                            "spec": {
                                "accessModes": ["ReadWriteOnce"],
                                "storageClassName": cls,
                                "resources": {"requests": {"storage": "1Gi"}},
                            }
                        }
                    },
                }
            )
            if rng.random() < 0.8:  # else the ephemeral volume controller has not created it yet
                claim_meta: dict[str, Any] = {"name": f"p{i}-scratch", "namespace": "default", "uid": f"pvc-eph-{i}"}
                if rng.random() < 0.9:
                    claim_meta["ownerReferences"] = [
                        {"apiVersion": "v1", "kind": "Pod", "name": f"p{i}", "uid": f"uid-default-p{i}", "controller": True}
                    ]
                objs.append(
                    {
                        "apiVersion": "v1",
                        "kind": "PersistentVolumeClaim",
                        "metadata": claim_meta,
                        "spec": {
                            "accessModes": ["ReadWriteOnce"],
                            "storageClassName": cls,
                            "volumeMode": "Filesystem",
                            "resources": {"requests": {"storage": "1Gi"}},
                        },
                        "status": {"phase": "Pending"},
                    }
                )
        pending.append(seq.pod(f"p{i}", [o.container(cpu_m=cpu, mem_mi=mem)], volumes=vols or None))
    return Case("volumes", seed, objs + nodes + bound + pending, o.config())


GANG_GATES = "GenericWorkload=true,GangScheduling=true"


def gen_gangs(rng: random.Random, seed: int) -> Case:
    """1.35 Workload pod groups (GenericWorkload, GangScheduling): gangs that fit, gangs short of
    pods or of room (Permit waits until the run ends), basic groups, pods of missing groups."""
    return _gang_cluster(rng, seed, pod_group_objects=False)


def gen_pod_groups(rng: random.Random, seed: int) -> Case:
    """The gangs category at 1.36: the same clusters (same seed, same draws) with 1.36's API, one
    scheduling.k8s.io/v1alpha2 PodGroup per group and pods naming it in
    spec.schedulingGroup.podGroupName (1.35's Workload and spec.workloadRef do not exist there)."""
    return _gang_cluster(rng, seed, pod_group_objects=True)


def _gang_cluster(rng: random.Random, seed: int, pod_group_objects: bool) -> Case:
    zones = _zones(rng, rng.randint(1, 3))
    nodes = _nodes(rng, rng.randint(2, 12), zones, width=2, pods=(4, 30))
    seq = o.PodSeq()
    bound = _bound(rng, seq, nodes, rng.randint(0, len(nodes)))
    objs: list[dict] = []
    pending: list[dict] = []
    singles = 0
    for w in range(rng.randint(1, 4)):
        groups = []
        for g in range(rng.randint(1, 2)):
            policy = {"gang": {"minCount": rng.randint(1, 5)}} if rng.random() < 0.8 else {"basic": {}}
            groups.append({"name": f"g{g}", "policy": policy})
        if rng.random() > 0.1:  # sometimes the Workload (1.36: the PodGroup objects) is missing
            if pod_group_objects:
                objs += [
                    {
                        "apiVersion": "scheduling.k8s.io/v1alpha2",
                        "kind": "PodGroup",
                        "metadata": {"name": f"job{w}-{g['name']}", "namespace": "default"},
                        "spec": {"schedulingPolicy": g["policy"]},
                    }
                    for g in groups
                ]
            else:
                objs.append(
                    {
                        "apiVersion": "scheduling.k8s.io/v1alpha1",
                        "kind": "Workload",
                        "metadata": {"name": f"job{w}", "namespace": "default"},
                        "spec": {"podGroups": groups},
                    }
                )
        for g in groups:
            mc = g["policy"].get("gang", {}).get("minCount", 2)
            count = max(0, mc + rng.choice([-1, 0, 0, 1, 2]))
            big = rng.random() < 0.3
            for k in range(count):
                name = g["name"] if rng.random() > 0.05 else "nogroup"
                cpu, mem = _req(rng, big=big)
                ref: dict[str, Any] = (
                    {"schedulingGroup": {"podGroupName": f"job{w}-{name}"}}
                    if pod_group_objects
                    else {"workloadRef": {"name": f"job{w}", "podGroup": name}}
                )
                pending.append(seq.pod(f"w{w}-{g['name']}-{k}", [o.container(cpu_m=cpu, mem_mi=mem)], **ref))
        for _ in range(rng.randint(0, 3)):
            cpu, mem = _req(rng)
            pending.append(seq.pod(f"solo{singles}", [o.container(cpu_m=cpu, mem_mi=mem)]))
            singles += 1
    objs += gang_extras(seed, nodes, bound, pending)
    return Case("gangs", seed, objs + nodes + bound + pending, o.config(), gates=GANG_GATES)


def _constrain(rng: random.Random, pod: dict, apps: list[str], claims: list[str]) -> None:
    """Constraints preemption must reason about: host ports, required anti-affinity, spread,
    a ReadWriteOncePod claim."""
    spec = pod["spec"]
    if rng.random() < 0.2:
        spec["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": rng.choice([80, 443]), "protocol": "TCP"}]
    if rng.random() < 0.2:
        spec["affinity"] = {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"topologyKey": rng.choice([HOSTNAME, ZONE]), "labelSelector": {"matchLabels": {"app": rng.choice(apps)}}}
                ]
            }
        }
    if rng.random() < 0.15:
        spec["topologySpreadConstraints"] = [
            {
                "maxSkew": 1,
                "topologyKey": rng.choice([HOSTNAME, ZONE]),
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": pod["metadata"]["labels"]["app"]}},
            }
        ]
    if claims and rng.random() < 0.15:
        spec["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": rng.choice(claims)}}]


def _rwop_claims(rng: random.Random, n: int) -> tuple[list[dict], list[str]]:
    """Bound ReadWriteOncePod claims (with their PVs), usable from any node."""
    objs, names = [], []
    for i in range(n):
        name = f"rwop{i}"
        objs.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolume",
                "metadata": {"name": f"pv-{name}"},
                "spec": {
                    "capacity": {"storage": "1Gi"},
                    "accessModes": ["ReadWriteOncePod"],
                    "persistentVolumeReclaimPolicy": "Retain",
                    "volumeMode": "Filesystem",
                    "csi": {"driver": CSI, "volumeHandle": name},
                    "claimRef": {
                        "kind": "PersistentVolumeClaim",
                        "namespace": "default",
                        "name": name,
                        "uid": f"uid-{name}",
                        "apiVersion": "v1",
                    },
                },
                "status": {"phase": "Bound"},
            }
        )
        objs.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {
                    "name": name,
                    "namespace": "default",
                    "uid": f"uid-{name}",
                    "annotations": {"pv.kubernetes.io/bind-completed": "yes"},
                },
                "spec": {
                    "accessModes": ["ReadWriteOncePod"],
                    "volumeName": f"pv-{name}",
                    "storageClassName": "",
                    "resources": {"requests": {"storage": "1Gi"}},
                    "volumeMode": "Filesystem",
                },
                "status": {"phase": "Bound", "accessModes": ["ReadWriteOncePod"], "capacity": {"storage": "1Gi"}},
            }
        )
        names.append(name)
    return objs, names


def gen_preemption(rng: random.Random, seed: int) -> Case:
    """Priorities, PriorityClasses (with preemptionPolicy Never), PDBs, nominated pods: pods
    that fit only after preemption."""
    zones = _zones(rng, rng.randint(1, 2))
    nodes = _nodes(rng, rng.randint(2, 10), zones, width=2, pods=(3, 12))
    for nd in nodes:  # small nodes, so that they fill up
        cpu = rng.randrange(2000, 8001, 250)
        nd["status"]["allocatable"]["cpu"] = nd["status"]["capacity"]["cpu"] = o.quantity_m(cpu)
        mem = rng.randrange(2048, 8193, 256)
        nd["status"]["allocatable"]["memory"] = nd["status"]["capacity"]["memory"] = f"{mem}Mi"
    classes = [
        o.priority_class("low", 100),
        o.priority_class("mid", 1000),
        o.priority_class("high", 100000),
        o.priority_class("high-never", 50000, never=True),
    ]
    values = {"low": 100, "mid": 1000, "high": 100000, "high-never": 50000}
    seq = o.PodSeq()
    apps = ["web", "batch", "db"]
    constrained = rng.random() < 0.5
    claim_objs, claims = _rwop_claims(rng, rng.randint(1, 3)) if constrained else ([], [])
    used_claims: set[str] = set()
    bound = []
    for i in range(rng.randint(len(nodes), 4 * len(nodes))):
        nd = rng.choice(nodes)
        cls = rng.choice(["low", "low", "mid", None])
        spec: dict[str, Any] = {}
        if cls:
            spec["priorityClassName"] = cls
        bound.append(
            seq.pod(
                f"b{i}",
                [o.container(cpu_m=rng.randrange(100, 2500, 50), mem_mi=rng.randrange(128, 2048, 64))],
                node_name=nd["metadata"]["name"],
                labels={"app": rng.choice(apps)},
                priority=values.get(cls, 0) if cls else 0,
                **spec,
            )
        )
        if constrained:
            _constrain(rng, bound[-1], apps, [c for c in claims if c not in used_claims])
            bound[-1]["spec"].pop("topologySpreadConstraints", None)
            used_claims.update(v["persistentVolumeClaim"]["claimName"] for v in bound[-1]["spec"].get("volumes", []))
    for b in bound:  # some victims of an earlier preemption, still terminating
        if rng.random() < 0.08:
            b["metadata"]["deletionTimestamp"] = o.stamp(10000)
            b["metadata"]["deletionGracePeriodSeconds"] = 30
            if rng.random() < 0.7:
                b["status"]["conditions"] = [
                    {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler", "message": "preempted"}
                ]
    pdbs = []
    for i in range(rng.randint(0, 3)):
        spec = {"selector": {"matchLabels": {"app": rng.choice(apps)}}}
        if rng.random() < 0.5:
            spec["minAvailable"] = rng.randint(0, 3)
        else:
            spec["maxUnavailable"] = rng.randint(0, 2)
        pdbs.append(
            {
                "apiVersion": "policy/v1",
                "kind": "PodDisruptionBudget",
                "metadata": {"name": f"pdb{i}", "namespace": "default", "generation": 1},
                "spec": spec,
                "status": {
                    "disruptionsAllowed": rng.randint(0, 2),
                    "currentHealthy": 3,
                    "desiredHealthy": 2,
                    "expectedPods": 3,
                    "observedGeneration": 1,
                },
            }
        )
    pending = []
    names = [n["metadata"]["name"] for n in nodes]
    for i in range(rng.randint(3, 15)):
        cls = rng.choice(["high", "high", "mid", "high-never", "low", None])
        spec = {}
        if cls:
            spec["priorityClassName"] = cls
        cpu = rng.randrange(500, 6000, 50)
        pod = seq.pod(
            f"p{i}",
            [o.container(cpu_m=cpu, mem_mi=rng.randrange(128, 4096, 64))],
            labels={"app": rng.choice(apps)},
            priority=values.get(cls, 0) if cls else 0,
            preemptionPolicy="Never" if cls == "high-never" else "PreemptLowerPriority",
            **spec,
        )
        if constrained:
            _constrain(rng, pod, apps, claims)
        if rng.random() < 0.2:
            pod["status"]["nominatedNodeName"] = rng.choice(names)
        pending.append(pod)
    return Case("preemption", seed, classes + pdbs + claim_objs + nodes + bound + pending, o.config(preemption_extras(seed)))


IMAGES = [(f"registry.example.com/app{i}:v1", size) for i, size in enumerate([30, 200, 450, 800, 1200, 2500, 4000])]


def _mixed_pod(
    rng: random.Random,
    seq: o.PodSeq,
    name: str,
    nodes: list[dict],
    zones: list[str],
    nss: list[str],
    apps: list[str],
    profiles: list[str],
    node_name: str | None = None,
) -> dict:
    cpu, mem = _req(rng)
    image = rng.choice(IMAGES)[0] if rng.random() < 0.6 else "app:1"
    cs = [
        o.container(
            "main",
            cpu_m=cpu if rng.random() < 0.95 else None,
            mem_mi=mem,
            image=image,
            ports=[{"containerPort": 80, "hostPort": rng.choice([80, 8080]), "protocol": "TCP"}] if rng.random() < 0.1 else None,
        )
    ]
    spec: dict[str, Any] = {}
    if rng.random() < 0.15:
        spec["initContainers"] = [
            o.container(
                "init",
                cpu_m=rng.randrange(0, 4000, 100),
                mem_mi=rng.randrange(0, 2048, 64),
                restart_policy="Always" if rng.random() < 0.5 else None,
            )
        ]
    aff: dict[str, Any] = {}
    if rng.random() < 0.25:
        aff = _pod_affinity(rng, nss, apps, p_req=0.3)
    if rng.random() < 0.25:
        aff["nodeAffinity"] = {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": rng.randint(1, 100),
                    "preference": {
                        "matchExpressions": [
                            {"key": "tier", "operator": rng.choice(["In", "NotIn"]), "values": [rng.choice(["web", "db"])]}
                        ]
                    },
                }
            ]
        }
        if rng.random() < 0.4:
            aff["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "tier", "operator": "Exists"}]}]
            }
    if aff:
        spec["affinity"] = aff
    app = rng.choice(apps)
    if rng.random() < 0.25:
        spec["topologySpreadConstraints"] = [
            {
                "maxSkew": rng.randint(1, 2),
                "topologyKey": rng.choice([ZONE, HOSTNAME]),
                "whenUnsatisfiable": rng.choice(["DoNotSchedule", "ScheduleAnyway"]),
                "labelSelector": {"matchLabels": {"app": app}},
            }
        ]
    if rng.random() < 0.3:
        spec["tolerations"] = [{"key": rng.choice(["dedicated", "gpu", "spot"]), "operator": "Exists"}]
    cls = rng.choice([None, None, "low", "high"])
    if cls:
        spec["priorityClassName"] = cls
    if node_name is None and len(profiles) > 1:
        spec["schedulerName"] = rng.choice(profiles)
    pod = seq.pod(
        name,
        cs,
        ns=rng.choice(nss),
        node_name=node_name,
        labels={"app": app, "version": rng.choice(["v1", "v2"])},
        priority={"low": 10, "high": 1000}.get(cls or "", 0),
        **spec,
    )
    if node_name and rng.random() < 0.05:
        pod["metadata"]["deletionTimestamp"] = o.stamp(10000)  # terminating: still on its node
        pod["metadata"]["deletionGracePeriodSeconds"] = 30
    if node_name and rng.random() < 0.05:
        pod["status"]["phase"] = rng.choice(["Succeeded", "Failed"])  # uses nothing
    if node_name is None and rng.random() < 0.05:
        pod["status"]["nominatedNodeName"] = rng.choice(nodes)["metadata"]["name"]
    return pod


def gen_mixed(rng: random.Random, seed: int) -> Case:
    """Everything at once on 5-60 nodes (or 100-250 with sampling): images, ports, affinity,
    spread, taints, priorities and preemption, terminating and finished pods, nominated pods,
    several profiles."""
    big = rng.random() < 0.2
    zones = _zones(rng, rng.randint(1, 4))

    def labels(r: random.Random, i: int) -> dict:
        return {"tier": r.choice(["web", "db"])} if r.random() < 0.7 else {}

    nodes = _nodes(
        rng,
        rng.randint(100, 250) if big else rng.randint(5, 60),
        zones,
        beta=0.1,
        taint_p=0.15,
        unsched_p=0.03,
        label_fn=labels,
        width=3 if big else 2,
        pods=(5, 60),
    )
    for nd in nodes:
        if rng.random() < 0.5:
            imgs = rng.sample(IMAGES, rng.randint(1, 4))
            nd["status"]["images"] = [{"names": [n], "sizeBytes": size * 1024 * 1024} for n, size in imgs]
    nss = ["default", "team-a", "team-b"]
    apps = ["web", "db", "cache"]
    objs = [
        o.namespace("default"),
        o.namespace("team-a", {"team": "a"}),
        o.namespace("team-b", {"team": "b"}),
        o.priority_class("low", 10),
        o.priority_class("high", 1000),
    ]
    profiles = ["default-scheduler"]
    plugins: dict[str, Any] = {}
    if rng.random() < 0.4:  # other weights for some score plugins
        score_names = [
            "TaintToleration",
            "NodeAffinity",
            "NodeResourcesFit",
            "NodeResourcesBalancedAllocation",
            "ImageLocality",
            "InterPodAffinity",
            "PodTopologySpread",
        ]
        plugins["score"] = {"enabled": [{"name": n, "weight": rng.randint(1, 10)} for n in rng.sample(score_names, rng.randint(1, 4))]}
    if rng.random() < 0.2:  # some plugins off
        off = rng.sample(["ImageLocality", "NodeResourcesBalancedAllocation", "TaintToleration", "InterPodAffinity"], rng.randint(1, 2))
        plugins["multiPoint"] = {"disabled": [{"name": n} for n in off]}
    cfg_profiles = [_profile(plugins=plugins or None, percentage=rng.choice([None, 10, 50]) if big else None)]
    if rng.random() < 0.4:
        cfg_profiles.append(
            _profile(
                "spread-heavy",
                args=[
                    {
                        "name": "PodTopologySpread",
                        "args": {
                            "defaultingType": "List",
                            "defaultConstraints": [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway"}],
                        },
                    }
                ],
                plugins={"score": {"enabled": [{"name": "PodTopologySpread", "weight": 5}]}},
            )
        )
        profiles.append("spread-heavy")
    seq = o.PodSeq()
    bound = [
        _mixed_pod(rng, seq, f"b{i}", nodes, zones, nss, apps, profiles, rng.choice(nodes)["metadata"]["name"])
        for i in range(rng.randint(0, 2 * len(nodes)))
    ]
    pending = [_mixed_pod(rng, seq, f"p{i}", nodes, zones, nss, apps, profiles) for i in range(rng.randint(5, 40))]
    for prev, pod in zip(pending, pending[1:]):  # timestamps have a one-second resolution: ties
        if rng.random() < 0.3:
            pod["metadata"]["creationTimestamp"] = prev["metadata"]["creationTimestamp"]
    cfg = o.config(cfg_profiles, parallelism=1 if big else None)
    modes = ("sample", "explain") if big else ("sequential", "explain")
    return Case("mixed", seed, objs + nodes + bound + pending, cfg, modes=modes, explain_limit=8 if big else 12)


GENERATORS: dict[str, Callable[[random.Random, int], Case]] = {
    "sampling": gen_sampling,
    "explain-sampling": gen_explain_sampling,
    "taints": gen_taints,
    "nodeaffinity": gen_nodeaffinity,
    "spread": gen_spread,
    "interpod": gen_interpod,
    "resources": gen_resources,
    "volumes": gen_volumes,
    "gangs": gen_gangs,
    "preemption": gen_preemption,
    "mixed": gen_mixed,
    "owners": gen_owners,
    "images": gen_images,
    "sampling-large": gen_sampling_large,
}


# Where a category's objects differ by release (same seed, same cluster shape, the release's API).
RELEASE_GENERATORS: dict[str, dict[str, Callable[[random.Random, int], Case]]] = {
    "1.36": {"gangs": gen_pod_groups},
}

# Categories that are not compared at a release, and why (printed by the runner).
SKIPPED: dict[tuple[str, str], str] = {}


def generate(category: str, seed: int, release: str = "1.35") -> Case:
    """The category's cluster for this seed, in the objects of the given release."""
    rng = random.Random(f"{category}/{seed}")
    gen = RELEASE_GENERATORS.get(release, {}).get(category, GENERATORS[category])
    case = gen(rng, seed)
    case.release = release
    return case


# --- Dynamic Resource Allocation ------------------------------------------------------------------


def _dra(category: str) -> Callable[[random.Random, int], Case]:
    """tools/dradiff's DRA clusters (devices, classes, claims, templates; its categories and
    gates) under this runner's comparisons. `python -m tools.dradiff` runs the same clusters and
    also compares the devices each claim gets."""

    def gen(rng: random.Random, seed: int) -> Case:
        from tools.dradiff.generate import CATEGORIES
        from tools.dradiff.generate import generate as dra_generate

        return Case(f"dra-{category}", seed, dra_generate(seed, category)["items"], o.config(), gates=CATEGORIES[category])

    return gen


# Not "preempt": after a preemption whose victims had claims kschedctl frees their devices as
# kube's resourceclaim controller does, the oracle runs the scheduler alone (tools.dradiff stops
# comparing a cluster there).
for _category in ("mixed", "dealloc", "taints", "extended", "partitionable"):
    GENERATORS[f"dra-{_category}"] = _dra(_category)
