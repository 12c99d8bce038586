"""PodGroupManager.state and all_pods_count answer from a grouping of the pod list they are
given, kept while the list is the same objects (a scan per group for a list asked about a few
times, the whole list grouped once for one asked about often): the answers must be those of a
plain walk over every pod, whatever changes between questions."""

from __future__ import annotations

import random

from kschedctl.api.types import Pod
from kschedctl.framework.podgroup import WHOLE_GROUPING_AFTER, PodGroupManager, group_key_of
from kschedctl.testing import make_pod
from kschedctl.versions import KubeVersion

V135 = KubeVersion("1.35")


def _pod(i: int, group: int, node: str = "", phase: str = "") -> Pod:
    builder = make_pod(f"p{i}").workload_ref(f"w{group}", "g")
    if node:
        builder = builder.node(node)
    if phase:
        builder = builder.phase(phase)
    return Pod.from_dict(builder.dict())


def _walk(pods: list[Pod], key: str, assumed: dict[str, Pod]) -> tuple[list[str], list[str], list[str]]:
    """podGroupState the plain way: every pod of the list, in order."""
    members = [p for p in pods if group_key_of(p, V135) == key and not p.is_terminal]
    scheduled = [p.key if p.node_name else assumed[p.uid].key for p in members if p.node_name or p.uid in assumed]
    unscheduled = [p.key for p in members if not p.node_name and p.uid not in assumed]
    return [p.key for p in members], scheduled, unscheduled


def test_state_equals_a_walk_over_every_pod_as_the_list_changes() -> None:
    rng = random.Random(3)
    pods = [_pod(i, i % 4) for i in range(24)]
    assumed: dict[str, Pod] = {}
    manager = PodGroupManager(None, V135, lambda: list(pods), lambda uid: assumed.get(uid))
    for step in range(300):
        change = rng.random()
        if change < 0.2:  # a pod added
            pods.append(_pod(100 + step, rng.randrange(5), phase=rng.choice(["", "", "Succeeded"])))
        elif change < 0.35 and pods:  # a pod replaced by a new object (updated, bound)
            i = rng.randrange(len(pods))
            old = pods[i]
            pods[i] = _pod(int(old.name[1:]), int(group_key_of(old, V135).split("/")[1][1:]), node=rng.choice(["", "n1"]))
        elif change < 0.45 and pods:  # a pod deleted
            pods.pop(rng.randrange(len(pods)))
        elif change < 0.55 and pods:  # a pod assumed (the cache's copy carries the node)
            p = rng.choice(pods)
            assumed[p.uid] = Pod.from_dict(make_pod(p.name).workload_ref("x", "g").node("n2").dict())
        # ask about the same list more than WHOLE_GROUPING_AFTER times now and then
        for _ in range(rng.choice([1, 2, WHOLE_GROUPING_AFTER + 3])):
            key = f"default/w{rng.randrange(5)}/g"
            state = manager.state(key)
            expected = _walk(pods, key, assumed)
            assert ([p.key for p in state.all_pods], [p.key for p in state.scheduled], [p.key for p in state.unscheduled]) == expected
            assert manager.all_pods_count(key) == len(expected[0])


def test_pods_by_uid_counts_equal_a_walk_as_the_pods_change() -> None:
    """The scheduler's pod map keeps each group's non-terminal pod count, and how many of those
    are bound or assumed, at every change of the map or of the assumed set (all_pods_count and
    scheduled_pods_count read them instead of walking every pod at every pod event, Permit)."""
    from kschedctl.framework.podgroup import group_key_function
    from kschedctl.scheduler.scheduler import PodsByUID

    rng = random.Random(5)
    key_of = group_key_function(V135)
    assumed: set[str] = set()
    pods = PodsByUID(assumed.__contains__)
    manager = PodGroupManager(
        None,
        V135,
        lambda: list(pods.values()),
        lambda uid: pods.get(uid) if uid in assumed else None,
        pods_version=lambda: pods.version,
        pod_counts=pods.counts_by,
        scheduled_counts=pods.scheduled_counts_by,
    )
    for step in range(600):
        change = rng.random()
        if change < 0.3:  # a pod added, or replaced by a new object (bound, terminal, another group)
            pod = _pod(rng.randrange(30), rng.randrange(4), node=rng.choice(["", "", "n1"]), phase=rng.choice(["", "", "Failed"]))
            pods[pod.uid] = pod
        elif change < 0.4:
            pod = _pod(rng.randrange(30), rng.randrange(4))
            pods.setdefault(pod.uid, pod)
        elif change < 0.55 and pods:
            pods.pop(rng.choice(list(pods)))
        elif change < 0.6 and pods:
            del pods[rng.choice(list(pods))]
        elif change < 0.62 and pods:
            pods.popitem()
        elif change < 0.63:
            pods.update({p.uid: p for p in (_pod(50 + step, rng.randrange(4)),)})
        elif change < 0.64:
            pods.clear()
        else:  # the cache assumes a pod (known or not), or forgets one
            uid = _pod(rng.randrange(30), 0).uid
            if uid in assumed:
                assumed.discard(uid)
            else:
                assumed.add(uid)
            pods.assumed_changed(uid)
        for group in range(5):
            key = f"default/w{group}/g"
            members = [p for p in pods.values() if key_of(p) == key and not p.is_terminal]
            assert manager.all_pods_count(key) == len(members)
            scheduled = sum(1 for p in members if p.node_name or p.uid in assumed)
            assert manager.scheduled_pods_count(key) == scheduled == manager.state(key).scheduled_pods_count()
