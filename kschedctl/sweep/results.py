"""Where a sweep's results go: the journal (every finished cell, as it finishes) and the
columnar results file (every cell of the matrix, in cell order, written at the end).

The journal, ``RESULTS.cells.jsonl`` beside the results file, is one JSON line per finished
cell, keyed by the cell's content hash, appended and flushed as each cell completes: a sweep
killed at any point leaves every cell it finished there (a last line cut short by the kill is
dropped when the journal is read). ``--resume`` reads it and skips those cells; a cell that
crashed its worker is run again, a cell that failed on its input is not (it would fail alike).

The results file is Parquet (pyarrow, ``kschedctl[parquet]``) or CSV: one row per cell with
its axes, its patch columns, status and error, the metrics, the wall time, its warnings and
``result``, the JSON the single command prints.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Any

from kschedctl.api.errors import InputError
from kschedctl.sweep.cell import CRASHED, CellOutcome

JOURNAL_SUFFIX = ".cells.jsonl"
MISSING_PYARROW = "--format parquet needs pyarrow: pip install 'kschedctl[parquet]'"
RUN_METRICS = ("pending", "scheduled", "unschedulable", "skipped", "preempted", "nodes", "nodesUsed", "emptyNodes",
               "cpuUtilisationMean", "cpuUtilisationStddev", "memoryUtilisationMean", "memoryUtilisationStddev",
               "cpuFragmentation", "memoryFragmentation", "outcome")
DIFF_METRICS = ("changed", "moved", "becameUnschedulable", "becameSchedulable")
AXES = ("snapshot", "config", "kubeVersion", "featureGates", "seed")


class MissingExtra(InputError):
    """An optional package the asked-for feature needs is not installed (exit 2, one line)."""

    def __str__(self) -> str:
        return self.message


def metric_names(command: str) -> tuple[str, ...]:
    return RUN_METRICS + DIFF_METRICS if command == "diff" else RUN_METRICS


def journal_path(results: str) -> str:
    return results + JOURNAL_SUFFIX


def pyarrow_available() -> bool:
    try:
        import pyarrow  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        return False
    return True


class Journal:
    """Finished cells, appended as they finish."""

    def __init__(self, path: str, resume: bool) -> None:
        self.path = path
        self.done: dict[str, CellOutcome] = self._read() if resume else {}
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(path, "a" if resume else "w", encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write the journal: {exc.strerror or exc}", file=path) from None

    def _read(self) -> dict[str, CellOutcome]:
        """The cells the journal holds, keeping only whole lines (and rewriting it so)."""
        try:
            text = Path(self.path).read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read the journal: {exc}", file=self.path) from None
        done: dict[str, CellOutcome] = {}
        good: list[str] = []
        for line in text.splitlines(keepends=True):
            try:
                outcome = CellOutcome.from_dict(json.loads(line))
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by a kill, or foreign: not a finished cell
            if not line.endswith("\n"):
                line += "\n"
            good.append(line)
            done[outcome.key] = outcome
        if "".join(good) != text:
            Path(self.path).write_text("".join(good), encoding="utf-8")
        return {k: o for k, o in done.items() if o.status != CRASHED}

    def append(self, outcome: CellOutcome) -> None:
        self._fh.write(json.dumps(outcome.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()


def write_results(rows: list[dict[str, Any]], columns: list[str], path: str, fmt: str) -> None:
    """The columnar file, written whole to a temporary name and then renamed."""
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        if fmt == "parquet":
            _write_parquet(rows, columns, tmp)
        else:
            _write_csv(rows, columns, tmp)
        os.replace(tmp, path)
    except OSError as exc:
        raise InputError(f"cannot write the results: {exc.strerror or exc}", file=path) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _write_parquet(rows: list[dict[str, Any]], columns: list[str], path: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = [pa.array(_uniform([r.get(c) for r in rows])) for c in columns]
    pq.write_table(pa.Table.from_arrays(arrays, names=columns), path)


def _write_csv(rows: list[dict[str, Any]], columns: list[str], path: str) -> None:
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(columns)
        for r in rows:
            writer.writerow(["" if r.get(c) is None else _csv_value(r.get(c)) for c in columns])


def _csv_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _uniform(values: list[Any]) -> list[Any]:
    """One type per column: ints with floats become floats; anything else mixed becomes text."""
    present = [v for v in values if v is not None]
    if all(isinstance(v, bool) for v in present):
        return values
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return values
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return [None if v is None else float(v) for v in values]
    return [None if v is None else (v if isinstance(v, str) else json.dumps(v)) for v in values]


def read_results(path: str) -> list[dict[str, Any]]:
    """The rows of a results file (Parquet or CSV, by its name), for tests and notebooks alike."""
    if path.endswith(".csv"):
        with open(path, encoding="utf-8", newline="") as fh:
            return list(csv.DictReader(fh))
    import pyarrow.parquet as pq

    return pq.read_table(path).to_pylist()
