"""Services: what the scheduler lends the frameworks of its profiles (and, through each
profile's Handle, their plugins).

The Scheduler fills one Services for the run (kschedctl/scheduler/scheduler.py); config
validation, ``explain`` tooling and tests use ``Services.minimal`` (no scheduler: nothing is
nominated, no client, the pods are the snapshot's).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kschedctl.framework.waiting_pods import WaitingPodsMap
from kschedctl.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT

if TYPE_CHECKING:
    from kschedctl.api.objects import ClusterObjects
    from kschedctl.api.types import Pod
    from kschedctl.dra.manager import DRAManager
    from kschedctl.framework.extender import Extender
    from kschedctl.framework.handle import Client, Clock, PodLister, PodNominator
    from kschedctl.versions import KubeVersion


class FixedClock:
    """A clock that only moves when told to (no scheduler: validation, tests)."""

    def __init__(self, now: float = 0.0) -> None:
        self.t = now

    def now(self) -> float:
        return self.t


@dataclass
class Services:
    """What the scheduler lends its frameworks and, through their Handles, the plugins: objects, clock, client, nominator,
    extenders, DRA state."""

    objects: "ClusterObjects"
    version: "KubeVersion"
    rng: random.Random
    clock: "Clock"
    nominator: "PodNominator | None" = None
    client: "Client | None" = None
    pods: "PodLister | None" = None  # None: the pods bound in the snapshot
    assumed_pod: "Callable[[str], Pod | None] | None" = None  # uid -> its assumed copy in the cache
    plugin_timeout: float | None = DEFAULT_PLUGIN_TIMEOUT  # per sandboxed plugin call, seconds
    warnings: list[str] = field(default_factory=list)  # said once each, on stderr by the CLI
    # the configured HTTP extenders (kschedctl/scheduler/extender.py), for preemption (Handle.Extenders)
    extenders: list["Extender"] = field(default_factory=list)
    dra: "DRAManager | None" = None  # built on first use (dra_manager)
    # The pods waiting at Permit, one map for every profile, as scheduler.go hands the same
    # waitingPodsMap to each framework (WithWaitingPods): a plugin's IterateOverWaitingPods
    # sees the pods another profile holds (a gang split across profiles is let go together).
    waiting_pods: WaitingPodsMap = field(default_factory=WaitingPodsMap)

    def dra_manager(self) -> "DRAManager":
        """The shared DRA state of the run (one for all profiles, as kube's SharedDRAManager)."""
        if self.dra is None:
            from kschedctl.dra.manager import DRAManager

            taint_rules = self.version.feature_enabled("DRADeviceTaintRules")
            if self.objects.device_taint_rules and not taint_rules:
                from kschedctl.api.devicetaintrule import DEVICE_TAINT_RULES_IGNORED

                self.warn(DEVICE_TAINT_RULES_IGNORED)
            elif self.objects.device_taint_rules and not self.version.feature_enabled("DRADeviceTaints"):
                # kube_features.go: DRADeviceTaintRules depends on DRADeviceTaints
                self.warn(
                    "DeviceTaintRules add their taints, but DRADeviceTaints is off in this release: the "
                    "allocator ignores device taints (--feature-gates DRADeviceTaints=true turns it on)"
                )
            self.dra = DRAManager(self.objects, self.version.feature_enabled("DRAConsumableCapacity"), taint_rules, self.warn)
        return self.dra

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    @classmethod
    def minimal(
        cls,
        version: "KubeVersion | None" = None,
        objects: "ClusterObjects | None" = None,
        seed: int = 0,
        plugin_timeout: float | None = DEFAULT_PLUGIN_TIMEOUT,
    ) -> "Services":
        """Services without a scheduler: config validation builds its frameworks with these."""
        from kschedctl.api.objects import ClusterObjects
        from kschedctl.versions import KubeVersion

        return cls(
            objects if objects is not None else ClusterObjects(),
            version if version is not None else KubeVersion(),
            random.Random(seed),
            FixedClock(),
            plugin_timeout=plugin_timeout,
        )


__all__ = ["FixedClock", "Services"]
