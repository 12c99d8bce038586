"""framework.Resource and the pod request arithmetic of kube-scheduler.

Upstream: pkg/scheduler/framework/types.go (Resource, PodInfo.calculateResource),
staging/src/k8s.io/component-helpers/resource/helpers.go (PodRequests),
pkg/scheduler/util/pod_resources.go (DefaultMilliCPURequest, DefaultMemoryRequest).
cpu is kept in millicores (Quantity.MilliValue, rounded up); everything else in base
units (Quantity.Value, rounded up).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from fractions import Fraction
from typing import Any

from kschedctl.api import content_memo
from kschedctl.api.types import Container, Pod

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

# pkg/scheduler/util/pod_resources.go
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024

# Resources that pod-level `spec.resources` may set (PodLevelResources supported set).
_POD_LEVEL_SUPPORTED = (CPU, MEMORY)


class Resource:
    """Resource amounts in scheduler units (framework.Resource)."""

    __slots__ = ("milli_cpu", "memory", "ephemeral_storage", "allowed_pod_number", "scalar_resources")

    def __init__(
        self,
        milli_cpu: int = 0,
        memory: int = 0,
        ephemeral_storage: int = 0,
        allowed_pod_number: int = 0,
        scalar_resources: dict[str, int] | None = None,
    ) -> None:
        self.milli_cpu = milli_cpu
        self.memory = memory
        self.ephemeral_storage = ephemeral_storage
        self.allowed_pod_number = allowed_pod_number
        self.scalar_resources: dict[str, int] = scalar_resources if scalar_resources is not None else {}

    @staticmethod
    def from_list(resources: Mapping[str, Any]) -> "Resource":
        """NewResource(rl): cpu via MilliValue, the rest via Value."""
        r = Resource()
        for name, qty in resources.items():
            r.set(name, scheduler_units(name, qty))
        return r

    def get(self, name: str) -> int:
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.allowed_pod_number
        return self.scalar_resources.get(name, 0)

    def set(self, name: str, value: int) -> None:
        if name == CPU:
            self.milli_cpu = value
        elif name == MEMORY:
            self.memory = value
        elif name == EPHEMERAL_STORAGE:
            self.ephemeral_storage = value
        elif name == PODS:
            self.allowed_pod_number = value
        else:
            self.scalar_resources[name] = value

    def add(self, other: "Resource") -> None:
        self.milli_cpu += other.milli_cpu
        self.memory += other.memory
        self.ephemeral_storage += other.ephemeral_storage
        self.allowed_pod_number += other.allowed_pod_number
        for name, value in other.scalar_resources.items():
            self.scalar_resources[name] = self.scalar_resources.get(name, 0) + value

    def sub(self, other: "Resource") -> None:
        self.milli_cpu -= other.milli_cpu
        self.memory -= other.memory
        self.ephemeral_storage -= other.ephemeral_storage
        self.allowed_pod_number -= other.allowed_pod_number
        for name, value in other.scalar_resources.items():
            self.scalar_resources[name] = self.scalar_resources.get(name, 0) - value

    def clone(self) -> "Resource":
        return Resource(self.milli_cpu, self.memory, self.ephemeral_storage, self.allowed_pod_number, dict(self.scalar_resources))

    def is_zero(self) -> bool:
        return self.milli_cpu == 0 and self.memory == 0 and self.ephemeral_storage == 0 and not any(self.scalar_resources.values())

    def as_dict(self) -> dict[str, int]:
        out = {CPU: self.milli_cpu, MEMORY: self.memory}
        if self.ephemeral_storage:
            out[EPHEMERAL_STORAGE] = self.ephemeral_storage
        out.update(self.scalar_resources)
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Resource):
            return NotImplemented
        return (
            self.milli_cpu,
            self.memory,
            self.ephemeral_storage,
            self.allowed_pod_number,
            {k: v for k, v in self.scalar_resources.items() if v},
        ) == (
            other.milli_cpu,
            other.memory,
            other.ephemeral_storage,
            other.allowed_pod_number,
            {k: v for k, v in other.scalar_resources.items() if v},
        )

    def __repr__(self) -> str:
        return (
            f"Resource(milli_cpu={self.milli_cpu}, memory={self.memory}, ephemeral_storage={self.ephemeral_storage}, "
            f"pods={self.allowed_pod_number}, scalar={self.scalar_resources})"
        )


def scheduler_units(name: str, qty: Fraction | int) -> int:
    """A quantity in the scheduler's units: cpu in millicores, the rest as is (rounded up).
    Exact integer arithmetic on the fraction's terms (ceil(a/b) = -(-a // b)), without
    building Fractions on the way."""
    if qty.__class__ is int:
        return qty * 1000 if name == CPU else qty
    numerator, denominator = qty.numerator, qty.denominator
    if name == CPU:
        numerator *= 1000
    return -(-numerator // denominator)


# --- PodRequests (component-helpers resource/helpers.go) ----------------------------------


# The defaults as quantities, made once: a Fraction is immutable, and making one (a gcd) cost
# ~2 us, twice per pod without requests (SchedulingDaemonset: 30,000 such pods).
_DEFAULT_CPU = Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000)
_DEFAULT_MEMORY = Fraction(DEFAULT_MEMORY_REQUEST)


def _container_requests(container: Container, non_zero: bool) -> dict[str, Fraction]:
    reqs = dict(container.requests)
    if non_zero:
        # pod_resources.go: a container whose requests lack cpu/memory uses the defaults;
        # an explicit zero stays zero.
        if CPU not in reqs:
            reqs[CPU] = _DEFAULT_CPU
        if MEMORY not in reqs:
            reqs[MEMORY] = _DEFAULT_MEMORY
    return reqs


def _add_into(total: dict[str, Fraction], add: Mapping[str, Fraction]) -> None:
    for name, qty in add.items():
        known = total.get(name)
        total[name] = qty if known is None else known + qty


def _max_into(total: dict[str, Fraction], other: Mapping[str, Fraction]) -> None:
    for name, qty in other.items():
        if name not in total or qty > total[name]:
            total[name] = qty


def aggregate_container_requests(pod: Pod, non_zero: bool = False) -> dict[str, Fraction]:
    """max(sum of containers + sidecars, each init container's use), as AggregateContainerRequests.

    A restartable init container (sidecar) runs for the pod's whole life, so it is added to the
    sum; an ordinary init container needs its own request plus the sidecars started before it.
    """
    reqs: dict[str, Fraction] = {}
    for c in pod.containers:
        _add_into(reqs, _container_requests(c, non_zero))
    restartable: dict[str, Fraction] = {}
    init_max: dict[str, Fraction] = {}
    for c in pod.init_containers:
        creqs = _container_requests(c, non_zero)
        if c.is_sidecar:
            _add_into(reqs, creqs)
            _add_into(restartable, creqs)
            use = dict(restartable)
        else:
            use = dict(restartable)
            _add_into(use, creqs)
        _max_into(init_max, use)
    _max_into(reqs, init_max)
    return reqs


def pod_requests(pod: Pod, non_zero: bool = False, skip_pod_level: bool = False) -> dict[str, Fraction]:
    """PodRequests: container aggregate, pod-level requests where set (unless
    ``skip_pod_level``: SkipPodLevelResources), plus overhead."""
    reqs = aggregate_container_requests(pod, non_zero)
    if pod.pod_requests and not skip_pod_level:
        for name in _POD_LEVEL_SUPPORTED:
            if name in pod.pod_requests:
                reqs[name] = pod.pod_requests[name]
        for name, qty in pod.pod_requests.items():
            if name.startswith("hugepages-"):
                reqs[name] = qty
    if pod.overhead:
        _add_into(reqs, pod.overhead)
    return reqs


def compute_pod_resource_request(pod: Pod) -> Resource:
    """The pod's effective request (real values, no non-zero defaults)."""
    return Resource.from_list(pod_requests(pod))


# The requests of pods by what they are worked out from (requests_of); bounded as
# content_memo's memos are.
_REQUESTS_KEPT: dict[Hashable, tuple[Resource, int, int]] = {}


def requests_of(pod: Pod) -> tuple[Resource, int, int]:
    """(compute_pod_resource_request, *compute_non_zero_request) of the pod, worked out once
    per distinct content of what they read: each container's and init container's requests
    (and whether it is a sidecar), the pod-level requests and the overhead. A Deployment's
    replicas share one answer; working it out (sums of exact fractions, twice) cost ~8 us a
    pod, the key ~1 us. The Resource is shared by those pods: it must not be changed (nothing
    changes a PodInfo's requests; a plugin handed one gets it back restored)."""
    try:
        key = (
            tuple([tuple(c.requests.items()) for c in pod.containers]),
            tuple([(tuple(c.requests.items()), c.is_sidecar) for c in pod.init_containers]),
            tuple(pod.pod_requests.items()) if pod.pod_requests else None,
            tuple(pod.overhead.items()) if pod.overhead else None,
        )
        found = _REQUESTS_KEPT.get(key)
    except TypeError:  # an unhashable amount (not one the decoder makes): no key
        return (compute_pod_resource_request(pod), *compute_non_zero_request(pod))
    if found is None:
        found = (compute_pod_resource_request(pod), *compute_non_zero_request(pod))
        content_memo.remember(_REQUESTS_KEPT, key, found)
    return found


def compute_non_zero_request(pod: Pod) -> tuple[int, int]:
    """(milli_cpu, memory) with the 100m / 200Mi defaults, for NonZeroRequested and scoring."""
    if pod.pod_requests:
        real = pod_requests(pod)
        nz = pod_requests(pod, non_zero=True)
        # With pod-level requests the default applies only where the resource is missing
        # from both the pod-level and the aggregated container requests.
        cpu = real[CPU] if CPU in real else nz[CPU]
        mem = real[MEMORY] if MEMORY in real else nz[MEMORY]
        return scheduler_units(CPU, cpu), scheduler_units(MEMORY, mem)
    nz = pod_requests(pod, non_zero=True)
    return scheduler_units(CPU, nz.get(CPU, 0)), scheduler_units(MEMORY, nz.get(MEMORY, 0))
