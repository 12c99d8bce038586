"""Dynamic Resource Allocation objects of resource.k8s.io/v1: DeviceClass and ResourceSlice.

Built from the raw dicts of a snapshot like the objects of ``types.py``: only what the
scheduler's allocator reads is typed, the raw dict is kept for writing back. The API server's
defaulting and the limits its validation enforces (staging/src/k8s.io/api/resource/v1/types.go,
pkg/apis/resource/validation) are applied where the allocator depends on them. Claims and
templates are in ``resourceclaim.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kschedctl.api.content_memo import content_key, remember
from kschedctl.api.errors import ObjectError
from kschedctl.api.jsontypes import JSONObject
from kschedctl.api.labels import NodeSelector, node_selector_from_dict
from kschedctl.api.quantity import QuantityError, parse_quantity
from kschedctl.api.types import ObjectMeta, _dict, _int, _list, _meta

# Limits from staging/src/k8s.io/api/resource/v1/types.go.
ALLOCATION_RESULTS_MAX_SIZE = 32  # AllocationResultsMaxSize
RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE = 32
DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH = 64
DEVICE_MAX_DOMAIN_LENGTH = 63
DEVICE_MAX_ID_LENGTH = 32
DRIVER_NAME_MAX_LENGTH = 63
CEL_SELECTOR_EXPRESSION_MAX_COST = 1_000_000  # CELSelectorExpressionMaxCost

DEVICE_TAINT_EFFECT_NO_SCHEDULE = "NoSchedule"
DEVICE_TAINT_EFFECT_NO_EXECUTE = "NoExecute"
DEVICE_TAINT_EFFECT_NONE = "None"


def _quantity(value: Any, where: str) -> Fraction:
    try:
        return parse_quantity(value)
    except QuantityError as exc:
        raise ObjectError(str(exc), where) from None


def _opt_bool(value: Any, where: str) -> bool | None:
    if value is None:
        return None
    if not isinstance(value, bool):
        raise ObjectError(f"expected a boolean, got {value!r}", where)
    return value


def _strs(value: Any, where: str) -> tuple[str, ...]:
    return tuple(str(v) for v in _list(value, where))


# --- devices ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeviceAttribute:
    """One typed attribute value. ``kind`` is int, bool, string or version; any other form
    (a future list-typed attribute, or none set) is ``unsupported``, which CEL reports as
    "unsupported attribute value" when an expression touches the device (cel/compile.go)."""

    kind: str
    value: Any

    @staticmethod
    def from_dict(raw: Any, where: str) -> "DeviceAttribute":
        raw = _dict(raw, where)
        if "int" in raw and raw["int"] is not None:
            value = raw["int"]
            if isinstance(value, bool) or not isinstance(value, int):
                raise ObjectError(f"expected an integer, got {value!r}", f"{where}.int")
            return DeviceAttribute("int", value)
        if "bool" in raw and raw["bool"] is not None:
            return DeviceAttribute("bool", _opt_bool(raw["bool"], f"{where}.bool"))
        if "string" in raw and raw["string"] is not None:
            return DeviceAttribute("string", str(raw["string"]))
        if "version" in raw and raw["version"] is not None:
            return DeviceAttribute("version", str(raw["version"]))
        return DeviceAttribute("unsupported", None)


@dataclass(frozen=True, slots=True)
class CapacityRequestPolicy:
    """DeviceCapacity.requestPolicy: how a consumable capacity may be requested."""

    default: Fraction | None = None
    valid_values: tuple[Fraction, ...] = ()
    valid_range_min: Fraction | None = None
    valid_range_max: Fraction | None = None
    valid_range_step: Fraction | None = None
    has_valid_range: bool = False


@dataclass(frozen=True, slots=True)
class DeviceCapacity:
    """One entry of Device.capacity (resourceapi.DeviceCapacity): its value and, for consumable capacity, its requestPolicy."""

    value: Fraction
    request_policy: CapacityRequestPolicy | None = None
    raw_value: Any = None  # the quantity as written, for CEL's quantity and write-back


def _request_policy(raw: Any, where: str) -> CapacityRequestPolicy | None:
    if raw is None:
        return None
    raw = _dict(raw, where)
    rng = raw.get("validRange")
    default = raw.get("default")
    policy = CapacityRequestPolicy(
        default=None if default is None else _quantity(default, f"{where}.default"),
        valid_values=tuple(
            _quantity(v, f"{where}.validValues[{i}]") for i, v in enumerate(_list(raw.get("validValues"), f"{where}.validValues"))
        ),
    )
    if rng is not None:
        rng = _dict(rng, f"{where}.validRange")
        lo, hi, step = rng.get("min"), rng.get("max"), rng.get("step")
        policy = CapacityRequestPolicy(
            policy.default,
            policy.valid_values,
            None if lo is None else _quantity(lo, f"{where}.validRange.min"),
            None if hi is None else _quantity(hi, f"{where}.validRange.max"),
            None if step is None else _quantity(step, f"{where}.validRange.step"),
            True,
        )
    return policy


@dataclass(frozen=True, slots=True)
class DeviceTaint:
    """A device's taint (resourceapi.DeviceTaint): key, value and effect (NoSchedule, NoExecute or None)."""

    key: str
    value: str
    effect: str


