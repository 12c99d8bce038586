"""The six GPU placement policies of Weng et al. (ATC '23) as Score plugins.

Enable exactly one (with GpuShare) in a profile. Each writes its way of choosing GPUs inside
the chosen node into the CycleState when it scores; GpuShare's Reserve uses it.

| plugin | score (higher wins, 0-100) | GPU inside the node |
|---|---|---|
| GpuShareRandom | one feasible node, uniformly at random, scores 100 | a random fitting GPU |
| GpuShareDotProduct | 100 x (1 - f.r / 2), f = node free [CPU/128 cores, GPU milli/8000], r = the request | best fit |
| GpuShareClustering | 75 same class only, 50 same and others, 25 no GPU pods, 0 others only; + 25 x used/8000 | best fit |
| GpuSharePacking | on partly used GPUs 100 - free%/10 (>= 50); partly used node 50 - n (>= 33); idle node 33 - its GPUs | best fit |
| GpuShareBestFit | 100 x (1 - leftover), leftover = 0.5 CPU left/128 cores + 0.5 GPU left/8 GPUs, min-max normalised | best fit |
| GpuShareFGD | 100 x sigmoid(-(expected fragmentation increase)/1000) | the GPU of the best score |

Every plugin has a batch form (one call per pod for all nodes) that the per-node ``score``
calls with one node, so the two are equal by construction.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from kschedctl.framework import (
    MAX_NODE_SCORE,
    CycleState,
    Handle,
    NodeInfo,
    NodeScore,
    Pod,
    Status,
)

from .args import GpuShareFGDArgs, GpuShareRandomArgs, TypicalPod
from .gpu import (
    MILLI_PER_GPU,
    RESAMPLED,
    GpuRequest,
    Ledger,
    NodeGpu,
    RequestError,
    best_fit,
    ledger_of,
    parse_models,
    request_of,
)
from .gpushare import CHOOSER_KEY, request_in

ROWS_KEY = "GpuSharePolicy/rows"  # CycleState: (the NodeInfos score_batch scored, their ledger rows)
CPU_SCALE = 128_000  # millicores: the 128-core normaliser of the paper's vectors
GPU_SCALE = 8 * MILLI_PER_GPU  # milli-GPU: 8 GPUs


class _Policy:
    """What every policy shares: the ledger, Score writing the GPU chooser, per-node
    ``score`` as the batch form over one node."""

    NAME = ""

    def __init__(self, args: Any, handle: Handle | None) -> None:
        self.handle = handle
        self.ledger = ledger_of(handle)
        self._salt: bytes | None = None
        self._order: dict[str, bytes] = {}
        self._rank: Any = None  # per ledger row: its order key as uint64 (big-endian, as the bytes compare)
        self._ranked: Any = None  # per ledger row: the key is computed

    def name(self) -> str:
        return self.NAME

    # --- NormalizeScore: the policy's own, then the simulator's tie-break --------------------------
    def score_extensions(self) -> _Policy:
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        self.normalize(state, scores)
        self.break_ties(scores)
        return None

    def normalize_score_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo], values: Any) -> Any:
        """normalize_score over an int64 array: the policy's normalisation, then the tie-break,
        with the order keys as one uint64 per ledger row."""
        rows = self.rows_in(state, node_infos)
        values = self.normalize_values(state, rows, values)
        return self.break_ties_values(rows, values)

    def normalize(self, state: CycleState, scores: list[NodeScore]) -> None:
        """The policy's NormalizeScore (none by default)."""

    def normalize_values(self, state: CycleState, rows: Any, values: Any) -> Any:
        """:meth:`normalize` over the scores of the ledger's ``rows`` (an int64 array)."""
        return values

    def order_key(self, name: str) -> bytes:
        """The node's place in a fixed, seeded random node order (the run's seed)."""
        key = self._order.get(name)
        if key is None:
            if self._salt is None:
                self._salt = (self.handle.rng.getrandbits(64) if self.handle is not None else 0).to_bytes(8, "big")
            # imported here: hashlib loads OpenSSL (~4 ms), which every run that has this package
            # installed would pay at start-up, used or not
            import hashlib

            key = self._order[name] = hashlib.blake2b(name.encode(), key=self._salt, digest_size=8).digest()
        return key

    def break_ties(self, scores: list[NodeScore]) -> None:
        """Among the nodes tied at the top, the first in the seeded node order wins: the others
        lose one point (or the winner gains one at 0). The simulator prefixes node names with a
        seeded random permutation and takes the smallest name among equal scores, so its ties
        go the same way all run long (which packs); kube's random pick per pod would spread."""
        if len(scores) < 2:
            return
        best = max(s.score for s in scores)
        tied = [s for s in scores if s.score == best]
        if len(tied) < 2:
            return
        winner = min(tied, key=lambda s: self.order_key(s.name))
        if best > 0:
            for s in tied:
                if s is not winner:
                    s.score = best - 1
        else:
            winner.score = 1

    def break_ties_values(self, rows: Any, values: Any) -> Any:
        """:meth:`break_ties` over the scores of the ledger's ``rows``: the same winner (the
        smallest key, the first of equal keys in node order), the same points."""
        if len(values) < 2:
            return values
        np = self.ledger.table.np
        best = int(values.max())
        tied = np.flatnonzero(values == best)
        if len(tied) < 2:
            return values
        winner = int(tied[int(self.ranks(rows[tied]).argmin())])
        values = values.copy()
        if best > 0:
            values[tied] = best - 1
            values[winner] = best
        else:
            values[winner] = 1
        return values

    def ranks(self, rows: Any) -> Any:
        """The order keys of ledger rows as uint64 (computed once per row)."""
        np = self.ledger.table.np
        size = len(self.ledger.names)
        if self._rank is None or len(self._rank) < size:
            grown = max(size, 64, 2 * (len(self._rank) if self._rank is not None else 0))
            rank, ranked = np.zeros(grown, dtype=np.uint64), np.zeros(grown, dtype=bool)
            if self._rank is not None:
                rank[: len(self._rank)], ranked[: len(self._ranked)] = self._rank, self._ranked
            self._rank, self._ranked = rank, ranked
        missing = rows[~self._ranked[rows]]
        for row in missing.tolist():
            self._rank[row] = int.from_bytes(self.order_key(self.ledger.names[row]), "big")
            self._ranked[row] = True
        return self._rank[rows]

    def choose(self, node: NodeGpu, request: GpuRequest) -> tuple[int, ...]:
        return best_fit(node, request)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        return int(self.score_batch(state, pod, [node_info])[0]), None

    def score_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]) -> Any:
        """The scores of many nodes; writes the policy's GPU chooser for Reserve.

        The chooser is written here rather than in a PreScore: kube runs PreScore and Score
        together (both skipped with one feasible node), and a PreScore would be handed every
        feasible NodeInfo, which the runtime's sandbox for out-of-tree plugins records and
        compares around the call (~20 us per node: 25 ms per pod at 1,213 nodes)."""
        state.write(CHOOSER_KEY, self.choose)
        request = request_in(state, pod)
        rows = self.ledger.rows_of(node_infos)
        state.write(ROWS_KEY, (node_infos, rows))
        return self.scores(state, request, rows)

    def rows_in(self, state: CycleState, node_infos: Sequence[NodeInfo]) -> Any:
        """The ledger rows of the nodes score_batch just scored (its array when they are the
        same list), else looked up."""
        cached = state.get(ROWS_KEY)
        if isinstance(cached, tuple) and cached[0] is node_infos:
            return cached[1]
        return self.ledger.rows_of(node_infos)

    def scores(self, state: CycleState, request: GpuRequest, rows: Any) -> Any:
        """The raw scores (int64 array) of the ledger's ``rows`` for the request."""
        raise NotImplementedError


