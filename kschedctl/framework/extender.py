"""The Extender interface and its wire-level types, as plugins see them (Handle.extenders()).

Upstream: staging/src/k8s.io/kube-scheduler/framework/extender.go (the Extender interface) and
k8s.io/kube-scheduler/extender/v1 (Victims, MaxExtenderPriority). The HTTP implementation and the
scheduler's use of extenders are in kschedctl/scheduler/extender.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from kschedctl.api.types import Pod
    from kschedctl.framework.types import NodeInfo

MAX_EXTENDER_PRIORITY = 10  # extenderv1.MaxExtenderPriority
EXTENDER_NAME = "Extender"  # framework.ExtenderName: put in UnschedulablePlugins when an extender rejected nodes


@dataclass
class Victims:
    """extenderv1.Victims: the pods to evict on a node and how many PDBs that violates."""

    pods: list["Pod"] = field(default_factory=list)
    num_pdb_violations: int = 0


class Extender(Protocol):
    """fwk.Extender: what the scheduler and preemption call on an extender."""

    @property
    def name(self) -> str: ...

    def is_ignorable(self) -> bool: ...

    def is_interested(self, pod: "Pod") -> bool: ...

    def is_filter(self) -> bool: ...

    def is_prioritizer(self) -> bool: ...

    def is_binder(self) -> bool: ...

    def supports_preemption(self) -> bool: ...

    def filter(self, pod: "Pod", nodes: Sequence["NodeInfo"]) -> tuple[list["NodeInfo"], dict[str, str], dict[str, str]]: ...

    def prioritize(self, pod: "Pod", nodes: Sequence["NodeInfo"]) -> tuple[list[tuple[str, int]], int]: ...

    def process_preemption(
        self, pod: "Pod", node_to_victims: dict[str, Victims], node_info: Callable[[str], "NodeInfo | None"]
    ) -> dict[str, "Victims | None"]: ...

    def bind(self, pod: "Pod", node_name: str) -> None: ...

    def skipped(self, call: str, err: Exception) -> None:
        """A failed call that did not fail the attempt (an ignorable extender, a prioritize
        error): upstream logs it; kschedctl says it once on stderr."""
        ...


__all__ = ["EXTENDER_NAME", "MAX_EXTENDER_PRIORITY", "Extender", "Victims"]
