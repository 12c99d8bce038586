"""`kschedctl sweep MATRIX.yaml`: parse, run kschedctl.sweep on an executor, render.

Registered on the typer app by kschedctl/cli/app.py. Progress goes to stderr (a rich bar, only
on a terminal); the summary to stdout; the columnar results and the journal to files. Exit codes as for every command: 0 done (failed
cells are reported, they do not fail the sweep), 2 bad input (the matrix, its configurations),
130 interrupted (every finished cell is in the journal: run again with --resume).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from kschedctl.api.field import escape_control
from kschedctl.api.outputs import OutputPath, beside, check_outputs, resolve_output
from kschedctl.cli.guard import fail, guarded, say
from kschedctl.cli.options import ExplainOutput
from kschedctl.cli.stdout import emit_rendered

if TYPE_CHECKING:
    from kschedctl.sweep.matrix import Matrix
    from kschedctl.sweep.run import Progress, SweepResult

EXIT_INTERRUPTED = 130
FORMAT_HELP = "parquet (needs pyarrow) or csv (default: by --results' suffix, else parquet when pyarrow is installed)."
EXECUTOR_HELP = "local (default): a process pool; dask: Dask distributed (a LocalCluster of --jobs workers, or --cluster)."


class ResultsFormat(StrEnum):
    parquet = "parquet"
    csv = "csv"


class ExecutorName(StrEnum):
    local = "local"
    dask = "dask"


def sweep(
    matrix: str = typer.Argument(..., help="A Sweep file: snapshots x configs x releases x feature gates x seeds."),
    output: ExplainOutput = typer.Option(ExplainOutput.table, "-o", "--output"),
    results: str | None = typer.Option(None, "--results", help="The columnar results file (default: NAME.results.parquet, or .csv)."),
    fmt: ResultsFormat | None = typer.Option(None, "--format", help=FORMAT_HELP),
    jobs: int | None = typer.Option(None, "--jobs", "-j", min=1, help="Worker processes (default: every core)."),
    executor: ExecutorName | None = typer.Option(None, "--executor", help=EXECUTOR_HELP),
    cluster: str | None = typer.Option(None, "--cluster", help="A Dask scheduler's address (tcp://HOST:8786): run the cells there."),
    resume: bool = typer.Option(False, "--resume", help="Skip the cells the journal (RESULTS.cells.jsonl) already holds."),
    report: str | None = typer.Option(None, "--report", help="Also write a self-contained HTML report there."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks."),
) -> None:
    """Run schedule, diff or simulate over every cell of a matrix; one results file, one summary."""
    from kschedctl.app.config import plugin_registry
    from kschedctl.output.render_sweep import render_sweep
    from kschedctl.sweep import results as store
    from kschedctl.sweep.executors import default_jobs, make_executor
    from kschedctl.sweep.matrix import load_matrix
    from kschedctl.sweep.run import sweep as run_sweep
    from kschedctl.sweep.run import write

    if cluster and executor == ExecutorName.local:
        fail("--cluster runs on Dask: leave out --executor local")
    executor_name = "dask" if cluster else (executor or ExecutorName.local).value
    cwd = os.getcwd()  # the default results name is relative to it, whatever a plugin does later

    def prepare() -> tuple[Matrix, SweepOutputs]:
        # the outputs given are resolved before any plugin code runs (a plugin may os.chdir())
        given = {
            flag: resolve_output(p, flag, create_directory=flag == "--results")
            for flag, p in (("--results", results), ("--report", report))
            if p is not None
        }
        if report:  # say it before the sweep, not after
            from kschedctl.output.report import plotly_js

            plotly_js()
        m = load_matrix(matrix, plugin_registry(say))
        outputs = _outputs(given, fmt, m, cwd)
        return m, outputs

    m, outputs = guarded(debug, prepare)
    path = outputs.results.given
    journal_file = outputs.journal.given

    def run() -> SweepResult:
        with store.ResultsLock(outputs.lock):
            journal = store.Journal(outputs.journal, resume)
            try:
                with make_executor(executor_name, jobs or default_jobs(), cluster) as ex, _progress() as progress:
                    result = run_sweep(m, ex, journal, progress)
            finally:
                journal.close()
            write(result, outputs.results, outputs.kind)
        if outputs.report is not None:
            from kschedctl.output.report_sweep import write_sweep_report

            write_sweep_report(result, outputs.report)
        return result

    try:
        result = guarded(debug, run)
    except KeyboardInterrupt:
        typer.echo(f"interrupted: the finished cells are in {escape_control(journal_file)}; run again with --resume", err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    if result.resumed:
        typer.echo(f"resumed: {result.resumed} of {len(m.cells)} cells were already done ({escape_control(journal_file)})", err=True)
    warned = sum(1 for _, o in result.rows if o.warnings)
    if warned:
        typer.echo(f"warning: {warned} cells have warnings (the results' warnings column)", err=True)
    typer.echo(f"{result.ran} cells run in {result.wall_seconds:.1f}s; results: {escape_control(path)}", err=True)
    emit_rendered(render_sweep, result, output.value)


@dataclass(frozen=True)
class SweepOutputs:
    """Every file a sweep writes, resolved and checked: the results, the journal and the lock
    beside them, the report."""

    results: OutputPath
    kind: str  # parquet | csv
    journal: OutputPath
    lock: OutputPath
    report: OutputPath | None


def _outputs(given: dict[str, OutputPath], fmt: ResultsFormat | None, m: Matrix, cwd: str) -> SweepOutputs:
    """The results file (given, or NAME.results.KIND in the directory the sweep started in), the
    files beside it, checked against every file the matrix reads (kschedctl/api/outputs.py)."""
    from kschedctl.sweep.results import JOURNAL_SUFFIX, LOCK_SUFFIX

    name, kind = _results_file(given["--results"].given if "--results" in given else None, fmt, m.name)
    results = given.get("--results") or resolve_output(os.path.join(cwd, name), "--results", create_directory=True)
    if "--results" not in given:
        results = OutputPath(results.flag, name, results.path)
    journal = beside(results, JOURNAL_SUFFIX, "--results (its journal)")
    lock = beside(results, LOCK_SUFFIX, "--results (its lock)")
    report = given.get("--report")
    # the journal is read back on --resume: an input of the sweep, but its own
    check_outputs([results, journal, lock, *([report] if report else [])], m.input_files())
    return SweepOutputs(results, kind, journal, lock, report)


def _results_file(results: str | None, fmt: ResultsFormat | None, name: str) -> tuple[str, str]:
    """The results path and its format: --format, else the path's suffix, else Parquet when
    pyarrow is installed and CSV (said on stderr) when it is not."""
    from kschedctl.sweep.results import MISSING_PYARROW, MissingExtra, pyarrow_available

    kind = fmt.value if fmt else None
    if kind is None and results:
        suffix = Path(results).suffix.lower()
        kind = "csv" if suffix == ".csv" else "parquet" if suffix in (".parquet", ".pq") else None
    if kind == "parquet" and not pyarrow_available():
        raise MissingExtra(MISSING_PYARROW)
    if kind is None:
        kind = "parquet" if pyarrow_available() else "csv"
        if kind == "csv":
            typer.echo(
                "note: pyarrow is not installed: results are written as CSV (pip install 'kschedctl[parquet]' for Parquet)", err=True
            )
    return results or f"{name}.results.{kind}", kind


@contextmanager
def _progress() -> Iterator[Progress | None]:
    """A rich bar on stderr (cells done, failed, running, ETA), only when stderr is a terminal."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    bar = Progress(
        TextColumn("sweep"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("cells"),
        TextColumn("{task.fields[failed]} failed, {task.fields[running]} running"),
        TimeRemainingColumn(),
        console=Console(file=sys.stderr),
        transient=True,
    )
    task = bar.add_task("sweep", total=None, failed=0, running=0)

    def update(done: int, failed: int, running: int, total: int) -> None:
        bar.update(task, completed=done, total=total, failed=failed, running=running)

    with bar:
        yield update
