"""copy_pod (kschedctl/api/types.py): the assumed copy of a pod the scheduler makes every cycle
is exactly ``dataclasses.replace(pod, node_name=..., cache={})``: every field shared, the node
name set, a fresh empty cache; the pod itself untouched."""

from __future__ import annotations

import dataclasses

from kschedctl.api.types import Pod, copy_pod
from kschedctl.framework.types import PodInfo

RAW = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web-0", "namespace": "shop", "uid": "u-1", "labels": {"app": "web"}},
    "spec": {
        "schedulerName": "default-scheduler",
        "priority": 7,
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}, "ports": [{"containerPort": 80}]}],
        "nodeSelector": {"disk": "ssd"},
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}],
        "affinity": {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}
                ]
            }
        },
        "topologySpreadConstraints": [
            {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "web"}}}
        ],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data-web-0"}}],
        "schedulingGates": [{"name": "wait"}],
    },
    "status": {"phase": "Pending", "nominatedNodeName": "n3", "startTime": "2026-01-02T03:04:05Z"},
}


def _fields(pod: Pod) -> dict[str, object]:
    return {f.name: getattr(pod, f.name) for f in dataclasses.fields(pod)}


def test_the_copy_is_replace_with_every_part_shared() -> None:
    pod = Pod.from_dict(RAW)
    PodInfo.of(pod)  # something in the cache, which the copy must not carry
    before = _fields(pod)
    for node_name in ("n7", None):
        copied = copy_pod(pod, node_name)
        expected = dataclasses.replace(pod, cache={}) if node_name is None else dataclasses.replace(pod, node_name=node_name, cache={})
        assert copied.__class__ is Pod and copied is not pod
        got, want = _fields(copied), _fields(expected)
        assert got.keys() == want.keys()
        for name in got:
            if name == "cache":
                assert got[name] == {} and got[name] is not pod.cache
            elif name == "node_name":
                assert got[name] == (node_name or "")
            else:
                assert got[name] is want[name], name
    assert _fields(pod) == before and "pod_info" in pod.cache


def test_a_subclass_is_copied_as_replace_copies_it() -> None:
    @dataclasses.dataclass(slots=True, eq=False)
    class Tagged(Pod):
        """A Pod with one more field (a plugin's own type)."""

        tag: str = "t"

    base = Pod.from_dict(RAW)
    tagged = Tagged(**{f.name: getattr(base, f.name) for f in dataclasses.fields(Pod)}, tag="x")
    copied = copy_pod(tagged, "n1")
    assert copied.__class__ is Tagged and copied.tag == "x" and copied.node_name == "n1" and copied.cache == {}


def test_the_assumed_pod_info_shares_the_computed_parts() -> None:
    info = PodInfo.of(Pod.from_dict(RAW))
    assumed = info.with_node_name("n2")
    assert assumed.pod.node_name == "n2" and info.pod.node_name == ""
    assert assumed.pod.cache == {"pod_info": assumed}
    assert all(getattr(assumed, s) is getattr(info, s) for s in PodInfo.__slots__ if s != "pod")