class GpuShareRandom(_Policy):
    NAME = "GpuShareRandom"

    def __init__(self, args: GpuShareRandomArgs | None, handle: Handle | None) -> None:
        super().__init__(args, handle)
        self.args = GpuShareRandomArgs.of(args, None)
        self._rng: random.Random | None = None

    @property
    def rng(self) -> random.Random:
        """Seeded once from the run's seeded source (plus args.seed): same --seed, same draws."""
        if self._rng is None:
            base = self.handle.rng.getrandbits(63) if self.handle is not None else 0
            self._rng = random.Random(base + int(self.args.seed))
        return self._rng

    def scores(self, state: CycleState, request: GpuRequest, rows: Any) -> Any:
        return self.ledger.table.np.zeros(len(rows), dtype=self.ledger.table.np.int64)

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """One feasible node, drawn uniformly, gets MaxNodeScore (no tie to break)."""
        if scores:
            scores[self.rng.randrange(len(scores))].score = MAX_NODE_SCORE
        return None

    def normalize_score_batch(self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo], values: Any) -> Any:
        if len(values):
            values = values.copy()
            values[self.rng.randrange(len(values))] = MAX_NODE_SCORE
        return values

    def choose(self, node: NodeGpu, request: GpuRequest) -> tuple[int, ...]:
        if not request.sharing:
            return best_fit(node, request)
        fitting = [i for i, f in enumerate(node.free) if f >= request.milli]
        return (self.rng.choice(fitting),) if fitting else ()


