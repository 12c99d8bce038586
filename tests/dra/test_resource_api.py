"""DRA objects built from kubectl-shaped dicts (resource.k8s.io/v1 with API defaults) and the
claims of a pod as kube's resourceclaim.Name and resourceclaim controller see them."""

from __future__ import annotations

import pytest

from kschedctl.api.errors import ObjectError
from kschedctl.api.resource import ResourceSlice
from kschedctl.api.resourceclaim import (
    ResourceClaim,
    ResourceClaimTemplate,
    claim_from_template,
    generated_claim_name,
    pod_claim_refs,
)
from kschedctl.api.types import Pod


def _pod(claims, statuses=None, name="trainer-0"):
    raw = {"metadata": {"name": name, "namespace": "ml", "uid": "uid-1"}, "spec": {"containers": [{"name": "c"}], "resourceClaims": claims}}
    if statuses is not None:
        raw["status"] = {"resourceClaimStatuses": statuses}
    return Pod.from_dict(raw)


def test_exact_request_defaults():
    claim = ResourceClaim.from_dict(
        {
            "metadata": {"name": "c"},
            "spec": {
                "devices": {
                    "requests": [
                        {"name": "r", "exactly": {"deviceClassName": "gpu"}},
                        {"name": "s", "firstAvailable": [{"name": "a", "deviceClassName": "gpu", "allocationMode": "All"}]},
                    ]
                }
            },
        }
    )
    r, s = claim.spec.requests
    assert (r.exactly.allocation_mode, r.exactly.count) == ("ExactCount", 1)
    assert (s.first_available[0].allocation_mode, s.first_available[0].count) == ("All", 0)


def test_allocated_claim_status():
    claim = ResourceClaim.from_dict(
        {
            "metadata": {"name": "c", "namespace": "ml"},
            "spec": {},
            "status": {
                "allocation": {
                    "devices": {"results": [{"request": "r", "driver": "d", "pool": "p", "device": "gpu-0"}]},
                    "nodeSelector": {
                        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]
                    },
                },
                "reservedFor": [{"resource": "pods", "name": "trainer-0", "uid": "uid-1"}],
            },
        }
    )
    assert claim.allocation.results[0].device == "gpu-0"
    assert claim.is_reserved_for(_pod([]))


def test_slice_requires_a_positive_slice_count():
    with pytest.raises(ObjectError) as err:
        ResourceSlice.from_dict({"metadata": {"name": "s"}, "spec": {"driver": "d", "nodeName": "n", "pool": {"name": "p"}}})
    assert err.value.field == "spec.pool.resourceSliceCount"


def test_claim_name_direct_and_from_status():
    pod = _pod(
        [{"name": "shared", "resourceClaimName": "team-gpus"}, {"name": "gpus", "resourceClaimTemplateName": "tpl"}],
        [{"name": "gpus", "resourceClaimName": "trainer-0-gpus-x7k2p"}],
    )
    refs = pod_claim_refs(pod)
    assert [(r.claim_name, r.must_check_owner) for r in refs] == [("team-gpus", False), ("trainer-0-gpus-x7k2p", True)]


def test_template_claim_without_status_is_not_created_yet_unless_generated():
    pod = _pod([{"name": "gpus", "resourceClaimTemplateName": "tpl"}])
    assert pod_claim_refs(pod)[0].claim_name is None
    ref = pod_claim_refs(pod, generate_missing=True)[0]
    assert ref.generated and ref.claim_name == generated_claim_name(pod, "gpus")
    assert ref.claim_name.startswith("trainer-0-gpus-") and len(ref.claim_name) == len("trainer-0-gpus-") + 5


def test_generated_name_truncates_both_parts_like_the_controller():
    # pkg/controller/resourceclaim/controller.go: generateName longer than 57 characters is cut
    # proportionally, without the trailing hyphen; the API server appends 5 characters.
    pod = _pod([], name="p" * 60)
    name = generated_claim_name(pod, "c" * 20)
    base_len = len("p" * 60 + "-" + "c" * 20 + "-")
    assert name[:-5] == "p" * (60 * 57 // base_len) + "-" + "c" * (20 * 57 // base_len)


def test_entry_without_a_source_is_an_error():
    with pytest.raises(ObjectError, match="none of the supported fields are set"):
        pod_claim_refs(_pod([{"name": "x"}]))


def test_claim_from_template_is_owned_by_the_pod():
    pod = _pod([{"name": "gpus", "resourceClaimTemplateName": "tpl"}])
    tpl = ResourceClaimTemplate.from_dict(
        {
            "metadata": {"name": "tpl", "namespace": "ml"},
            "spec": {
                "metadata": {"labels": {"team": "a"}},
                "spec": {"devices": {"requests": [{"name": "g", "exactly": {"deviceClassName": "gpu", "count": 4}}]}},
            },
        }
    )
    claim = claim_from_template(pod, pod_claim_refs(pod, generate_missing=True)[0], tpl)
    assert claim.is_controlled_by(pod) and claim.namespace == "ml"
    assert claim.meta.annotations["resource.kubernetes.io/pod-claim-name"] == "gpus"
    assert claim.spec.requests[0].exactly.count == 4
