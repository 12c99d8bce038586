"""DeviceTaintRule (resource.k8s.io v1alpha3, v1beta2, v1): a taint for the devices its selector names.

kube-scheduler never reads the rules itself: with the DRADeviceTaintRules gate on, its DRA manager
lists ResourceSlices through the ResourceSlice tracker
(k8s.io/dynamic-resource-allocation/resourceslice/tracker), which adds each rule's taint to every
device the rule's ``spec.deviceSelector`` matches (driver, pool and device name; an unset field
matches anything), as if the driver had published it. kschedctl reads the rules from snapshots,
admitted as the API server admits them (pkg/apis/resource/validation: name, taint key and
effect), and ``patch_slice`` applies them as the tracker's applyPatches does.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from kschedctl.api.errors import ObjectError
from kschedctl.api.gosemantics import not_supported
from kschedctl.api.jsontypes import JSONObject
from kschedctl.api.resource import DeviceTaint, ResourceSlice
from kschedctl.api.resource_admission import _dns_label, _dns_subdomain, _invalid, _map, _required
from kschedctl.api.types import ObjectMeta, _meta
from kschedctl.api.validation import qualified_name_errors

GROUP = "resource.k8s.io"
# The versions DeviceTaintRule is served in by the emulated releases (v1alpha3 since 1.33,
# v1beta2 since 1.36, v1 since 1.37 where the gate is GA); every one has the same
# deviceSelector (driver, pool, device) and taint, so each is read alike.
SERVED_VERSIONS = (f"{GROUP}/v1alpha3", f"{GROUP}/v1beta2", f"{GROUP}/v1")
TAINT_EFFECTS = ("NoExecute", "NoSchedule", "None")  # in field.NotSupported's order

# Read, but used only where their gate is on (dynamicresources.go ListWithDeviceTaintRules, gate
# DRADeviceTaintRules): the run says why it ignores them where the gate is off.
DEVICE_TAINT_RULES_IGNORED = (
    "skipping objects of kind 'DeviceTaintRule': kube-scheduler reads them only with the "
    "DRADeviceTaintRules feature gate, off in this release (--feature-gates DRADeviceTaintRules=true "
    "turns it on); DynamicResources uses the ResourceSlices as published, without the taints these rules add"
)


@dataclass(frozen=True, slots=True)
class DeviceTaintRule:
    """One rule: its selector (None: any) and the taint it adds."""

    meta: ObjectMeta
    driver: str | None
    pool: str | None
    device: str | None
    taint: DeviceTaint

    @property
    def name(self) -> str:
        return self.meta.name

    def matches(self, driver: str, pool: str, device: str) -> bool:
        """applyPatches: every set selector field must equal the device's."""
        return (
            (self.driver is None or self.driver == driver)
            and (self.pool is None or self.pool == pool)
            and (self.device is None or self.device == device)
        )

    @staticmethod
    def from_dict(raw: JSONObject) -> "DeviceTaintRule":
        """The rule as admitted (ValidateDeviceTaintRule): an ObjectError, in field.Error's
        words, with the field path of the first problem."""
        api_version = raw.get("apiVersion")
        if api_version not in SERVED_VERSIONS:
            raise ObjectError(
                f'no matches for kind "DeviceTaintRule" in version "{api_version}" (served: {", ".join(SERVED_VERSIONS)})',
                "apiVersion",
            )
        md = _map(raw.get("metadata"), "metadata")
        if not md.get("name"):
            raise _required("metadata.name", "name or generateName is required")
        _dns_subdomain(md.get("name"), "metadata.name")
        meta = _meta(raw, namespaced=False)
        spec = _map(raw.get("spec"), "spec")
        selector = _map(spec.get("deviceSelector"), "spec.deviceSelector")
        driver, pool, device = (selector.get(k) for k in ("driver", "pool", "device"))
        if driver is not None:
            _dns_subdomain(driver, "spec.deviceSelector.driver")
        if pool is not None:
            _dns_subdomain(pool, "spec.deviceSelector.pool")
        if device is not None:
            _dns_label(device, "spec.deviceSelector.device")
        return DeviceTaintRule(meta, driver, pool, device, _taint(spec.get("taint")))


def _taint(raw: Any) -> DeviceTaint:
    """validateDeviceTaint: the key a qualified name, the effect required and known."""
    taint = _map(raw, "spec.taint")
    key = taint.get("key")
    if not isinstance(key, str) or not key:
        raise _required("spec.taint.key")
    problems = qualified_name_errors(key)
    if problems:
        raise _invalid("spec.taint.key", key, problems[0])
    value = taint.get("value")
    if value is not None and not isinstance(value, str):
        raise _invalid("spec.taint.value", value, "must be a string")
    effect = taint.get("effect")
    if not effect:
        raise _required("spec.taint.effect")
    if effect not in TAINT_EFFECTS:
        error = not_supported("spec.taint.effect", effect, TAINT_EFFECTS)
        raise ObjectError(error.body, error.field)
    return DeviceTaint(key, value or "", str(effect))


def patch_slice(slice_: ResourceSlice, rules: list[DeviceTaintRule]) -> ResourceSlice:
    """The slice with the rules' taints appended to the devices they match (the slice itself when
    none matches), in rule order, after the taints the driver published."""
    devices = list(slice_.devices)
    changed = False
    for rule in rules:
        if (rule.driver is not None and rule.driver != slice_.driver) or (rule.pool is not None and rule.pool != slice_.pool.name):
            continue
        for i, device in enumerate(devices):
            if rule.device is not None and rule.device != device.name:
                continue
            devices[i] = dataclasses.replace(device, taints=(*device.taints, rule.taint))
            changed = True
    return dataclasses.replace(slice_, devices=tuple(devices)) if changed else slice_


__all__ = ["DEVICE_TAINT_RULES_IGNORED", "SERVED_VERSIONS", "TAINT_EFFECTS", "DeviceTaintRule", "patch_slice"]