class GpuShareDotProduct(_Policy):
    NAME = "GpuShareDotProduct"

    def scores(self, state: CycleState, request: GpuRequest, rows: Any) -> Any:
        """100 x (1 - f.r / 2), truncated as int() does; 0 where the CPU does not fit."""
        table = self.ledger.table
        np = table.np
        r_cpu, r_gpu = request.cpu / CPU_SCALE, request.total / GPU_SCALE
        cpu_free = table.cpu_free[rows]
        value = MAX_NODE_SCORE * (1 - (cpu_free / CPU_SCALE * r_cpu + table.total_free[rows] / GPU_SCALE * r_gpu) / 2)
        return np.where(cpu_free < request.cpu, 0, np.trunc(value)).astype(np.int64)


def clustering_score(node: NodeGpu, request: GpuRequest) -> int:
    """GpuClustering: the tier of the node's GPU classes plus 25 x its used share of 8 GPUs."""
    if request.milli == 0:
        return 0
    own = request.gpu_class
    if not node.classes:
        tier = 25
    elif own in node.classes:
        tier = 75 if len(node.classes) == 1 else 50
    else:
        tier = 0
    return tier + int(25 * (GPU_SCALE - node.total_free) / GPU_SCALE)


class GpuShareClustering(_Policy):
    NAME = "GpuShareClustering"

    def scores(self, state: CycleState, request: GpuRequest, rows: Any) -> Any:
        """clustering_score over the ledger's rows (the classes as bits)."""
        table = self.ledger.table
        np = table.np
        if request.milli == 0:
            return np.zeros(len(rows), dtype=np.int64)
        own = table.class_bit(request.gpu_class)
        classes = table.classes[rows]
        tier = np.where(classes == 0, 25, np.where(classes & own != 0, np.where(classes == own, 75, 50), 0))
        used = np.trunc(25 * (GPU_SCALE - table.total_free[rows]) / GPU_SCALE)
        return (tier + used).astype(np.int64)


def packing_score(node: NodeGpu, request: GpuRequest) -> int:
    """GpuPacking: partly used GPUs first, then partly used nodes, then the smallest idle node."""
    if request.milli == 0 or not node.free:
        return 0
    if request.sharing:
        partly = [f for f in node.free if request.milli <= f < MILLI_PER_GPU]
        if partly:
            free_pct = min(partly) * 100 / MILLI_PER_GPU  # the best-fit partly used GPU's free %
            return max(50, int(MAX_NODE_SCORE - free_pct / 10))
    if any(f < MILLI_PER_GPU for f in node.free):
        return max(33, 50 - request.count)
    return max(0, 33 - node.count)


class GpuSharePacking(_Policy):
    NAME = "GpuSharePacking"

    def scores(self, state: CycleState, request: GpuRequest, rows: Any) -> Any:
        """packing_score over the ledger's rows."""
        table = self.ledger.table
        np = table.np
        count = table.count[rows]
        if request.milli == 0:
            return np.zeros(len(rows), dtype=np.int64)
        out = np.where(table.partial[rows], max(33, 50 - request.count), np.maximum(0, 33 - count))
        if request.sharing:
            free = table.free[rows]
            partly = np.where((free >= request.milli) & (free < MILLI_PER_GPU), free, MILLI_PER_GPU).min(axis=1)
            free_pct = partly * 100 / MILLI_PER_GPU
            out = np.where(partly < MILLI_PER_GPU, np.maximum(50, np.trunc(MAX_NODE_SCORE - free_pct / 10)), out)
        return np.where(count == 0, 0, out).astype(np.int64)


