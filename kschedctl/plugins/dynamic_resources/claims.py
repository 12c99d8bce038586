"""The claims of a pod as the plugin sees them (dynamicresources/claims.go, resourceclaim.go).

``ClaimStore`` holds the pod's own claims in spec order, optionally followed by the special
claim for extended resources backed by DRA; ``foreach_pod_resource_claim`` resolves each
``spec.resourceClaims`` entry to its ResourceClaim with kube's error texts.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from kschedctl.api.errors import ObjectError
from kschedctl.api.podclaims import pod_claim_refs
from kschedctl.api.types import Pod
from kschedctl.versions import KubeVersion

if TYPE_CHECKING:
    from kschedctl.api.resourceclaim import ResourceClaim
    from kschedctl.dra.manager import DRAManager


class ClaimStore:
    """claimStore: user claims, then the special extended-resource claim (if any)."""

    __slots__ = ("claims", "num_user_owned", "initial_extended_uid")

    def __init__(self, claims: list[ResourceClaim], extended: ResourceClaim | None = None) -> None:
        self.claims = list(claims)
        self.num_user_owned = len(claims)
        self.initial_extended_uid = ""
        if extended is not None:
            self.claims.append(extended)
            self.initial_extended_uid = extended.meta.uid

    def empty(self) -> bool:
        return not self.claims

    def __len__(self) -> int:
        return len(self.claims)

    def all(self) -> Iterator[tuple[int, ResourceClaim]]:
        return enumerate(self.claims)

    def all_user_claims(self) -> Iterator[tuple[int, ResourceClaim]]:
        return enumerate(self.claims[: self.num_user_owned])

    def to_allocate(self) -> Iterator[tuple[int, ResourceClaim]]:
        return ((i, c) for i, c in enumerate(self.claims) if c.allocation is None)

    def extended_resource_claim(self) -> ResourceClaim | None:
        return None if self.num_user_owned == len(self.claims) else self.claims[self.num_user_owned]

    def no_user_claim(self) -> bool:
        return self.num_user_owned == 0

    def get(self, i: int) -> ResourceClaim:
        return self.claims[i]

    def set(self, i: int, claim: ResourceClaim) -> None:
        self.claims[i] = claim

    def update_extended_resource_claim(self, claim: ResourceClaim) -> None:
        if self.num_user_owned == len(self.claims):
            raise ValueError("no extended resource claim")
        self.claims[self.num_user_owned] = claim


CLAIM_NOT_FOR_POD = "DynamicResources.ClaimNotForPod"  # versions.WORDINGS key


class ClaimNotAvailable(Exception):
    """foreachPodResourceClaim's errors: the pod cannot be scheduled yet (kube's text)."""


def is_for_pod(pod: Pod, claim: ResourceClaim, version: Any = None) -> str | None:
    """resourceclaim.IsForPod: None, or the error text of the emulated release (``version``, a
    KubeVersion; None: kschedctl's default release)."""
    if claim.namespace != pod.namespace or not claim.is_controlled_by(pod):
        words = version if version is not None else KubeVersion()
        return str(words.wording(CLAIM_NOT_FOR_POD, claim=f"{claim.namespace}/{claim.name}", pod=f"{pod.namespace}/{pod.name}"))
    return None


def foreach_pod_resource_claim(
    manager: Callable[[], DRAManager], pod: Pod, cb: Callable[[str, ResourceClaim], None] | None = None, version: Any = None
) -> None:
    """foreachPodResourceClaim: every claim of the pod must exist, not be being deleted, and (for
    claims from templates) be owned by the pod. Raises ClaimNotAvailable with kube's text.
    ``manager`` gives the shared DRA state, asked for only when the pod names a claim;
    ``version`` (KubeVersion) words the not-owner error as the emulated release does."""
    try:
        refs = pod_claim_refs(pod)
    except ObjectError as exc:
        raise ClaimNotAvailable(exc.message) from None
    for ref in refs:
        if ref.claim_name is None:
            if ref.template_name is not None and not _has_status_entry(pod, ref.pod_claim_name):
                raise ClaimNotAvailable(f'pod "{pod.namespace}/{pod.name}": ResourceClaim not created yet')
            continue  # a status entry without a name: no claim needed
        claim = manager().get_claim(pod.namespace, ref.claim_name)
        if claim is None:
            raise ClaimNotAvailable(f'could not find ResourceClaim "{pod.namespace}/{ref.claim_name}"')
        if claim.meta.deletion_timestamp is not None:
            raise ClaimNotAvailable(f'resourceclaim "{claim.name}" is being deleted')
        if ref.must_check_owner:
            problem = is_for_pod(pod, claim, version)
            if problem:
                raise ClaimNotAvailable(problem)
        if cb is not None:
            cb(ref.pod_claim_name, claim)


def _has_status_entry(pod: Pod, pod_claim_name: str) -> bool:
    status = pod.raw.get("status") if isinstance(pod.raw, dict) else None
    return any(isinstance(e, dict) and e.get("name") == pod_claim_name for e in (status or {}).get("resourceClaimStatuses") or [])


def pod_resource_claims(manager: Callable[[], DRAManager], pod: Pod, version: Any = None) -> list[ResourceClaim]:
    """podResourceClaims: the pod's claims in spec order."""
    claims: list[ResourceClaim] = []
    foreach_pod_resource_claim(manager, pod, lambda _name, claim: claims.append(claim), version)
    return claims


def edited(claim: ResourceClaim, edit: Callable[[dict[str, Any]], None]) -> ResourceClaim:
    """A copy of the claim with its raw object edited (claim.DeepCopy() and assignments)."""
    raw = copy.deepcopy(claim.raw)
    edit(raw)
    return type(claim).from_dict(raw)


def kobj(claim: ResourceClaim) -> str:
    """klog.KObj."""
    return f"{claim.namespace}/{claim.name}" if claim.namespace else claim.name


__all__ = ["ClaimNotAvailable", "ClaimStore", "edited", "foreach_pod_resource_claim", "is_for_pod", "kobj", "pod_resource_claims"]
