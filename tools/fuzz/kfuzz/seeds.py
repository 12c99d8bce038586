"""Valid inputs the mutations start from: a snapshot using every kind kschedctl reads (and one
it does not), a KubeSchedulerConfiguration with args for several plugins, and a scenario.

Each seed must be accepted as it is (exit 0): tests/fuzz/test_fuzz.py checks that, so a
mutation's failure is always the mutation's doing.
"""

from __future__ import annotations

import copy
from typing import Any

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def _node(name: str, zone: str, cpu: str = "4", memory: str = "8Gi", **extra: Any) -> dict:
    alloc = {"cpu": cpu, "memory": memory, "pods": "20", "ephemeral-storage": "50Gi", **extra.pop("resources", {})}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": f"uid-node-{name}",
            "labels": {HOST: name, ZONE: zone, "tier": "web"},
            "annotations": {"note": "seed"},
        },
        "spec": extra.pop("spec", {}),
        "status": {
            "capacity": dict(alloc),
            "allocatable": alloc,
            "images": [{"names": ["registry.k8s.io/pause:3.9"], "sizeBytes": 300000}],
        },
    }


def _pod(name: str, cpu: str = "500m", memory: str = "256Mi", node: str | None = None, **spec: Any) -> dict:
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": f"uid-pod-{name}",
            "labels": {"app": "web"},
            "creationTimestamp": "2026-11-01T08:00:00Z",
        },
        "spec": {
            "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.9", "resources": {"requests": {"cpu": cpu, "memory": memory}}}],
            **spec,
        },
        "status": {"phase": "Running" if node else "Pending"},
    }
    if node:
        pod["spec"]["nodeName"] = node
    return pod