BESTFIT_KEY = "GpuShareBestFit/raw"


def best_fit_raw(node: NodeGpu, request: GpuRequest) -> float:
    """100 x (1 - leftover): the tighter the node after the placement, the higher."""
    cpu_left = node.cpu_free - request.cpu
    gpu_left = node.total_free - request.total
    return MAX_NODE_SCORE * (1 - (0.5 * cpu_left / CPU_SCALE + 0.5 * gpu_left / GPU_SCALE))


class GpuShareBestFit(_Policy):
    NAME = "GpuShareBestFit"

    def scores(self, state: CycleState, request: GpuRequest, rows: Any) -> Any:
        """best_fit_raw over the ledger's rows, clamped to 0-100; the unrounded values stay in
        the CycleState (by row) for the min-max normalisation."""
        table = self.ledger.table
        np = table.np
        cpu_left = table.cpu_free[rows] - request.cpu
        gpu_left = table.total_free[rows] - request.total
        value = MAX_NODE_SCORE * (1 - (0.5 * cpu_left / CPU_SCALE + 0.5 * gpu_left / GPU_SCALE))
        raw = state.get(BESTFIT_KEY)
        if raw is None or len(raw) < table.capacity:
            grown = np.full(table.capacity, np.nan)
            if raw is not None:
                grown[: len(raw)] = raw
            raw = grown
            state.write(BESTFIT_KEY, raw)
        raw[rows] = value
        return np.clip(np.trunc(value), 0, MAX_NODE_SCORE).astype(np.int64)

    def normalize(self, state: CycleState, scores: list[NodeScore]) -> None:
        """Min-max over the candidates, on the unrounded values."""
        raw = state.get(BESTFIT_KEY)
        rows = self.ledger.rows
        values = []
        for s in scores:
            row = rows.get(s.name)
            value = float(raw[row]) if raw is not None and row is not None and row < len(raw) else math.nan
            values.append(float(s.score) if math.isnan(value) else value)
        if not values:
            return
        low, high = min(values), max(values)
        for s, v in zip(scores, values):
            s.score = MAX_NODE_SCORE if high == low else int((v - low) * MAX_NODE_SCORE / (high - low))

    def normalize_values(self, state: CycleState, rows: Any, values: Any) -> Any:
        np = self.ledger.table.np
        raw = state.get(BESTFIT_KEY)
        if not len(values):
            return values
        if raw is None or int(rows.max()) >= len(raw):
            v = values.astype(np.float64)
        else:
            v = raw[rows]
            v = np.where(np.isnan(v), values, v)
        low, high = v.min(), v.max()
        if high == low:
            return np.full(len(values), MAX_NODE_SCORE, dtype=np.int64)
        return np.trunc((v - low) * MAX_NODE_SCORE / (high - low)).astype(np.int64)


