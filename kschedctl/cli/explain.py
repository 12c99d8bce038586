"""`kschedctl explain POD SNAPSHOT...`: one pod against the snapshot, every node's filter result
and score; or its attempts in the schedule run (--in-run), or a pod group's.

The options as typer reads them; the work is kschedctl/cli/bodies/explain.py's, which the
command line's fast path (kschedctl/cli/fast.py) calls with the same values."""

from __future__ import annotations

import typer

from kschedctl.cli.bodies import explain as body
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
    ExplainOutput,
)
from kschedctl.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
from kschedctl.versions import DEFAULT_VERSION


@live_options
def explain(
    pod: str = typer.Argument(
        ..., metavar="POD", help="The pod: NAME (with -n, else in namespace default), NAMESPACE/NAME, or podgroup/NAMESPACE/NAME."
    ),
    snapshot: list[str] = typer.Argument(..., metavar="SNAPSHOT...", help=SNAPSHOT_HELP),
    namespace: str | None = typer.Option(None, "-n", "--namespace", metavar="NAMESPACE", help="The pod's namespace, as with kubectl."),
    config: str | None = typer.Option(None, "--config", metavar="FILE", help=CONFIG_HELP),
    output: ExplainOutput = typer.Option(ExplainOutput.table, "-o", "--output", help=OUTPUT_HELP),
    seed: int | None = typer.Option(None, "--seed", metavar="N", help=SEED_HELP),
    kube_version: str = typer.Option(DEFAULT_VERSION, "--kube-version", metavar="X.Y", help=VERSION_HELP),
    feature_gates: str | None = typer.Option(None, "--feature-gates", metavar="GATES", help=GATES_HELP),
    plugin_timeout: float = typer.Option(DEFAULT_PLUGIN_TIMEOUT, "--plugin-timeout", min=0, metavar="SECONDS", help=PLUGIN_TIMEOUT_HELP),
    no_extenders: bool = typer.Option(False, "--no-extenders", help="Do not call the configuration's HTTP extenders (said on stderr)."),
    instant_preemption: bool = typer.Option(False, "--instant-preemption", help=INSTANT_PREEMPTION_HELP),
    evaluate: bool = typer.Option(
        False, "--evaluate", help="Evaluate a gated, bound or terminal pod as if it were pending (by default explain only says what it is)."
    ),
    in_run: bool = typer.Option(
        False,
        "--in-run",
        help="Replay the schedule run (same config, seed, release) and show the attempts it made for this pod, in the state each one saw.",
    ),
    all_filters: bool = typer.Option(
        False,
        "--all-filters",
        help="Run every Filter plugin on each rejected node (kube stops at the first failure): every blocker at once.",
    ),
    top: int = typer.Option(
        3, "--top", min=0, metavar="N", help="Show the N best nodes by total score above the table (all of them in -o wide and JSON)."
    ),
    debug: bool = typer.Option(False, "--debug", help=DEBUG_HELP),
) -> None:
    """One pod against the snapshot as given: what the pod is, the verdict, every node's filter result and every score."""
    body.run_explain(
        pod=pod,
        snapshot=snapshot,
        namespace=namespace,
        config=config,
        output=output.value,
        seed=seed,
        kube_version=kube_version,
        feature_gates=feature_gates,
        plugin_timeout=plugin_timeout,
        no_extenders=no_extenders,
        instant_preemption=instant_preemption,
        evaluate=evaluate,
        in_run=in_run,
        all_filters=all_filters,
        top=top,
        debug=debug,
    )