@dataclass(frozen=True, slots=True)
class DeviceCounterConsumption:
    """One consumesCounters entry of a Device (resourceapi.DeviceCounterConsumption): what it takes of each counter of a counter set."""

    counter_set: str
    counters: dict[str, Fraction]


def _counters(raw: Any, where: str) -> dict[str, Fraction]:
    out: dict[str, Fraction] = {}
    for name, counter in _dict(raw, where).items():
        counter = _dict(counter, f"{where}.{name}")
        out[str(name)] = _quantity(counter.get("value"), f"{where}.{name}.value")
    return out


# The attribute values and capacities read so far, by their one value: a pool's devices
# repeat a handful (a model, a driver version, a memory size), and both are frozen. Each
# memo here is bounded as content_memo.py's are (remember).
_ATTRIBUTES: dict[tuple[str, Any], DeviceAttribute] = {}
_CAPACITIES: dict[str, DeviceCapacity] = {}
_ATTRIBUTE_TYPES = {"int": int, "bool": bool, "string": str, "version": str}
# The fields of a device as most drivers publish it.
_PLAIN_DEVICE_FIELDS = frozenset(("name", "attributes", "capacity"))


def _plain_attribute(raw: Any) -> DeviceAttribute | None:
    """DeviceAttribute.from_dict of a one-value form of its own type ({"string": "A100"}),
    shared by every device that has it; None for any other form (from_dict reads it)."""
    if type(raw) is not dict or len(raw) != 1:
        return None
    ((kind, value),) = raw.items()
    if type(value) is not _ATTRIBUTE_TYPES.get(kind):
        return None
    key = (kind, value)
    found = _ATTRIBUTES.get(key)
    if found is None:
        found = DeviceAttribute(kind, value)
        remember(_ATTRIBUTES, key, found)
    return found


def _plain_capacity(raw: Any) -> DeviceCapacity | None:
    """A capacity of only a value written as text ({"value": "1Gi"}), shared by every device
    that has it; None for any other form, and for a first sight (Device.from_dict reads it)."""
    if type(raw) is not dict or len(raw) != 1:
        return None
    value = raw.get("value")
    return _CAPACITIES.get(value) if type(value) is str else None


def _plain_map(kept: dict[Any, Any], raw: Any, plain: Callable[[Any], Any]) -> dict[str, Any] | None:
    """A device's attributes or capacity, each entry its ``plain`` form (_plain_attribute,
    _plain_capacity), or what was read for an equal map before (content_memo.py): a pool's
    devices share a few (they differ in a NUMA node or an index). None when an entry has no
    plain form or a name that is not a string. The map is shared: a Device is never written to."""
    if raw is None:
        return {}
    if type(raw) is not dict:
        return None
    key = content_key(raw)
    found: dict[str, Any] | None = kept.get(key)
    if found is not None:
        return found
    out: dict[str, Any] = {}
    for name, value in raw.items():
        entry = plain(value)
        if entry is None or type(name) is not str:
            return None
        out[name] = entry
    remember(kept, key, out)
    return out


_ATTRIBUTE_MAPS: dict[Any, dict[str, DeviceAttribute]] = {}
_CAPACITY_MAPS: dict[Any, dict[str, DeviceCapacity]] = {}


def _plain_device(raw: Any) -> Device | None:
    """Device.from_dict of a device of only a name, attributes and capacities, each in its
    plain form and within the limit; None for any other (from_dict reads it, and words any
    error). A ResourceSlice of a large pool is a hundred of them."""
    if type(raw) is not dict or not raw.keys() <= _PLAIN_DEVICE_FIELDS:
        return None
    name = raw.get("name")
    if type(name) is not str or not name:
        return None
    attrs = _plain_map(_ATTRIBUTE_MAPS, raw.get("attributes"), _plain_attribute)
    caps = _plain_map(_CAPACITY_MAPS, raw.get("capacity"), _plain_capacity)
    if attrs is None or caps is None or len(attrs) + len(caps) > RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE:
        return None
    return Device(name, attrs, caps)