class FragmentationModel:
    """FGD's expected fragmentation against the typical pods, for many nodes at once (numpy).

    For typical pod m (weight p_m) and a node: when m fits (CPU left, enough GPUs with m's
    milli free each, an accepted model), its fragment is the free milli on GPUs with less than
    m's milli free; otherwise (and for a CPU-only m) all of the node's free GPU milli. F(node)
    = sum p_m frag_m. Per node the table keeps, for each m, the sum of free milli below m's
    milli (``lt``) and the count of GPUs with at least m's milli (``ge``); a placement changes
    one or a few GPUs, so F after it is computed from the table without rebuilding it.
    """

    def __init__(self, typical: list[TypicalPod]) -> None:
        import numpy as np

        self.np = np
        total = sum(t.weight for t in typical) or 1.0
        self.p = np.array([t.weight / total for t in typical], dtype=np.float64)
        self.cpu = np.array([t.cpu_milli for t in typical], dtype=np.int64)
        self.milli = np.array([t.gpu_milli if t.gpu_count else 0 for t in typical], dtype=np.int64)
        self.num = np.array([t.gpu_count if t.gpu_milli else 0 for t in typical], dtype=np.int64)
        self.gpu_task = self.milli > 0
        self.models = [parse_models(t.gpu_model) for t in typical]
        self._allowed: dict[str, Any] = {}
        m = len(typical)
        self.width = 8
        self.capacity = 0
        self.gen = np.zeros(0, dtype=np.int64)
        self.lt = np.zeros((0, m))
        self.ge = np.zeros((0, m), dtype=np.int64)
        self.alw = np.zeros((0, m), dtype=bool)
        self.sall = np.zeros(0)
        self.cpu_free = np.zeros(0, dtype=np.int64)
        self.gf = np.zeros((0, self.width), dtype=np.int64)

    def allowed(self, model: str) -> Any:
        out = self._allowed.get(model)
        if out is None:
            out = self._allowed[model] = self.np.array([s is None or model in s for s in self.models], dtype=bool)
        return out

    def _grow(self, rows: int, width: int) -> None:
        np = self.np
        cap = max(rows, 2 * self.capacity, 64)

        def grown(a: Any, shape: tuple[int, ...], fill: Any = 0) -> Any:
            b = np.full(shape, fill, dtype=a.dtype)
            b[tuple(slice(0, s) for s in a.shape)] = a
            return b

        m = len(self.p)
        self.gen = grown(self.gen, (cap,), -1)
        self.lt = grown(self.lt, (cap, m))
        self.ge = grown(self.ge, (cap, m))
        self.alw = grown(self.alw, (cap, m))
        self.sall = grown(self.sall, (cap,))
        self.cpu_free = grown(self.cpu_free, (cap,))
        self.gf = grown(self.gf, (cap, max(width, self.width)))
        self.width = self.gf.shape[1]
        self.capacity = cap

    def rows(self, nodes: list[NodeGpu]) -> Any:
        """The nodes' rows, refreshed where the node changed."""
        np = self.np
        gen = self.gen
        for n in nodes:
            if n.row >= self.capacity or n.count > self.width:
                self._grow(n.row + 1, n.count)
                gen = self.gen
            if gen[n.row] != n.generation:
                self._refresh(n)
        return np.fromiter((n.row for n in nodes), dtype=np.int64, count=len(nodes))

    def sync(self, ledger: Ledger, rows: Any) -> Any:
        """The ledger's ``rows`` (just synced by ``rows_of``), refreshed here where the node
        changed since: :meth:`rows` without a Python step per unchanged node."""
        if not len(rows):
            return rows
        top = int(rows.max())
        if top >= self.capacity:
            self._grow(top + 1, self.width)
        table_gen = ledger.table.gen[rows]
        for i in self.np.flatnonzero(self.gen[rows] != table_gen).tolist():
            n = ledger.by_row[int(rows[i])]
            assert n is not None  # rows_of wrote it
            if n.count > self.width:
                self._grow(self.capacity, n.count)
            self._refresh(n)
        return rows

    def _refresh(self, n: NodeGpu) -> None:
        np = self.np
        g = np.zeros(self.width, dtype=np.int64)
        g[: n.count] = n.free
        tm = self.milli[:, None]
        self.gf[n.row] = g
        self.lt[n.row] = np.where(g[None, :] < tm, g[None, :], 0).sum(axis=1)
        self.ge[n.row] = (g[None, :] >= tm).sum(axis=1)
        self.alw[n.row] = self.allowed(n.model) & self.gpu_task
        self.sall[n.row] = g.sum()
        self.cpu_free[n.row] = n.cpu_free
        self.gen[n.row] = n.generation

    def _frag(self, fits: Any, lt: Any, sall: Any) -> Any:
        return self.np.where(fits, lt, sall[..., None]) @ self.p

    def delta(self, request: GpuRequest, rows: Any) -> tuple[Any, Any]:
        """(F before - F after, the best GPU slot or -1) for placing the request on each row."""
        np = self.np
        cpu, lt, ge, alw, sall = self.cpu_free[rows], self.lt[rows], self.ge[rows], self.alw[rows], self.sall[rows]
        before = self._frag((cpu[:, None] >= self.cpu) & (ge >= self.num) & alw, lt, sall)
        cpu_after = cpu - request.cpu
        best = np.full(len(rows), -1, dtype=np.int64)
        if request.milli == 0:
            after = self._frag((cpu_after[:, None] >= self.cpu) & (ge >= self.num) & alw, lt, sall)
        elif not request.sharing:
            n = request.count  # whole GPUs go from 1000 free to 0: below every m's milli, worth 0
            after = self._frag((cpu_after[:, None] >= self.cpu) & (ge - n >= self.num) & alw, lt, sall - MILLI_PER_GPU * n)
        else:
            d = request.milli
            g = self.gf[rows][:, :, None]  # [N, W, 1]
            g2 = g - d
            tm = self.milli[None, None, :]
            lt2 = lt[:, None, :] - np.where(g < tm, g, 0) + np.where(g2 < tm, g2, 0)
            ge2 = ge[:, None, :] - (g >= tm) + (g2 >= tm)
            fits = (cpu_after[:, None, None] >= self.cpu) & (ge2 >= self.num) & alw[:, None, :]
            frag = np.where(fits, lt2, (sall - d)[:, None, None]) @ self.p  # [N, W]
            frag = np.where(g[:, :, 0] >= d, frag, np.inf)
            best = frag.argmin(axis=1)
            after = frag[np.arange(len(rows)), best]
            best = np.where(np.isfinite(after), best, -1)
            after = np.where(np.isfinite(after), after, before)
        return before - after, best


