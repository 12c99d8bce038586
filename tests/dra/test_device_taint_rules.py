"""DeviceTaintRules (issue 23): the ResourceSlice tracker's patching, admission, and scheduling.

The patching cases are upstream's TestListPatchedResourceSlices table
(staging/src/k8s.io/dynamic-resource-allocation/resourceslice/tracker/tracker_test.go), by case
name: each case's final patched slices after its events (kschedctl has no events: the rules
and slices of a snapshot are the state the events end in).

A kschedoracle (kube-scheduler 1.36.2) run cannot check these decisions: with
``-mode explain -feature-gates DRADeviceTaintRules=true`` a v1beta2 rule makes its vendored
tracker panic (it asserts *v1alpha3.DeviceTaintRule on objects of the v1beta2 informer), and a
v1alpha3 rule is never seen by that informer (the pod schedules as if there were no rule).
"""

from __future__ import annotations

from typing import Any

import pytest

from kschedctl.api.devicetaintrule import DeviceTaintRule, patch_slice
from kschedctl.api.resource import ResourceSlice

DRIVER1, DRIVER2 = "driver1.example.com", "driver2.example.com"
POOL1, POOL2 = "pool-1", "pool-2"
TAINT1 = {"key": "example.com/taint", "value": "tainted", "effect": "NoExecute"}
TAINT2 = {"key": "example.com/taint2", "value": "tainted2", "effect": "NoExecute"}


def _slice(name: str, driver: str, pool: str, devices: list[str], taints: dict[str, list[dict]] | None = None) -> ResourceSlice:
    taints = taints or {}
    return ResourceSlice.from_dict(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {"name": name},
            "spec": {
                "driver": driver,
                "pool": {"name": pool, "resourceSliceCount": 1},
                "allNodes": True,
                "devices": [{"name": d, **({"taints": taints[d]} if d in taints else {})} for d in devices],
            },
        }
    )


def _rule(name: str = "rule", taint: dict = TAINT1, **selector: str) -> DeviceTaintRule:
    spec: dict[str, Any] = {"taint": taint}
    if selector:
        spec["deviceSelector"] = selector
    return DeviceTaintRule.from_dict(
        {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule", "metadata": {"name": name}, "spec": spec}
    )


def _taints(slices: list[ResourceSlice]) -> dict[str, dict[str, list[str]]]:
    """slice -> device -> taint keys, in order."""
    return {s.name: {d.name: [t.key for t in d.taints] for d in s.devices} for s in slices}


def slice1(devices: list[str] | None = None, taints: dict[str, list[dict]] | None = None) -> ResourceSlice:
    return _slice("s1", DRIVER1, POOL1, devices or ["device-1"], taints)


def slice2(devices: list[str] | None = None) -> ResourceSlice:
    return _slice("s2", DRIVER2, POOL2, devices or ["device-2"])


T1, T2 = TAINT1["key"], TAINT2["key"]
THREE = ["device-0", "device-1", "device-2"]
TRACKER_CASES = {
    "add-slices-no-patches": ([slice1(), slice2()], [], {"s1": {"device-1": []}, "s2": {"device-2": []}}),
    "patch-all-slices": ([slice1()], [_rule()], {"s1": {"device-1": [T1]}}),
    # the rule, updated from pool-1 to pool-2, taints only pool-2's slice
    "update-patch": ([slice1(), slice2()], [_rule(pool=POOL2)], {"s1": {"device-1": []}, "s2": {"device-2": [T1]}}),
    # the rule's taint comes after the one the driver published
    "merge-taints": ([slice1(taints={"device-1": [TAINT2]})], [_rule()], {"s1": {"device-1": [T2, T1]}}),
    "add-taint-for-driver": ([slice1(), slice2()], [_rule(driver=DRIVER1)], {"s1": {"device-1": [T1]}, "s2": {"device-2": []}}),
    "add-taint-for-pool": ([slice1(), slice2()], [_rule(pool=POOL1)], {"s1": {"device-1": [T1]}, "s2": {"device-2": []}}),
    "add-taint-for-device": ([slice1(), slice2()], [_rule(device="device-1")], {"s1": {"device-1": [T1]}, "s2": {"device-2": []}}),
    "filter-all-criteria": (
        [slice1(), slice2()],
        [_rule(driver=DRIVER1, pool=POOL1, device="device-1")],
        {"s1": {"device-1": [T1]}, "s2": {"device-2": []}},
    ),
    # slice1 grew to three devices, slice2 shrank to device-1: the device rule follows the name
    "update-patched-slice": (
        [slice1(THREE), slice2(["device-1"])],
        [_rule(device="device-1")],
        {"s1": {"device-0": [], "device-1": [T1], "device-2": []}, "s2": {"device-1": [T1]}},
    ),
}


@pytest.mark.parametrize("case", list(TRACKER_CASES))
def test_list_patched_resource_slices(case: str) -> None:
    """TestListPatchedResourceSlices: each rule's taint on the devices its selector matches."""
    slices, rules, expected = TRACKER_CASES[case]
    assert _taints([patch_slice(s, rules) for s in slices]) == expected


def test_unmatched_slice_is_returned_as_is() -> None:
    """applyPatches copies a slice only when a rule matches (the rest are shared, not copied)."""
    s = slice2()
    assert patch_slice(s, [_rule(driver=DRIVER1)]) is s


# --- through the CLI ---------------------------------------------------------------------------


def _gpu_snapshot(*, tolerate: bool = False, rule: dict | None = None, running: bool = False) -> list[dict]:
    """One node with one GPU, a GPU class, a rule tainting that GPU, and a pod whose claim asks
    for one GPU (tolerating the taint if asked); optionally a running pod holding the GPU."""
    request: dict[str, Any] = {"deviceClassName": "gpu"}
    if tolerate:
        request["tolerations"] = [{"key": "example.com/maintenance", "operator": "Exists", "effect": "NoSchedule"}]
    rule = rule or {
        "apiVersion": "resource.k8s.io/v1beta2",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "gpu-maintenance"},
        "spec": {
            "deviceSelector": {"driver": "gpu.example.com", "pool": "n1", "device": "gpu-0"},
            "taint": {"key": "example.com/maintenance", "value": "now", "effect": "NoSchedule"},
        },
    }
    objects: list[dict] = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "n1"},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {"name": "n1-gpu"},
            "spec": {
                "driver": "gpu.example.com",
                "nodeName": "n1",
                "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
                "devices": [{"name": "gpu-0"}],
            },
        },
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": "gpu"},
            "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
        },
        rule,
    ]
    if running:
        objects += [
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceClaim",
                "metadata": {"name": "held", "namespace": "default"},
                "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}},
                "status": {
                    "allocation": {
                        "devices": {"results": [{"request": "r", "driver": "gpu.example.com", "pool": "n1", "device": "gpu-0"}]}
                    },
                    "reservedFor": [{"resource": "pods", "name": "holder", "uid": "uid-holder"}],
                },
            },
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "holder", "namespace": "default", "uid": "uid-holder"},
                "spec": {
                    "nodeName": "n1",
                    "containers": [{"name": "c", "image": "x"}],
                    "resourceClaims": [{"name": "gpu", "resourceClaimName": "held"}],
                },
                "status": {"phase": "Running"},
            },
        ]
    objects += [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {"name": "c", "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": request}]}},
        },
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "x"}], "resourceClaims": [{"name": "gpu", "resourceClaimName": "c"}]},
        },
    ]
    return objects


