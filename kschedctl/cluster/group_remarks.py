"""What the emulated release does with the snapshot's pod-group objects, said on stderr when it
ignores them or ignores their gang rule.

kube-scheduler reads PodGroups (scheduling.k8s.io, 1.36+) and Workloads (1.35) only with the
GenericWorkload feature gate, and applies a group's minCount only with GangScheduling too
(pkg/scheduler/framework/plugins/registry.go enables the GangScheduling plugin behind both gates;
both are off by default in every release kschedctl emulates). Without a word, a user who wrote a
minCount-3 gang sees "Scheduled 1/1" and a file holding a PodGroup is treated as if it had none.
scheduler-plugins' PodGroups (scheduling.x-k8s.io) are read by the Coscheduling package, not by
these gates, and are left out here.
"""

from __future__ import annotations

from typing import Any

from kschedctl.cluster.references import first_names
from kschedctl.framework.podgroup import POD_GROUP_KIND, WORKLOAD_KIND, uses_pod_group_object

GATES = "--feature-gates GenericWorkload=true,GangScheduling=true"


def pod_group_remarks(objects: Any, version: Any) -> list[str]:
    """One line per reason the release sets the snapshot's PodGroups/Workloads aside."""
    groups = getattr(objects, "pod_groups", None) or {}
    by_kind: dict[str, list[str]] = {}
    for kind, key in groups:
        if kind in (POD_GROUP_KIND, WORKLOAD_KIND):
            by_kind.setdefault(kind, []).append(key)
    if not by_kind:
        return []
    release = version.version
    read_kind = POD_GROUP_KIND if uses_pod_group_object(version) else WORKLOAD_KIND
    out = []
    for kind in sorted(by_kind):
        keys = sorted(by_kind[kind])
        what = f"{len(keys)} {kind}(s) in the snapshot ({first_names(keys)})"
        if kind != read_kind:
            out.append(
                f"{what} ignored: kube-scheduler {release} reads pod groups from {read_kind}s "
                f"({'spec.schedulingGroup.podGroupName' if read_kind == POD_GROUP_KIND else 'spec.workloadRef'}); "
                "their pods are scheduled one by one"
            )
        elif not version.feature_enabled("GenericWorkload"):
            out.append(
                f"{what} ignored: pod groups are read only with the GenericWorkload feature gate, off by "
                f"default in {release} ({GATES}); their pods are scheduled one by one"
            )
        elif not version.feature_enabled("GangScheduling"):
            out.append(f"{what}: the gang rule (minCount) is not applied: the GangScheduling feature gate is off ({GATES})")
    return out
