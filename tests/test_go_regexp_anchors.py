"""Names, label values and versions ending in a newline are refused, as kube refuses them.

kube's validation regexps (k8s.io/apimachinery/pkg/util/validation/validation.go: IsDNS1123Label,
IsDNS1123Subdomain, IsQualifiedName, IsValidLabelValue) are Go regexps anchored ``^...$``, and
Go's ``$`` is the end of the text; blang/semver (the CEL semver library) checks every
character. Python's ``$`` also matches before a final newline, so a label value "zone-a\\n"
once passed where kube rejects it.
"""

from __future__ import annotations

import pytest

from kschedctl.api.errors import ObjectError
from kschedctl.api.labels import NodeSelectorRequirement, NodeSelectorTerm
from kschedctl.api.resource_admission import validate_dra_object
from kschedctl.dra.cel.k8slib import parse_semver
from kschedctl.dra.cel.values import CelError
from kschedctl.plugins.node_affinity.selector import term_errors


def _term(key: str, value: str) -> NodeSelectorTerm:
    return NodeSelectorTerm((NodeSelectorRequirement(key, "In", (value,)),), ())


def test_a_label_value_or_key_with_a_final_newline_is_invalid() -> None:
    assert term_errors(_term("zone", "zone-a")) == []
    ((path, body),) = term_errors(_term("zone", "zone-a\n"))
    assert path == "matchExpressions[0].values[0][zone]" and body.startswith('Invalid value: "zone-a\\n": a valid label must be')
    ((path, body),) = term_errors(_term("zone\n", "a"))
    assert path == "matchExpressions[0].key" and "name part must consist of alphanumeric characters" in body
    ((path, body),) = term_errors(_term("example.com\n/zone", "a"))
    assert path == "matchExpressions[0].key" and "prefix part a lowercase RFC 1123 subdomain" in body


def _slice(device: str, driver: str = "gpu.example.com") -> dict:
    spec = {"driver": driver, "pool": {"name": "p", "resourceSliceCount": 1}, "nodeName": "n1", "devices": [{"name": device}]}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": spec}


@pytest.mark.parametrize(
    "raw,field",
    [
        (_slice("gpu-0\n"), "spec.devices[0].name"),
        (_slice("gpu-0", driver="gpu.example.com\n"), "spec.driver"),
    ],
)
def test_dra_names_with_a_final_newline_are_invalid(raw: dict, field: str) -> None:
    validate_dra_object(_slice("gpu-0"))
    with pytest.raises(ObjectError) as err:
        validate_dra_object(raw)
    assert err.value.field == field and err.value.message.startswith("Invalid value: ")


@pytest.mark.parametrize(
    "text,message",
    [
        ("1.2.3\n", 'Invalid character(s) found in patch number "3\n"'),
        ("1\n.2.3", 'Invalid character(s) found in major number "1\n"'),
        ("1.2.3-rc\n", 'Invalid character(s) found in prerelease "rc\n"'),
        ("1.2.3+b\n", 'Invalid character(s) found in build meta data "b\n"'),
    ],
)
def test_a_version_with_a_final_newline_is_not_semver(text: str, message: str) -> None:
    assert parse_semver(text.replace("\n", "")).patch == 3
    with pytest.raises(CelError) as err:
        parse_semver(text)
    assert str(err.value) == message