def _status(run_cli, path: str, *args: str) -> tuple[dict, str]:
    """The pending pod's outcome: {"status": Scheduled|Unschedulable, "node"|"message"}, and stderr."""
    out = run_cli("schedule", path, "-o", "json", *args)
    assert out.exit_code == 0, out.stderr
    doc = out.json()
    for p in doc["placements"]:
        if p["pod"] == "default/p":
            return {"status": "Scheduled", **p}, out.stderr
    [pod] = [p for p in doc["unschedulable"] if p["pod"] == "default/p"]
    return {"status": "Unschedulable", **pod}, out.stderr


def test_rule_taints_the_only_gpu_at_1_37(run_cli, write_snapshot) -> None:
    """DRADeviceTaintRules on by default at 1.37: the untolerated rule taint keeps the pod off
    the only GPU, with kube's reason text; no skipping warning."""
    pod, stderr = _status(run_cli, write_snapshot(*_gpu_snapshot()))
    assert pod["status"] == "Unschedulable", pod
    assert "0/1 nodes are available: 1 cannot allocate all claims." in pod["message"]
    assert "DeviceTaintRule" not in stderr


def test_claim_tolerating_the_rule_taint_schedules(run_cli, write_snapshot) -> None:
    pod, _ = _status(run_cli, write_snapshot(*_gpu_snapshot(tolerate=True)))
    assert pod["status"] == "Scheduled" and pod["node"] == "n1", pod


@pytest.mark.parametrize("release", ["1.35", "1.36"])
def test_gate_off_by_default_ignores_rules_with_a_warning(run_cli, write_snapshot, release: str) -> None:
    pod, stderr = _status(run_cli, write_snapshot(*_gpu_snapshot()), "--kube-version", release)
    assert pod["status"] == "Scheduled", pod
    assert stderr.count("skipping objects of kind 'DeviceTaintRule'") == 1
    assert "DRADeviceTaintRules feature gate, off in this release" in stderr


