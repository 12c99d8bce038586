"""The sweep: skip the cells the journal already holds, run the others on an executor, and
list every cell's outcome in cell order (matrix order), whatever order they finished in.

Cells with the same key (the same inputs reached twice, e.g. one file listed under two
names) run once and share the outcome.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from kschedctl.api.outputs import OutputPath
from kschedctl.sweep.cell import CRASHED, ERROR, OK, CellOutcome, CellTask, SideSpec, SnapshotSource
from kschedctl.sweep.matrix import Cell, ConfigSpec, Matrix
from kschedctl.sweep.results import AXES, Journal, metric_names, write_results

# (done, failed, running, total): cells of this matrix finished (resumed ones included),
# how many of them failed, how many are running now
Progress = Callable[[int, int, int, int], None]


class Executor(Protocol):
    running: int
    on_running: Callable[[int], None] | None

    def run(self, tasks: list[tuple[CellTask, SnapshotSource]], report: Callable[[CellOutcome], None]) -> None: ...


@dataclass
class SweepResult:
    matrix: Matrix
    outcomes: dict[str, CellOutcome]  # cell key -> outcome
    resumed: int = 0  # cells taken from the journal
    ran: int = 0
    results: str | None = None
    wall_seconds: float = 0.0
    rows: list[tuple[Cell, CellOutcome]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rows = [(c, self.outcomes[c.key]) for c in self.matrix.cells if c.key in self.outcomes]

    def counts(self) -> dict[str, int]:
        statuses = [o.status for _, o in self.rows]
        return {
            "cells": len(self.matrix.cells),
            "ok": statuses.count(OK),
            "error": statuses.count(ERROR),
            "crashed": statuses.count(CRASHED),
            "notRun": len(self.matrix.cells) - len(self.rows),
        }

    def axes(self) -> dict[str, list[Any]]:
        """Each axis's values, in matrix order."""
        m = self.matrix
        return {
            "snapshot": [s.label for s in m.snapshots],
            "config": list(dict.fromkeys(c.label for c in m.configs)),
            "kubeVersion": m.kube_versions,
            "featureGates": m.feature_gates,
            "seed": m.seeds,
        }

    def cell_dicts(self) -> list[dict[str, Any]]:
        """What stdout shows of each cell: no result JSON, no wall time (those are in the file)."""
        return [
            {
                "index": c.index,
                "key": c.key,
                **c.axes(),
                "params": dict(c.config.params),
                "status": o.status,
                "error": o.error,
                "metrics": o.metrics,
            }
            for c, o in self.rows
        ]

    def to_dict(self) -> dict[str, Any]:
        m = self.matrix
        return {
            "sweep": m.name,
            "matrix": m.path,
            "command": m.command,
            "results": self.results,
            "axes": self.axes(),
            "cells": self.cell_dicts(),
            "summary": self.counts(),
        }

    def columns(self) -> list[str]:
        return [
            "index",
            "key",
            "command",
            *AXES[:2],
            *self.matrix.param_columns(),
            *AXES[2:],
            "status",
            "error",
            *metric_names(self.matrix.command),
            "wallSeconds",
            "cpuSeconds",
            "warnings",
            "result",
        ]

    def records(self) -> list[dict[str, Any]]:
        """One flat row per cell, for the columnar file."""
        out = []
        for c, o in self.rows:
            row: dict[str, Any] = {
                "index": c.index,
                "key": c.key,
                "command": self.matrix.command,
                **c.axes(),
                **c.config.params,
                "status": o.status,
                "error": o.error,
                "wallSeconds": round(o.wall_seconds, 6),
                "cpuSeconds": round(o.cpu_seconds, 6),
                "warnings": "\n".join(o.warnings) or None,
                "result": o.result,
            }
            row.update(o.metrics or {})
            out.append(row)
        return out


def side_spec(config: ConfigSpec, kube_version: str, feature_gates: str) -> SideSpec:
    # diff's JSON names a side's configuration: null for the built-in one, else its source
    label = None if config.raw is None else config.source
    return SideSpec(config.raw, config.source, label, kube_version, feature_gates)


def tasks_of(matrix: Matrix, cells: list[Cell]) -> list[tuple[CellTask, SnapshotSource]]:
    diff_a = None
    if matrix.diff_a is not None:
        diff_a = side_spec(matrix.diff_a.config, matrix.diff_a.kube_version, matrix.diff_a.feature_gates)
    out = []
    for c in cells:
        task = CellTask(c.key, matrix.command, side_spec(c.config, c.kube_version, c.feature_gates), c.seed, matrix.plugin_timeout, diff_a)
        out.append((task, SnapshotSource(c.snapshot.key, c.snapshot.paths, c.snapshot.files)))
    return out


def sweep(matrix: Matrix, executor: Executor, journal: Journal, progress: Progress | None = None) -> SweepResult:
    """Run every cell the journal does not hold; KeyboardInterrupt leaves the journal as is."""
    import time

    start = time.perf_counter()
    keys = {c.key for c in matrix.cells}
    outcomes = {k: o for k, o in journal.done.items() if k in keys}
    resumed = sum(1 for c in matrix.cells if c.key in outcomes)
    todo: dict[str, Cell] = {}
    for c in matrix.cells:
        if c.key not in outcomes:
            todo.setdefault(c.key, c)
    weights: dict[str, int] = {}  # cells per key: a shared outcome counts for each of its cells
    for c in matrix.cells:
        weights[c.key] = weights.get(c.key, 0) + 1
    state = {"done": resumed, "failed": sum(1 for c in matrix.cells if c.key in outcomes and outcomes[c.key].status != OK)}
    total = len(matrix.cells)

    def report(outcome: CellOutcome) -> None:
        journal.append(outcome)
        outcomes[outcome.key] = outcome
        state["done"] += weights.get(outcome.key, 1)
        if outcome.status != OK:
            state["failed"] += weights.get(outcome.key, 1)
        if progress is not None:
            progress(state["done"], state["failed"], executor.running, total)

    if progress is not None:
        progress(state["done"], state["failed"], 0, total)
        executor.on_running = lambda running: progress(state["done"], state["failed"], running, total)
    executor.run(tasks_of(matrix, list(todo.values())), report)
    return SweepResult(matrix, outcomes, resumed, len(todo), wall_seconds=time.perf_counter() - start)


def write(result: SweepResult, path: OutputPath | str, fmt: str) -> None:
    result.results = path.given if isinstance(path, OutputPath) else path
    write_results(result.records(), result.columns(), path, fmt)