def typical_pods_of(pods: Sequence[Pod], coverage: float) -> list[TypicalPod]:
    """The distinct shapes (CPU, GPU milli, GPU count, models), most frequent first, until they
    cover ``coverage`` of the pods; weights are the counts (normalised by the model)."""
    counts: Counter[tuple[int, int, int, str]] = Counter()
    for pod in pods:
        if (pod.meta.annotations or {}).get(RESAMPLED):
            continue
        try:
            r = request_of(pod)
        except RequestError:
            continue
        counts[(r.cpu, r.milli, r.count, "|".join(sorted(r.models)) if r.models else "")] += 1
    total = sum(counts.values())
    out: list[TypicalPod] = []
    covered = 0
    for (cpu, milli, count, model), k in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        out.append(TypicalPod(cpu_milli=cpu, gpu_count=count, gpu_milli=milli, gpu_model=model, weight=float(k)))
        covered += k
        if covered >= coverage * total:
            break
    return out


class GpuShareFGD(_Policy):
    NAME = "GpuShareFGD"

    def __init__(self, args: GpuShareFGDArgs | None, handle: Handle | None) -> None:
        super().__init__(args, handle)
        self.args = GpuShareFGDArgs.of(args, None)
        self._model: FragmentationModel | None = None

    @property
    def model(self) -> FragmentationModel:
        if self._model is None:
            typical = list(self.args.typical_pods or ())
            if not typical and self.handle is not None:
                typical = typical_pods_of(self.handle.pod_lister().list(), self.args.typical_coverage or 0.95)
            self._model = FragmentationModel(typical)
        return self._model

    def scores(self, state: CycleState, request: GpuRequest, rows: Any) -> Any:
        model = self.model
        np = model.np
        if not len(rows):
            return np.zeros(0, dtype=np.int64)
        delta, _ = model.delta(request, model.sync(self.ledger, rows))
        # floor(100 x sigmoid(delta / 1000)), as _sigmoid_score, for every node at once
        x = np.clip(delta / 1000.0, -700.0, 700.0)
        return np.floor(MAX_NODE_SCORE / (1.0 + np.exp(-x))).astype(np.int64)

    def choose(self, node: NodeGpu, request: GpuRequest) -> tuple[int, ...]:
        if not request.sharing:
            return best_fit(node, request)
        model = self.model
        _, best = model.delta(request, model.rows([node]))
        gpu = int(best[0])
        return (gpu,) if 0 <= gpu < node.count and node.free[gpu] >= request.milli else best_fit(node, request)


def _sigmoid_score(delta: float) -> int:
    """floor(100 x sigmoid(delta / 1000)): a placement that adds no fragmentation scores 50."""
    x = delta / 1000
    s = 1 / (1 + math.exp(-x)) if x >= -700 else 0.0
    return int(MAX_NODE_SCORE * s)


POLICIES: tuple[type[_Policy], ...] = (
    GpuShareRandom,
    GpuShareDotProduct,
    GpuShareClustering,
    GpuSharePacking,
    GpuShareBestFit,
    GpuShareFGD,
)

__all__ = [
    "POLICIES",
    "FragmentationModel",
    "GpuShareBestFit",
    "GpuShareClustering",
    "GpuShareDotProduct",
    "GpuShareFGD",
    "GpuSharePacking",
    "GpuShareRandom",
    "best_fit_raw",
    "clustering_score",
    "packing_score",
    "typical_pods_of",
]
