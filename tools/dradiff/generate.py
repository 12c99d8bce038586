"""Seeded DRA clusters shaped like what the API server stores.

Nodes with GPU and NIC ResourceSlices (one pool per node and driver, so that pool order, which
1.35 leaves to a Go map, never matters), a network-attached pool of another driver, DeviceClasses
(some with selectors that fail at runtime on devices lacking an attribute), pods with direct and
template claims (the template claims created as the resourceclaim controller does: owned by the
pod, named in pod.status.resourceClaimStatuses), requests with counts, CEL selectors on
attributes and capacity, prioritized lists, All mode, matchAttribute constraints, admin access,
claims already allocated to bound pods, claims shared by two pods, and broken references
(missing class, missing claim, claim not owned by the pod).
"""

from __future__ import annotations

import random
from typing import Any

GPU, NIC, FABRIC = "gpu.example.com", "nic.example.com", "fabric.example.com"
MODELS = {"a100": "40Gi", "h100": "80Gi", "l4": "24Gi"}
STAMP0 = 1_700_000_000


def _stamp(i: int) -> str:
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(STAMP0 + i))


class Gen:
    def __init__(self, seed: int, category: str = "mixed") -> None:
        self.r = random.Random(seed)
        self.seed = seed
        self.category = category
        self.items: list[dict[str, Any]] = []
        self.clock = 0
        self.nodes: list[str] = []
        self.devices: dict[tuple[str, str], list[dict]] = {}  # (node, driver) -> devices
        self.taken: set[tuple[str, str, str]] = set()

    def tick(self) -> str:
        self.clock += 1
        return _stamp(self.clock)

    # --- cluster --------------------------------------------------------------------------
    def build(self) -> dict:
        r = self.r
        n_nodes = r.randint(2, 6)
        for i in range(n_nodes):
            name = f"n{i + 1}"
            self.nodes.append(name)
            self.items.append(
                {
                    "apiVersion": "v1",
                    "kind": "Node",
                    "metadata": {
                        "name": name,
                        "uid": f"node-{name}",
                        "creationTimestamp": self.tick(),
                        "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": r.choice("ab")},
                    },
                    "status": {
                        "allocatable": {"cpu": str(r.choice([4, 8, 16])), "memory": "32Gi", "pods": "110"},
                        "capacity": {"cpu": "16", "memory": "32Gi", "pods": "110"},
                    },
                }
            )
            if self.category == "partitionable":
                self._partitioned_slices(name)
            else:
                self._node_slice(name, GPU, r.randint(0, 6), gpu=True, taints=self.category == "taints")
            if r.random() < 0.5:
                self._node_slice(name, NIC, r.randint(1, 3), gpu=False)
        if r.random() < 0.4:
            self._fabric_slice()
        self._classes()
        self._bound_pods()
        if self.category == "dealloc":
            self._stale_allocations()
        if self.category == "extended":
            self._extended_resources()
        for i in range(r.randint(3, 10)):
            self._pending_pod(i)
        return {"apiVersion": "v1", "kind": "List", "items": self.items}

    def _stale_allocations(self) -> None:
        """Claims allocated on a node but reserved for nobody (or for the pod about to use
        them), which a pending pod uses and cannot run on: PostFilter deallocates them."""
        r = self.r
        for i in range(r.randint(1, 3)):
            node = r.choice(self.nodes)
            free = [d for d in self.devices.get((node, GPU), []) if (node, GPU, d["name"]) not in self.taken]
            if not free:
                continue
            d = r.choice(free)
            self.taken.add((node, GPU, d["name"]))
            name, uid = f"stale-{i}", f"pod-stale-{i}"
            allocation = {
                "devices": {"results": [{"request": "req-0", "driver": GPU, "pool": node, "device": d["name"]}]},
                "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]},
            }
            claim = f"{name}-gpu"
            reserved = [{"resource": "pods", "name": name, "uid": uid}] if r.random() < 0.3 else None
            self._claim(
                claim,
                {
                    "devices": {
                        "requests": [{"name": "req-0", "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}}]
                    }
                },
                owner={"name": name, "uid": uid, "claim": "gpu"},
                allocation=allocation,
                reserved=reserved,
            )
            # the pod cannot run on that node: it asks for more cpu than the node has
            pod = self._pod(
                name,
                uid,
                claims=[{"name": "gpu", "resourceClaimTemplateName": "t"}],
                statuses=[{"name": "gpu", "resourceClaimName": claim}],
                cpu=r.choice(["100m", "20"]),
            )
            pod["spec"]["nodeSelector"] = {"kubernetes.io/hostname": r.choice(self.nodes)}
            self.items.append(pod)

    def _extended_resources(self) -> None:
        """A DeviceClass mapping an extended resource; some nodes offer it by a device plugin."""
        self.items.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "DeviceClass",
                "metadata": {"name": "gpu-ext", "uid": "class-gpu-ext", "creationTimestamp": self.tick()},
                "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{GPU}"'}}], "extendedResourceName": "example.com/gpu"},
            }
        )
        for item in self.items:
            if item["kind"] == "Node" and self.r.random() < 0.3:
                item["status"]["allocatable"]["example.com/gpu"] = str(self.r.choice([0, 2]))
        for i in range(self.r.randint(1, 4)):
            name, uid = f"ext-{i}", f"pod-ext-{i}"
            pod = self._pod(name, uid)
            key = self.r.choice(["example.com/gpu", "deviceclass.resource.kubernetes.io/gpu"])
            pod["spec"]["containers"][0]["resources"]["requests"][key] = str(self.r.randint(1, 2))
            pod["spec"]["containers"][0]["resources"]["limits"] = {key: pod["spec"]["containers"][0]["resources"]["requests"][key]}
            self.items.append(pod)

    def _node_slice(self, node: str, driver: str, count: int, gpu: bool, taints: bool = False) -> None:
        r = self.r
        devices = []
        for i in range(count):
            extra: dict[str, Any] = {}
            if taints and r.random() < 0.4:
                extra["taints"] = [
                    {"key": "maintenance", "value": r.choice(["soon", "now"]), "effect": r.choice(["NoSchedule", "NoExecute", "None"])}
                ]
            attrs: dict[str, Any] = {}
            capacity: dict[str, Any] = {}
            if gpu:
                model = r.choice(list(MODELS))
                attrs["model"] = {"string": model}
                attrs["numa"] = {"int": r.choice([0, 1])}
                if r.random() < 0.7:
                    attrs["healthy"] = {"bool": r.random() < 0.9}
                attrs["driverVersion"] = {"version": r.choice(["1.2.3", "2.0.0", "2.1.0"])}
                capacity["memory"] = {"value": MODELS[model]}
            else:
                attrs["speed"] = {"int": r.choice([25, 100])}
                attrs["numa"] = {"int": r.choice([0, 1])}
            devices.append(
                {"name": f"{'gpu' if gpu else 'nic'}-{i}", "attributes": attrs, **({"capacity": capacity} if capacity else {}), **extra}
            )
        self.devices[(node, driver)] = devices
        if not devices and r.random() < 0.5:
            return  # no slice at all
        self.items.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": f"{node}-{driver.split('.')[0]}", "uid": f"slice-{node}-{driver}", "creationTimestamp": self.tick()},
                "spec": {
                    "driver": driver,
                    "nodeName": node,
                    "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                    "devices": devices,
                },
            }
        )

    def _partitioned_slices(self, node: str) -> None:
        """One pool in two slices: the GPUs' shared counters, and devices that consume them
        (the whole GPU, or halves and quarters of it)."""
        r = self.r
        gpus = r.randint(1, 2)
        counter_sets, devices = [], []
        for g in range(gpus):
            counter_sets.append({"name": f"gpu-{g}-counters", "counters": {"memory": {"value": "80Gi"}, "slices": {"value": "4"}}})
            for name, mem, sl in (
                (f"gpu-{g}", "80Gi", "4"),
                (f"gpu-{g}-half-0", "40Gi", "2"),
                (f"gpu-{g}-half-1", "40Gi", "2"),
                (f"gpu-{g}-quarter-0", "20Gi", "1"),
            ):
                devices.append(
                    {
                        "name": name,
                        "attributes": {"model": {"string": "h100"}, "numa": {"int": g}},
                        "capacity": {"memory": {"value": mem}},
                        "consumesCounters": [
                            {"counterSet": f"gpu-{g}-counters", "counters": {"memory": {"value": mem}, "slices": {"value": sl}}}
                        ],
                    }
                )
        self.devices[(node, GPU)] = devices
        pool = {"name": node, "generation": 1, "resourceSliceCount": 2}
        self.items.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": f"{node}-gpu-counters", "uid": f"slice-{node}-counters", "creationTimestamp": self.tick()},
                "spec": {"driver": GPU, "nodeName": node, "pool": pool, "sharedCounters": counter_sets},
            }
        )
        self.items.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": f"{node}-gpu", "uid": f"slice-{node}-gpu", "creationTimestamp": self.tick()},
                "spec": {"driver": GPU, "nodeName": node, "pool": dict(pool), "devices": devices},
            }
        )

    def _fabric_slice(self) -> None:
        devices = [{"name": f"link-{i}", "attributes": {"bandwidth": {"int": 100}}} for i in range(self.r.randint(1, 3))]
        self.devices[("*", FABRIC)] = devices
        spec: dict[str, Any] = {"driver": FABRIC, "pool": {"name": "fabric", "generation": 1, "resourceSliceCount": 1}, "devices": devices}
        if self.r.random() < 0.5:
            spec["allNodes"] = True
        else:
            zone = self.r.choice("ab")
            spec["nodeSelector"] = {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": [zone]}]}]
            }
        self.items.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": "fabric", "uid": "slice-fabric", "creationTimestamp": self.tick()},
                "spec": spec,
            }
        )

    def _classes(self) -> None:
        def cls(name: str, *exprs: str) -> None:
            self.items.append(
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "DeviceClass",
                    "metadata": {"name": name, "uid": f"class-{name}", "creationTimestamp": self.tick()},
                    "spec": {"selectors": [{"cel": {"expression": e}} for e in exprs]},
                }
            )

        cls("gpu", f'device.driver == "{GPU}"')
        cls("gpu-a100", f'device.driver == "{GPU}"', f'device.attributes["{GPU}"].model == "a100"')
        cls("nic", f'device.driver == "{NIC}"')
        cls("fabric", f'device.driver == "{FABRIC}"')
        if self.r.random() < 0.3:
            # fails at runtime on GPUs without the "healthy" attribute
            cls("gpu-healthy", f'device.driver == "{GPU}"', f'device.attributes["{GPU}"].healthy')

    # --- claims -----------------------------------------------------------------------------
    def _request(self, name: str) -> dict:
        r = self.r
        roll = r.random()
        if roll < 0.15:
            return {
                "name": name,
                "firstAvailable": [
                    {
                        "name": "big",
                        "deviceClassName": "gpu",
                        "count": r.randint(2, 3),
                        "selectors": [{"cel": {"expression": f'device.attributes["{GPU}"].model == "h100"'}}],
                    },
                    {"name": "small", "deviceClassName": "gpu", "count": 1},
                ],
            }
        klass = r.choices(["gpu", "gpu-a100", "nic", "fabric", "gpu-healthy", "missing-class"], [8, 2, 2, 1, 1, 0.3])[0]
        exact: dict[str, Any] = {"deviceClassName": klass}
        # (1.35.4 crashes on All requests for devices that consume counters: not generated there)
        if r.random() < 0.08 and self.category != "partitionable":
            exact["allocationMode"] = "All"
        else:
            exact["allocationMode"] = "ExactCount"
            exact["count"] = r.choice([1, 1, 1, 2, 2, 3, 4])
        if klass.startswith("gpu") and r.random() < 0.35:
            exact["selectors"] = [
                {
                    "cel": {
                        "expression": r.choice(
                            [
                                f'device.capacity["{GPU}"].memory.compareTo(quantity("32Gi")) >= 0',
                                f'device.attributes["{GPU}"].model in ["a100", "h100"]',
                                f'device.attributes["{GPU}"].driverVersion.isGreaterThan(semver("2.0.0"))',
                                f'device.attributes["{GPU}"].healthy',
                            ]
                        )
                    }
                }
            ]
        if r.random() < 0.05:
            exact["adminAccess"] = True
        if self.category == "taints" and r.random() < 0.4:
            exact["tolerations"] = [
                r.choice(
                    [
                        {"key": "maintenance", "operator": "Exists"},
                        {"key": "maintenance", "operator": "Equal", "value": "soon", "effect": "NoSchedule"},
                    ]
                )
            ]
        return {"name": name, "exactly": exact}

    def _claim_spec(self) -> dict:
        r = self.r
        requests = [self._request(f"req-{i}") for i in range(r.choices([1, 2], [4, 1])[0])]
        devices: dict[str, Any] = {"requests": requests}
        gpu_reqs = [q["name"] for q in requests if q.get("exactly", {}).get("deviceClassName", "").startswith("gpu")]
        if len(requests) == 2 and r.random() < 0.5:
            devices["constraints"] = [
                {"requests": [q["name"] for q in requests], "matchAttribute": f"{GPU}/numa" if gpu_reqs else "nic.example.com/numa"}
            ]
        elif len(gpu_reqs) == 1 and r.random() < 0.3:
            devices["constraints"] = [{"matchAttribute": f"{GPU}/model"}]
        return {"devices": devices}

    def _claim(
        self, name: str, spec: dict, owner: dict | None = None, allocation: dict | None = None, reserved: list[dict] | None = None
    ) -> dict:
        md: dict[str, Any] = {
            "name": name,
            "namespace": "default",
            "uid": f"claim-{name}",
            "creationTimestamp": self.tick(),
            "resourceVersion": "1",
        }
        if owner is not None:
            md["ownerReferences"] = [
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "name": owner["name"],
                    "uid": owner["uid"],
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ]
            md["annotations"] = {"resource.kubernetes.io/pod-claim-name": owner["claim"]}
        claim: dict[str, Any] = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": md, "spec": spec}
        if allocation is not None:
            md["finalizers"] = ["resource.kubernetes.io/delete-protection"]
            claim["status"] = {"allocation": allocation, **({"reservedFor": reserved} if reserved else {})}
        self.items.append(claim)
        return claim

    def _bound_pods(self) -> None:
        """Pods already running with claims allocated to some of their node's devices."""
        r = self.r
        for i in range(r.randint(0, 3) if self.category != "preempt" else r.randint(2, 6)):
            node = r.choice(self.nodes)
            free = [d for d in self.devices.get((node, GPU), []) if (node, GPU, d["name"]) not in self.taken]
            if not free:
                continue
            picked = r.sample(free, min(len(free), r.randint(1, 2)))
            name, uid = f"running-{i}", f"pod-running-{i}"
            for d in picked:
                self.taken.add((node, GPU, d["name"]))
            allocation = {
                "devices": {"results": [{"request": "req-0", "driver": GPU, "pool": node, "device": d["name"]} for d in picked]},
                "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]},
            }
            claim_name = f"{name}-gpu"
            self._claim(
                claim_name,
                {
                    "devices": {
                        "requests": [
                            {"name": "req-0", "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": len(picked)}}
                        ]
                    }
                },
                owner={"name": name, "uid": uid, "claim": "gpu"},
                allocation=allocation,
                reserved=[{"resource": "pods", "name": name, "uid": uid}],
            )
            pod = self._pod(
                name,
                uid,
                node=node,
                claims=[{"name": "gpu", "resourceClaimTemplateName": "t"}],
                statuses=[{"name": "gpu", "resourceClaimName": claim_name}],
                cpu="3" if self.category == "preempt" else "100m",
            )
            if self.category == "preempt":
                pod["spec"]["priority"] = r.choice([0, 10])
            self.items.append(pod)

    def _pod(
        self,
        name: str,
        uid: str,
        node: str | None = None,
        claims: list[dict] | None = None,
        statuses: list[dict] | None = None,
        cpu: str = "100m",
    ) -> dict:
        pod: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": uid, "creationTimestamp": self.tick()},
            "spec": {
                "schedulerName": "default-scheduler",
                "priority": 0,
                "containers": [
                    {"name": "c", "image": "registry.example/app:1", "resources": {"requests": {"cpu": cpu, "memory": "256Mi"}}}
                ],
            },
            "status": {"phase": "Running" if node else "Pending"},
        }
        if node:
            pod["spec"]["nodeName"] = node
            pod["status"]["startTime"] = pod["metadata"]["creationTimestamp"]
        if claims:
            pod["spec"]["resourceClaims"] = claims
        if statuses:
            pod["status"]["resourceClaimStatuses"] = statuses
        return pod

    def _pending_pod(self, i: int) -> None:
        r = self.r
        name, uid = f"p{i:02d}", f"pod-p{i:02d}"
        claims, statuses = [], []
        shared = [
            it for it in self.items if it["kind"] == "ResourceClaim" and not it["metadata"].get("ownerReferences") and "status" not in it
        ]
        for j in range(r.choices([0, 1, 2], [1, 6, 2])[0]):
            key = f"c{j}"
            roll = r.random()
            if roll < 0.25 and shared:
                claims.append({"name": key, "resourceClaimName": r.choice(shared)["metadata"]["name"]})
            elif roll < 0.45:
                cname = f"{name}-direct-{j}"
                self._claim(cname, self._claim_spec())
                claims.append({"name": key, "resourceClaimName": cname})
            elif roll < 0.48:
                claims.append({"name": key, "resourceClaimName": f"{name}-missing"})
            else:
                cname = f"{name}-{key}-gen"
                owner_uid = uid if r.random() > 0.03 else "someone-else"
                self._claim(cname, self._claim_spec(), owner={"name": name, "uid": owner_uid, "claim": key})
                claims.append({"name": key, "resourceClaimTemplateName": "gpu-template"})
                statuses.append({"name": key, "resourceClaimName": cname})
        cpu = r.choice(["100m", "500m", "1", "2"]) if r.random() > 0.1 else "12"
        pod = self._pod(name, uid, claims=claims, statuses=statuses, cpu=cpu)
        if self.category == "preempt":
            pod["spec"]["priority"] = r.choice([0, 100, 1000])
            pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = r.choice(["1", "2", "3"])
        self.items.append(pod)


