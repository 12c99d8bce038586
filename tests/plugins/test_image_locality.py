"""ImageLocality tests, from upstream imagelocality/image_locality_test.go.

Expected scores follow the per-image max threshold (1000 MiB x number of images) of the
current upstream formula; the arithmetic is written next to each case.
"""

from __future__ import annotations

import hashlib

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.plugins.image_locality import ImageLocality
from kschedctl.plugins.image_locality.plugin import normalized_image_name
from kschedctl.testing import make_node, make_pod, new_framework, only_plugins
from kschedctl.versions import KubeVersion

CONFIG = only_plugins("ImageLocality")
MB = 1024 * 1024

NODE_40_300_2000 = [
    (["gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"], 40 * MB),
    (["gcr.io/300:latest", "gcr.io/300:v1"], 300 * MB),
    (["gcr.io/2000:latest"], 2000 * MB),
]
NODE_250_10 = [(["gcr.io/250:latest"], 250 * MB), (["gcr.io/10:latest", "gcr.io/10:v1"], 10 * MB)]


def image_node(name, images):
    b = make_node(name)
    if images:
        b.images(images)
    return b.obj()


def pod_with(*images, init=()):
    b = make_pod("p")
    for img in init:
        b.init_req({}, image=img)
    b.image(*images)
    return b.obj()


def scores(pod, nodes, version="1.37"):
    fwk = new_framework(CONFIG, nodes=nodes, version=KubeVersion(version))
    pl = ImageLocality(None, fwk.handle)
    assert pl.score_extensions() is None
    out = []
    for info in fwk.snapshot.list():
        score, status = pl.score(CycleState(), pod, info)
        assert status is None
        out.append(score)
    return out


CASES = [
    # machine1: 40M/2 < 23M -> 0; machine2: 100*(250M/2-23M)/(2000M-23M) = 5
    (
        "two images spread on two nodes, prefer the larger image one",
        pod_with("gcr.io/40", "gcr.io/250"),
        [("machine1", NODE_40_300_2000), ("machine2", NODE_250_10)],
        [0, 5],
    ),
    # machine1: 100*((40M+300M)/2-23M)/(2000M-23M) = 7; machine2: 0
    (
        "two images on one node, prefer this node",
        pod_with("gcr.io/40", "gcr.io/300"),
        [("machine1", NODE_40_300_2000), ("machine2", NODE_250_10)],
        [7, 0],
    ),
    # machine1: 100*(2000M/2-23M)/(2000M-23M) = 49; machine2: 10M/2 < 23M -> 0
    (
        "if exceed limit, use limit",
        pod_with("gcr.io/10", "gcr.io/2000"),
        [("machine1", NODE_40_300_2000), ("machine2", NODE_250_10)],
        [49, 0],
    ),
    # machine1: 100*(2000M/3-23M)/(2000M-23M) = 32
    (
        "if exceed limit, use limit (with node which has no images present)",
        pod_with("gcr.io/10", "gcr.io/2000"),
        [("machine1", NODE_40_300_2000), ("machine2", NODE_250_10), ("machine3", [])],
        [32, 0, 0],
    ),
    # init containers count like containers: 100*((40M+300M)/2-23M)/(3000M-23M) = 4
    (
        "init container images count too",
        pod_with("gcr.io/40", "gcr.io/300", init=["gcr.io/10"]),
        [("machine1", NODE_40_300_2000), ("machine2", NODE_250_10)],
        [4, 0],
    ),
    # a single 2000M image on every node: clamped to the 1000M threshold -> 100
    (
        "image on every node reaches the max score",
        pod_with("gcr.io/2000"),
        [("machine1", [(["gcr.io/2000:latest"], 2000 * MB)]), ("machine2", [(["gcr.io/2000:latest"], 2000 * MB)])],
        [100, 100],
    ),
]


# upstream: image_locality_test.go TestImageLocalityPriority, by name (plus the init-container rule)
@pytest.mark.parametrize("name, pod, nodes, want", CASES, ids=[c[0] for c in CASES])
def test_image_locality_priority(name, pod, nodes, want):
    assert scores(pod, [image_node(n, imgs) for n, imgs in nodes]) == want


