"""The vectorised twin of the ImageLocality port: the class the registry builds, plugin.py's
ImageLocality plus its batch forms, which take many nodes at once (numpy arrays and the columnar
view where they pay) and give exactly the per-node results (tests/test_batch_equivalence.py
guards that).

No upstream counterpart: kube-scheduler runs Filter and Score per node in goroutines. Kept out
of plugin.py so that file reads like upstream's. A subclass rather than a mixin because the
batch forms read the port's state keys, reasons and helpers: the twin sits above the port, and
no import runs the other way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import MAX_NODE_SCORE, BatchScores
from kschedctl.framework.types import NodeInfo
from kschedctl.lazy import numpy as np
from kschedctl.plugins.image_locality import plugin
from kschedctl.plugins.image_locality.plugin import (
    MAX_CONTAINER_THRESHOLD,
    MIN_THRESHOLD,
    calculate_priority,
    image_volume_references,
    normalized_image_name,
    scaled_image_score,
)


class ImageLocality(plugin.ImageLocality):
    """The ImageLocality port (plugin.py) with its batch forms: the class the registry builds."""

    def score_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> BatchScores | None:
        """score() for many nodes. With the snapshot's image index (image name -> the rows of
        the nodes holding it) only holder rows are touched: the scaled sizes are added up in
        one array over the snapshot's rows, and every node holding none of the pod's images
        gets the score of a sum of 0; otherwise the image states are read per node."""
        snapshot = self.handle.snapshot_shared_lister()
        total_num_nodes = len(snapshot.list())
        index = getattr(snapshot, "image_index", None)
        rows = getattr(node_infos, "rows", None)
        if index is None or rows is None or (len(rows) and int(np.maximum.reduce(rows)) >= total_num_nodes):
            index = rows = None  # no index, or rows outside the snapshot: the per-node walk below
        elif not index:
            # No node of the snapshot reports an image: every node sums 0, which
            # calculate_priority clamps up to MIN_THRESHOLD, i.e. a score of 0 whatever the
            # pod's image count; nothing about the pod needs reading. Int64 zeros, which the
            # runtime takes as they are (as DynamicResources' for a pod without claims).
            return np.zeros(len(node_infos), np.int64)
        images = [normalized_image_name(c.image) for c in pod.init_containers]
        images += [normalized_image_name(c.image) for c in pod.containers]
        images += [normalized_image_name(r) for r in image_volume_references(pod)]
        num_images = self._image_count(pod)
        if index is not None and rows is not None:
            acc = None
            for image in images:
                holders = self._holders(index, image, total_num_nodes)
                if holders is None:
                    continue
                if acc is None:
                    acc = np.zeros(total_num_nodes, np.int64)
                acc[holders[0]] += holders[1]
            if acc is None:
                return [calculate_priority(0, num_images)] * len(node_infos)
            return calculate_priority_batch(acc[rows], num_images)
        out = []
        memo: dict[tuple[Any, ...], int] = {}  # the score depends only on which image states the node has
        for ni in node_infos:
            states = ni.image_states
            key = tuple(states.get(image) for image in images)
            value = memo.get(key)
            if value is None:
                total = 0
                for st in key:
                    if st is not None:
                        total += scaled_image_score(st, total_num_nodes)
                value = memo[key] = calculate_priority(total, num_images)
            out.append(value)
        return out

    def _holders(self, index: dict[str, Any], image: str, total_num_nodes: int) -> "tuple[np.ndarray, np.ndarray] | None":
        """(rows, scaled_image_score per row) of the nodes holding ``image``; memoised per index."""
        memo = self._holder_memo
        if memo is None or memo[0] is not index or memo[1] != total_num_nodes:
            memo = self._holder_memo = (index, total_num_nodes, {})
        found = memo[2].get(image)
        if found is None:
            entries = index.get(image)
            if not entries:
                found = memo[2][image] = ()
            else:
                # scaled_image_score with the same IEEE-754 operations: int(size * (n / total))
                spread = np.array([e[1].num_nodes for e in entries], np.float64) / float(total_num_nodes)
                scaled = (np.array([float(e[1].size) for e in entries], np.float64) * spread).astype(np.int64)
                found = memo[2][image] = (np.array([e[0] for e in entries], np.intp), scaled)
        return found or None


def calculate_priority_batch(sums: np.ndarray, num_images: int) -> np.ndarray:
    """calculate_priority over an array of sums, with Go's truncating division."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_images
    clamped = np.where(sums < MIN_THRESHOLD, MIN_THRESHOLD, np.where(sums > max_threshold, max_threshold, sums))
    num = MAX_NODE_SCORE * (clamped - MIN_THRESHOLD)
    den = max_threshold - MIN_THRESHOLD
    q = np.abs(num) // abs(den)
    scores: np.ndarray = np.where((num >= 0) == (den > 0), q, -q)
    return scores
