"""Categories for shapes the first generators did not make (generate.py registers them):

* ``owners``: default spreading. Pods without topologySpreadConstraints are spread by the
  profile's default constraints (the system defaults, or a ``List`` of the profile's own) over
  the pods selected by the Services that select them and by their controller (ReplicaSet,
  StatefulSet, ReplicationController; some controllers missing, some pods with none).
* ``images``: ImageLocality's image names: tags, digests, untagged names (``:latest``), Docker
  Hub short names, registries with ports, init containers, images on few or many nodes.
* ``sampling-large``: 2,000-2,600 nodes with adaptive percentageOfNodesToScore (unset or 0,
  and a second profile with its own percentage), ``-sample`` sequential runs.

plus extra draws for ``resources`` (hugepages, NodeResourcesFit ignoredResources and
ignoredResourceGroups) and ``preemption`` (DefaultPreemption minCandidateNodes* arguments),
taken from a random generator of their own so that the existing draws, and so the clusters of
every earlier seed, stay the same.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

from . import objects as o
from .objects import HOSTNAME, ZONE

# --- owners -------------------------------------------------------------------------------------

OWNER_KINDS = {
    "ReplicaSet": "apps/v1",
    "StatefulSet": "apps/v1",
    "ReplicationController": "v1",
}


def _template(labels: dict[str, str]) -> dict:
    return {"metadata": {"labels": dict(labels)}, "spec": {"containers": [{"name": "c", "image": "app:1"}]}}


def _controller(kind: str, name: str, ns: str, labels: dict[str, str], rng: random.Random) -> dict:
    """A controller selecting ``labels`` (ReplicaSet and StatefulSet sometimes with a
    matchExpressions requirement as well), as the API server stores it."""
    meta = {"name": name, "namespace": ns, "uid": f"uid-{kind}-{ns}-{name}", "creationTimestamp": o.stamp(0)}
    if kind == "ReplicationController":
        spec: dict[str, Any] = {"replicas": 3, "selector": dict(labels), "template": _template(labels)}
    else:
        selector: dict[str, Any] = {"matchLabels": dict(labels)}
        if rng.random() < 0.3:
            selector["matchExpressions"] = [{"key": "version", "operator": "In", "values": ["v1", "v2"]}]
        spec = {"replicas": 3, "selector": selector, "template": _template({**labels, "version": "v1"})}
        if kind == "StatefulSet":
            spec["serviceName"] = name
    return {"apiVersion": OWNER_KINDS[kind], "kind": kind, "metadata": meta, "spec": spec}


def _service(name: str, ns: str, selector: dict[str, str] | None) -> dict:
    spec: dict[str, Any] = {"type": "ClusterIP", "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}]}
    if selector is not None:
        spec["selector"] = selector
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": ns, "uid": f"uid-svc-{ns}-{name}"}, "spec": spec}


def gen_owners(rng: random.Random, seed: int) -> Any:
    """Services, ReplicaSets, StatefulSets and ReplicationControllers selecting the pods; pods
    without spread constraints, so that PodTopologySpread's default constraints apply."""
    from .generate import Case, _nodes, _profile

    zones = _zones(rng)
    nodes = _nodes(rng, rng.randint(4, 24), zones, width=2, pods=(10, 60))
    for nd in nodes:  # some nodes without a zone: they are not counted in the zone constraint
        if rng.random() < 0.1:
            nd["metadata"]["labels"].pop(ZONE, None)
    nss = ["default", "team-a"]
    objs: list[dict] = [o.namespace("default"), o.namespace("team-a", {"team": "a"})]
    # each app: its namespace, its controller kind (None: no controller), whether a Service
    # selects it, whether the controller object exists
    apps = []
    for app in ("web", "db", "cache", "batch", "api"):
        ns = rng.choice(nss)
        kind = rng.choice([*OWNER_KINDS, None])
        labels = {"app": app}
        if kind and rng.random() < 0.9:
            objs.append(_controller(kind, f"{app}-{kind.lower()}", ns, labels, rng))
        if rng.random() < 0.6:
            sel = dict(labels) if rng.random() < 0.8 else {"app": app, "tier": rng.choice(["front", "back"])}
            objs.append(_service(f"{app}-svc", ns if rng.random() < 0.9 else rng.choice(nss), sel))
        apps.append((app, ns, kind))
    if rng.random() < 0.3:
        objs.append(_service("no-selector", "default", None))  # selects nothing
    seq = o.PodSeq()

    def pod(name: str, node_name: str | None) -> dict:
        app, ns, kind = rng.choice(apps)
        cpu = rng.randrange(100, 3000, 50)
        labels = {"app": app, "version": rng.choice(["v1", "v2"])}
        if rng.random() < 0.2:
            labels["tier"] = rng.choice(["front", "back"])
        spec: dict[str, Any] = {}
        if node_name is None and rng.random() < 0.15:  # explicit constraints: no defaults for this pod
            spec["topologySpreadConstraints"] = [
                {
                    "maxSkew": 1,
                    "topologyKey": rng.choice([ZONE, HOSTNAME]),
                    "whenUnsatisfiable": rng.choice(["DoNotSchedule", "ScheduleAnyway"]),
                    "labelSelector": {"matchLabels": {"app": app}},
                }
            ]
        p = seq.pod(name, [o.container(cpu_m=cpu, mem_mi=rng.randrange(64, 4096, 64))], ns=ns, node_name=node_name, labels=labels, **spec)
        if kind and rng.random() < 0.9:
            p["metadata"]["ownerReferences"] = [
                {
                    "apiVersion": OWNER_KINDS[kind],
                    "kind": kind,
                    "name": f"{app}-{kind.lower()}",
                    "uid": f"uid-{kind}-{ns}-{app}-{kind.lower()}",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ]
        return p

    bound = [pod(f"b{i}", rng.choice(nodes)["metadata"]["name"]) for i in range(rng.randint(len(nodes), 4 * len(nodes)))]
    pending = [pod(f"p{i}", None) for i in range(rng.randint(6, 25))]
    profiles = None
    r = rng.random()
    if r < 0.35:  # the profile's own defaults, sometimes a hard one
        constraints = [
            {"maxSkew": rng.randint(1, 3), "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway"},
            {"maxSkew": rng.randint(1, 4), "topologyKey": HOSTNAME, "whenUnsatisfiable": rng.choice(["ScheduleAnyway", "DoNotSchedule"])},
        ]
        args = {"defaultingType": "List", "defaultConstraints": rng.sample(constraints, rng.randint(1, 2))}
        profiles = [_profile(args=[{"name": "PodTopologySpread", "args": args}])]
    elif r < 0.5:  # no defaults at all
        profiles = [_profile(args=[{"name": "PodTopologySpread", "args": {"defaultingType": "List"}}])]
    return Case("owners", seed, objs + nodes + bound + pending, o.config(profiles))


def _zones(rng: random.Random) -> list[str]:
    return [f"zone-{c}" for c in "abcd"[: rng.randint(1, 4)]]


# --- images -------------------------------------------------------------------------------------


def _digest(name: str) -> str:
    return "sha256:" + hashlib.sha256(name.encode()).hexdigest()


# (the names a node reports for one image, the names pods may use for it, size in MiB)
def _image_set(rng: random.Random) -> list[tuple[list[str], list[str], int]]:
    out = []
    for repo, short in (
        ("docker.io/library/nginx", "nginx"),
        ("docker.io/library/redis", "redis"),
        ("docker.io/bitnami/postgresql", "bitnami/postgresql"),
        ("registry.example.com/team/app", None),
        ("registry.example.com:5000/batch", None),
        ("quay.io/org/tool", None),
    ):
        tag = rng.choice(["latest", "1.2", "v3.4.5"])
        digest = _digest(f"{repo}:{tag}")
        node_names = [f"{repo}:{tag}", f"{repo}@{digest}"]
        pod_names = [f"{repo}:{tag}", f"{repo}@{digest}"]
        if short:
            pod_names += [f"{short}:{tag}", f"docker.io/{short}:{tag}"]
            if tag == "latest":
                pod_names.append(short)  # untagged: ":latest"
            if rng.random() < 0.4:
                node_names.append(f"{short}:{tag}")  # some runtimes also report the short name
        elif tag == "latest":
            pod_names.append(repo)
        size = rng.choice([5, 40, 300, 900, 2500, 6000])
        out.append((node_names, pod_names, size))
    return out


def gen_images(rng: random.Random, seed: int) -> Any:
    """ImageLocality: the same images named by tag, digest, short Docker Hub name or no tag, on
    few or many nodes; pods with one to three containers and init containers."""
    from .generate import Case, _nodes, _profile

    nodes = _nodes(rng, rng.randint(3, 30), ["zone-a", "zone-b"], width=2)
    images = _image_set(rng)
    for nd in nodes:
        have = rng.sample(images, rng.randint(0, len(images)))
        nd["status"]["images"] = [{"names": list(names), "sizeBytes": size * 1024 * 1024} for names, _, size in have]
        if rng.random() < 0.2:  # an image the node has under a name no pod uses
            nd["status"]["images"].append({"names": ["registry.example.com/other:9"], "sizeBytes": 700 * 1024 * 1024})
    seq = o.PodSeq()
    pending = []
    for i in range(rng.randint(5, 20)):
        cs = []
        for j in range(rng.randint(1, 3)):
            _, pod_names, _ = rng.choice(images)
            cs.append(
                o.container(f"c{j}", cpu_m=rng.randrange(50, 2000, 50), mem_mi=rng.randrange(64, 2048, 64), image=rng.choice(pod_names))
            )
        spec: dict[str, Any] = {}
        if rng.random() < 0.3:
            _, pod_names, _ = rng.choice(images)
            spec["initContainers"] = [o.container("init", cpu_m=100, image=rng.choice(pod_names))]
        pending.append(seq.pod(f"p{i}", cs, **spec))
    profiles = None
    if rng.random() < 0.4:  # ImageLocality weighs more, so that it decides
        profiles = [_profile(plugins={"score": {"enabled": [{"name": "ImageLocality", "weight": rng.randint(2, 10)}]}})]
    return Case("images", seed, nodes + pending, o.config(profiles))


# --- 2,000+ nodes ---------------------------------------------------------------------------------


def gen_sampling_large(rng: random.Random, seed: int) -> Any:
    """2,000-2,600 nodes, adaptive percentageOfNodesToScore (unset or 0: 50 - nodes/125 percent,
    at least 5 percent or 100 nodes), sometimes a second profile with its own percentage;
    sequential runs through the real SchedulePod (-sample, parallelism 1)."""
    from .generate import Case, _bound, _nodes, _profile, _req

    n = rng.randint(2000, 2600)
    zones = [f"zone-{c}" for c in "abcdefgh"[: rng.randint(1, 8)]]
    nodes = _nodes(rng, n, zones, taint_p=0.05, unsched_p=0.01, width=4)
    seq = o.PodSeq()
    bound = _bound(rng, seq, nodes, rng.randint(0, n // 2))
    profiles = [_profile()]
    names = ["default-scheduler"]
    if rng.random() < 0.5:
        profiles.append(_profile("other", percentage=rng.choice([0, 3, 20])))
        names.append("other")
    pending = []
    for i in range(rng.randint(8, 16)):
        cpu, mem = _req(rng, big=rng.random() < 0.2)
        spec: dict[str, Any] = {"schedulerName": rng.choice(names)}
        if rng.random() < 0.2:
            spec["nodeSelector"] = {ZONE: rng.choice(zones)}
        pending.append(seq.pod(f"p{i}", [o.container(cpu_m=cpu, mem_mi=mem)], **spec))
    cfg = o.config(profiles, percentage=rng.choice([None, 0]), parallelism=1)
    return Case("sampling-large", seed, nodes + bound + pending, cfg, modes=("sample",), notes=[f"{n} nodes"])


# --- extra draws for existing categories ----------------------------------------------------------


def resources_extras(seed: int, objects: list[dict], profiles: list | None) -> list | None:
    """hugepages on some nodes and pods (requests equal to limits, as validation wants), and
    NodeResourcesFit ignoredResources / ignoredResourceGroups in some profiles. Draws from a
    generator of its own: the category's other draws are unchanged."""
    from .generate import _profile

    rng = random.Random(f"resources-extra/{seed}")
    for x in objects:
        if x["kind"] == "Node" and rng.random() < 0.4:
            for size, amount in (("hugepages-2Mi", f"{rng.choice([0, 256, 1024])}Mi"), ("hugepages-1Gi", f"{rng.choice([0, 1, 2])}Gi")):
                x["status"]["allocatable"][size] = x["status"]["capacity"][size] = amount
        elif x["kind"] == "Pod" and rng.random() < 0.2 and "resources" not in x["spec"]:  # not with pod-level resources
            c = x["spec"]["containers"][0]
            req = c["resources"].setdefault("requests", {})
            req.setdefault("memory", "64Mi")  # hugepages need a cpu or memory request
            size, amount = rng.choice([("hugepages-2Mi", f"{rng.choice([2, 64, 512])}Mi"), ("hugepages-1Gi", "1Gi")])
            req[size] = amount
            c["resources"].setdefault("limits", {})[size] = amount
    if rng.random() < 0.3:
        args = {"ignoredResources": ["example.com/gpu"]} if rng.random() < 0.5 else {"ignoredResourceGroups": ["example.com"]}
        fit = {"name": "NodeResourcesFit", "args": args}
        if profiles:
            for p in profiles:
                cfg = p.setdefault("pluginConfig", [])
                for entry in cfg:
                    if entry["name"] == "NodeResourcesFit":
                        entry["args"].update(args)
                        break
                else:
                    cfg.append(fit)
        else:
            profiles = [_profile(args=[fit])]
    return profiles


def preemption_extras(seed: int) -> list | None:
    """DefaultPreemption arguments in some clusters: how many nodes' candidates are evaluated
    (minCandidateNodesPercentage / minCandidateNodesAbsolute). kube starts from a random node
    when that is fewer than all: the runner then accepts any of kube's picks."""
    from .generate import _profile

    rng = random.Random(f"preemption-extra/{seed}")
    if rng.random() >= 0.3:
        return None
    args = {"minCandidateNodesPercentage": rng.choice([0, 10, 50, 100]), "minCandidateNodesAbsolute": rng.choice([0, 1, 3, 100])}
    if args["minCandidateNodesPercentage"] == 0 and args["minCandidateNodesAbsolute"] == 0:
        args["minCandidateNodesAbsolute"] = 1  # validation: not both 0
    return [_profile(args=[{"name": "DefaultPreemption", "args": args}])]


def gang_extras(seed: int, nodes: list[dict], bound: list[dict], pending: list[dict]) -> list[dict]:
    """Priorities in some gangs clusters, so that members preempt: half the groups (and some
    single pods) get the PriorityClass "high", some bound pods "mid", and priority-0 pods fill
    some nodes; the rest stays at 0. At 1.36
    a member whose preemption nominates a node is assumed there in the group's cycle and the
    group then waits for the preemption ("pod group is waiting for preemption to complete").
    The PriorityClasses are returned; the pods are changed in place."""
    rng = random.Random(f"gangs-extra/{seed}")
    if rng.random() >= 0.35:
        return []

    def group(p: dict) -> str:
        spec = p["spec"]
        if "schedulingGroup" in spec:
            return str(spec["schedulingGroup"]["podGroupName"])
        ref = spec.get("workloadRef")
        return f"{ref['name']}-{ref['podGroup']}" if ref else ""

    groups = sorted({group(p) for p in pending} - {""})
    high = set(rng.sample(groups, max(1, len(groups) // 2))) if groups else set()
    for p in pending:
        g = group(p)
        if (g and g in high) or (not g and rng.random() < 0.3):
            p["spec"]["priorityClassName"], p["spec"]["priority"] = "high", 1000
    for b in bound:
        if rng.random() < 0.3:
            b["spec"]["priorityClassName"], b["spec"]["priority"] = "mid", 500
    # priority-0 pods filling half to most of some nodes: what the high members can preempt
    seq = o.PodSeq()
    for i, nd in enumerate(nodes):
        if rng.random() < 0.6:
            alloc = nd["status"]["allocatable"]
            cpu = int(float(alloc["cpu"][:-1]) if alloc["cpu"].endswith("m") else float(alloc["cpu"]) * 1000)
            mem = int(alloc["memory"][:-2])
            share = rng.uniform(0.5, 0.9)
            bound.append(
                seq.pod(
                    f"fill{i}",
                    [o.container(cpu_m=int(cpu * share) // 50 * 50, mem_mi=int(mem * share) // 64 * 64)],
                    node_name=nd["metadata"]["name"],
                )
            )
    return [o.priority_class("high", 1000), o.priority_class("mid", 500)]
