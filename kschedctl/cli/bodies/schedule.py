"""`kschedctl schedule`'s work: every pending pod scheduled; placements and diagnoses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kschedctl.api.inputs import check_stdin_once
from kschedctl.cli.guard import guarded, say, warn
from kschedctl.cli.stdout import emit_rendered

if TYPE_CHECKING:
    from kschedctl.scheduler.result import RunResult


def run_schedule(
    *,
    snapshot: list[str],
    config: str | None,
    output: str,
    seed: int | None,
    write_snapshot: str | None,
    kube_version: str,
    feature_gates: str | None,
    fail_on_unschedulable: bool,
    namespace: str | None,
    plugin_timeout: float,
    report: str | None,
    no_extenders: bool,
    instant_preemption: bool,
    debug: bool,
) -> None:
    """Schedule every pending pod; print placements and diagnoses (exit 3 with
    ``fail_on_unschedulable`` when a pod is left unschedulable)."""
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
        warn(warning)
    if namespace:
        result = result.in_namespace(namespace)
    emit_rendered(render_run, result, output, terminal_width())
    if fail_on_unschedulable and result.unschedulable:
        raise SystemExit(3)
