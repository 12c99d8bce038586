"""RunScorePlugins' three phases, in framework.go's order (pkg/scheduler/framework/runtime/
framework.go RunScorePlugins): Score on every plugin, then NormalizeScore on every plugin, then
the range check and weights walking node by node, each node's plugins in order. The error a
cycle reports is the earliest phase's, and of two scores out of range the first node's; both
the per-node form (lists) and the batch form (an int64 matrix, 24+ nodes) say the same."""

from __future__ import annotations

from typing import Any

import pytest

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.interface import Code, Status
from kschedctl.testing import make_node, make_pod, new_framework


class _Scores:
    """A Score plugin scoring node i with ``values[i]``; it fails on Score or NormalizeScore
    when told to, and its NormalizeScore adds ``shift``."""

    def __init__(self, name: str, values: list[int], fail_score: bool = False, shift: int | None = None, fail_norm: bool = False) -> None:
        self._name, self.values, self.fail_score, self.shift, self.fail_norm = name, values, fail_score, shift, fail_norm
        self.at = {f"n{i:02d}": v for i, v in enumerate(values)}

    def name(self) -> str:
        return self._name

    def score(self, state: Any, pod: Any, node_info: Any) -> tuple[int, Status | None]:
        if self.fail_score:
            return 0, Status(Code.Error, "score failed")
        return self.at[node_info.name], None

    def score_extensions(self) -> Any:
        return self if self.shift is not None or self.fail_norm else None

    def normalize_score(self, state: Any, pod: Any, scores: list[Any]) -> Status | None:
        if self.fail_norm:
            return Status(Code.Error, "normalize failed")
        for ns in scores:
            ns.score += self.shift or 0
        return None


def _run(plugins: list[_Scores], n: int) -> tuple[Any, Status]:
    nodes = [make_node(f"n{i:02d}").capacity(cpu="4", memory="8Gi", pods="10").obj() for i in range(n)]
    fwk = new_framework(nodes=nodes)
    fwk.points["score"] = list(plugins)
    for pl in plugins:
        fwk.plugin_names[id(pl)] = pl.name()
        fwk.score_weights[pl.name()] = 2
    return fwk.run_score_plugins_table(CycleState(), make_pod("p").obj(), fwk.snapshot.list())


@pytest.mark.parametrize("n", [3, 30])  # per node (lists) and batch (a columnar view from 24 nodes)
def test_a_score_error_of_a_later_plugin_wins_over_an_earlier_range_error(n):
    table, status = _run([_Scores("A", [101] * n), _Scores("B", [1] * n, fail_score=True)], n)
    assert table is None
    assert status.code == Code.Error
    assert status.message() == 'running Score plugins: plugin "B" failed with: score failed'


@pytest.mark.parametrize("n", [3, 30])
def test_a_normalize_error_of_a_later_plugin_wins_over_an_earlier_range_error(n):
    table, status = _run([_Scores("A", [101] * n), _Scores("B", [1] * n, fail_norm=True)], n)
    assert table is None
    assert status.message() == 'running Normalize on Score plugins: plugin "B" failed with: normalize failed'


@pytest.mark.parametrize("n", [3, 30])
def test_of_two_scores_out_of_range_the_first_node_names_its_first_plugin(n):
    a = [50] * n
    b = [50] * n
    a[2] = 150  # plugin A out of range on the third node
    b[1] = -7  # plugin B (later in order) out of range on the second node
    table, status = _run([_Scores("A", a), _Scores("B", b)], n)
    assert table is None
    assert status.message() == (
        'applying score defaultWeights on Score plugins: plugin "B" returns an invalid score -7, '
        "it should in the range of [0, 100] after normalizing"
    )
    assert status.plugin == "B"


@pytest.mark.parametrize("n", [3, 30])
@pytest.mark.parametrize("low", [-1, -(2**63)])
def test_a_score_below_the_range_alone_is_found(n, low):
    """The batch check reads the scores as unsigned (MIN_NODE_SCORE is 0): a negative score,
    with nothing above MAX_NODE_SCORE, is still out of range, the least int64 included."""
    b = [100] * n
    b[n - 1] = low
    table, status = _run([_Scores("A", [0] * n), _Scores("B", b)], n)
    assert table is None
    assert status.message() == (
        f'applying score defaultWeights on Score plugins: plugin "B" returns an invalid score {low}, '
        "it should in the range of [0, 100] after normalizing"
    )


@pytest.mark.parametrize("n", [3, 30])
def test_normalized_scores_are_weighted_and_summed_per_node(n):
    a = [i % 7 for i in range(n)]
    b = [(3 * i) % 11 for i in range(n)]
    table, status = _run([_Scores("A", a, shift=10), _Scores("B", b)], n)
    assert status.is_success()
    assert table.totals == [2 * (x + 10) + 2 * y for x, y in zip(a, b)]
    assert table.names == [f"n{i:02d}" for i in range(n)]
    assert [(name, weight, values) for name, weight, values in table.plugins] == [("A", 2, [x + 10 for x in a]), ("B", 2, b)]
    assert all(type(v) is int for _, _, values in table.plugins for v in values) and all(type(t) is int for t in table.totals)
    best = max(table.totals)
    assert table.best_positions() == [i for i, t in enumerate(table.totals) if t == best]
