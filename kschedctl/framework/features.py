"""The feature gates plugins read, as one frozen object (feature.Features upstream).

Upstream: pkg/scheduler/framework/plugins/feature/feature.go. Plugins never look a gate up
by a string: a factory that needs gates receives a ``Features`` (PluginSpec
``factory_with_features``), built once per profile from the emulated release and the
``--feature-gates`` overrides (kschedctl/versions.py). A misspelled field is an
AttributeError (and a type-checker error), never a gate silently read as off.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields

from kschedctl.versions import FEATURE_GATES, KubeVersion


def field_name(gate: str) -> str:
    """The Features field of a gate: "DRASchedulerFilterTimeout" -> "dra_scheduler_filter_timeout"."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", gate).lower()


@dataclass(frozen=True, slots=True)
class Features:
    """One field per gate of kschedctl/versions.py FEATURE_GATES (a test keeps them in step)."""

    dynamic_resource_allocation: bool
    scheduler_queueing_hints: bool
    scheduler_pop_from_backoff_q: bool
    scheduler_async_preemption: bool
    pod_level_resources: bool
    sidecar_containers: bool
    match_label_keys_in_pod_topology_spread: bool
    match_label_keys_in_pod_topology_spread_selector_merge: bool
    storage_capacity_scoring: bool
    generic_workload: bool
    gang_scheduling: bool
    topology_aware_workload_scheduling: bool
    taint_toleration_comparison_operators: bool
    node_declared_features: bool
    volume_limit_scaling: bool
    volume_attributes_class: bool
    dra_scheduler_filter_timeout: bool
    dra_device_binding_conditions: bool
    dra_resource_claim_device_status: bool
    dra_admin_access: bool
    dra_prioritized_list: bool
    dra_partitionable_devices: bool
    dra_device_taints: bool
    dra_consumable_capacity: bool
    dra_extended_resource: bool
    dra_device_taint_rules: bool

    @classmethod
    def of(cls, version: KubeVersion) -> "Features":
        """The gates of the emulated release, with its overrides."""
        by_field = {field_name(gate): version.feature_enabled(gate) for gate in FEATURE_GATES}
        return cls(**{f.name: by_field[f.name] for f in fields(cls)})

    @classmethod
    def default(cls) -> "Features":
        """The gates of the default release (tests, tools)."""
        return cls.of(KubeVersion())


__all__ = ["Features", "field_name"]