def _device(raw: Any, index: int) -> Device:
    """The device at ``index`` of a slice's spec.devices."""
    return _plain_device(raw) or Device.from_dict(raw, f"spec.devices[{index}]")


@dataclass(frozen=True, slots=True, eq=False)
class Device:
    """One device of a ResourceSlice (resourceapi.Device)."""

    name: str
    attributes: dict[str, DeviceAttribute]
    capacity: dict[str, DeviceCapacity]
    consumes_counters: tuple[DeviceCounterConsumption, ...] = ()
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    node_selector_raw: JSONObject | None = None
    all_nodes: bool | None = None
    taints: tuple[DeviceTaint, ...] = ()
    binds_to_node: bool | None = None
    binding_conditions: tuple[str, ...] = ()
    binding_failure_conditions: tuple[str, ...] = ()
    allow_multiple_allocations: bool | None = None

    @staticmethod
    def from_dict(raw: Any, where: str) -> "Device":
        raw = _dict(raw, where)
        name = raw.get("name")
        if not name:
            raise ObjectError("required value", f"{where}.name")
        attributes = {
            str(k): DeviceAttribute.from_dict(v, f"{where}.attributes.{k}")
            for k, v in _dict(raw.get("attributes"), f"{where}.attributes").items()
        }
        capacity = {}
        for k, v in _dict(raw.get("capacity"), f"{where}.capacity").items():
            v = _dict(v, f"{where}.capacity.{k}")
            capacity[str(k)] = cap = DeviceCapacity(
                _quantity(v.get("value"), f"{where}.capacity.{k}.value"),
                _request_policy(v.get("requestPolicy"), f"{where}.capacity.{k}.requestPolicy"),
                v.get("value"),
            )
            if len(v) == 1 and type(v.get("value")) is str:  # the plain form: _plain_device's next time
                remember(_CAPACITIES, v["value"], cap)
        if len(attributes) + len(capacity) > RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE:
            raise ObjectError(
                f"must have at most {RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE} attributes and capacities", f"{where}"
            )
        consumes = []
        for i, c in enumerate(_list(raw.get("consumesCounters"), f"{where}.consumesCounters")):
            c = _dict(c, f"{where}.consumesCounters[{i}]")
            consumes.append(
                DeviceCounterConsumption(
                    str(c.get("counterSet", "")), _counters(c.get("counters"), f"{where}.consumesCounters[{i}].counters")
                )
            )
        taints = []
        for i, t in enumerate(_list(raw.get("taints"), f"{where}.taints")):
            t = _dict(t, f"{where}.taints[{i}]")
            taints.append(
                DeviceTaint(str(t.get("key", "")), "" if t.get("value") is None else str(t.get("value")), str(t.get("effect") or ""))
            )
        return Device(
            name=str(name),
            attributes=attributes,
            capacity=capacity,
            consumes_counters=tuple(consumes),
            node_name=None if raw.get("nodeName") in (None, "") else str(raw["nodeName"]),
            node_selector=node_selector_from_dict(raw.get("nodeSelector"), f"{where}.nodeSelector"),
            node_selector_raw=raw.get("nodeSelector"),
            all_nodes=_opt_bool(raw.get("allNodes"), f"{where}.allNodes"),
            taints=tuple(taints),
            binds_to_node=_opt_bool(raw.get("bindsToNode"), f"{where}.bindsToNode"),
            binding_conditions=_strs(raw.get("bindingConditions"), f"{where}.bindingConditions"),
            binding_failure_conditions=_strs(raw.get("bindingFailureConditions"), f"{where}.bindingFailureConditions"),
            allow_multiple_allocations=_opt_bool(raw.get("allowMultipleAllocations"), f"{where}.allowMultipleAllocations"),
        )


@dataclass(frozen=True, slots=True)
class CounterSet:
    """One sharedCounters entry of a ResourceSlice (resourceapi.CounterSet): named counters its pool's devices consume."""

    name: str
    counters: dict[str, Fraction]


@dataclass(frozen=True, slots=True)
class ResourcePool:
    """ResourceSlice.spec.pool (resourceapi.ResourcePool): the pool's name, generation and how many slices make it up."""

    name: str
    generation: int
    resource_slice_count: int


