"""`kschedctl validate CONFIG...`: KubeSchedulerConfiguration files checked as kube-scheduler would;
exit 0 valid, 1 invalid, 2 unreadable.

The options as typer reads them; the work is kschedctl/cli/bodies/validate.py's, which the
command line's fast path (kschedctl/cli/fast.py) calls with the same values."""

from __future__ import annotations

import typer

from kschedctl.cli.bodies import validate as body
from kschedctl.cli.options import DEBUG_HELP, GATES_HELP, VERSION_HELP, TextOutput
from kschedctl.versions import DEFAULT_VERSION


def validate(
    configs: list[str] = typer.Argument(..., metavar="CONFIG...", help="KubeSchedulerConfiguration files, or - for standard input."),
    output: TextOutput = typer.Option(TextOutput.text, "-o", "--output", help="Output format: text (file:line: findings) or json."),
    kube_version: str = typer.Option(DEFAULT_VERSION, "--kube-version", metavar="X.Y", help=VERSION_HELP),
    feature_gates: str | None = typer.Option(None, "--feature-gates", metavar="GATES", help=GATES_HELP),
    debug: bool = typer.Option(False, "--debug", help=DEBUG_HELP),
) -> None:
    """Check KubeSchedulerConfiguration files (schema and semantics): exit 0 valid, 1 invalid, 2 unreadable."""
    body.run_validate(configs=configs, output=output.value, kube_version=kube_version, feature_gates=feature_gates, debug=debug)
