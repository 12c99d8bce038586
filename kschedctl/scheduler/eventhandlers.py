"""What the scheduler does when the cluster changes: the informer handlers of kube-scheduler.

Upstream: pkg/scheduler/eventhandlers.go (with QueueingHints on, as in every emulated
release, so preCheckForNode is not applied and AssignedPodAdd moves through the hints).
Each handler updates the cache or the queue and raises the ClusterEvent that lets the
unschedulable pods the change may help go back to activeQ/backoffQ. The scenario timeline
(kschedctl/scheduler/simulate.py) and the scheduler itself (binding, preemption) call these.
Kube's handlers are methods on *Scheduler; here they are functions whose first argument,
``sched``, is the receiver.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kschedctl.api.types import Node, Pod, copy_pod
from kschedctl.framework import events as ev
from kschedctl.framework.interface import ClusterEvent
from kschedctl.framework.podgroup import group_key_of
from kschedctl.framework.types import PodInfo, QueuedPodInfo
from kschedctl.scheduler.result import Deleted

if TYPE_CHECKING:
    # The DRA types come with the first DRA object a run builds (api.objects.dra_types), the
    # claim controller with the first pod that names a claim (create_template_claims,
    # delete_pod): a run without either never loads them.
    from kschedctl.api.resource import DeviceClass, ResourceSlice
    from kschedctl.api.resourceclaim import ResourceClaim
    from kschedctl.dra.claimcontroller import ClaimChanges
    from kschedctl.scheduler.scheduler import Scheduler


def le_priority_pre_check(priority: int) -> Callable[[Pod], bool]:
    """getLEPriorityPreCheck: only pods of lower or equal priority."""
    return lambda pod: pod.effective_priority() <= priority


# --- nodes -----------------------------------------------------------------------------
def add_node_to_cache(sched: Scheduler, node: Node) -> None:
    sched.cache.add_node(node)
    sched.state_changed()
    sched.queue.move_all_to_active_or_backoff_queue(ev.EVENT_NODE_ADD, None, node)


def update_node_in_cache(sched: Scheduler, old: Node, new: Node) -> None:
    sched.cache.update_node(old, new)
    sched.state_changed()
    for event in ev.node_scheduling_properties_change(new, old):
        sched.queue.move_all_to_active_or_backoff_queue(event, old, new)


def delete_node_from_cache(sched: Scheduler, node: Node) -> None:
    sched.queue.move_all_to_active_or_backoff_queue(ev.EVENT_NODE_DELETE, node, None)
    sched.cache.remove_node(node)
    sched.state_changed()


# --- pods ------------------------------------------------------------------------------
def add_pod(sched: Scheduler, pod: Pod) -> bool:
    """A pod appears: bound pods join the cache, pending ones the queue of their profile.
    Returns False for a pending pod no profile is responsible for."""
    sched.pods_by_uid[pod.uid] = pod
    if pod.node_name:
        add_assigned_pod_to_cache(sched, pod)
        return True
    if pod.scheduler_name not in sched.profiles:
        return False
    add_pod_to_scheduling_queue(sched, pod)
    return True


def add_assigned_pod_to_cache(sched: Scheduler, pod: Pod) -> None:
    sched.cache.add_pod(pod)
    sched.state_changed()
    sched.queue.move_all_to_active_or_backoff_queue(ev.EVENT_ASSIGNED_POD_ADD, None, pod)


def add_pod_to_scheduling_queue(sched: Scheduler, pod: Pod, timestamp: float | None = None) -> None:
    sched._seq += 1
    when = sched.clock.now() if timestamp is None else timestamp
    sched.queue.add(QueuedPodInfo(PodInfo.of(pod), timestamp=when, seq=sched._seq))
    if group_key_of(pod, sched.version) is not None:
        # A new pod of a group may complete its quorum (GangScheduling's UnscheduledPod/Add).
        sched.queue.move_all_to_active_or_backoff_queue(ev.EVENT_UNSCHEDULED_POD_ADD, None, pod, except_uid=pod.uid)


def update_pod_in_scheduling_queue(sched: Scheduler, old: Pod, new: Pod) -> None:
    """A pending pod changed (e.g. its scheduling gates were removed)."""
    sched.pods_by_uid[new.uid] = new
    if sched.cache.is_assumed_pod(new):
        return
    sched.queue.update(old, new)
    if old.nominated_node_name and old.nominated_node_name != new.nominated_node_name:
        sched.queue.move_all_to_active_or_backoff_queue(
            ev.EVENT_ASSIGNED_POD_DELETE, old, None, le_priority_pre_check(old.effective_priority())
        )


def delete_pod(sched: Scheduler, pod: Pod) -> Pod | None:
    """The pod is deleted from the cluster; returns the live object that was removed."""
    live: Pod | None = sched.pods_by_uid.pop(pod.uid, None)
    if live is None:
        return None
    sched.deleted.add(pod.uid)
    if live.node_name:
        delete_assigned_pod_from_cache(sched, live)
    else:
        delete_pod_from_scheduling_queue(sched, live)
        sched.result.deleted.append(Deleted(live.key, sched.clock.now()))  # pending, never placed
    if live.resource_claims:
        from kschedctl.dra.claimcontroller import release_pod_claims

        apply_claim_changes(sched, release_pod_claims(live, sched.objects))
    return live


def delete_assigned_pod_from_cache(sched: Scheduler, pod: Pod) -> None:
    current = sched.cache.get_pod(pod.uid) or pod
    sched.cache.remove_pod(current)
    sched.state_changed()
    sched.queue.move_all_to_active_or_backoff_queue(ev.EVENT_ASSIGNED_POD_DELETE, current, None)


def delete_pod_from_scheduling_queue(sched: Scheduler, pod: Pod) -> None:
    sched.queue.delete(pod)
    if sched.cache.is_assumed_pod(pod):
        handle_assumed_pod_deletion(sched, pod)
    elif pod.nominated_node_name:
        # Lower or equal priority pods treated this nominated pod as if it were there.
        sched.queue.move_all_to_active_or_backoff_queue(
            ev.EVENT_ASSIGNED_POD_DELETE, pod, None, le_priority_pre_check(pod.effective_priority())
        )


def handle_assumed_pod_deletion(sched: Scheduler, pod: Pod) -> None:
    """A pod waiting at Permit is deleted: reject it (its binding cycle then cleans up)."""
    assumed = sched.cache.get_pod(pod.uid) or pod
    fwk = sched.profiles.get(pod.scheduler_name)
    if fwk is None or not fwk.reject_waiting_pod(pod.uid):
        sched.cache.forget_pod(assumed)
        sched.state_changed()
    sched.queue.move_all_to_active_or_backoff_queue(ev.EVENT_ASSIGNED_POD_DELETE, assumed, None)


# --- status.nominatedNodeName ----------------------------------------------------------
def patch_nominated_node_name(sched: Scheduler, pod: Pod, node_name: str) -> None:
    """updatePod's status patch, and what the informer does when it sees it: a pod whose
    nomination moved away frees room for lower or equal priority pods."""
    if pod.nominated_node_name == node_name:
        return
    old: Any = copy_pod(pod)
    pod.nominated_node_name = node_name
    if old.nominated_node_name:
        sched.queue.move_all_to_active_or_backoff_queue(
            ev.EVENT_ASSIGNED_POD_DELETE, old, None, le_priority_pre_check(old.effective_priority())
        )


# --- Dynamic Resource Allocation (the ResourceClaim assume cache, slice and class informers) ---
def create_template_claims(sched: Scheduler, pod: Pod) -> None:
    """The resourceclaim controller creates a pending pod's claims from its templates."""
    if pod.resource_claims:
        from kschedctl.dra import claimcontroller

        changes = claimcontroller.create_template_claims(pod, sched.objects)
        for claim in changes.created:
            sched.dra_claims_created += 1
            sched.services.dra_manager().on_claim_add(claim)


