"""`kschedctl validate CONFIG...`: KubeSchedulerConfiguration files checked as kube-scheduler would;
exit 0 valid, 1 invalid, 2 unreadable."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from kschedctl.api.field import escape_control
from kschedctl.api.inputs import check_stdin_once
from kschedctl.cli.guard import guarded, say
from kschedctl.cli.options import DEBUG_HELP, GATES_HELP, VERSION_HELP, TextOutput
from kschedctl.cli.stdout import emit
from kschedctl.versions import DEFAULT_VERSION

if TYPE_CHECKING:
    from kschedctl.config.checker import ValidationReport


def validate(
    configs: list[str] = typer.Argument(..., metavar="CONFIG...", help="KubeSchedulerConfiguration files, or - for standard input."),
    output: TextOutput = typer.Option(TextOutput.text, "-o", "--output", help="Output format: text (file:line: findings) or json."),
    kube_version: str = typer.Option(DEFAULT_VERSION, "--kube-version", metavar="X.Y", help=VERSION_HELP),
    feature_gates: str | None = typer.Option(None, "--feature-gates", metavar="GATES", help=GATES_HELP),
    debug: bool = typer.Option(False, "--debug", help=DEBUG_HELP),
) -> None:
    """Check KubeSchedulerConfiguration files (schema and semantics): exit 0 valid, 1 invalid, 2 unreadable."""
    from kschedctl.config.checker import validate_files
    from kschedctl.output.render import render_validation

    def run() -> list[ValidationReport]:
        from kschedctl.app.config import plugin_registry
        from kschedctl.app.release import release

        check_stdin_once(configs=configs)
        registry = plugin_registry(say)  # a broken plugin package is said on stderr; validation goes on without it
        return validate_files(configs, release(kube_version, feature_gates), registry)

    reports = guarded(debug, run)
    emit(render_validation(reports, output.value))
    unreadable = [r for r in reports if r.unreadable]
    for report in unreadable:
        typer.echo(f"error: {escape_control(f'{report.file}: {report.findings[0].message}')}", err=True)
    if unreadable:
        raise typer.Exit(2)
    if not all(r.valid for r in reports):
        raise typer.Exit(1)