def snapshot() -> dict:
    """Every kind the scheduler reads, with most fields it reads set somewhere."""
    items: list[dict] = [
        _node(
            "n1",
            "z1",
            spec={"taints": [{"key": "dedicated", "value": "gpu", "effect": "PreferNoSchedule"}]},
            resources={"example.com/gpu": "2"},
        ),
        _node("n2", "z1"),
        _node("n3", "z2", cpu="8", memory="16Gi"),
        _node("n4", "z2", spec={"unschedulable": True}),
        _node("n5", "z3", cpu="2", memory="4Gi", spec={"taints": [{"key": "maint", "effect": "NoSchedule"}]}),
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default", "labels": {"team": "a"}}},
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "high"},
            "value": 1000,
            "preemptionPolicy": "PreemptLowerPriority",
        },
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "low"}, "value": 10, "globalDefault": True},
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "minAvailable": 1},
            "status": {"disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 2, "disruptedPods": {}},
        },
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": "fast"},
            "provisioner": "ebs.csi.aws.com",
            "volumeBindingMode": "WaitForFirstConsumer",
            "allowedTopologies": [{"matchLabelExpressions": [{"key": ZONE, "values": ["z1", "z2"]}]}],
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": "pv1", "labels": {"disk": "ssd"}},
            "spec": {
                "capacity": {"storage": "10Gi"},
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": "fast",
                "volumeMode": "Filesystem",
                "nodeAffinity": {
                    "required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["z1"]}]}]}
                },
                "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"},
            },
            "status": {"phase": "Available"},
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": "data", "namespace": "default"},
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "storageClassName": "fast",
                "resources": {"requests": {"storage": "5Gi"}},
                "selector": {"matchLabels": {"disk": "ssd"}},
            },
            "status": {"phase": "Pending"},
        },
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSINode",
            "metadata": {"name": "n1"},
            "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": "i-1", "topologyKeys": [ZONE], "allocatable": {"count": 25}}]},
        },
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSIDriver",
            "metadata": {"name": "ebs.csi.aws.com"},
            "spec": {"attachRequired": True, "storageCapacity": True},
        },
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSIStorageCapacity",
            "metadata": {"name": "cap-z1", "namespace": "default"},
            "storageClassName": "fast",
            "capacity": "100Gi",
            "maximumVolumeSize": "50Gi",
            "nodeTopology": {"matchLabels": {ZONE: "z1"}},
        },
        {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"}, "spec": {"selector": {"app": "web"}}},
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {"name": "web-rs", "namespace": "default"},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {"name": "db", "namespace": "default"},
            "spec": {"replicas": 1, "selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["db"]}]}},
        },
        {
            "apiVersion": "v1",
            "kind": "ReplicationController",
            "metadata": {"name": "legacy", "namespace": "default"},
            "spec": {"replicas": 1, "selector": {"app": "legacy"}},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {"name": "agent", "namespace": "kube-system"},
            "spec": {
                "selector": {"matchLabels": {"app": "agent"}},
                "template": {
                    "metadata": {"labels": {"app": "agent"}},
                    "spec": {
                        "hostNetwork": True,
                        "nodeSelector": {"kubernetes.io/os": "linux"},
                        "tolerations": [{"key": "dedicated", "operator": "Exists"}],
                        "containers": [{"name": "c", "image": "agent", "resources": {"requests": {"cpu": "50m"}}}],
                    },
                },
            },
        },
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "metadata": {"name": "gang", "namespace": "default"},
            "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}, "schedulingConstraints": {"topology": [{"key": ZONE}]}},
        },
        {
            "apiVersion": "scheduling.k8s.io/v1alpha1",
            "kind": "Workload",
            "metadata": {"name": "job", "namespace": "default"},
            "spec": {"podGroups": [{"name": "workers", "policy": {"gang": {"minCount": 2}}}]},
        },
        # DRA: a class, one node's devices, a template and an allocated claim (admitted like the rest)
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": "fuzz-gpu"},
            "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {"name": "n3-gpus"},
            "spec": {
                "driver": "gpu.example.com",
                "nodeName": "n3",
                "pool": {"name": "n3", "resourceSliceCount": 1, "generation": 0},
                "devices": [{"name": "gpu-0"}, {"name": "gpu-1"}],
            },
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": "one-gpu", "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "fuzz-gpu"}}]}}},
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": "held", "namespace": "default", "uid": "claim-held"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "fuzz-gpu"}}]}},
            "status": {
                "allocation": {
                    "devices": {"results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "n3", "device": "gpu-0"}]},
                    "nodeSelector": {
                        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n3"]}]}]
                    },
                }
            },
        },
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "unread", "namespace": "default"}, "data": {"key": "value"}},
        _pod("bound-a", node="n2"),
        _pod("bound-b", cpu="1", node="n3", priorityClassName="low"),
        _pod(
            "web-1",
            tolerations=[{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "PreferNoSchedule"}],
            nodeSelector={"tier": "web"},
            priorityClassName="high",
            affinity={
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["z1", "z2", "z3"]}]}]
                    },
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 10, "preference": {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["z2"]}]}}
                    ],
                },
                "podAntiAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 50, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": HOST}}
                    ]
                },
            },
            topologySpreadConstraints=[
                {
                    "maxSkew": 1,
                    "topologyKey": ZONE,
                    "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": {"matchLabels": {"app": "web"}},
                    "minDomains": 2,
                }
            ],
        ),
        _pod(
            "web-2",
            affinity={
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchExpressions": [{"key": "app", "operator": "Exists"}]}, "topologyKey": ZONE}
                    ]
                }
            },
        ),
        _pod(
            "gpu",
            cpu="1",
            containers=[
                {
                    "name": "c",
                    "image": "cuda:12",
                    "resources": {"requests": {"cpu": "1", "example.com/gpu": "1"}, "limits": {"example.com/gpu": "1"}},
                    "ports": [{"containerPort": 8080, "hostPort": 8080, "protocol": "TCP"}],
                }
            ],
            tolerations=[{"operator": "Exists"}],
        ),
        _pod(
            "with-sidecar",
            initContainers=[{"name": "proxy", "image": "envoy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "100m"}}}],
            overhead={"cpu": "50m"},
        ),
        _pod(
            "with-pvc",
            volumes=[
                {"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
                {"name": "disk", "gcePersistentDisk": {"pdName": "pd-1", "readOnly": True}},
            ],
        ),
        _pod("gated", schedulingGates=[{"name": "example.com/wait"}]),
        _pod("nominated", cpu="3", preemptionPolicy="Never"),
        _pod("huge", cpu="64"),
        _pod("other-scheduler", schedulerName="custom"),
        _pod("done", node="n1"),
    ]
    items[-1]["status"]["phase"] = "Succeeded"
    items[-4]["status"]["nominatedNodeName"] = "n3"
    return {"apiVersion": "v1", "kind": "List", "items": items}


def config() -> dict:
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "parallelism": 4,
        "percentageOfNodesToScore": 50,
        "podInitialBackoffSeconds": 1,
        "podMaxBackoffSeconds": 10,
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {
                    "score": {
                        "enabled": [{"name": "NodeResourcesBalancedAllocation", "weight": 2}],
                        "disabled": [{"name": "ImageLocality"}],
                    }
                },
                "pluginConfig": [
                    {
                        "name": "NodeResourcesFit",
                        "args": {
                            "scoringStrategy": {
                                "type": "MostAllocated",
                                "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
                            }
                        },
                    },
                    {
                        "name": "PodTopologySpread",
                        "args": {
                            "defaultingType": "List",
                            "defaultConstraints": [{"maxSkew": 2, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway"}],
                        },
                    },
                    {"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 2}},
                    {
                        "name": "NodeAffinity",
                        "args": {
                            "addedAffinity": {
                                "requiredDuringSchedulingIgnoredDuringExecution": {
                                    "nodeSelectorTerms": [{"matchExpressions": [{"key": ZONE, "operator": "Exists"}]}]
                                }
                            }
                        },
                    },
                    {"name": "DefaultPreemption", "args": {"minCandidateNodesPercentage": 20, "minCandidateNodesAbsolute": 50}},
                ],
            }
        ],
    }


def scenario(snapshot_file: str) -> dict:
    """A scenario over the seed snapshot (referenced by file) plus inline objects and events."""
    return {
        "apiVersion": "kschedctl.io/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": "fuzz"},
        "snapshot": snapshot_file,
        "objects": [_node("extra", "z3"), _pod("inline-pod", cpu="250m")],
        "events": [
            {"at": 5, "action": "addNode", "object": _node("n9", "z3", cpu="16", memory="32Gi")},
            {"at": "10s", "action": "cordonNode", "node": "n2"},
            {
                "at": 15,
                "action": "updateNode",
                "node": "n3",
                "allocatable": {"cpu": "16"},
                "labels": {"tier": "db"},
                "taints": [{"key": "t", "effect": "NoExecute"}],
            },
            {"at": "20s", "action": "createPod", "object": _pod("late", cpu="2")},
            {"at": 25, "action": "ungatePod", "pod": "default/gated"},
            {"at": 30, "action": "drainNode", "node": "n3", "recreate": True},
            {"at": "40s", "action": "deletePod", "pod": "default/bound-a"},
            {"at": 50, "action": "removeNode", "node": "n9"},
            {"at": "1m", "action": "uncordonNode", "node": "n2"},
        ],
    }


def fresh(doc: dict) -> dict:
    return copy.deepcopy(doc)
