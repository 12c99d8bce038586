"""The snapshot (or a scenario's), and what it lacks said on stderr."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kschedctl.app.config import Say

if TYPE_CHECKING:
    from kschedctl.cluster.loader import ClusterSnapshot
    from kschedctl.versions import KubeVersion


def load_cluster(paths: list[str], version: KubeVersion, say: Say, pending_matters: bool = True) -> ClusterSnapshot:
    """The snapshot's files, loaded; the loader's warnings (kinds skipped, ...) and the input
    remarks said. ``pending_matters``: whether a snapshot with no pending pod is worth a word."""
    from kschedctl.cluster.loader import load_snapshot

    cluster = load_snapshot(paths)
    for warning in cluster.warnings:
        say(warning)
    say_input_remarks(cluster, version, say, pending_matters=pending_matters)
    return cluster


def say_input_remarks(
    cluster: ClusterSnapshot, version: KubeVersion, say: Say, emptiness_too: bool = True, pending_matters: bool = True
) -> None:
    """What the snapshot lacks (kschedctl/cluster/references.py): an empty snapshot, no pending
    pod, objects the pods refer to that are not in it, pod-group remarks, and the 1.36/1.37
    behaviours the snapshot calls on that kschedctl does not model (cluster/release_remarks.py)."""
    from kschedctl.cluster.group_remarks import pod_group_remarks
    from kschedctl.cluster.references import emptiness, missing_references

    note = emptiness(cluster, pending_matters) if emptiness_too else None
    if note:
        say(f"warning: {note}")
    for missing in missing_references(cluster, version):
        say(f"warning: {missing.message()}")
    for remark in pod_group_remarks(cluster.objects, version):
        say(f"warning: {remark}")
    from kschedctl.cluster.release_remarks import release_remarks

    for remark in release_remarks(cluster, version):
        say(f"warning: {remark}")
