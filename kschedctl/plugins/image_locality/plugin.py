"""ImageLocality (Score): prefer nodes that already hold the pod's images, scaled by how widely
each image has spread so pods do not pile onto the few nodes that have it ("node heating").

Upstream: pkg/scheduler/framework/plugins/imagelocality/image_locality.go. Images come from init
containers, containers and image volumes (kubernetes#130231). Until 1.37 the per-image max
threshold counted only containers (len(initContainers)+len(containers)); from 1.37 image volumes
count too (kubernetes#138951): see versions.CHANGES["ImageLocalityCountsImageVolumes"].
No NormalizeScore: the score is already in [0, 100].
"""

from __future__ import annotations

from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.gosemantics import go_div
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import MAX_NODE_SCORE, Status
from kschedctl.framework.types import ImageStateSummary, NodeInfo
from kschedctl.plugins import names

NAME = names.ImageLocality
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB
DEFAULT_IMAGE_TAG = "latest"


def normalized_image_name(name: str) -> str:
    """normalizedImageName: append ":latest" unless a ':' follows the last '/'.

    No registry normalisation: "nginx" and "docker.io/library/nginx" stay different names.
    A digest reference ("img@sha256:...") has its ':' after the last '/', so it is kept as is.
    """
    if name.rfind(":") <= name.rfind("/"):
        name = name + ":" + DEFAULT_IMAGE_TAG
    return name


def image_volume_references(pod: Pod) -> list[str]:
    """spec.volumes[*].image.reference of image volumes, in spec order."""
    refs = []
    for vol in pod.volumes:
        image = vol.raw.get("image") if isinstance(vol.raw, dict) else None
        if isinstance(image, dict):
            refs.append(str(image.get("reference") or ""))
    return refs


def scaled_image_score(state: ImageStateSummary, total_num_nodes: int) -> int:
    """int64(float64(size) * (float64(numNodes) / float64(totalNumNodes))), truncated."""
    spread = float(state.num_nodes) / float(total_num_nodes)
    return int(float(state.size) * spread)


def sum_image_scores(node_info: NodeInfo, pod: Pod, total_num_nodes: int) -> int:
    """Scaled sizes of every image the pod needs that the node has; repeats count each time."""
    total = 0
    images = [c.image for c in pod.init_containers] + [c.image for c in pod.containers] + image_volume_references(pod)
    for image in images:
        state = node_info.image_states.get(normalized_image_name(image))
        if state is not None:
            total += scaled_image_score(state, total_num_nodes)
    return total


def calculate_priority(sum_scores: int, num_images: int) -> int:
    """Clamp the sum to [23 MiB, 1000 MiB x images] and map it linearly onto [0, 100]."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_images
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return go_div(MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD), max_threshold - MIN_THRESHOLD)


class ImageLocality:
    def __init__(self, args: dict[str, Any] | None, handle: Handle) -> None:
        self.handle = handle
        self._holder_memo: tuple[Any, ...] | None = None  # (image index, total nodes, image -> holders)

    def name(self) -> str:
        return NAME

    def _image_count(self, pod: Pod) -> int:
        count = len(pod.init_containers) + len(pod.containers)
        if self.handle.version.has("ImageLocalityCountsImageVolumes"):
            count += len(image_volume_references(pod))
        return count

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        total_num_nodes = len(self.handle.snapshot_shared_lister().list())
        image_scores = sum_image_scores(node_info, pod, total_num_nodes)
        return calculate_priority(image_scores, self._image_count(pod)), None

    def score_extensions(self) -> None:
        return None
