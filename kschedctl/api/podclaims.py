"""Which ResourceClaims a pod uses, and the names that mark a claim as a pod's.

Apart from the ResourceClaim types (kschedctl/api/resourceclaim.py, which re-exports these):
every pod's PreEnqueue and PreFilter in the DynamicResources plugin ask for its claims, and a
pod that names none needs nothing else of DRA, so a run whose snapshot has no DRA object never
imports the claim and slice types (some 25 dataclasses, ~3 ms of its start).

Which claim a pod entry names follows
k8s.io/dynamic-resource-allocation/resourceclaim/resourceclaim.go (Name): a ``resourceClaimName``
directly, a ``resourceClaimTemplateName`` only through ``status.resourceClaimStatuses``.
"""

from __future__ import annotations

from dataclasses import dataclass

from kschedctl.api.errors import ObjectError
from kschedctl.api.names import MAX_GENERATED_NAME_LENGTH, hashed_suffix
from kschedctl.api.types import Pod, _dict, _list

# resourceapi.ExtendedResourceClaimAnnotation; the implicit extended resource name of a class.
EXTENDED_RESOURCE_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
IMPLICIT_EXTENDED_RESOURCE_PREFIX = "deviceclass.resource.kubernetes.io/"
# resourceapi.Finalizer: set by the scheduler when it allocates a claim.
DELETE_PROTECTION_FINALIZER = "resource.kubernetes.io/delete-protection"


@dataclass(frozen=True, slots=True)
class PodClaimRef:
    """One entry of pod.spec.resourceClaims and the ResourceClaim it stands for.

    ``claim_name`` is None when the pod uses a template and its status names no claim yet
    (kube's PreEnqueue then says "ResourceClaim not created yet"); ``generated`` is True when
    the name was derived here the way kube's resourceclaim controller would name the claim.
    ``must_check_owner`` is True for claims from templates: they must be controlled by the pod.
    """

    pod_claim_name: str
    claim_name: str | None
    template_name: str | None
    must_check_owner: bool
    generated: bool = False


def generated_claim_name(pod: Pod, pod_claim_name: str) -> str:
    """The name kube's resourceclaim controller gives a claim it creates from a template.

    pkg/controller/resourceclaim/controller.go uses GenerateName ``<pod>-<claim>-``, shortened
    proportionally when longer than 57 characters; the API server appends 5 random characters
    (names.SimpleNameGenerator). The random part is derived here from the pod's UID and the
    claim entry, so the same input always gets the same name.
    """
    base = f"{pod.name}-{pod_claim_name}-"
    max_base = 57
    if len(base) > max_base:
        total = len(base)
        base = pod.name[: len(pod.name) * max_base // total] + "-" + pod_claim_name[: len(pod_claim_name) * max_base // total]
    return base[:MAX_GENERATED_NAME_LENGTH] + hashed_suffix(f"{pod.uid}/{pod_claim_name}")


def pod_claim_refs(pod: Pod, *, generate_missing: bool = False) -> tuple[PodClaimRef, ...]:
    """The claims a pod uses, in spec order (resourceclaim.Name for each entry).

    With ``generate_missing``, a template entry without a status entry gets the name the
    resourceclaim controller would generate (see ``generated_claim_name``); otherwise its
    ``claim_name`` stays None. Entries naming neither field raise ObjectError, as kube
    reports "none of the supported fields are set".

    A pod without claims has none to resolve: its status is not read (as resourceclaim.Name
    reads it per claim), which is every cycle of a pod that uses no device.
    """
    if not pod.resource_claims:
        return ()
    statuses: dict[str, str | None] = {}
    raw_status = pod.raw.get("status") if isinstance(pod.raw, dict) else None
    for i, st in enumerate(_list((raw_status or {}).get("resourceClaimStatuses"), "status.resourceClaimStatuses")):
        st = _dict(st, f"status.resourceClaimStatuses[{i}]")
        name = st.get("name")
        if name is not None and name not in statuses:
            statuses[str(name)] = None if st.get("resourceClaimName") in (None, "") else str(st["resourceClaimName"])
    out = []
    for i, entry in enumerate(pod.resource_claims):
        entry = _dict(entry, f"spec.resourceClaims[{i}]")
        name = str(entry.get("name") or "")
        direct, template = entry.get("resourceClaimName"), entry.get("resourceClaimTemplateName")
        if direct is not None:
            out.append(PodClaimRef(name, str(direct), None, False))
        elif template is not None:
            if name in statuses:
                # A status entry with a nil claim name means "no claim needed" (kube skips it).
                out.append(PodClaimRef(name, statuses[name], str(template), True))
            elif generate_missing:
                out.append(PodClaimRef(name, generated_claim_name(pod, name), str(template), True, generated=True))
            else:
                out.append(PodClaimRef(name, None, str(template), True))
        else:
            raise ObjectError(
                f'pod "{pod.namespace}/{pod.name}", spec.resourceClaim "{name}": none of the supported fields are set',
                f"spec.resourceClaims[{i}]",
            )
    return tuple(out)


__all__ = [
    "DELETE_PROTECTION_FINALIZER",
    "EXTENDED_RESOURCE_CLAIM_ANNOTATION",
    "IMPLICIT_EXTENDED_RESOURCE_PREFIX",
    "PodClaimRef",
    "generated_claim_name",
    "pod_claim_refs",
]