def apply_claim_changes(sched: Scheduler, changes: ClaimChanges) -> None:
    for claim in changes.created:
        add_resource_claim(sched, claim)
    for old, new in changes.updated:
        update_resource_claim(sched, old, new)
    for claim in changes.deleted:
        delete_resource_claim(sched, claim)


def add_resource_claim(sched: Scheduler, claim: ResourceClaim) -> None:
    sched.services.dra_manager().on_claim_add(claim)
    sched.state_changed()
    sched.queue.move_all_to_active_or_backoff_queue(ClusterEvent("ResourceClaim", "Add"), None, claim)


def update_resource_claim(sched: Scheduler, old: ResourceClaim, new: ResourceClaim) -> None:
    sched.services.dra_manager().on_claim_update(old, new)
    sched.state_changed()
    sched.queue.move_all_to_active_or_backoff_queue(ClusterEvent("ResourceClaim", "Update"), old, new)


def delete_resource_claim(sched: Scheduler, claim: ResourceClaim) -> None:
    sched.services.dra_manager().on_claim_delete(claim)
    sched.state_changed()
    sched.queue.move_all_to_active_or_backoff_queue(ClusterEvent("ResourceClaim", "Delete"), claim, None)


def change_resource_slice(sched: Scheduler, old: ResourceSlice | None, new: ResourceSlice | None) -> None:
    sched.services.dra_manager().on_slice_change(old, new)
    sched.state_changed()
    action = "Add" if old is None else ("Delete" if new is None else "Update")
    sched.queue.move_all_to_active_or_backoff_queue(ClusterEvent("ResourceSlice", action), old, new)


def change_device_class(sched: Scheduler, old: DeviceClass | None, new: DeviceClass | None) -> None:
    sched.services.dra_manager().on_class_change(old, new)
    sched.state_changed()
    action = "Add" if old is None else ("Delete" if new is None else "Update")
    sched.queue.move_all_to_active_or_backoff_queue(ClusterEvent("DeviceClass", action), old, new)
