"""PreScore, Score and NormalizeScore: framework.go's RunPreScorePlugins and RunScorePlugins
(scores kept by plugin in a ScoreTable; batch forms used when a plugin has them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kschedctl.backend.cache.columnar import NodeBatch, as_batch, columns_of
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE, Code, NodePluginScores, NodeScore, Status
from kschedctl.framework.types import NodeInfo
from kschedctl.lazy import loaded, quiet_log
from kschedctl.lazy import numpy as np
from kschedctl.runtime.calls import PluginCalls
from kschedctl.runtime.guard import LOGGER, as_status, is_int, optional, pair, raised, wrong
from kschedctl.runtime.score_table import ScoreTable


def _normalized_scores(scores: list[NodeScore], n: int) -> list[int] | None:
    """The scores NormalizeScore left, as Python ints; None when the plugin left something else
    than one NodeScore with an integer score per node."""
    try:
        values = [ns.score for ns in scores]
    except AttributeError:
        return None
    if len(values) != n:
        return None
    if all(v.__class__ is int for v in values):
        return values  # the common case, decided without numpy
    return _normalized_by_numpy(values)


def _normalized_by_numpy(values: list[Any]) -> list[int] | None:
    """Scores that are not all plain ints (numpy ints, bools among ints, floats, None...), read
    as numpy reads them: accepted when they make an integer array (see score_array)."""
    arr = np.asarray(values)
    kind = arr.dtype.kind
    if arr.ndim != 1 or kind not in "iuO" or (kind == "O" and not all(is_int(v) for v in values)):
        return None  # floats, strings, bools: not scores
    ints: list[int] = score_array(values).tolist()
    return ints


def score_array(values: list[int]) -> np.ndarray:
    """Scores as an int64 array; an object array for values beyond int64 (a plugin's bug that
    the range check then reports with the value itself)."""
    try:
        return np.asarray(values, np.int64) if values else np.zeros(0, np.int64)
    except OverflowError:
        return np.asarray(values, dtype=object)


def _int64_scores(values: Any, n: int) -> np.ndarray:
    """A score_batch result as an int64 array; an all-zero list (a plugin with nothing to say
    this cycle) is recognised by a C-level count instead of being converted element by element."""
    if isinstance(values, np.ndarray):
        return values.astype(np.int64, copy=False)
    if not isinstance(values, list):
        values = list(values)
    if len(values) == n and values.count(0) == n:
        return np.zeros(n, np.int64)
    return np.asarray(values, np.int64)


def _invalid_score(name: str, bad: int) -> Status:
    """framework.go's weights step: the Error of a plugin whose normalized score leaves
    [MIN_NODE_SCORE, MAX_NODE_SCORE]."""
    msg = (
        f'applying score defaultWeights on Score plugins: plugin "{name}" returns an invalid '
        f"score {bad}, it should in the range of [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
    )
    return Status(Code.Error, msg, plugin=name)


def _out_of_range(names: list[str], rows: list[list[int]]) -> Status | None:
    """The range check of framework.go's weights step over Python-int rows (one per plugin):
    it walks node by node and, on each node, the plugins in order, so the first node with a
    score out of range names its first such plugin."""
    if all(not row or (max(row) <= MAX_NODE_SCORE and min(row) >= MIN_NODE_SCORE) for row in rows):
        return None
    for per_node in zip(*rows):
        for name, value in zip(names, per_node):
            if value > MAX_NODE_SCORE or value < MIN_NODE_SCORE:
                return _invalid_score(name, value)
    return None  # pragma: no cover - a row out of range has a node out of range


# _matrix_out_of_range reads scores as unsigned, which tells the range only from a minimum of 0
# (framework.MinNodeScore)
assert MIN_NODE_SCORE == 0


def _matrix_out_of_range(names: list[str], matrix: np.ndarray) -> Status | None:
    """_out_of_range on an int64 matrix (a row per plugin): one reduction when every score is
    in range, which is every cycle of a correct plugin. With MIN_NODE_SCORE 0 the scores read
    as unsigned are all at most MAX_NODE_SCORE exactly when all are in range: a negative one
    reads as 2**63 or more."""
    # the ufunc's own reduction: ndarray.max() goes through a Python wrapper
    if not matrix.size or int(np.maximum.reduce(matrix.view(np.uint64), None)) <= MAX_NODE_SCORE:
        return None
    bad = (matrix > MAX_NODE_SCORE) | (matrix < MIN_NODE_SCORE)
    node = int(bad.any(axis=0).argmax())
    plugin = int(bad[:, node].argmax())
    return _invalid_score(names[plugin], int(matrix[plugin, node]))


def weigh_scores(table: ScoreTable, named: list[str], weights: list[int], scored: list[Any]) -> Status | None:
    """framework.go's last step of RunScorePlugins: every normalized score checked against
    [MIN_NODE_SCORE, MAX_NODE_SCORE], then weighted and summed per node into ``table``.
    ``scored`` holds one row per plugin: int64 arrays (the batch form) or lists of ints."""
    n = len(table)
    numpy = loaded("numpy")  # the per-node form runs without it: its rows are lists
    if scored and numpy is not None and all(isinstance(row, numpy.ndarray) and row.dtype == numpy.int64 for row in scored):
        # one (plugins, nodes) array from rows of one length and dtype: np.array builds it in
        # C (~2 us), where vstack's Python wrapper costs ~7 us a cycle
        matrix = np.array(scored, np.int64) if n else np.zeros((len(scored), 0), np.int64)
        wrong_range = _matrix_out_of_range(named, matrix)
        if wrong_range is not None:
            return wrong_range
        table.set_matrix(list(zip(named, weights)), matrix)
        table.set_totals_array(np.asarray(weights, np.int64).dot(matrix))
        return None
    rows = [row if isinstance(row, list) else row.tolist() for row in scored]
    wrong_range = _out_of_range(named, rows)
    if wrong_range is not None:
        return wrong_range
    totals = [0] * n
    for name, weight, row in zip(named, weights, rows):
        table.plugins.append((name, weight, row))
        totals = [t + v * weight for t, v in zip(totals, row)]
    table.totals = totals
    return None


class ScorePoints(PluginCalls):
    """PreScore, Score and NormalizeScore of one profile."""

    score_weights: dict[str, int]

    # --- PreScore / Score ------------------------------------------------------------------
    def run_pre_score_plugins(self, state: CycleState, pod: Any, nodes: Sequence[NodeInfo]) -> Status:
        skip = state.skip_score_plugins
        for pl, name in self._named("preScore"):
            try:  # PluginCalls._call, inlined (see there)
                out = pl.pre_score(state, pod, nodes)
            except Exception as exc:  # noqa: BLE001 - plugin code may raise anything
                out = raised(name, "PreScore", exc)
            if out is None:
                continue  # Success: no Status made to say so
            st = as_status(name, "PreScore", out)
            if st.is_skip():
                skip.add(name)
                continue
            if not st.is_success():
                return Status(Code.Error, f'running PreScore plugin "{name}": {st.message()}', plugin=name, err=st.err)
        return Status()

    def run_score_plugins(self, state: CycleState, pod: Any, nodes: Sequence[NodeInfo]) -> tuple[list[NodePluginScores], Status]:
        """Score, NormalizeScore, range check, weights (framework.go RunScorePlugins), one
        NodePluginScores per node: the per-node view of run_score_plugins_table (the one
        implementation), as the Handle offers it to plugins."""
        table, status = self.run_score_plugins_table(state, pod, nodes)
        if table is None:
            return [], status
        return table.node_plugin_scores(), status

    def _score_per_node(self, pl: Any, name: str, state: CycleState, pod: Any, nodes: Sequence[NodeInfo]) -> list[int] | Status:
        """One Score call per node: the raw scores (Python ints), or the Status that ends the phase."""
        per_node: list[int] = []
        score = optional(pl, "score")
        if score is None:
            return Status(Code.Error, f"running Score plugins: {raised(name, 'Score', AttributeError('score')).message()}", plugin=name)
        for info in nodes:
            try:
                out = score(state, pod, info)
            except Exception as exc:  # noqa: BLE001
                out = raised(name, "Score", exc)
            if out.__class__ is tuple and len(out) == 2 and out[1] is None and out[0].__class__ is int:
                per_node.append(out[0])  # the common case, checked cheaply: (int, None)
                continue
            if isinstance(out, Status):
                return Status(Code.Error, f"running Score plugins: {out.message()}", plugin=name, err=out.err)
            checked = pair(name, "Score", out, is_int, "an (int, Status | None) pair")
            if isinstance(checked, Status):
                return Status(Code.Error, f"running Score plugins: {checked.message()}", plugin=name)
            value, st = checked
            if st.code != Code.Success:
                return Status(Code.Error, f'running Score plugins: plugin "{name}" failed with: {st.message()}', plugin=name, err=st.err)
            per_node.append(int(value))
        return per_node

    def _normalize(
        self, pl: Any, name: str, state: CycleState, pod: Any, batch_nodes: NodeBatch | None, table: ScoreTable, values: Any
    ) -> Any:
        """NormalizeScore through the plugin's ScoreExtensions, when it has them: the scores in
        the form they came (an int64 array with a batch, else a list), or the Status that ends
        the phase."""
        n = len(table)
        if self._opt(pl, "score_extensions") is None:
            return values
        ext = self._call(name, "ScoreExtensions", pl, "score_extensions")
        if ext is None:
            return values
        # A plugin that is its own ScoreExtensions (every in-tree one) has its methods looked
        # up once per run (_opt, keyed by the plugin, which lives as long as the run); any other
        # object is asked afresh, as it may be a new one each cycle.
        look_up = self._opt if ext is pl else optional
        if isinstance(ext, Status) or look_up(ext, "normalize_score") is None:
            why = (
                ext.message()
                if isinstance(ext, Status)
                else wrong(name, "ScoreExtensions", ext, "None or an object with normalize_score").message()
            )
            return Status(Code.Error, f"running Normalize on Score plugins: {why}", plugin=name)
        normalized = None
        norm_batch = look_up(ext, "normalize_score_batch") if batch_nodes is not None else None
        if norm_batch is not None:
            # optional batch NormalizeScore: the nodes and their scores (an int64 array) in,
            # the normalized scores out; if it raises, normalize_score reports it
            try:
                normalized = norm_batch(state, pod, batch_nodes, values.copy())  # None: per-node form
                if normalized is not None:
                    normalized = np.asarray(normalized, np.int64)
                    if normalized.shape != (n,):
                        normalized = None
            except Exception:  # noqa: BLE001
                quiet_log(LOGGER, "debug", "normalize_score_batch of %s raised; per-node fallback", name, exc_info=True)
                normalized = None
        if normalized is None:
            listed = values if isinstance(values, list) else values.tolist()
            scores = [NodeScore(nm, v) for nm, v in zip(table.names, listed)]
            st = as_status(name, "NormalizeScore", self._call(name, "NormalizeScore", ext, "normalize_score", state, pod, scores))
            if not st.is_success():
                return Status(Code.Error, f'running Normalize on Score plugins: plugin "{name}" failed with: {st.message()}', plugin=name)
            ints = _normalized_scores(scores, n)
            if ints is None:
                return Status(
                    Code.Error,
                    f'running Normalize on Score plugins: plugin "{name}" left scores that are not one integer NodeScore per node',
                    plugin=name,
                )
            normalized = ints if batch_nodes is None else score_array(ints)
        return normalized

    def run_score_plugins_table(self, state: CycleState, pod: Any, nodes: Sequence[NodeInfo]) -> tuple["ScoreTable | None", Status]:
        """run_score_plugins as columns (one list of scores per plugin): no object per node and
        plugin, which is what makes scoring thousands of nodes cheap. ``score_batch`` is used
        when a plugin has it (``use_batch`` on and the snapshot has a columnar view: scores are
        then int64 arrays), else one ``score`` call per node (scores are then lists, no numpy).

        The three phases run in framework.go's order, each over every plugin before the next:
        Score, then NormalizeScore, then the range check and weights, so that the error a
        cycle reports is the one of the earliest phase that fails."""
        skip = state.skip_score_plugins
        plugins = [(pl, name) for pl, name in self._named("score") if name not in skip]
        columns = columns_of(self.snapshot) if self.use_batch else None
        batch_nodes = as_batch(nodes, self.snapshot) if columns is not None else None
        rows = batch_nodes.rows if batch_nodes is not None and plugins else None
        table = ScoreTable(columns=columns, rows=rows) if rows is not None else ScoreTable([n.name for n in nodes])
        scored: list[Any] = []
        for pl, name in plugins:
            values = self._scores(pl, name, state, pod, nodes, batch_nodes)
            if isinstance(values, Status):
                return None, values
            scored.append(values)
        for i, (pl, name) in enumerate(plugins):
            values = self._normalize(pl, name, state, pod, batch_nodes, table, scored[i])
            if isinstance(values, Status):
                return None, values
            scored[i] = values
        named = [name for _, name in plugins]
        failed = weigh_scores(table, named, [self.score_weights[name] for name in named], scored)
        if failed is not None:
            return None, failed
        return table, Status()

    def _scores(self, pl: Any, name: str, state: CycleState, pod: Any, nodes: Sequence[NodeInfo], batch_nodes: NodeBatch | None) -> Any:
        """One plugin's raw scores: its ``score_batch`` (an int64 array) when it has one and
        answers, else its ``score`` per node (a list, or an array with a batch); or the Status
        that ends the phase."""
        n = len(nodes)
        batch_fn = self._opt(pl, "score_batch") if batch_nodes is not None else None
        if batch_fn is not None:
            try:
                values = batch_fn(state, pod, batch_nodes)  # None: "use the per-node form"
                if values is not None:
                    values = _int64_scores(values, n)
                    if values.shape == (n,):
                        return values
            except Exception:  # noqa: BLE001 - the per-node calls below report it exactly
                quiet_log(LOGGER, "debug", "score_batch of %s raised; per-node fallback", name, exc_info=True)
        per_node = self._score_per_node(pl, name, state, pod, nodes)
        if isinstance(per_node, Status) or batch_nodes is None:
            return per_node
        return score_array(per_node)


__all__ = ["ScorePoints", "score_array", "weigh_scores"]
