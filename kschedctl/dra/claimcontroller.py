"""What kube's resourceclaim controller does around the scheduler (pkg/controller/resourceclaim).

kube-scheduler never reads a ResourceClaimTemplate: the controller creates the claim of each
``resourceClaimTemplateName`` entry of a pod, owned by the pod, and writes its name into
``pod.status.resourceClaimStatuses``; until then PreEnqueue keeps the pod away ("ResourceClaim
not created yet"). A snapshot of a live cluster already holds those claims. For a hand-written
snapshot (or a pod created by a scenario), kschedctl plays the controller for pending pods: it
creates the missing claims from their templates, named as the controller names them
(``generated_claim_name``), so the pod schedules as it would in a cluster. A template that does
not exist leaves the pod waiting, as in kube.

When a pod is deleted (a preemption victim, a scenario event), the controller removes it from
``reservedFor`` of its claims; a claim reserved for nobody any more is deallocated if the scheduler allocated it (allocation cleared, its
``resource.kubernetes.io/delete-protection`` finalizer removed), and a claim generated for
the deleted pod is deleted. That is what frees a victim's devices for the next pods.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kschedctl.api.errors import ObjectError
from kschedctl.api.podclaims import DELETE_PROTECTION_FINALIZER
from kschedctl.api.resourceclaim import (
    ResourceClaim,
    claim_from_template,
    generated_claim_name,
    pod_claim_refs,
)
from kschedctl.api.types import Pod

if TYPE_CHECKING:
    from kschedctl.api.objects import ClusterObjects


@dataclass
class ClaimChanges:
    """What one controller pass wrote: claims created, updated (old, new) and deleted."""

    created: list[ResourceClaim] = field(default_factory=list)
    updated: list[tuple[ResourceClaim, ResourceClaim]] = field(default_factory=list)
    deleted: list[ResourceClaim] = field(default_factory=list)


def status_claim_names(pod: Pod) -> dict[str, str | None]:
    """pod.status.resourceClaimStatuses as {pod claim name: claim name or None}."""
    status = pod.raw.get("status") if isinstance(pod.raw, dict) else None
    out: dict[str, str | None] = {}
    for entry in (status or {}).get("resourceClaimStatuses") or []:
        if isinstance(entry, dict) and entry.get("name") is not None:
            name = entry.get("resourceClaimName")
            out.setdefault(str(entry["name"]), None if name in (None, "") else str(name))
    return out


def create_template_claims(pod: Pod, objects: "ClusterObjects") -> ClaimChanges:
    """syncPod for a pending pod: the claim of every template entry without a status entry,
    created from its template and recorded in the pod's status. Entries naming neither a claim
    nor a template are left for the scheduler to report."""
    changes = ClaimChanges()
    try:
        refs = pod_claim_refs(pod)
    except ObjectError:
        return changes
    statuses = status_claim_names(pod)
    for ref in refs:
        if ref.template_name is None or ref.pod_claim_name in statuses:
            continue
        template = objects.resource_claim_templates.get(f"{pod.namespace}/{ref.template_name}")
        if template is None:
            continue  # the controller fails to create it; the pod waits at PreEnqueue
        name = generated_claim_name(pod, ref.pod_claim_name)
        existing = objects.resource_claims.get(f"{pod.namespace}/{name}")
        if existing is None:
            claim = claim_from_template(pod, type(ref)(ref.pod_claim_name, name, ref.template_name, True, True), template)
            objects.resource_claims[claim.key] = claim
            changes.created.append(claim)
        status = pod.raw.setdefault("status", {})
        status.setdefault("resourceClaimStatuses", []).append({"name": ref.pod_claim_name, "resourceClaimName": name})
    return changes


def release_pod_claims(pod: Pod, objects: "ClusterObjects") -> ClaimChanges:
    """syncClaim after the pod is gone: drop it from reservedFor; deallocate a claim reserved
    for nobody; delete a claim generated for this pod. Objects are not modified here: the
    caller stores the changes (and raises the informer events)."""
    changes = ClaimChanges()
    try:
        refs = pod_claim_refs(pod)
    except ObjectError:
        return changes
    seen: set[str] = set()
    for ref in refs:
        if ref.claim_name is None:
            continue
        key = f"{pod.namespace}/{ref.claim_name}"
        claim = objects.resource_claims.get(key)
        if claim is None or key in seen:
            continue
        seen.add(key)
        new = claim
        if claim.is_reserved_for(pod):
            raw = copy.deepcopy(claim.raw)
            status = raw.setdefault("status", {})
            status["reservedFor"] = [
                r for r in status.get("reservedFor") or [] if not (isinstance(r, dict) and str(r.get("uid", "")) == pod.uid)
            ]
            md = raw.setdefault("metadata", {})
            finalizers = list(md.get("finalizers") or [])
            if not status["reservedFor"]:
                status.pop("reservedFor")
                # Only the transition from used to unused deallocates, and only claims the
                # scheduler allocated (they carry its finalizer).
                if status.get("allocation") is not None and DELETE_PROTECTION_FINALIZER in finalizers:
                    status.pop("allocation", None)
                    status.pop("devices", None)
                    finalizers.remove(DELETE_PROTECTION_FINALIZER)
                    if finalizers:
                        md["finalizers"] = finalizers
                    else:
                        md.pop("finalizers", None)
            new = ResourceClaim.from_dict(raw)
            changes.updated.append((claim, new))
        if new.is_controlled_by(pod) and not new.reserved_for:
            changes.deleted.append(new)
    return changes


__all__ = ["ClaimChanges", "DELETE_PROTECTION_FINALIZER", "create_template_claims", "release_pod_claims", "status_claim_names"]
