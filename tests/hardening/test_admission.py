"""Admission: objects kube-apiserver would refuse are refused, with its field path and message
(pkg/apis/core/validation/validation.go, apimachinery util/validation and api/validation,
pkg/apis/scheduling/validation). One error line, exit 2, naming file, object, field and line.

Each case id names the failure class of the hardening issue it pins (issue 12: "Objects the API
server would reject, accepted" and the in-tree plugin crashes on accepted input).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from kschedctl.api.admission import admit
from kschedctl.api.errors import InputError
from kschedctl.cluster.loader import load_snapshot
from kschedctl.testing import make_node, make_pod

SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def _pod(**spec: Any) -> dict:
    raw = make_pod("p").req(cpu="1").dict()
    raw["spec"].update(spec)
    return raw


def _edit(raw: dict, fn: Callable[[dict], None]) -> dict:
    raw = copy.deepcopy(raw)
    fn(raw)
    return raw


NODE = make_node("n1").capacity(cpu="4", memory="8Gi", pods=110).dict()
POD = _pod()

# (id, object, field path, message): the API server's verdict on each.
CASES = [
    ("name-uppercase", _edit(POD, lambda r: r["metadata"].update(name="Web")), "metadata.name", f'Invalid value: "Web": {SUBDOMAIN}'),
    ("name-with-space", _edit(POD, lambda r: r["metadata"].update(name="a b")), "metadata.name", f'Invalid value: "a b": {SUBDOMAIN}'),
    (
        "name-with-newline",
        _edit(POD, lambda r: r["metadata"].update(name="web\n")),
        "metadata.name",
        f'Invalid value: "web\\n": {SUBDOMAIN}',
    ),
    (
        "name-with-ansi-escape",
        _edit(NODE, lambda r: r["metadata"].update(name="n\x1b[31m1")),
        "metadata.name",
        f'Invalid value: "n\\x1b[31m1": {SUBDOMAIN}',
    ),
    ("name-missing", _edit(POD, lambda r: r["metadata"].pop("name")), "metadata.name", "Required value: name or generateName is required"),
    (
        "namespace-with-dots",
        _edit(POD, lambda r: r["metadata"].update(namespace="a.b")),
        "metadata.namespace",
        'Invalid value: "a.b": must not contain dots',
    ),
    (
        "label-key-invalid",
        _edit(NODE, lambda r: r["metadata"]["labels"].update({"bad key": "x"})),
        "metadata.labels",
        "Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
        "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ),
    (
        "label-value-too-long",
        _edit(NODE, lambda r: r["metadata"]["labels"].update({"k": "v" * 64})),
        "metadata.labels",
        f'Invalid value: "{"v" * 64}": must be no more than 63 bytes',
    ),
    (
        "label-value-not-a-string",
        _edit(NODE, lambda r: r["metadata"]["labels"].update({"k": 2})),
        "metadata.labels",
        "cannot unmarshal number 2 into Go value of type string",
    ),
    (
        "annotations-too-large",
        _edit(POD, lambda r: r["metadata"].update(annotations={"a": "x" * 262144})),
        "metadata.annotations",
        "Too long: may not be more than 262144 bytes",
    ),
    (
        "negative-request",
        _pod(containers=[{"name": "c", "image": "i", "resources": {"requests": {"cpu": "-1"}}}]),
        "spec.containers[0].resources.requests[cpu]",
        'Invalid value: "-1": must be greater than or equal to 0',
    ),
    (
        "negative-allocatable",
        _edit(NODE, lambda r: r["status"]["allocatable"].update(cpu="-2")),
        "status.allocatable.cpu",
        'Invalid value: "-2": must be greater than or equal to 0',
    ),
    (
        "allocatable-1e400-out-of-range",
        _edit(NODE, lambda r: r["status"]["allocatable"].update(memory="1e400")),
        "status.allocatable.memory",
        'Invalid value: "1e400": must be no more than 9223372036854775807m (the largest quantity kube-scheduler can count)',
    ),
    (
        "pods-not-an-integer",
        _edit(NODE, lambda r: r["status"]["allocatable"].update(pods="1500m")),
        "status.allocatable.pods",
        'Invalid value: "1500m": must be an integer',
    ),
    (
        "request-above-limit",
        _pod(containers=[{"name": "c", "image": "i", "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}}]),
        "spec.containers[0].resources.requests",
        'Invalid value: "2": must be less than or equal to cpu limit of 1',
    ),
    (
        "extended-resource-without-limit",
        _pod(containers=[{"name": "c", "image": "i", "resources": {"requests": {"example.com/gpu": "1"}}}]),
        "spec.containers[0].resources.limits",
        "Required value: Limit must be set for non overcommitable resources",
    ),
    (
        "unknown-container-resource",
        _pod(containers=[{"name": "c", "image": "i", "resources": {"requests": {"gpu": "1"}}}]),
        "spec.containers[0].resources.requests[gpu]",
        'Invalid value: "gpu": must be a standard resource for containers',
    ),
    (
        "toleration-operator-sometimes",
        _pod(tolerations=[{"key": "a", "operator": "Sometimes"}]),
        "spec.tolerations[0].operator",
        'Unsupported value: "Sometimes": supported values: "Equal", "Exists"',
    ),
    (
        "toleration-exists-with-value",
        _pod(tolerations=[{"key": "a", "operator": "Exists", "value": "x"}]),
        "spec.tolerations[0].operator",
        "Invalid value: \"x\": value must be empty when `operator` is 'Exists'",
    ),
    (
        "toleration-seconds-without-noexecute",
        _pod(tolerations=[{"key": "a", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5}]),
        "spec.tolerations[0].effect",
        "Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
    ),
    (
        "taint-effect-unknown",
        _edit(NODE, lambda r: r["spec"].update(taints=[{"key": "a", "effect": "Maybe"}])),
        "spec.taints[0].effect",
        'Unsupported value: "Maybe": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ),
    (
        "taint-duplicate-key-effect",
        _edit(
            NODE,
            lambda r: r["spec"].update(taints=[{"key": "a", "effect": "NoSchedule"}, {"key": "a", "value": "b", "effect": "NoSchedule"}]),
        ),
        "spec.taints[1]",
        'Duplicate value: {"effect":"NoSchedule","key":"a","value":"b"}: taints must be unique by key and effect pair',
    ),
    (
        "max-skew-zero",
        _pod(topologySpreadConstraints=[{"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]),
        "spec.topologySpreadConstraints[0].maxSkew",
        "Invalid value: 0: must be greater than zero",
    ),
    (
        "min-domains-with-schedule-anyway",
        _pod(topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway", "minDomains": 2}]),
        "spec.topologySpreadConstraints[0].minDomains",
        "Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway",
    ),
    (
        "topology-key-missing",
        _pod(topologySpreadConstraints=[{"maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule"}]),
        "spec.topologySpreadConstraints[0].topologyKey",
        "Required value: can not be empty",
    ),
    (
        "host-port-70000",
        _pod(containers=[{"name": "c", "image": "i", "ports": [{"containerPort": 80, "hostPort": 70000}]}]),
        "spec.containers[0].ports[0].hostPort",
        "Invalid value: 70000: must be between 1 and 65535, inclusive",
    ),
    (
        "port-protocol-unknown",
        _pod(containers=[{"name": "c", "image": "i", "ports": [{"containerPort": 80, "protocol": "ICMP"}]}]),
        "spec.containers[0].ports[0].protocol",
        'Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
    ),
    ("priority-above-int32", _pod(priority=2**31), "spec.priority", "cannot unmarshal number 2147483648 into Go value of type int32"),
    (
        "priority-class-above-user-range",
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "top"}, "value": 2_000_000_000},
        "value",
        "Forbidden: maximum allowed value of a user defined priority is 1000000000",
    ),
    (
        "node-selector-operator-unknown",
        _pod(
            affinity={
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Near"}]}]
                    }
                }
            }
        ),
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator",
        'Invalid value: "Near": not a valid selector operator',
    ),
    (
        "node-selector-terms-wrong-type",
        _pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": "all"}}}),
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms",
        "cannot unmarshal string into Go value of type []v1.NodeSelectorTerm",
    ),
    (
        "preferred-affinity-term-wrong-type",
        _pod(affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": ["x"]}}),
        "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]",
        "cannot unmarshal string into Go value of type object",
    ),
    (
        "preferred-affinity-weight-zero",
        _pod(
            affinity={
                "nodeAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 0, "preference": {"matchExpressions": [{"key": "a", "operator": "Exists"}]}}
                    ]
                }
            }
        ),
        "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight",
        "Invalid value: 0: must be in the range 1-100",
    ),
    (
        "invalid-preferred-node-affinity-term",
        _pod(
            affinity={
                "nodeAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 1, "preference": {"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1", "2"]}]}}
                    ]
                }
            }
        ),
        "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].values",
        "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
    ),
    (
        "match-labels-wrong-type",
        _pod(
            affinity={
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchLabels": ["app"]}, "topologyKey": "zone"}]
                }
            }
        ),
        "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchLabels",
        "cannot unmarshal array into Go value of type map[string]string",
    ),
    (
        "pod-affinity-topology-key-missing",
        _pod(affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {}}]}}),
        "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey",
        "Required value: can not be empty",
    ),
    (
        "volume-two-sources",
        _pod(volumes=[{"name": "v", "emptyDir": {}, "persistentVolumeClaim": {"claimName": "c"}}]),
        "spec.volumes[0].persistentVolumeClaim",
        "Forbidden: may not specify more than 1 volume type",
    ),
    (
        "pvc-volume-without-claim-name",
        _pod(volumes=[{"name": "v", "persistentVolumeClaim": {}}]),
        "spec.volumes[0].persistentVolumeClaim.claimName",
        "Required value",
    ),
    (
        "malformed-pvc-access-mode",
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": "c", "namespace": "default"},
            "spec": {"accessModes": ["ReadWriteSometimes"]},
        },
        "spec.accessModes",
        'Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
    ),
    (
        "malformed-pvc-resources",
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": "c", "namespace": "default"},
            "spec": {"resources": "10Gi"},
        },
        "spec.resources",
        "cannot unmarshal string into Go value of type v1.VolumeResourceRequirements",
    ),
    (
        "storage-class-binding-mode-unknown",
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": "s"},
            "provisioner": "x.io/p",
            "volumeBindingMode": "Later",
        },
        "volumeBindingMode",
        'Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"',
    ),
    (
        "resource-claim-without-source",
        _pod(resourceClaims=[{"name": "gpu"}]),
        "spec.resourceClaims[0]",
        'Invalid value: {"name":"gpu"}: must specify one of: `resourceClaimName`, `resourceClaimTemplateName`',
    ),
    (
        "container-claim-not-in-pod",
        _pod(containers=[{"name": "c", "image": "i", "resources": {"claims": [{"name": "x"}]}}]),
        "spec.containers[0].resources.claims[0].name",
        'Not found: "x": must be one of the names in pod.spec.resourceClaims which is empty',
    ),
    (
        "pod-group-min-count-two",
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "metadata": {"name": "g", "namespace": "default"},
            "spec": {"schedulingPolicy": {"gang": {"minCount": "two"}}},
        },
        "spec.schedulingPolicy.gang.minCount",
        "cannot unmarshal string into Go value of type int32",
    ),
    (
        "pod-group-min-count-zero",
        {
            "apiVersion": "scheduling.k8s.io/v1alpha1",
            "kind": "Workload",
            "metadata": {"name": "w", "namespace": "default"},
            "spec": {"podGroups": [{"name": "g", "policy": {"gang": {"minCount": 0}}}]},
        },
        "spec.podGroups[0].policy.gang.minCount",
        "Required value",
    ),
    (
        "pdb-negative-disruptions-allowed",
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "b", "namespace": "default"},
            "status": {"disruptionsAllowed": -1},
        },
        "status.disruptionsAllowed",
        "Invalid value: -1: must be greater than or equal to 0",
    ),
    (
        "owner-reference-without-uid",
        _edit(
            POD,
            lambda r: r["metadata"].update(
                ownerReferences=[{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "controller": True}]
            ),
        ),
        "metadata.ownerReferences.uid",
        'Invalid value: "": must not be empty',
    ),
    (
        "owner-references-two-controllers",
        _edit(
            POD,
            lambda r: r["metadata"].update(
                ownerReferences=[{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": n, "uid": n, "controller": True} for n in "ab"]
            ),
        ),
        "metadata.ownerReferences",
        'Invalid value: [{"apiVersion":"apps/v1","controller":true,"kind":"ReplicaSet","name":"a","uid":"a"},'
        '{"apiVersion":"apps/v1","controller":true,"kind":"ReplicaSet","name":"b","uid":"b"}]: Only one reference can '
        'have Controller set to true. Found "true" in references for ReplicaSet/a and ReplicaSet/b',
    ),
    (
        "scheduling-gate-invalid",
        _pod(schedulingGates=[{"name": "a/b/c"}]),
        "spec.schedulingGates[0]",
        "Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
        "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' "
        "(e.g. 'example.com/MyName')",
    ),
    (
        # ValidatePodCreate: created gated or bound, never both (the snapshot cannot hold one)
        "scheduling-gates-on-a-bound-pod",
        _pod(nodeName="n1", schedulingGates=[{"name": "example.com/wait"}]),
        "spec.nodeName",
        "Forbidden: cannot be set until all schedulingGates have been cleared",
    ),
]


@pytest.mark.parametrize("raw,path,message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_api_server_verdict(raw, path, message):
    error = admit(raw)
    assert error is not None, "admitted"
    assert (error.field, error.body) == (path, message)


@pytest.mark.parametrize(
    "raw",
    [NODE, POD, make_pod("b").req(cpu="1").node("n1").dict(), make_pod("s").init_req({"cpu": "1"}, sidecar=True).host_port(8080).dict()],
    ids=["node", "pending-pod", "bound-pod", "pod-with-sidecar-and-host-port"],
)
def test_valid_objects_are_admitted(raw):
    assert admit(raw) is None


def _write(tmp_path, *objects: Any) -> str:
    path = tmp_path / "snap.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": list(objects)}, sort_keys=False))
    return str(path)


def test_the_error_names_file_object_field_and_line(tmp_path):
    bad = _edit(NODE, lambda r: r["status"]["allocatable"].update(cpu="-2"))
    path = _write(tmp_path, NODE, _edit(bad, lambda r: r["metadata"].update(name="n2")))
    with pytest.raises(InputError) as info:
        load_snapshot([path])
    text = str(info.value)
    assert text.startswith(f"{path}:")
    assert 'Node n2: status.allocatable.cpu: Invalid value: "-2": must be greater than or equal to 0' in text
    line = open(path).read().splitlines()[info.value.line - 1]
    assert line.strip() == "cpu: '-2'"


@pytest.mark.parametrize(
    "kind,objects,field",
    [
        ("duplicate-pod", [POD, POD], "metadata.name"),
        (
            "duplicate-priority-class",
            [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "p"}, "value": v} for v in (1, 2)],
            "metadata.name",
        ),
        ("duplicate-namespace", [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}] * 2, "metadata.name"),
        (
            "duplicate-pdb",
            [{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "b", "namespace": "default"}}] * 2,
            "metadata.name",
        ),
        (
            "duplicate-uid-pending-pod-vanishes",
            [_edit(POD, lambda r: r["metadata"].update(name="a", uid="u")), _edit(POD, lambda r: r["metadata"].update(name="b", uid="u"))],
            "metadata.uid",
        ),
        ("duplicate-uid-bound-pod-crashes", [make_pod("a").uid("u").node("n1").dict(), make_pod("b").uid("u").dict()], "metadata.uid"),
        (
            "duplicate-uid-across-kinds",
            [_edit(NODE, lambda r: r["metadata"].update(name="n2", uid="same")), _edit(POD, lambda r: r["metadata"].update(uid="same"))],
            "metadata.uid",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_duplicates_are_errors(tmp_path, kind, objects, field):
    with pytest.raises(InputError) as info:
        load_snapshot([_write(tmp_path, NODE, *objects)])
    assert info.value.field == field
    assert "duplicate" in info.value.message.lower()
    assert info.value.line is not None


def test_same_name_in_other_namespaces_is_fine(tmp_path):
    other = _edit(POD, lambda r: r["metadata"].update(namespace="other", uid="u2"))
    snap = load_snapshot([_write(tmp_path, NODE, POD, other)])
    assert sorted(p.key for p in snap.pods) == ["default/p", "other/p"]


def test_replicas_of_an_admitted_spec_still_have_their_node_and_gates_checked():
    """admit_pod keeps the specs (without nodeName) that passed every check
    (kschedctl/api/admission/pod.py _ADMITTED_SPECS): a replica bound to a bad node name, or
    bound while gated, is refused as before; a bad spec is refused every time, at its path."""
    template = _pod(tolerations=[{"key": "dedicated", "operator": "Exists"}])
    assert admit(template) is None
    assert admit(_edit(template, lambda r: r["spec"].update(nodeName="n1"))) is None
    bad_node = admit(_edit(template, lambda r: r["spec"].update(nodeName="Not_A_Node")))
    assert bad_node is not None and bad_node.field == "spec.nodeName" and SUBDOMAIN in bad_node.body
    not_a_string = admit(_edit(template, lambda r: r["spec"].update(nodeName=7)))
    assert not_a_string is not None and not_a_string.field == "spec.nodeName"
    gated = _pod(tolerations=[{"key": "dedicated", "operator": "Exists"}], schedulingGates=[{"name": "example.com/wait"}])
    assert admit(gated) is None
    bound_gated = admit(_edit(gated, lambda r: r["spec"].update(nodeName="n1")))
    assert bound_gated is not None and bound_gated.field == "spec.nodeName" and "schedulingGates" in bound_gated.body
    bad = _edit(template, lambda r: r["spec"]["tolerations"][0].update(operator="Sometimes"))
    for _ in range(2):
        error = admit(bad)
        assert error is not None and error.field == "spec.tolerations[0].operator"


def test_a_template_is_checked_once(monkeypatch):
    import kschedctl.api.admission.pod as pod_admission

    checked: list[str] = []
    real = pod_admission._check_spec
    monkeypatch.setattr(pod_admission, "_check_spec", lambda spec, md: (checked.append(md["name"]), real(spec, md)))
    template = _pod(priorityClassName="checked-once")  # a spec no other test admits
    for i, node in enumerate(("", "n1", "n2")):
        replica = copy.deepcopy(template)
        replica["metadata"]["name"] = f"r{i}"
        if node:
            replica["spec"]["nodeName"] = node
        assert admit(replica) is None
    assert checked == ["r0"]
    with_volume = _edit(template, lambda r: r["spec"].update(volumes=[{"name": "v", "emptyDir": {}}]))
    assert admit(with_volume) is None and admit(with_volume) is None
    assert checked == ["r0", "p", "p"]  # volumes are checked with the pod's own name, every time