def test_feature_gate_turns_rules_on_at_1_36(run_cli, write_snapshot) -> None:
    pod, stderr = _status(
        run_cli, write_snapshot(*_gpu_snapshot()), "--kube-version", "1.36", "--feature-gates", "DRADeviceTaintRules=true"
    )
    assert pod["status"] == "Unschedulable", pod
    assert "DeviceTaintRule" not in stderr


def test_rules_without_device_taints_gate_are_said_to_have_no_effect(run_cli, write_snapshot) -> None:
    """1.35 with only DRADeviceTaintRules: the allocator checks no taints (DRADeviceTaints off), said once."""
    args = ("--kube-version", "1.35", "--feature-gates")
    pod, stderr = _status(run_cli, write_snapshot(*_gpu_snapshot()), *args, "DRADeviceTaintRules=true")
    assert pod["status"] == "Scheduled" and stderr.count("DRADeviceTaints is off in this release") == 1
    pod, stderr = _status(run_cli, write_snapshot(*_gpu_snapshot()), *args, "DRADeviceTaintRules=true,DRADeviceTaints=true")
    assert pod["status"] == "Unschedulable" and "DeviceTaintRule" not in stderr


def test_effect_none_rule_does_not_keep_pods_off(run_cli, write_snapshot) -> None:
    rule = {
        "apiVersion": "resource.k8s.io/v1alpha3",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "info"},
        "spec": {"taint": {"key": "example.com/info", "effect": "None"}},
    }
    pod, _ = _status(run_cli, write_snapshot(*_gpu_snapshot(rule=rule)))
    assert pod["status"] == "Scheduled", pod


def test_no_execute_rule_on_an_allocated_device_says_kschedctl_does_not_evict(run_cli, write_snapshot) -> None:
    """The eviction is the device taint eviction controller's: said once on stderr."""
    rule = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "evict"},
        "spec": {"deviceSelector": {"device": "gpu-0"}, "taint": {"key": "example.com/broken", "effect": "NoExecute"}},
    }
    pod, stderr = _status(run_cli, write_snapshot(*_gpu_snapshot(rule=rule, running=True)))
    assert pod["status"] == "Unschedulable", pod  # the GPU is taken and tainted
    assert stderr.count("kschedctl does not evict") == 1
    assert "DeviceTaintRule 'evict' taints device gpu.example.com/n1/gpu-0 NoExecute" in stderr


@pytest.mark.parametrize(
    "change,field,words",
    [
        ({"taint": {"key": "k"}}, "spec.taint.effect", "Required value"),
        (
            {"taint": {"key": "k", "effect": "some-other-effect"}},
            "spec.taint.effect",
            'Unsupported value: "some-other-effect": supported values: "NoExecute", "NoSchedule", "None"',
        ),
        ({"taint": {"effect": "NoSchedule"}}, "spec.taint.key", "Required value"),
        (
            {"taint": {"key": "k", "effect": "NoSchedule"}, "deviceSelector": {"driver": "!@#$%^"}},
            "spec.deviceSelector.driver",
            "RFC 1123 subdomain",
        ),
        (
            {"taint": {"key": "k", "effect": "NoSchedule"}, "deviceSelector": {"pool": "!@#$%^"}},
            "spec.deviceSelector.pool",
            "RFC 1123 subdomain",
        ),
        (
            {"taint": {"key": "k", "effect": "NoSchedule"}, "deviceSelector": {"device": "!@#$%^"}},
            "spec.deviceSelector.device",
            "RFC 1123 label",
        ),
    ],
    ids=["required-taint", "invalid-taint", "no-key", "bad-driver", "bad-pool", "bad-device"],
)
def test_rules_the_api_server_refuses_are_one_error_line(run_cli, write_snapshot, change, field, words) -> None:
    """TestValidateDeviceTaint's failing cases (by name where it has one): one error line, exit 2."""
    rule = {"apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceTaintRule", "metadata": {"name": "bad"}, "spec": change}
    out = run_cli("schedule", write_snapshot(*_gpu_snapshot(rule=rule)))
    assert out.exit_code == 2
    [line] = out.stderr.strip().splitlines()
    assert line.startswith("error:") and "DeviceTaintRule bad" in line and field in line and words in line, line


def test_unserved_version_is_refused(run_cli, write_snapshot) -> None:
    rule = {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "old"},
        "spec": {"taint": {"key": "k", "effect": "NoSchedule"}},
    }
    out = run_cli("schedule", write_snapshot(*_gpu_snapshot(rule=rule)))
    assert out.exit_code == 2 and 'no matches for kind "DeviceTaintRule" in version "resource.k8s.io/v1beta1"' in out.stderr