def test_spread_scales_score():
    # upstream: scaledImageScore: the same 800M image scores higher when it has spread to more nodes
    img = [(["gcr.io/800:latest"], 800 * MB)]
    few = [image_node(f"n{i}", img if i < 2 else []) for i in range(10)]
    many = [image_node(f"n{i}", img if i < 8 else []) for i in range(10)]
    # 2/10: 100*(160M-23M)/977M = 14; 8/10: 100*(640M-23M)/977M = 63
    assert scores(pod_with("gcr.io/800"), few)[0] == 14
    assert scores(pod_with("gcr.io/800"), many)[0] == 63


def test_image_volumes_by_release():
    # upstream: kubernetes#130231 (image volumes add to the sum) and #138951 (1.37: they also raise the threshold)
    pod = make_pod("p").image("gcr.io/40").volume({"name": "v", "image": {"reference": "gcr.io/2000"}}).obj()
    nodes = [image_node("machine1", NODE_40_300_2000), image_node("machine2", NODE_250_10)]
    # sum = 40M/2 + 2000M/2 = 1020M. 1.36: threshold 1000M -> 100. 1.37: 100*(1020M-23M)/(2000M-23M) = 50
    assert scores(pod, nodes, "1.36") == [100, 0]
    assert scores(pod, nodes, "1.35") == [100, 0]
    assert scores(pod, nodes, "1.37") == [50, 0]


def _digest(content: str) -> str:
    return "sha256:" + hashlib.sha256(content.encode()).hexdigest()


@pytest.mark.parametrize(
    "name, image, want",
    [
        # upstream: image_locality_test.go TestNormalizedImageName, by name
        ("add :latest postfix 1", "root", "root:latest"),
        ("add :latest postfix 2", "gcr.io:5000/root", "gcr.io:5000/root:latest"),
        ("keep it as is 1", "root:tag", "root:tag"),
        ("keep it as is 2", "root@" + _digest("root"), "root@" + _digest("root")),
        # no registry normalisation is done
        ("no docker.io prefix added", "nginx", "nginx:latest"),
    ],
)
def test_normalized_image_name(name, image, want):
    assert normalized_image_name(image) == want


def test_duplicate_names_on_one_node_count_the_node_once():
    # upstream: cache imageStates keep a node set per image name; "gcr.io/40:v1" is listed twice on machine1
    fwk = new_framework(CONFIG, nodes=[image_node("machine1", NODE_40_300_2000), image_node("machine2", NODE_250_10)])
    assert fwk.snapshot.get("machine1").image_states["gcr.io/40:v1"].num_nodes == 1


def _summaries(cache):
    from kschedctl.backend.cache.cache import Snapshot

    snap = Snapshot()
    cache.update_snapshot(snap)
    return {info.name: {k: (v.size // MB, v.num_nodes) for k, v in info.image_states.items()} for info in snap.list()}


def test_cache_image_states_follow_add_update_remove():
    """From the source of v1.36.2 (and 1.37) pkg/scheduler/backend/cache/cache.go
    addNodeImageStates / removeNodeImageStates, as AddNode / UpdateNode / RemoveNode call them:
    one summary per name, its size from the first node to report it (within a node, its first
    image listing the name), kept while any holder remains."""
    from kschedctl.backend.cache.cache import Cache

    cache = Cache()
    a = image_node("a", [(["img:1"], 100 * MB), (["img:1", "img:2"], 200 * MB)])
    b = image_node("b", [(["img:1"], 300 * MB)])
    cache.add_node(a)
    cache.add_node(b)
    assert _summaries(cache) == {"a": {"img:1": (100, 2), "img:2": (200, 1)}, "b": {"img:1": (100, 2)}}
    # b updated to report 400M: it shares img:1 with a, the entry keeps 100M
    b2 = image_node("b", [(["img:1"], 400 * MB)])
    cache.update_node(b, b2)
    assert _summaries(cache)["b"] == {"img:1": (100, 2)}
    # a updated to report img:2 at 250M: a was img:2's only holder, the entry is made anew
    a2 = image_node("a", [(["img:2"], 250 * MB)])
    cache.update_node(a, a2)
    assert _summaries(cache) == {"a": {"img:2": (250, 1)}, "b": {"img:1": (100, 1)}}
    # a removed and added back with img:1 at 500M: b still holds img:1 (100M)
    cache.remove_node(a2)
    cache.add_node(image_node("a", [(["img:1"], 500 * MB)]))
    assert _summaries(cache) == {"a": {"img:1": (100, 2)}, "b": {"img:1": (100, 2)}}
