"""`kschedctl explain`'s work: one pod against the snapshot, every node's filter result and
score; or its attempts in the schedule run (--in-run), or a pod group's."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from kschedctl.api.errors import InputError
from kschedctl.cli.guard import guarded, say, warn
from kschedctl.cli.stdout import emit_rendered

if TYPE_CHECKING:
    from kschedctl.scheduler.result import ExplainGroupResult, ExplainResult


def run_explain(
    *,
    pod: str,
    snapshot: list[str],
    namespace: str | None,
    config: str | None,
    output: str,
    seed: int | None,
    kube_version: str,
    feature_gates: str | None,
    plugin_timeout: float,
    no_extenders: bool,
    instant_preemption: bool,
    evaluate: bool,
    in_run: bool,
    all_filters: bool,
    top: int,
    debug: bool,
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
        warn(warning)
    emit_rendered(render_explain, result, output, terminal_width(), top=top)


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
