"""`kschedctl schedule SNAPSHOT...`: every pending pod scheduled; placements and diagnoses.

The options as typer reads them; the work is kschedctl/cli/bodies/schedule.py's, which the
command line's fast path (kschedctl/cli/fast.py) calls with the same values."""

from __future__ import annotations

import typer

from kschedctl.cli.bodies import schedule as body
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
from kschedctl.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
from kschedctl.versions import DEFAULT_VERSION


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
    body.run_schedule(
        snapshot=snapshot,
        config=config,
        output=output.value,
        seed=seed,
        write_snapshot=write_snapshot,
        kube_version=kube_version,
        feature_gates=feature_gates,
        fail_on_unschedulable=fail_on_unschedulable,
        namespace=namespace,
        plugin_timeout=plugin_timeout,
        report=report,
        no_extenders=no_extenders,
        instant_preemption=instant_preemption,
        debug=debug,
    )
