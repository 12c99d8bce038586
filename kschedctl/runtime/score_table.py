"""The scores of one Score phase kept as columns, one list per plugin.

No upstream counterpart: kube-scheduler builds a NodePluginScores per node; keeping one column
per plugin avoids an object per node and plugin, which is what makes scoring thousands of nodes
cheap. ``node_plugin_scores()`` gives upstream's per-node view when something needs it.
"""

from __future__ import annotations

from kschedctl.framework.interface import NodePluginScores, PluginScore


class ScoreTable:
    """The scores of one Score phase, by plugin: ``plugins`` is [(name, weight, normalized
    scores in node order)], ``totals`` the weighted sum per node. ``node_plugin_scores()`` gives
    the per-node NodePluginScores view (framework.NodePluginScores)."""

    __slots__ = ("names", "plugins", "totals")

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.plugins: list[tuple[str, int, list[int]]] = []
        self.totals: list[int] = [0] * len(names)

    def node_plugin_scores(self) -> list[NodePluginScores]:
        out = []
        for i, name in enumerate(self.names):
            scores = [PluginScore(pname, values[i] * weight, values[i], weight) for pname, weight, values in self.plugins]
            out.append(NodePluginScores(name, scores, self.totals[i]))
        return out

    def total_of(self, node_name: str) -> int | None:
        try:
            return self.totals[self.names.index(node_name)]
        except ValueError:
            return None