# category -> the feature gates both sides run with (kube's names)
CATEGORIES: dict[str, str] = {
    "mixed": "",
    "dealloc": "",
    "taints": "DRADeviceTaints=true",
    "extended": "DRAExtendedResource=true",
    "partitionable": "DRAPartitionableDevices=true",
    "preempt": "",
}


def generate(seed: int, category: str = "mixed") -> dict:
    return Gen(seed, category).build()


__all__ = ["CATEGORIES", "generate"]


def with_template_claims(path: str) -> dict:
    """A snapshot file as one List document, with the claims kube's resourceclaim controller would
    have created for its pending pods (kschedoracle runs the scheduler alone: it needs them)."""
    import copy

    import yaml

    from kschedctl.cluster.loader import load_snapshot
    from kschedctl.dra.claimcontroller import create_template_claims

    cluster = load_snapshot([path])
    with open(path, encoding="utf-8") as fh:
        items = [copy.deepcopy(it) for it in yaml.safe_load(fh)["items"]]
    pods = {(it["metadata"].get("namespace", "default"), it["metadata"]["name"]): it for it in items if it.get("kind") == "Pod"}
    created = []
    for pod in cluster.pods:
        if not pod.node_name:
            changes = create_template_claims(pod, cluster.objects)
            pods[(pod.namespace, pod.name)]["status"] = copy.deepcopy(pod.raw.get("status") or {})
            created += [copy.deepcopy(c.raw) for c in changes.created]
    return {"apiVersion": "v1", "kind": "List", "items": items + created}
