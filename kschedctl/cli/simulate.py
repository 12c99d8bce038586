"""`kschedctl simulate SCENARIO`: a scenario run over virtual time.

The options as typer reads them; the work is kschedctl/cli/bodies/simulate.py's, which the
command line's fast path (kschedctl/cli/fast.py) calls with the same values."""

from __future__ import annotations

import typer

from kschedctl.cli.bodies import simulate as body
from kschedctl.cli.options import (
    CONFIG_HELP,
    DEBUG_HELP,
    GATES_HELP,
    INSTANT_PREEMPTION_HELP,
    OUTPUT_HELP,
    PLUGIN_TIMEOUT_HELP,
    SEED_HELP,
    VERSION_HELP,
    ExplainOutput,
)
from kschedctl.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
from kschedctl.versions import DEFAULT_VERSION


def simulate(
    scenario: str = typer.Argument(
        ..., metavar="SCENARIO", help="A Scenario file (a snapshot plus a timeline of cluster events), or - for standard input."
    ),
    config: str | None = typer.Option(None, "--config", metavar="FILE", help=CONFIG_HELP),
    output: ExplainOutput = typer.Option(ExplainOutput.table, "-o", "--output", help=OUTPUT_HELP),
    seed: int | None = typer.Option(None, "--seed", metavar="N", help=SEED_HELP),
    kube_version: str = typer.Option(DEFAULT_VERSION, "--kube-version", metavar="X.Y", help=VERSION_HELP),
    feature_gates: str | None = typer.Option(None, "--feature-gates", metavar="GATES", help=GATES_HELP),
    plugin_timeout: float = typer.Option(DEFAULT_PLUGIN_TIMEOUT, "--plugin-timeout", min=0, metavar="SECONDS", help=PLUGIN_TIMEOUT_HELP),
    report: str | None = typer.Option(None, "--report", metavar="FILE", help="Also write a self-contained HTML report there."),
    no_extenders: bool = typer.Option(False, "--no-extenders", help="Do not call the configuration's HTTP extenders (said on stderr)."),
    instant_preemption: bool = typer.Option(False, "--instant-preemption", help=INSTANT_PREEMPTION_HELP),
    debug: bool = typer.Option(False, "--debug", help=DEBUG_HELP),
) -> None:
    """Run a scenario over virtual time: placements as they happen, and the final state."""
    body.run_simulate(
        scenario=scenario,
        config=config,
        output=output.value,
        seed=seed,
        kube_version=kube_version,
        feature_gates=feature_gates,
        plugin_timeout=plugin_timeout,
        report=report,
        no_extenders=no_extenders,
        instant_preemption=instant_preemption,
        debug=debug,
    )
