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
import fcntl
import json
import math
import os
from pathlib import Path
from types import TracebackType
from typing import Any

from kschedctl.api.errors import InputError
from kschedctl.api.outputs import OutputPath, as_output, atomic_path
from kschedctl.sweep.cell import CRASHED, ERROR, OK, CellOutcome

JOURNAL_SUFFIX = ".cells.jsonl"
LOCK_SUFFIX = ".lock"
STATUSES = (OK, ERROR, CRASHED)
MISSING_PYARROW = "--format parquet needs pyarrow: pip install 'kschedctl[parquet]'"
RUN_METRICS = (
    "pending",
    "scheduled",
    "unschedulable",
    "skipped",
    "preempted",
    "nodes",
    "nodesUsed",
    "emptyNodes",
    "cpuUtilisationMean",
    "cpuUtilisationStddev",
    "memoryUtilisationMean",
    "memoryUtilisationStddev",
    "cpuFragmentation",
    "memoryFragmentation",
    "outcome",
)
DIFF_METRICS = ("changed", "moved", "becameUnschedulable", "becameSchedulable")
# the run metrics that are fractions, shown as percentages by the table and the report
PERCENT_METRICS = frozenset(
    {
        "cpuUtilisationMean",
        "cpuUtilisationStddev",
        "memoryUtilisationMean",
        "memoryUtilisationStddev",
        "cpuFragmentation",
        "memoryFragmentation",
    }
)
AXES = ("snapshot", "config", "kubeVersion", "featureGates", "seed")


class MissingExtra(InputError):
    """An optional package the asked-for feature needs is not installed (exit 2, one line)."""

    def __str__(self) -> str:
        return self.message


def metric_names(command: str) -> tuple[str, ...]:
    return RUN_METRICS + DIFF_METRICS if command == "diff" else RUN_METRICS


def pyarrow_available() -> bool:
    try:
        import pyarrow  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        return False
    return True


class ResultsLock:
    """One sweep at a time per results file: an exclusive flock on RESULTS.lock, held for the
    whole run (journal and results), so that a second sweep on the same file is refused at once
    instead of mixing its cells into the first one's journal. The lock goes with the process
    (a killed sweep leaves the file, not the lock); the file is left in place, as removing a
    lock file another process may have just opened would let two sweeps in."""

    def __init__(self, target: OutputPath | str) -> None:
        self.target = as_output(target, "--results (its lock)")
        self._fd: int | None = None

    def __enter__(self) -> ResultsLock:
        t = self.target
        try:
            os.makedirs(os.path.dirname(t.path), exist_ok=True)
            fd = os.open(t.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0), 0o666)
        except OSError as exc:
            raise t.error(f"cannot create the lock file: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise t.error(
                "another sweep is writing these results (it holds this lock): wait for it to finish, or give --results another file"
            ) from None
        self._fd = fd
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._fd is not None:
            os.close(self._fd)  # releases the flock
            self._fd = None


class Journal:
    """Finished cells, appended as they finish."""

    def __init__(self, path: OutputPath | str, resume: bool) -> None:
        self.target = as_output(path, "--results (its journal)")
        self.path = self.target.given  # how messages name it
        self.done: dict[str, CellOutcome] = self._read() if resume else {}
        try:
            Path(self.target.path).parent.mkdir(parents=True, exist_ok=True)
            # the resolved path, not followed again: a symlink planted there since the start is refused
            flags = os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
            flags |= os.O_APPEND if resume else os.O_TRUNC
            self._fh = os.fdopen(os.open(self.target.path, flags, 0o666), "w", encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write the journal: {exc.strerror or exc}", file=self.path) from None

    def _read(self) -> dict[str, CellOutcome]:
        """The cells the journal holds. Every line must be a cell outcome (else an error naming
        the line); only the last one may be cut short (a kill while it was written: no newline),
        and it is dropped, the journal rewritten without it."""
        try:
            text = Path(self.target.path).read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except UnicodeDecodeError as exc:
            raise InputError(f"cannot read the journal: not UTF-8 text ({exc.reason})", file=self.path) from None
        except OSError as exc:
            raise InputError(f"cannot read the journal: {exc.strerror or exc}", file=self.path) from None
        done: dict[str, CellOutcome] = {}
        lines = text.splitlines(keepends=True)
        for number, line in enumerate(lines, 1):
            torn = number == len(lines) and not line.endswith("\n")
            try:
                outcome = journal_outcome(line)
            except ValueError as exc:
                if torn:
                    break  # cut short by a kill: not a finished cell
                raise InputError(
                    f"not a cell of a sweep journal: {exc} (remove the line, or run without --resume)", file=self.path, line=number
                ) from None
            done[outcome.key] = outcome
        else:
            torn = False
        if torn or (text and not text.endswith("\n")):  # appending must start on a line of its own
            kept = "".join(lines[:-1] if torn else lines)
            with atomic_path(self.target) as tmp:
                Path(tmp).write_text(kept + ("" if not kept or kept.endswith("\n") else "\n"), encoding="utf-8")
        return {k: o for k, o in done.items() if o.status != CRASHED}

    def append(self, outcome: CellOutcome) -> None:
        line = json.dumps(outcome.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n"
        try:
            self._fh.write(line)
            self._fh.flush()
        except OSError as exc:
            raise InputError(f"cannot write the journal: {exc.strerror or exc}", file=self.path) from None

    def close(self) -> None:
        try:
            self._fh.close()
        except OSError as exc:
            raise InputError(f"cannot write the journal: {exc.strerror or exc}", file=self.path) from None


def journal_outcome(line: str) -> CellOutcome:
    """One journal line as a CellOutcome, every field checked (ValueError saying which)."""
    try:
        data = json.loads(line)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except ValueError as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"a JSON {type(data).__name__}, not an object")
    _field(data, "key", str, required=True)
    if not data["key"]:
        raise ValueError("key: empty")
    _field(data, "status", str, required=True)
    if data["status"] not in STATUSES:
        raise ValueError(f"status: {data['status']!r} is none of {', '.join(STATUSES)}")
    for name, kind in (("error", str), ("result", str), ("metrics", dict), ("warnings", list)):
        _field(data, name, kind)
    if any(not isinstance(w, str) for w in data.get("warnings") or []):
        raise ValueError("warnings: not a list of strings")
    for name in ("wallSeconds", "cpuSeconds"):
        value = data.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0):
            raise ValueError(f"{name}: not a number of seconds")
    return CellOutcome.from_dict(data)


def _field(data: dict[str, Any], name: str, kind: type, required: bool = False) -> None:
    value = data.get(name)
    if value is None:
        if required:
            raise ValueError(f"{name}: missing")
        return
    if not isinstance(value, kind):
        what = {"str": "a string", "dict": "an object", "list": "a list"}[kind.__name__]
        raise ValueError(f"{name}: not {what}")


def write_results(rows: list[dict[str, Any]], columns: list[str], path: OutputPath | str, fmt: str) -> None:
    """The columnar file, written whole to a temporary file beside it and then renamed
    (kschedctl/api/outputs.py: a regular file only, never an input)."""
    target = as_output(path, "--results")
    try:
        os.makedirs(os.path.dirname(target.path), exist_ok=True)
    except OSError as exc:
        raise target.error(f"cannot write: {exc.strerror or exc}") from None
    with atomic_path(target) as tmp:
        if fmt == "parquet":
            _write_parquet(rows, columns, tmp)
        else:
            _write_csv(rows, columns, tmp)


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

    rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
    return rows
