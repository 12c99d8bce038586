"""The nominator: node name -> the pods nominated to it (status.nominatedNodeName or a
PostFilter result). Upstream: pkg/scheduler/backend/queue/nominator.go.
"""

from __future__ import annotations

from kschedctl.api.types import Pod
from kschedctl.framework.types import PodInfo


class Nominator:
    """node name -> the pods nominated to it (nominator.go). ``generation`` moves on every change
    of a pod's nominated node; ``node_version(name)`` on every change of a node's list."""

    def __init__(self) -> None:
        self.nominated_pods: dict[str, list[PodInfo]] = {}
        self.nominated_pod_to_node: dict[str, str] = {}
        self.generation = 0
        self._changes = 0
        # node name -> node_version(name) (absent: 0); read by others, written here only
        self.node_versions: dict[str, int] = {}

    def node_version(self, node_name: str) -> int:
        """A number that names the current content of the node's list: it differs after any
        change to it (a pod nominated there, leaving, or its PodInfo updated), so what is
        derived from the list can be kept under it (DefaultPreemption's dry-run verdicts)."""
        return self.node_versions.get(node_name, 0)

    @property
    def changes(self) -> int:
        """How many times some node's list changed: the highest node version handed out, so a
        reader that kept what it derived at ``changes`` == c finds the lists changed since as
        the nodes whose version is above c."""
        return self._changes

    def _changed(self, node_name: str) -> None:
        self._changes += 1
        self.node_versions[node_name] = self._changes

    def add_nominated_pod(self, info: PodInfo, node_name: str | None = None) -> None:
        """addNominatedPodUnlocked: node_name None is ModeNoop (keep status.nominatedNodeName)."""
        name = (info.pod.nominated_node_name if node_name is None else node_name) or None
        previous = self.nominated_pod_to_node.get(info.pod.uid)
        self._delete(info.pod.uid)
        if name is not None:
            self.nominated_pod_to_node[info.pod.uid] = name
            self.nominated_pods.setdefault(name, []).append(info)
            self._changed(name)
        if previous != name:
            self.generation += 1

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None:
        if self._delete(pod.uid):
            self.generation += 1

    def _delete(self, uid: str) -> bool:
        node = self.nominated_pod_to_node.pop(uid, None)
        if node is None:
            return False
        infos = [i for i in self.nominated_pods.get(node, []) if i.pod.uid != uid]
        self._changed(node)
        if infos:
            self.nominated_pods[node] = infos
        else:
            self.nominated_pods.pop(node, None)
        return True

    def update_nominated_pod(self, info: PodInfo) -> None:
        """updateNominatedPodUnlocked: the new PodInfo keeps the nomination it had."""
        node = self.nominated_pod_to_node.get(info.pod.uid)
        if node is not None:
            self._delete(info.pod.uid)
            self.nominated_pod_to_node[info.pod.uid] = node
            self.nominated_pods.setdefault(node, []).append(info)
            self._changed(node)

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return list(self.nominated_pods.get(node_name, ()))

    def nominated_node_of(self, pod: Pod) -> str:
        return self.nominated_pod_to_node.get(pod.uid, "")
