"""The scores of one Score phase kept as columns, one list per plugin.

No upstream counterpart: kube-scheduler builds a NodePluginScores per node; keeping one column
per plugin avoids an object per node and plugin, which is what makes scoring thousands of nodes
cheap. ``node_plugin_scores()`` gives upstream's per-node view when something needs it.
"""

from __future__ import annotations

from typing import Any

from kschedctl.framework.interface import NodePluginScores, PluginScore
from kschedctl.lazy import numpy as np


class ScoreTable:
    """The scores of one Score phase, by plugin: ``plugins`` is [(name, weight, normalized
    scores in node order)], ``totals`` the weighted sum per node, ``names`` the nodes' names.
    ``node_plugin_scores()`` gives the per-node NodePluginScores view
    (framework.NodePluginScores).

    The batch form leaves its scores as arrays: the plugins' rows as one int64 matrix
    (``set_matrix``), the totals as an int64 array and the names as rows of the snapshot's
    columns. Most cycles only pick the best total (``best_positions``, ``name_at``), so lists
    of Python ints and the names are built only when first read (explain, extenders, the
    per-node view)."""

    __slots__ = ("_names", "_name_rows", "_plugins", "_matrix", "_totals", "_totals_array", "_named_at")

    def __init__(self, names: list[str] | None = None, columns: Any = None, rows: Any = None) -> None:
        """``names``, or the ``columns`` (backend/cache/columnar.py) and ``rows`` they are read from."""
        self._names = names
        self._name_rows: tuple[Any, Any] | None = (columns, rows) if names is None else None
        self._plugins: list[tuple[str, int, list[int]]] = []
        self._matrix: tuple[list[tuple[str, int]], Any] | None = None
        self._totals: list[int] | None = [0] * len(names) if names is not None else None
        self._totals_array: Any = None
        self._named_at: dict[str, int] = {}  # name -> position, of the names name_at gave

    def __len__(self) -> int:
        if self._names is not None:
            return len(self._names)
        assert self._name_rows is not None
        return len(self._name_rows[1])

    @property
    def names(self) -> list[str]:
        if self._names is None:
            assert self._name_rows is not None
            columns, rows = self._name_rows
            self._names = columns.names_of(rows)
        return self._names

    def name_at(self, position: int) -> str:
        """The name of the node at ``position``, without building every name."""
        if self._names is not None:
            return self._names[position]
        assert self._name_rows is not None
        columns, rows = self._name_rows
        name: str = columns.names[int(rows[position])]
        self._named_at[name] = position
        return name

    def set_matrix(self, named_weights: list[tuple[str, int]], matrix: Any) -> None:
        """The plugins' scores as rows of an int64 matrix, in plugin order (before any column
        added through ``plugins``)."""
        self._matrix = (named_weights, matrix)

    @property
    def plugins(self) -> list[tuple[str, int, list[int]]]:
        if self._matrix is not None:
            named_weights, matrix = self._matrix
            self._matrix = None
            rows: list[list[int]] = matrix.tolist()
            self._plugins[:0] = [(name, weight, row) for (name, weight), row in zip(named_weights, rows)]
        return self._plugins

    @property
    def totals(self) -> list[int]:
        if self._totals is None:
            self._totals = self._totals_array.tolist() if self._totals_array is not None else [0] * len(self)
        return self._totals

    @totals.setter
    def totals(self, totals: list[int]) -> None:
        self._totals = totals
        self._totals_array = None

    def set_totals_array(self, totals: Any) -> None:
        """The totals as an int64 array (the batch form)."""
        self._totals = None
        self._totals_array = totals

    def best_positions(self) -> list[int]:
        """The positions of the highest total, in node order."""
        array = self._totals_array
        if array is not None:
            if not len(array):
                return []
            hits: list[int] = (array == np.maximum.reduce(array)).nonzero()[0].tolist()
            return hits
        totals = self.totals
        if not totals:
            return []
        best = max(totals)
        if totals.count(best) == 1:  # no tie (C-level count and index)
            return [totals.index(best)]
        return [i for i, t in enumerate(totals) if t == best]

    def node_plugin_scores(self) -> list[NodePluginScores]:
        plugins = self.plugins
        totals = self.totals
        out = []
        for i, name in enumerate(self.names):
            scores = [PluginScore(pname, values[i] * weight, values[i], weight) for pname, weight, values in plugins]
            out.append(NodePluginScores(name, scores, totals[i]))
        return out

    def total_of(self, node_name: str) -> int | None:
        position = self._named_at.get(node_name)
        if position is not None:  # the chosen node: no names to build
            if self._totals_array is not None:
                return int(self._totals_array[position])
            return self.totals[position]
        try:
            return self.totals[self.names.index(node_name)]
        except ValueError:
            return None
