"""`kschedctl capacity SNAPSHOT... --pod ...`: how many copies of a pod fit, where, and what stops
the next one; with --nodes-for, how many nodes of a shape the pending pods need."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from kschedctl.api.inputs import check_stdin_once
from kschedctl.cli.guard import fail, guarded, say
from kschedctl.cli.live import live_options
from kschedctl.cli.options import OUTPUT_HELP, PLUGIN_TIMEOUT_HELP, ExplainOutput
from kschedctl.cli.stdout import emit
from kschedctl.output.layout import terminal_width
from kschedctl.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
from kschedctl.versions import DEFAULT_VERSION

if TYPE_CHECKING:
    from kschedctl.whatif.capacity import CapacityResult, NodesForResult


@live_options
def capacity(
    snapshot: list[str] = typer.Argument(..., metavar="SNAPSHOT...", help="Snapshot files, directories or - for stdin."),
    pod: str | None = typer.Option(
        None,
        "--pod",
        metavar="FILE|NS/NAME",
        help="A file with a Pod, Deployment, ReplicaSet, StatefulSet, Job or CronJob, or NAMESPACE/NAME of a snapshot pod.",
    ),
    max_copies: int | None = typer.Option(None, "--max", min=1, metavar="N", help="Stop after this many copies."),
    add_nodes: list[str] = typer.Option(
        [], "--add-nodes", metavar="NODE.yaml[:COUNT]", help="NODE.yaml[:COUNT]: hypothetical nodes added first (repeatable)."
    ),
    nodes_for: str | None = typer.Option(
        None,
        "--nodes-for",
        metavar="NODE.yaml",
        help="NODE.yaml: how many nodes of this shape the pending pods (or --max copies of --pod) need.",
    ),
    config: str | None = typer.Option(None, "--config", metavar="FILE", help="A KubeSchedulerConfiguration (v1) file."),
    output: ExplainOutput = typer.Option(ExplainOutput.table, "-o", "--output", help=OUTPUT_HELP),
    seed: int | None = typer.Option(None, "--seed", metavar="N", help="Seed for tie-breaking: same input and seed, same output."),
    kube_version: str = typer.Option(DEFAULT_VERSION, "--kube-version", metavar="X.Y", help="Emulated kube-scheduler release."),
    feature_gates: str | None = typer.Option(None, "--feature-gates", metavar="GATES", help="Feature gates to set."),
    plain: bool = typer.Option(False, "--no-fast-path", help="Schedule every copy through the whole cycle (slower, same answer)."),
    plugin_timeout: float = typer.Option(DEFAULT_PLUGIN_TIMEOUT, "--plugin-timeout", min=0, metavar="SECONDS", help=PLUGIN_TIMEOUT_HELP),
    report: str | None = typer.Option(None, "--report", metavar="FILE", help="Also write a self-contained HTML report there."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks."),
) -> None:
    """How many copies of a pod fit, where, and what stops the next one; or, with --nodes-for,
    how many nodes of a shape the pending pods need."""
    from kschedctl.output.render_whatif import render_capacity, render_nodes_for
    from kschedctl.whatif import capacity as cap
    from kschedctl.whatif.templates import hypothetical_nodes, load_node_template, load_pod_template

    if nodes_for is None and pod is None:
        fail("--pod is required (or --nodes-for NODE.yaml)")
    if nodes_for is not None and pod is not None and max_copies is None:
        fail("--nodes-for with --pod needs --max N: how many copies need nodes")

    def run() -> CapacityResult | NodesForResult:
        from kschedctl.app.inputs import load_inputs
        from kschedctl.app.outputs import settle_outputs
        from kschedctl.app.release import release

        check_stdin_once(snapshot=snapshot, config=config, pod=pod, nodes_for=nodes_for, add_nodes=[a.rsplit(":", 1)[0] for a in add_nodes])
        targets = settle_outputs([("--report", report)], [*snapshot, config, pod, nodes_for, *(a.rsplit(":", 1)[0] for a in add_nodes)])
        version = release(kube_version, feature_gates)
        inputs = load_inputs(snapshot, config, version, say)
        cluster, cfg, registry = inputs.cluster, inputs.cfg, inputs.registry
        added = hypothetical_nodes(add_nodes, {n.name for n in cluster.nodes})
        template = load_pod_template(pod, cluster) if pod is not None else None
        result: CapacityResult | NodesForResult
        if nodes_for is not None:
            result = cap.nodes_for(
                cluster,
                cfg,
                registry,
                version,
                load_node_template(nodes_for),
                template,
                copies=max_copies,
                added_nodes=added,
                seed=seed,
                plugin_timeout=plugin_timeout,
            )
        else:
            assert template is not None
            result = cap.capacity(
                cluster,
                cfg,
                registry,
                version,
                template,
                max_copies=max_copies,
                seed=seed,
                added_nodes=added,
                fast=not plain,
                plugin_timeout=plugin_timeout,
            )
        if report is not None:
            from kschedctl.output.report import write_capacity_report

            write_capacity_report(result, targets["--report"])
        return result

    result = guarded(debug, run)
    if isinstance(result, cap.NodesForResult):
        emit(render_nodes_for(result, output.value, terminal_width()))
    else:
        emit(render_capacity(result, output.value, terminal_width()))
