"""Objects shaped as `kubectl get -o yaml` prints them from a real cluster.

A builder's pod or node is dressed with what the API server, admission and the kubelet add:
uid, resourceVersion, creationTimestamp, managedFields, ownerReferences (a ReplicaSet for pods),
the defaulted spec fields (dnsPolicy, restartPolicy, serviceAccountName, the kube-api-access
projected volume, enableServiceLinks, preemptionPolicy, priority), the tolerations the
DefaultTolerationSeconds admission plugin adds, and status blocks (conditions, containerStatuses,
node addresses and nodeInfo). The e2e tests of output and reports run on these, so that what a
user's real snapshot carries never trips kschedctl.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any

STAMP = "2026-11-01T08:00:00Z"
ADMISSION_TOLERATIONS = [
    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
]


def _uid(text: str) -> str:
    h = hashlib.sha1(text.encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def _managed(manager: str, api_version: str, fields: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"apiVersion": api_version, "fieldsType": "FieldsV1", "fieldsV1": fields, "manager": manager, "operation": "Update", "time": STAMP}
    ]


def pod(obj: Any, owner: str | None = None) -> dict[str, Any]:
    """A pod as kubectl prints it (pending, or running when it has a nodeName)."""
    raw = copy.deepcopy(obj.dict() if hasattr(obj, "dict") else obj)
    raw.setdefault("apiVersion", "v1")
    md = raw.setdefault("metadata", {})
    ns, name = md.setdefault("namespace", "default"), md["name"]
    md.setdefault("uid", _uid(f"pod/{ns}/{name}"))
    md.setdefault("resourceVersion", str(1000 + len(name)))
    md.setdefault("creationTimestamp", STAMP)
    md.setdefault("generateName", f"{name.rsplit('-', 1)[0]}-")
    md.setdefault("labels", {}).setdefault("pod-template-hash", "7d9f")
    rs = owner or name.rsplit("-", 1)[0]
    md.setdefault(
        "ownerReferences",
        [
            {
                "apiVersion": "apps/v1",
                "blockOwnerDeletion": True,
                "controller": True,
                "kind": "ReplicaSet",
                "name": rs,
                "uid": _uid(f"rs/{ns}/{rs}"),
            }
        ],
    )
    md.setdefault(
        "managedFields", _managed("kube-controller-manager", "v1", {"f:metadata": {"f:generateName": {}, "f:labels": {}}, "f:spec": {}})
    )
    spec = raw.setdefault("spec", {})
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("enableServiceLinks", True)
    spec.setdefault("preemptionPolicy", "PreemptLowerPriority")
    spec.setdefault("priority", 0)
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("securityContext", {})
    spec.setdefault("serviceAccount", "default")
    spec.setdefault("serviceAccountName", "default")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("tolerations", [])
    spec["tolerations"] = spec["tolerations"] + [t for t in ADMISSION_TOLERATIONS if t not in spec["tolerations"]]
    spec.setdefault("volumes", []).append(
        {
            "name": "kube-api-access-x7k2p",
            "projected": {
                "defaultMode": 420,
                "sources": [
                    {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                    {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
                ],
            },
        }
    )
    for c in spec.get("containers") or []:
        c.setdefault("imagePullPolicy", "IfNotPresent")
        c.setdefault("terminationMessagePath", "/dev/termination-log")
        c.setdefault("terminationMessagePolicy", "File")
        c.setdefault(
            "volumeMounts",
            [{"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access-x7k2p", "readOnly": True}],
        )
    status = raw.setdefault("status", {})
    if spec.get("nodeName"):
        status.setdefault("phase", "Running")
        status.setdefault(
            "conditions",
            [
                {"lastProbeTime": None, "lastTransitionTime": STAMP, "status": "True", "type": t}
                for t in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")
            ],
        )
        status.setdefault("hostIP", "10.0.1.11")
        status.setdefault("podIP", "10.0.1.99")
        status.setdefault("qosClass", "Burstable")
        status.setdefault("startTime", STAMP)
        status.setdefault(
            "containerStatuses",
            [
                {
                    "containerID": "containerd://0f1e",
                    "image": c.get("image", ""),
                    "imageID": "",
                    "lastState": {},
                    "name": c.get("name", "c"),
                    "ready": True,
                    "restartCount": 0,
                    "started": True,
                    "state": {"running": {"startedAt": STAMP}},
                }
                for c in spec.get("containers") or []
            ],
        )
    else:
        status.setdefault("phase", "Pending")
        status.setdefault("qosClass", "Burstable")
        status.setdefault(
            "conditions",
            [
                {
                    "lastProbeTime": None,
                    "lastTransitionTime": STAMP,
                    "message": "0/3 nodes are available: 3 Insufficient cpu.",
                    "reason": "Unschedulable",
                    "status": "False",
                    "type": "PodScheduled",
                }
            ],
        )
    return raw


def node(obj: Any) -> dict[str, Any]:
    """A node as kubectl prints it: kubelet's labels, conditions, addresses, nodeInfo."""
    raw = copy.deepcopy(obj.dict() if hasattr(obj, "dict") else obj)
    raw.setdefault("apiVersion", "v1")
    md = raw.setdefault("metadata", {})
    name = md["name"]
    md.setdefault("uid", _uid(f"node/{name}"))
    md.setdefault("resourceVersion", "4242")
    md.setdefault("creationTimestamp", STAMP)
    md.setdefault("annotations", {"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true"})
    labels = md.setdefault("labels", {})
    labels.setdefault("kubernetes.io/hostname", name)
    labels.setdefault("kubernetes.io/os", "linux")
    labels.setdefault("kubernetes.io/arch", "amd64")
    md.setdefault("managedFields", _managed("kubelet", "v1", {"f:status": {"f:conditions": {}}}))
    raw.setdefault("spec", {}).setdefault("providerID", f"aws:///eu-west-1a/i-{hashlib.sha1(name.encode()).hexdigest()[:17]}")
    status = raw.setdefault("status", {})
    status.setdefault("addresses", [{"address": "10.0.1.11", "type": "InternalIP"}, {"address": name, "type": "Hostname"}])
    status.setdefault(
        "conditions",
        [
            {
                "lastHeartbeatTime": STAMP,
                "lastTransitionTime": STAMP,
                "message": "kubelet is posting ready status",
                "reason": "KubeletReady",
                "status": "True",
                "type": "Ready",
            },
            {
                "lastHeartbeatTime": STAMP,
                "lastTransitionTime": STAMP,
                "message": "kubelet has sufficient memory available",
                "reason": "KubeletHasSufficientMemory",
                "status": "False",
                "type": "MemoryPressure",
            },
        ],
    )
    status.setdefault("daemonEndpoints", {"kubeletEndpoint": {"Port": 10250}})
    status.setdefault(
        "nodeInfo",
        {
            "architecture": "amd64",
            "containerRuntimeVersion": "containerd://1.7.22",
            "kernelVersion": "6.1.112",
            "kubeProxyVersion": "",
            "kubeletVersion": "v1.35.4",
            "operatingSystem": "linux",
            "osImage": "Amazon Linux 2023",
        },
    )
    if "allocatable" in status:
        status.setdefault("capacity", dict(status["allocatable"]))
    return raw


def listed(*objects: dict[str, Any]) -> dict[str, Any]:
    """One List, as `kubectl get a,b -A -o yaml` prints several kinds."""
    return {"apiVersion": "v1", "items": list(objects), "kind": "List", "metadata": {"resourceVersion": ""}}
