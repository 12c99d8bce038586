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
import re
from dataclasses import dataclass
from typing import Any

from kschedctl.api.errors import ObjectError
from kschedctl.api.resource import DeviceTaint, ResourceSlice
from kschedctl.api.types import ObjectMeta, _dict, _meta

GROUP = "resource.k8s.io"
# The versions DeviceTaintRule is served in by the emulated releases (v1alpha3 since 1.33,
# v1beta2 since 1.36, v1 since 1.37 where the gate is GA); every one has the same
# deviceSelector (driver, pool, device) and taint, so each is read alike.
SERVED_VERSIONS = (f"{GROUP}/v1alpha3", f"{GROUP}/v1beta2", f"{GROUP}/v1")
TAINT_EFFECTS = ("None", "NoSchedule", "NoExecute")
_QUALIFIED_NAME_RE = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


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
    def from_dict(raw: dict) -> "DeviceTaintRule":
        """The rule as admitted: an ObjectError with the field path of the first problem."""
        api_version = raw.get("apiVersion")
        if api_version not in SERVED_VERSIONS:
            raise ObjectError(
                f'no matches for kind "DeviceTaintRule" in version "{api_version}" (served: {", ".join(SERVED_VERSIONS)})',
                "apiVersion",
            )
        meta = _meta(raw, namespaced=False)
        if not meta.name:
            raise ObjectError("Required value: name or generateName is required", "metadata.name")
        if len(meta.name) > 253 or not _SUBDOMAIN_RE.match(meta.name):
            raise ObjectError(f"Invalid value: {meta.name!r}: a lowercase RFC 1123 subdomain", "metadata.name")
        spec = _dict(raw.get("spec"), "spec")
        selector = _dict(spec.get("deviceSelector"), "spec.deviceSelector")
        fields = {k: _optional_name(selector.get(k), f"spec.deviceSelector.{k}") for k in ("driver", "pool", "device")}
        return DeviceTaintRule(meta, fields["driver"], fields["pool"], fields["device"], _taint(spec.get("taint")))


def _optional_name(value: Any, path: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ObjectError(f"Invalid value: {value!r}: must be a non-empty string", path)
    return value


def _taint(raw: Any) -> DeviceTaint:
    """validateDeviceTaint: key a qualified name, effect one of the known ones (required)."""
    taint = _dict(raw, "spec.taint")
    key = taint.get("key")
    if not key:
        raise ObjectError("Required value", "spec.taint.key")
    name = str(key).rsplit("/", 1)[-1]
    if not isinstance(key, str) or len(name) > 63 or not _QUALIFIED_NAME_RE.match(name):
        raise ObjectError(f"Invalid value: {key!r}: must be a qualified name", "spec.taint.key")
    value = taint.get("value")
    if value is not None and not isinstance(value, str):
        raise ObjectError(f"Invalid value: {value!r}: must be a string", "spec.taint.value")
    effect = taint.get("effect")
    if not effect:
        raise ObjectError("Required value", "spec.taint.effect")
    if effect not in TAINT_EFFECTS:
        supported = ", ".join(f'"{e}"' for e in TAINT_EFFECTS)
        raise ObjectError(f"Unsupported value: {effect!r}: supported values: {supported}", "spec.taint.effect")
    return DeviceTaint(key, value or "", effect)


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


__all__ = ["SERVED_VERSIONS", "TAINT_EFFECTS", "DeviceTaintRule", "patch_slice"]
