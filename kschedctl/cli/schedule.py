"""`kschedctl schedule SNAPSHOT...`: every pending pod scheduled; placements and diagnoses."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from kschedctl.api.field import escape_control
from kschedctl.api.inputs import check_stdin_once
from kschedctl.cli.guard import guarded, say
from kschedctl.cli.live import live_options
from kschedctl.cli.options import (
    CONFIG_HELP,
    DEBUG_HELP,
    GATES_HELP,
    INSTANT_PREEMPTION_HELP,
    OUTPUT_HELP,
    PLUGIN_TIMEOUT_HELP,
    SEED_HELP,
    SNAPSHOT_HELP,
    VERSION_HELP,
    RunOutput,
)
from kschedctl.cli.stdout import emit_rendered
from kschedctl.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
from kschedctl.versions import DEFAULT_VERSION

if TYPE_CHECKING:
    from kschedctl.scheduler.result import RunResult


@live_options
def schedule(
    snapshot: list[str] = typer.Argument(..., metavar="SNAPSHOT...", help=SNAPSHOT_HELP),
    config: str | None = typer.Option(None, "--config", metavar="FILE", help=CONFIG_HELP),
    output: RunOutput = typer.Option(RunOutput.table, "-o", "--output", help=OUTPUT_HELP),
    seed: int | None = typer.Option(None, "--seed", metavar="N", help=SEED_HELP),
    write_snapshot: str | None = typer.Option(
        None,
        "--write-snapshot",
        metavar="FILE",
        help="Write the state after the run as a snapshot: placed pods bound, victims removed, claims bound.",
    ),
    kube_version: str = typer.Option(DEFAULT_VERSION, "--kube-version", metavar="X.Y", help=VERSION_HELP),
    feature_gates: str | None = typer.Option(None, "--feature-gates", metavar="GATES", help=GATES_HELP),
    fail_on_unschedulable: bool = typer.Option(False, "--fail-on-unschedulable", help="Exit 3 if any pod is left unschedulable."),
    namespace: str | None = typer.Option(
        None, "-n", "--namespace", metavar="NAMESPACE", help="Show only this namespace's pods (every pending pod is still scheduled)."
    ),
    plugin_timeout: float = typer.Option(DEFAULT_PLUGIN_TIMEOUT, "--plugin-timeout", min=0, metavar="SECONDS", help=PLUGIN_TIMEOUT_HELP),
    report: str | None = typer.Option(None, "--report", metavar="FILE", help="Also write a self-contained HTML report there."),
    no_extenders: bool = typer.Option(False, "--no-extenders", help="Do not call the configuration's HTTP extenders (said on stderr)."),
    instant_preemption: bool = typer.Option(False, "--instant-preemption", help=INSTANT_PREEMPTION_HELP),
    debug: bool = typer.Option(False, "--debug", help=DEBUG_HELP),
) -> None:
    """Schedule every pending pod; print placements and diagnoses."""
    from kschedctl.output.layout import terminal_width
    from kschedctl.output.render import render_run
    from kschedctl.scheduler.scheduler import Scheduler

    def run() -> RunResult:
        from kschedctl.app.inputs import load_inputs
        from kschedctl.app.outputs import settle_outputs
        from kschedctl.app.release import release

        check_stdin_once(snapshot=snapshot, config=config, write_snapshot=write_snapshot)
        targets = settle_outputs([("--write-snapshot", write_snapshot), ("--report", report)], [*snapshot, config])
        version = release(kube_version, feature_gates)
        inputs = load_inputs(snapshot, config, version, say, no_extenders)
        cluster = inputs.cluster
        from kschedctl.cli.progress import progress_bar
        from kschedctl.cluster.loader import is_pending
        from kschedctl.explain.verdict import word_coscheduling_groups, word_run
        from kschedctl.scheduler.victims import VictimExit

        sched = Scheduler(
            cluster,
            inputs.cfg,
            inputs.registry,
            version,
            seed=seed,
            plugin_timeout=plugin_timeout,
            victim_exit=VictimExit(instant_preemption),
        )
        tables = None
        if report is not None:  # the report's per-pod node tables, recorded on the run's attempts
            from kschedctl.explain.pod_tables import PodTables

            tables = PodTables(sched.framework_for_pod)
            sched.algorithm.recorders.append(tables)
        with progress_bar(sum(1 for p in cluster.pods if is_pending(p))) as callback:
            result = word_coscheduling_groups(word_run(sched.run(progress=callback)), cluster)
        if tables is not None:
            result.pod_tables = tables.tables()
        if write_snapshot is not None:
            from kschedctl.output.writer import write_snapshot_file

            write_snapshot_file(cluster, result, targets["--write-snapshot"])
        if report is not None:
            from kschedctl.output.report import write_run_report
            from kschedctl.whatif.usage import cluster_usage

            write_run_report(result, cluster_usage(sched.cache.nodes), targets["--report"])
        return result

    result = guarded(debug, run)
    for warning in result.warnings:
        typer.echo(f"warning: {escape_control(warning)}", err=True)
    if namespace:
        result = result.in_namespace(namespace)
    emit_rendered(render_run, result, output.value, terminal_width())
    if fail_on_unschedulable and result.unschedulable:
        raise typer.Exit(3)
