"""`kschedctl explain POD SNAPSHOT...`: one pod against the snapshot, every node's filter result
and score; or its attempts in the schedule run (--in-run), or a pod group's."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import typer

from kschedctl.api.errors import InputError
from kschedctl.api.field import escape_control
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
    ExplainOutput,
)
from kschedctl.cli.stdout import emit_rendered
from kschedctl.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
from kschedctl.versions import DEFAULT_VERSION

if TYPE_CHECKING:
    from kschedctl.scheduler.result import ExplainGroupResult, ExplainResult


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
    from kschedctl.explain.explain import (
        POD_GROUP_PREFIX,
        explain_pod,
        explain_pod_group,
        find_pod,
        pod_key,
    )
    from kschedctl.explain.explain_run import explain_in_run
    from kschedctl.output.layout import terminal_width
    from kschedctl.output.render import render_explain

    def run() -> ExplainResult | ExplainGroupResult:
        from kschedctl.app.inputs import load_inputs
        from kschedctl.app.release import release

        _refuse_swapped_arguments(pod, snapshot)
        version = release(kube_version, feature_gates)
        key = pod_key(pod, namespace)
        inputs = load_inputs(snapshot, config, version, say, no_extenders, pending_matters=False)
        from kschedctl.scheduler.victims import VictimExit

        cluster, cfg, registry = inputs.cluster, inputs.cfg, inputs.registry
        try:
            if key.startswith(POD_GROUP_PREFIX):
                return explain_pod_group(cluster, key, cfg, registry, version, seed=seed, plugin_timeout=plugin_timeout)
            if in_run:
                return explain_in_run(
                    cluster,
                    find_pod(cluster, key),
                    cfg,
                    registry,
                    version,
                    seed=seed,
                    plugin_timeout=plugin_timeout,
                    all_filters=all_filters,
                    victim_exit=VictimExit(instant_preemption),
                )
            return explain_pod(
                cluster,
                key,
                cfg,
                registry,
                version,
                seed=seed,
                plugin_timeout=plugin_timeout,
                evaluate=evaluate,
                all_filters=all_filters,
                compare_with_run=True,
                victim_exit=VictimExit(instant_preemption),
            )
        except InputError as exc:  # an unknown pod: the snapshot is where it was looked for
            if exc.file is None:
                exc.file = ", ".join(snapshot)
            raise

    result = guarded(debug, run)
    for warning in result.warnings:
        typer.echo(f"warning: {escape_control(warning)}", err=True)
    emit_rendered(render_explain, result, output.value, terminal_width(), top=top)


def _refuse_swapped_arguments(pod: str, snapshot: list[str]) -> None:
    """`explain FILE POD` is a common slip (kubectl puts the file behind -f): when the POD argument
    names a file and a SNAPSHOT argument names nothing on disk, say which comes first instead of
    "no such file" for the pod's name."""
    if pod == "-" or not os.path.exists(pod):
        return
    missing = [s for s in snapshot if s != "-" and not os.path.exists(s)]
    if missing:
        raise InputError(
            f"a file where the pod is expected, and no file {missing[0]}: the pod comes first "
            f"(kschedctl explain POD SNAPSHOT..., here kschedctl explain {missing[0]} {pod})",
            file=pod,
        )