@dataclass(slots=True, eq=False)
class ResourceSlice:
    """A ResourceSlice: one part of a driver's pool. Exactly one of ``node_name``,
    ``node_selector``, ``all_nodes``, ``per_device_node_selection`` says where its devices are
    usable, except for slices that only publish ``shared_counters``."""

    meta: ObjectMeta
    driver: str
    pool: ResourcePool
    node_name: str | None
    node_selector: NodeSelector | None
    node_selector_raw: JSONObject | None
    all_nodes: bool
    per_device_node_selection: bool | None
    devices: tuple[Device, ...]
    shared_counters: tuple[CounterSet, ...]
    raw: JSONObject = field(repr=False)

    @property
    def name(self) -> str:
        return self.meta.name

    @staticmethod
    def from_dict(raw: JSONObject) -> "ResourceSlice":
        meta = _meta(raw, namespaced=False)
        spec = _dict(raw.get("spec"), "spec")
        driver = spec.get("driver")
        if not driver:
            raise ObjectError("required value", "spec.driver")
        pool = _dict(spec.get("pool"), "spec.pool")
        if not pool.get("name"):
            raise ObjectError("required value", "spec.pool.name")
        count = _int(pool.get("resourceSliceCount"), "spec.pool.resourceSliceCount", 0) or 0
        if count <= 0:
            raise ObjectError(f"must be greater than zero, got {count}", "spec.pool.resourceSliceCount")
        node_name = spec.get("nodeName")
        counter_sets = []
        for i, cs in enumerate(_list(spec.get("sharedCounters"), "spec.sharedCounters")):
            cs = _dict(cs, f"spec.sharedCounters[{i}]")
            counter_sets.append(CounterSet(str(cs.get("name", "")), _counters(cs.get("counters"), f"spec.sharedCounters[{i}].counters")))
        return ResourceSlice(
            meta=meta,
            driver=str(driver),
            pool=ResourcePool(str(pool["name"]), _int(pool.get("generation"), "spec.pool.generation", 0) or 0, count),
            node_name=None if node_name in (None, "") else str(node_name),
            node_selector=node_selector_from_dict(spec.get("nodeSelector"), "spec.nodeSelector"),
            node_selector_raw=spec.get("nodeSelector"),
            all_nodes=bool(_opt_bool(spec.get("allNodes"), "spec.allNodes")),
            per_device_node_selection=_opt_bool(spec.get("perDeviceNodeSelection"), "spec.perDeviceNodeSelection"),
            devices=tuple(_device(d, i) for i, d in enumerate(_list(spec.get("devices"), "spec.devices"))),
            shared_counters=tuple(counter_sets),
            raw=raw,
        )


# --- device classes ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeviceSelector:
    """A selector; ``cel`` is None for a selector of a kind this release does not know."""

    cel: str | None


def selectors_from_list(raw: Any, where: str) -> tuple[DeviceSelector, ...]:
    out = []
    for i, s in enumerate(_list(raw, where)):
        s = _dict(s, f"{where}[{i}]")
        cel = s.get("cel")
        if cel is None:
            out.append(DeviceSelector(None))
            continue
        cel = _dict(cel, f"{where}[{i}].cel")
        expression = cel.get("expression")
        if not isinstance(expression, str) or not expression:
            raise ObjectError("required value", f"{where}[{i}].cel.expression")
        out.append(DeviceSelector(expression))
    return tuple(out)


@dataclass(slots=True, eq=False)
class DeviceClass:
    """A DeviceClass: the selectors its devices must pass, the config copied into allocation results, and the
    extended resource it backs, if any (DRAExtendedResource)."""

    meta: ObjectMeta
    selectors: tuple[DeviceSelector, ...]
    config: tuple[JSONObject, ...]  # DeviceClassConfiguration, copied into allocation results as is
    extended_resource_name: str | None
    raw: JSONObject = field(repr=False)

    @property
    def name(self) -> str:
        return self.meta.name

    @staticmethod
    def from_dict(raw: JSONObject) -> "DeviceClass":
        meta = _meta(raw, namespaced=False)
        spec = _dict(raw.get("spec"), "spec")
        ext = spec.get("extendedResourceName")
        return DeviceClass(
            meta=meta,
            selectors=selectors_from_list(spec.get("selectors"), "spec.selectors"),
            config=tuple(_dict(c, f"spec.config[{i}]") for i, c in enumerate(_list(spec.get("config"), "spec.config"))),
            extended_resource_name=None if ext in (None, "") else str(ext),
            raw=raw,
        )


__all__ = [
    "ALLOCATION_RESULTS_MAX_SIZE",
    "CEL_SELECTOR_EXPRESSION_MAX_COST",
    "CapacityRequestPolicy",
    "CounterSet",
    "Device",
    "DeviceAttribute",
    "DeviceCapacity",
    "DeviceClass",
    "DeviceCounterConsumption",
    "DeviceSelector",
    "DeviceTaint",
    "ResourcePool",
    "ResourceSlice",
    "selectors_from_list",
]
