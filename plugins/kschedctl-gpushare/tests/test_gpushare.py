"""GpuShare's Filter and Reserve, and each policy's score, against cases computed by hand from
the descriptions in the openb trace's notes (Weng et al., ATC '23)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

_PACKAGE_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(_PACKAGE_ROOT))  # the package, installed or not
# Test this tree's package even when an installed copy (elsewhere) was imported first in this
# process (the registry loads it through its entry point): forget that copy's modules.
_loaded = sys.modules.get("kschedctl_gpushare")
if _loaded is not None and _PACKAGE_ROOT not in Path(_loaded.__file__ or "").resolve().parents:
    for _name in [m for m in sys.modules if m == "kschedctl_gpushare" or m.startswith("kschedctl_gpushare.")]:
        del sys.modules[_name]

from kschedctl_gpushare import GPU_COUNT, GPU_INDEX, GPU_MILLI, GPU_MODEL, GpuShare  # noqa: E402
from kschedctl_gpushare.args import GpuShareFGDArgs, TypicalPod  # noqa: E402
from kschedctl_gpushare.gpu import Ledger, request_of  # noqa: E402
from kschedctl_gpushare.gpushare import ERR_INSUFFICIENT, ERR_MODEL, ERR_NO_GPU  # noqa: E402
from kschedctl_gpushare.policies import (  # noqa: E402
    GpuShareBestFit,
    GpuShareClustering,
    GpuShareDotProduct,
    GpuShareFGD,
    GpuSharePacking,
    GpuShareRandom,
)

from kschedctl.framework import Code, CycleState, NodeInfo, NodeScore, PodInfo  # noqa: E402
from kschedctl.testing import make_node, make_pod  # noqa: E402


class _Handle:
    """Just what the plugins ask of a Handle in these tests: a seeded random source."""

    def __init__(self) -> None:
        import random

        self.rng = random.Random(1)


def gpu_pod(name: str, count: int = 0, milli: int = 0, cpu: str = "1", model: str | None = None, index: str | None = None) -> Any:
    pod = make_pod(name).req(cpu=cpu).obj()
    if count:
        pod.meta.annotations = {GPU_COUNT: str(count), GPU_MILLI: str(milli)}
        if model:
            pod.meta.annotations[GPU_MODEL] = model
        if index is not None:
            pod.meta.annotations[GPU_INDEX] = index
    return pod


def gpu_node(name: str, gpus: int, model: str = "G2", cpu: str = "96", used: list[Any] = ()) -> NodeInfo:  # type: ignore[assignment]
    """A node with ``gpus`` GPUs; ``used`` pods already on it (with their GPU index annotations)."""
    node = make_node(name).capacity(cpu=cpu, memory="512Gi").label(GPU_COUNT, str(gpus)).label(GPU_MODEL, model).obj()
    info = NodeInfo(node)
    for pod in used:
        info.add_pod_info(PodInfo(pod))
    return info


def node_with_free(name: str, free: list[int], cpu: str = "96", model: str = "G2") -> NodeInfo:
    """A node whose GPUs have these free milli (one sharing pod per partly used GPU)."""
    pods = [gpu_pod(f"{name}-u{i}", 1, 1000 - f, cpu="0", index=str(i)) for i, f in enumerate(free) if f < 1000]
    return gpu_node(name, len(free), model, cpu, pods)


def run_filter(pod: Any, info: NodeInfo) -> Any:
    plugin = GpuShare(None, _Handle())
    status = plugin.filter(CycleState(), pod, info)
    try:
        batch = plugin.filter_batch(CycleState(), pod, [info])
    except Exception:  # noqa: BLE001 - the runtime then calls filter per node
        batch = None
    if batch is not None:
        assert batch == [status]  # batch form == per-node call
    return status


@pytest.mark.parametrize(
    "pod, free, model, want",
    [
        pytest.param(gpu_pod("share", 1, 500), [600, 400], "G2", None, id="sharing pod fits the GPU with 600 free"),
        pytest.param(gpu_pod("share", 1, 500), [400, 400], "G2", ERR_INSUFFICIENT, id="no single GPU has 500 free"),
        pytest.param(gpu_pod("whole", 2, 1000), [1000, 900, 1000], "G2", None, id="two completely free GPUs"),
        pytest.param(gpu_pod("whole", 2, 1000), [1000, 900], "G2", ERR_INSUFFICIENT, id="only one completely free GPU"),
        pytest.param(gpu_pod("spec", 1, 1000, model="V100M16|V100M32"), [1000], "G2", ERR_MODEL, id="model not accepted"),
        pytest.param(gpu_pod("spec", 1, 1000, model="V100M16|V100M32"), [1000], "V100M32", None, id="model accepted"),
        pytest.param(gpu_pod("gpu", 1, 1000), [], "", ERR_NO_GPU, id="node without GPUs"),
    ],
)
def test_filter(pod: Any, free: list[int], model: str, want: str | None) -> None:
    status = run_filter(pod, node_with_free("n1", free, model=model))
    assert (status.reasons[0] if status is not None else None) == want


def test_cpu_only_pod_passes_the_filter() -> None:
    assert run_filter(gpu_pod("cpu-only"), gpu_node("n1", 0)) is None


def test_bad_annotation_is_unresolvable_and_named() -> None:
    pod = make_pod("bad").obj()
    pod.meta.annotations = {GPU_COUNT: "two"}
    status = run_filter(pod, gpu_node("n1", 2))
    assert status.code == Code.UnschedulableAndUnresolvable
    assert status.reasons == [f"annotation {GPU_COUNT}: 'two' is not an integer"]


def test_ledger_reads_bound_pods_gpu_index() -> None:
    info = gpu_node("n1", 4, used=[gpu_pod("a", 1, 300, index="2"), gpu_pod("b", 2, 1000, index="0,3")])
    node = Ledger().node(info)
    assert node.free == [0, 1000, 700, 0]
    assert node.classes == {"share", "2-gpu"}


def scores(plugin: Any, pod: Any, infos: list[NodeInfo], normalize: bool = False) -> list[int]:
    """Score (and NormalizeScore with ``normalize``), as the runtime runs them."""
    state = CycleState()
    out = [NodeScore(i.node.name, plugin.score(state, pod, i)[0]) for i in infos]
    batch = plugin.score_batch(state, pod, infos)
    assert batch.tolist() == [s.score for s in out]  # batch form == per-node calls
    if normalize:
        if not isinstance(plugin, GpuShareRandom):  # Random draws: its own test compares the forms
            normalized = plugin.score_extensions().normalize_score_batch(state, pod, infos, batch.copy())
        plugin.score_extensions().normalize_score(state, pod, out)
        if not isinstance(plugin, GpuShareRandom):
            assert list(normalized) == [s.score for s in out]  # batch NormalizeScore == per-node
    return [s.score for s in out]


def test_dot_product() -> None:
    # free [64 cores/128, 4000/8000] . request [8 cores/128, 1000/8000] = 0.03125 + 0.0625;
    # 100 x (1 - 0.09375 / 2) = 95.3 -> 95. An empty 96-core 8-GPU node: 0.046875 + 0.125 -> 91.
    half = node_with_free("half", [1000] * 4 + [0] * 4, cpu="64")
    empty = node_with_free("empty", [1000] * 8, cpu="96")
    assert scores(GpuShareDotProduct(None, _Handle()), gpu_pod("p", 1, 1000, cpu="8"), [half, empty]) == [95, 91]


def test_clustering() -> None:
    pod = gpu_pod("p", 1, 500)
    same = node_with_free("same", [500, 1000, 1000, 1000, 1000, 1000, 1000, 1000])  # hosts a sharing pod
    mixed = gpu_node("mixed", 8, used=[gpu_pod("s", 1, 500, index="0"), gpu_pod("w", 1, 1000, index="1")])
    idle = gpu_node("idle", 8)
    other = gpu_node("other", 8, used=[gpu_pod("w2", 2, 1000, index="0,1")])
    # tier + int(25 x used / 8000): 75 + 1, 50 + 4, 25 + 0, 0 + 6
    assert scores(GpuShareClustering(None, _Handle()), pod, [same, mixed, idle, other]) == [76, 54, 25, 6]
    assert scores(GpuShareClustering(None, _Handle()), gpu_pod("cpu"), [same, idle]) == [0, 0]


def test_packing() -> None:
    share = gpu_pod("p", 1, 200)
    partly_gpu = node_with_free("partly-gpu", [1000, 300, 1000, 1000])  # 300 free: 100 - 30/10 = 97
    partly_node = node_with_free("partly-node", [1000, 100, 1000, 1000])  # 100 < 200: 50 - 1 = 49
    idle = gpu_node("idle", 8)  # 33 - 8 = 25
    assert scores(GpuSharePacking(None, _Handle()), share, [partly_gpu, partly_node, idle]) == [97, 49, 25]
    whole = gpu_pod("w", 2, 1000)
    assert scores(GpuSharePacking(None, _Handle()), whole, [partly_gpu, gpu_node("idle2", 2)]) == [48, 31]


def test_best_fit_normalised() -> None:
    # leftover = 0.5 cpu_left/128 + 0.5 gpu_left/8: a (32 - 8 cores, 1 GPU left) 0.09375 + 0.0625
    # -> 84.375; b (96 - 8, 7 left) 0.34375 + 0.4375 -> 21.875; c (64 - 8, 3 left) 0.21875 + 0.1875
    # -> 59.375; min-max: 100, 0, 60
    pod = gpu_pod("p", 1, 1000, cpu="8")
    a = node_with_free("a", [1000, 1000] + [0] * 6, cpu="32")
    b = gpu_node("b", 8)
    c = node_with_free("c", [1000] * 4 + [0] * 4, cpu="64")
    assert scores(GpuShareBestFit(None, _Handle()), pod, [a, b, c], normalize=True) == [100, 0, 60]


def test_random_gives_one_node_the_max_and_is_seeded() -> None:
    infos = [gpu_node(f"n{i}", 2) for i in range(5)]
    first = scores(GpuShareRandom(None, _Handle()), gpu_pod("p", 1, 500), infos, normalize=True)
    assert sorted(first) == [0, 0, 0, 0, 100]
    assert scores(GpuShareRandom(None, _Handle()), gpu_pod("p", 1, 500), infos, normalize=True) == first
    batch = GpuShareRandom(None, _Handle()).normalize_score_batch(CycleState(), gpu_pod("p", 1, 500), infos, np.zeros(5, dtype=np.int64))
    assert batch.tolist() == first  # the batch form draws the same node


def test_ties_go_to_the_first_node_of_a_seeded_order() -> None:
    """Equal scores: one node keeps the top score, the same one for every pod of the run (a
    fixed order, as the simulator's seeded node-name prefixes give), the others lose a point."""
    infos = [gpu_node(f"n{i}", 8) for i in range(6)]
    plugin = GpuShareClustering(None, _Handle())
    first = scores(plugin, gpu_pod("p", 1, 500), infos, normalize=True)
    assert sorted(first) == [24] * 5 + [25]
    assert scores(plugin, gpu_pod("q", 1, 1000), infos, normalize=True) == first
    zeros = scores(plugin, gpu_pod("cpu"), infos, normalize=True)
    assert sorted(zeros) == [0] * 5 + [1] and zeros.index(1) == first.index(25)


TYPICAL = GpuShareFGDArgs(typical_pods=(TypicalPod(cpu_milli=1000, gpu_count=1, gpu_milli=500, weight=1.0),))


def test_fgd_score_and_gpu_choice() -> None:
    # One typical task (1 core, 500 milli). [1000, 1000]: F = 0. A 700 pod -> [300, 1000]:
    # 300 is below 500, F = 300, delta -300, floor(100 sigmoid(-0.3)) = 42.
    # [600, 1000]: a 500 pod on GPU 0 -> [100, 1000], F 100 (score 47); on GPU 1 -> [600, 500],
    # F 0 (score 50): FGD takes GPU 1; best fit would take GPU 0.
    fgd = GpuShareFGD(TYPICAL, _Handle())
    assert scores(fgd, gpu_pod("p", 1, 700), [gpu_node("idle", 2)]) == [42]
    partly = node_with_free("partly", [600, 1000])
    pod = gpu_pod("q", 1, 500)
    assert scores(fgd, pod, [partly]) == [50]
    node = fgd.ledger.node(partly)
    assert fgd.choose(node, request_of(pod)) == (1,)
    assert GpuShareBestFit(None, _Handle()).choose(node, request_of(pod)) == (0,)


def test_fgd_task_that_cannot_fit_counts_all_free_gpu() -> None:
    # The typical task needs 1 core; the node has 0.5 core left after the pod: every free milli
    # is fragment. Before: fits, F = 0; after a whole-GPU pod of 0.5 core on [1000, 1000]:
    # [0, 1000] with 0 cores -> F = 1000, delta -1000, floor(100 sigmoid(-1)) = 26.
    fgd = GpuShareFGD(TYPICAL, _Handle())
    assert scores(fgd, gpu_pod("p", 1, 1000, cpu="500m"), [gpu_node("small", 2, cpu="1")]) == [26]


def test_fgd_typical_pods_from_the_pods() -> None:
    from kschedctl_gpushare.policies import typical_pods_of

    pods = [gpu_pod(f"a{i}", 1, 500) for i in range(6)] + [gpu_pod(f"b{i}", 2, 1000) for i in range(3)] + [gpu_pod("c")]
    typical = typical_pods_of(pods, 0.9)
    assert [(t.gpu_count, t.gpu_milli, t.weight) for t in typical] == [(1, 500, 6.0), (2, 1000, 3.0)]
