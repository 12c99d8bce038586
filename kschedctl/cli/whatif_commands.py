"""The what-if commands, `diff` and `capacity`: parse, call kschedctl.whatif, render.

Registered on the same typer app as the other commands (kschedctl/cli/app.py imports this
module). Exit codes follow ../shared/contract.md; `diff --fail-on-change` exits 4.
"""

from __future__ import annotations

import copy

import typer

from kschedctl.api.field import escape_control
from kschedctl.api.inputs import check_stdin_once
from kschedctl.cli.app import (
    OUTPUT_HELP,
    PLUGIN_TIMEOUT_HELP,
    ExplainOutput,
    _fail,
    _guarded,
    _load,
    _load_config,
    _version,
    app,
    settle_outputs,
)
from kschedctl.cli.live import live_options
from kschedctl.cli.stdout import emit
from kschedctl.output.layout import terminal_width
from kschedctl.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
from kschedctl.versions import DEFAULT_VERSION

EXIT_CHANGED = 4
DEFAULT_DIFF_SEED = 0


@app.command()
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

    def run():
        check_stdin_once(snapshot=snapshot, config_a=config_a, config_b=config_b)
        targets = settle_outputs([("--report", report)], [*snapshot, config_a, config_b])
        version_a = _version(kube_version_a, feature_gates_a)
        version_b = _version(kube_version_b, feature_gates_b)
        cluster_a, cfg_a, registry = _load(snapshot, config_a, version_a)
        cfg_b, _ = _load_config(config_b, version_b)
        # each run owns its objects: read the files again (stdin can only be read once: copy)
        cluster_b = copy.deepcopy(cluster_a) if "-" in snapshot else load_snapshot(snapshot)
        side_a = Side("a", config_a, version_a, feature_gates_a, cfg_a, cluster_a)
        side_b = Side("b", config_b, version_b, feature_gates_b, cfg_b, cluster_b)
        result = run_diff(side_a, side_b, registry, seed, plugin_timeout=plugin_timeout)
        if report is not None:
            from kschedctl.output.report import write_diff_report

            write_diff_report(result, targets["--report"])
        return result

    result = _guarded(debug, run)
    for side in (result.a, result.b):
        for warning in side.run.warnings:
            typer.echo(f"warning: side {side.side.label.upper()}: {escape_control(warning)}", err=True)
    emit(render_diff(result, output.value, terminal_width()))
    if fail_on_change and result.changes:
        raise typer.Exit(EXIT_CHANGED)


@app.command()
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
        _fail("--pod is required (or --nodes-for NODE.yaml)")
    if nodes_for is not None and pod is not None and max_copies is None:
        _fail("--nodes-for with --pod needs --max N: how many copies need nodes")

    def run():
        check_stdin_once(snapshot=snapshot, config=config, pod=pod, nodes_for=nodes_for, add_nodes=[a.rsplit(":", 1)[0] for a in add_nodes])
        targets = settle_outputs([("--report", report)], [*snapshot, config, pod, nodes_for, *(a.rsplit(":", 1)[0] for a in add_nodes)])
        version = _version(kube_version, feature_gates)
        cluster, cfg, registry = _load(snapshot, config, version)
        added = hypothetical_nodes(add_nodes, {n.name for n in cluster.nodes})
        template = load_pod_template(pod, cluster) if pod is not None else None
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

    result = _guarded(debug, run)
    if isinstance(result, cap.NodesForResult):
        emit(render_nodes_for(result, output.value, terminal_width()))
    else:
        emit(render_capacity(result, output.value, terminal_width()))
