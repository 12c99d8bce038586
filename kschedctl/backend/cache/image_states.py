"""The cache's image states: one summary per image name for the whole cluster.

Upstream: pkg/scheduler/backend/cache/cache.go (1.35: pkg/scheduler/backend/cache too)
``addNodeImageStates`` / ``removeNodeImageStates`` and framework/types.go
``ImageStateSummary.Snapshot``. The cache keeps one ``ImageStateSummary`` per image name: its
size is the size the first node to report the name gave (cache order: nodes as they are added,
images and names in each node's status order), and every node holding the name points at that
one entry, whatever size it reports itself; the entry's node set counts the holders. The entry
goes when its last holder goes (node removed, or updated without the name), and only then: an
update of a node that shares the name keeps the first size, an update of its only holder makes
a new entry with the new size.

A snapshot NodeInfo gets ``ImageStateSummary(size, len(nodes))`` taken when that NodeInfo is
cloned (NodeInfo.Snapshot), so its holder count is the count at its own last clone, not at
the latest: a node added later raises the count only on the NodeInfos cloned after it.
"""

from __future__ import annotations

from kschedctl.api.types import Node
from kschedctl.framework.types import ImageStateSummary


class ImageState:
    """fwk.ImageStateSummary as the cache holds it: the size and the holders' names."""

    __slots__ = ("size", "nodes")

    def __init__(self, size: int, node_name: str) -> None:
        self.size = size
        self.nodes = {node_name}


class ImageStates:
    """cacheImpl.imageStates, and each node's view of it (NodeInfo.ImageStates in the cache)."""

    def __init__(self) -> None:
        self.by_name: dict[str, ImageState] = {}
        self.by_node: dict[str, dict[str, ImageState]] = {}
        # bumped whenever a holder set or an entry changes: a snapshot NodeInfo whose summaries
        # were taken at the current epoch would get the same values again
        self.epoch = 0

    def add_node(self, node: Node) -> None:
        """addNodeImageStates: the node joins each of its names' entries (made here when new,
        with this image's size); its own view keeps the first entry of each name."""
        own: dict[str, ImageState] = {}
        for image in node.images:
            for name in image.names:
                state = self.by_name.get(name)
                if state is None:
                    state = self.by_name[name] = ImageState(image.size_bytes, node.name)
                else:
                    state.nodes.add(node.name)
                own.setdefault(name, state)
        self.by_node[node.name] = own
        self.epoch += 1

    def remove_node(self, node: Node | None) -> None:
        """removeNodeImageStates: the node leaves its names' entries; an entry left without
        holders is deleted (a later holder makes it anew, with its own size)."""
        if node is None:
            return
        for image in node.images:
            for name in image.names:
                state = self.by_name.get(name)
                if state is not None:
                    state.nodes.discard(node.name)
                    if not state.nodes:
                        del self.by_name[name]
        self.by_node.pop(node.name, None)
        self.epoch += 1

    def summaries(self, node_name: str) -> dict[str, ImageStateSummary]:
        """The node's ImageStates as NodeInfo.Snapshot copies them: size and holder count now."""
        return {name: ImageStateSummary(state.size, len(state.nodes)) for name, state in self.by_node.get(node_name, {}).items()}
