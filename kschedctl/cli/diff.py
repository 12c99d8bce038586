"""`kschedctl diff SNAPSHOT...`: the snapshot scheduled under two configurations (or releases, or
feature gates), compared; `--fail-on-change` exits 4 (../shared/contract.md)."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

import typer

from kschedctl.api.field import escape_control
from kschedctl.api.inputs import check_stdin_once
from kschedctl.cli.guard import guarded, say
from kschedctl.cli.live import live_options
from kschedctl.cli.options import OUTPUT_HELP, PLUGIN_TIMEOUT_HELP, ExplainOutput
from kschedctl.cli.stdout import emit_rendered
from kschedctl.output.layout import terminal_width
from kschedctl.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
from kschedctl.versions import DEFAULT_VERSION

if TYPE_CHECKING:
    from kschedctl.whatif.diff import DiffResult

EXIT_CHANGED = 4
DEFAULT_DIFF_SEED = 0


@live_options(config_param="config_a")
def diff(
    snapshot: list[str] = typer.Argument(..., metavar="SNAPSHOT...", help="Snapshot files, directories or - for stdin."),
    config_a: str | None = typer.Option(
        None, "--config-a", metavar="FILE", help="Side A's KubeSchedulerConfiguration (default: the built-in one)."
    ),
    config_b: str | None = typer.Option(
        None, "--config-b", metavar="FILE", help="Side B's KubeSchedulerConfiguration (default: the built-in one)."
    ),
    kube_version_a: str = typer.Option(DEFAULT_VERSION, "--kube-version-a", metavar="X.Y", help="Side A's emulated release."),
    kube_version_b: str = typer.Option(DEFAULT_VERSION, "--kube-version-b", metavar="X.Y", help="Side B's emulated release."),
    feature_gates_a: str | None = typer.Option(None, "--feature-gates-a", metavar="GATES", help="Side A's feature gates."),
    feature_gates_b: str | None = typer.Option(None, "--feature-gates-b", metavar="GATES", help="Side B's feature gates."),
    output: ExplainOutput = typer.Option(ExplainOutput.table, "-o", "--output", help=OUTPUT_HELP),
    seed: int = typer.Option(DEFAULT_DIFF_SEED, "--seed", metavar="N", help="The tie-breaking seed both sides use."),
    fail_on_change: bool = typer.Option(False, "--fail-on-change", help="Exit 4 if any pod's outcome differs."),
    plugin_timeout: float = typer.Option(DEFAULT_PLUGIN_TIMEOUT, "--plugin-timeout", min=0, metavar="SECONDS", help=PLUGIN_TIMEOUT_HELP),
    report: str | None = typer.Option(None, "--report", metavar="FILE", help="Also write a self-contained HTML report there."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks."),
) -> None:
    """Schedule the snapshot under two configurations (or releases, or feature gates) and compare."""
    from kschedctl.cluster.loader import load_snapshot
    from kschedctl.output.render_whatif import render_diff
    from kschedctl.whatif.diff import Side
    from kschedctl.whatif.diff import diff as run_diff

    def run() -> DiffResult:
        from kschedctl.app.inputs import configured, load_inputs
        from kschedctl.app.outputs import settle_outputs
        from kschedctl.app.release import release

        check_stdin_once(snapshot=snapshot, config_a=config_a, config_b=config_b)
        targets = settle_outputs([("--report", report)], [*snapshot, config_a, config_b])
        version_a = release(kube_version_a, feature_gates_a)
        version_b = release(kube_version_b, feature_gates_b)
        inputs = load_inputs(snapshot, config_a, version_a, say)
        cluster_a, cfg_a, registry = inputs.cluster, inputs.cfg, inputs.registry
        cfg_b = configured(config_b, version_b, say).cfg
        # each run owns its objects: read the files again (stdin can only be read once: copy)
        cluster_b = copy.deepcopy(cluster_a) if "-" in snapshot else load_snapshot(snapshot)
        side_a = Side("a", config_a, version_a, feature_gates_a, cfg_a, cluster_a)
        side_b = Side("b", config_b, version_b, feature_gates_b, cfg_b, cluster_b)
        result = run_diff(side_a, side_b, registry, seed, plugin_timeout=plugin_timeout)
        if report is not None:
            from kschedctl.output.report import write_diff_report

            write_diff_report(result, targets["--report"])
        return result

    result = guarded(debug, run)
    for side in (result.a, result.b):
        for warning in side.run.warnings:
            typer.echo(f"warning: side {side.side.label.upper()}: {escape_control(warning)}", err=True)
    emit_rendered(render_diff, result, output.value, terminal_width())
    if fail_on_change and result.changes:
        raise typer.Exit(EXIT_CHANGED)
