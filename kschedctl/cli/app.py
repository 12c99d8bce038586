"""The command line: parses arguments, calls the library, renders. No scheduling here.

Commands and exit codes follow ../shared/contract.md: 0 done, 1 invalid config (validate),
2 bad usage or bad input (one line on stderr, no traceback unless --debug), 3 unschedulable
pods with --fail-on-unschedulable.
"""

from __future__ import annotations

import sys
import traceback
from enum import Enum
from typing import Callable, Optional, TypeVar

import typer

from kschedctl import __version__
from kschedctl.api.errors import InputError
from kschedctl.cli.live import capture_command, live_options
from kschedctl.cli.render import render_explain, render_run, to_json
from kschedctl.config.loader import load_config_file
from kschedctl.framework.runtime.framework import FrameworkError
from kschedctl.framework.runtime.plugin_manager import default_registry
from kschedctl.framework.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
from kschedctl.versions import (
    DEFAULT_VERSION,
    KubeVersion,
    UnsupportedVersion,
    parse_version,
)

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="The Kubernetes scheduler as a command-line tool: where would each pending pod land, and why not.")

T = TypeVar("T")


class RunOutput(str, Enum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"


class ExplainOutput(str, Enum):
    table = "table"
    json = "json"
    yaml = "yaml"


class TextOutput(str, Enum):
    text = "text"
    json = "json"


class TableOutput(str, Enum):
    table = "table"
    json = "json"


PLUGIN_TIMEOUT_HELP = ("Seconds a call into an installed plugin may take before it fails that pod's attempt "
                       "(the plugin is not called again in the run); 0: no limit.")


def _fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _guarded(debug: bool, fn: Callable[[], T]) -> T:
    """Bad input becomes one line on stderr and exit 2; a traceback only with --debug."""
    try:
        return fn()
    except typer.Exit:
        raise
    except (InputError, FrameworkError, UnsupportedVersion) as exc:
        if debug:
            traceback.print_exc()
        _fail(str(exc))
    except Exception as exc:  # noqa: BLE001 - last line of defence: never a bare traceback
        if debug:
            traceback.print_exc()
        _fail(f"internal error: {type(exc).__name__}: {exc} (run with --debug for details)")
    raise AssertionError("unreachable")


def _version(text: str, feature_gates: str | None = None) -> KubeVersion:
    return parse_version(text, feature_gates)


def _warn_registry_errors() -> None:
    for err in default_registry().errors:
        typer.echo(f"warning: {err}", err=True)


def _load(snapshot: list[str], config: Optional[str], version: KubeVersion):
    from kschedctl.cluster.loader import load_snapshot
    from kschedctl.config.validation import validate_config

    _warn_registry_errors()
    registry = default_registry().registry
    cfg = load_config_file(config, version, registry)
    problems = validate_config(cfg, version, registry)
    if problems:
        path, msg = problems[0]
        raise InputError(msg, file=config or "<default>", obj="KubeSchedulerConfiguration", field=path or None)
    cluster = load_snapshot(snapshot)
    for warning in cluster.warnings:
        typer.echo(warning, err=True)
    return cluster, cfg, registry


@app.command()
@live_options
def schedule(
    snapshot: list[str] = typer.Argument(..., help="Snapshot files, directories or - for stdin."),
    config: Optional[str] = typer.Option(None, "--config", help="A KubeSchedulerConfiguration (v1) file."),
    output: RunOutput = typer.Option(RunOutput.table, "-o", "--output"),
    seed: Optional[int] = typer.Option(None, "--seed", help="Seed for tie-breaking: same input and seed, same output."),
    write_snapshot: Optional[str] = typer.Option(None, "--write-snapshot", help="Write the snapshot with placed pods bound."),
    kube_version: str = typer.Option(DEFAULT_VERSION, "--kube-version", help="Emulated kube-scheduler release."),
    feature_gates: Optional[str] = typer.Option(None, "--feature-gates", help="Feature gates to set, e.g. GenericWorkload=true,GangScheduling=true."),
    fail_on_unschedulable: bool = typer.Option(False, "--fail-on-unschedulable", help="Exit 3 if any pod is left unschedulable."),
    namespace: Optional[str] = typer.Option(None, "-n", "--namespace", help="Show only this namespace's pods (every pending pod is still scheduled)."),
    plugin_timeout: float = typer.Option(DEFAULT_PLUGIN_TIMEOUT, "--plugin-timeout", min=0, help=PLUGIN_TIMEOUT_HELP),
    report: Optional[str] = typer.Option(None, "--report", help="Also write a self-contained HTML report there."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks."),
) -> None:
    """Schedule every pending pod; print placements and diagnoses."""
    from kschedctl.cluster.writer import write_snapshot_file
    from kschedctl.scheduler.scheduler import Scheduler

    def run():
        version = _version(kube_version, feature_gates)
        cluster, cfg, registry = _load(snapshot, config, version)
        from kschedctl.cli.progress import progress_bar
        from kschedctl.cluster.loader import is_pending

        sched = Scheduler(cluster, cfg, registry, version, seed=seed, plugin_timeout=plugin_timeout)
        with progress_bar(sum(1 for p in cluster.pods if is_pending(p))) as callback:
            result = sched.run(progress=callback)
        if write_snapshot:
            write_snapshot_file(cluster, result, write_snapshot)
        if report:
            from kschedctl.cli.report import write_run_report
            from kschedctl.whatif.usage import cluster_usage
            write_run_report(result, cluster_usage(sched.cache.nodes), report)
        return result

    result = _guarded(debug, run)
    for warning in result.warnings:
        typer.echo(f"warning: {warning}", err=True)
    if namespace:
        result = result.in_namespace(namespace)
    sys.stdout.write(render_run(result, output.value))
    if fail_on_unschedulable and result.unschedulable:
        raise typer.Exit(3)


@app.command()
@live_options
def explain(
    pod: str = typer.Argument(..., help="The pod, as namespace/name (namespace defaults to default), or podgroup/NAMESPACE/NAME."),
    snapshot: list[str] = typer.Argument(..., help="Snapshot files, directories or - for stdin."),
    config: Optional[str] = typer.Option(None, "--config"),
    output: ExplainOutput = typer.Option(ExplainOutput.table, "-o", "--output"),
    seed: Optional[int] = typer.Option(None, "--seed"),
    kube_version: str = typer.Option(DEFAULT_VERSION, "--kube-version"),
    feature_gates: Optional[str] = typer.Option(None, "--feature-gates", help="Feature gates to set, e.g. GenericWorkload=true,GangScheduling=true."),
    plugin_timeout: float = typer.Option(DEFAULT_PLUGIN_TIMEOUT, "--plugin-timeout", min=0, help=PLUGIN_TIMEOUT_HELP),
    debug: bool = typer.Option(False, "--debug"),
) -> None:
    """One pod against the snapshot as given: every node's filter result and every score."""
    from kschedctl.scheduler.explain import (
        POD_GROUP_PREFIX,
        explain_pod,
        explain_pod_group,
    )

    def run():
        version = _version(kube_version, feature_gates)
        cluster, cfg, registry = _load(snapshot, config, version)
        if pod.startswith(POD_GROUP_PREFIX):
            return explain_pod_group(cluster, pod, cfg, registry, version, seed=seed, plugin_timeout=plugin_timeout)
        return explain_pod(cluster, pod, cfg, registry, version, seed=seed, plugin_timeout=plugin_timeout)

    result = _guarded(debug, run)
    for warning in result.warnings:
        typer.echo(f"warning: {warning}", err=True)
    sys.stdout.write(render_explain(result, output.value))


@app.command()
def simulate(
    scenario: str = typer.Argument(..., help="A Scenario file: a snapshot plus a timeline of cluster events."),
    config: Optional[str] = typer.Option(None, "--config", help="A KubeSchedulerConfiguration (v1) file."),
    output: ExplainOutput = typer.Option(ExplainOutput.table, "-o", "--output"),
    seed: Optional[int] = typer.Option(None, "--seed", help="Seed for tie-breaking: same input and seed, same output."),
    kube_version: str = typer.Option(DEFAULT_VERSION, "--kube-version", help="Emulated kube-scheduler release."),
    feature_gates: Optional[str] = typer.Option(None, "--feature-gates", help="Feature gates to set, e.g. GenericWorkload=true,GangScheduling=true."),
    plugin_timeout: float = typer.Option(DEFAULT_PLUGIN_TIMEOUT, "--plugin-timeout", min=0, help=PLUGIN_TIMEOUT_HELP),
    report: Optional[str] = typer.Option(None, "--report", help="Also write a self-contained HTML report there."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks."),
) -> None:
    """Run a scenario over virtual time: placements as they happen, and the final state."""
    from kschedctl.cli.render import render_simulation
    from kschedctl.cluster.scenario import load_scenario
    from kschedctl.scheduler.simulate import run_scenario

    def run():
        version = _version(kube_version, feature_gates)
        _, cfg, registry = _load([], config, version)
        result = run_scenario(load_scenario(scenario), cfg, registry, version, seed=seed, plugin_timeout=plugin_timeout)
        if report:
            from kschedctl.cli.report import write_simulation_report
            from kschedctl.whatif.usage import cluster_usage
            write_simulation_report(result, cluster_usage(result.node_infos or {}), report)
        return result

    result = _guarded(debug, run)
    for warning in result.run.warnings:
        typer.echo(f"warning: {warning}", err=True)
    sys.stdout.write(render_simulation(result, output.value))


@app.command()
def validate(
    configs: list[str] = typer.Argument(..., help="KubeSchedulerConfiguration files."),
    output: TextOutput = typer.Option(TextOutput.text, "-o", "--output"),
    kube_version: str = typer.Option(DEFAULT_VERSION, "--kube-version"),
    feature_gates: Optional[str] = typer.Option(None, "--feature-gates", help="Feature gates to set, e.g. GenericWorkload=true,GangScheduling=true."),
    debug: bool = typer.Option(False, "--debug"),
) -> None:
    """Check KubeSchedulerConfiguration files (schema and semantics): exit 0 valid, 1 invalid, 2 unreadable."""
    from kschedctl.cli.render import render_validation
    from kschedctl.config.checker import validate_files

    def run():
        _warn_registry_errors()  # a broken plugin package is said on stderr; validation goes on without it
        return validate_files(configs, _version(kube_version, feature_gates), default_registry().registry)

    reports = _guarded(debug, run)
    sys.stdout.write(render_validation(reports, output.value))
    if any(r.unreadable for r in reports):
        raise typer.Exit(2)
    if not all(r.valid for r in reports):
        raise typer.Exit(1)


app.command("capture")(capture_command)


@app.command()
def plugins(
    output: TableOutput = typer.Option(TableOutput.table, "-o", "--output"),
) -> None:
    """List every plugin known: in-tree and from installed packages."""
    from tabulate import tabulate

    loaded = default_registry()
    for err in loaded.errors:
        typer.echo(f"warning: {err}", err=True)
    rows = [{"name": s.name, "extensionPoints": s.extension_points, "source": s.source, "version": s.version or __version__ if s.source == "in-tree" else s.version}
            for s in sorted(loaded.registry.values(), key=lambda s: (s.source != "in-tree", s.name))]
    if output == TableOutput.json:
        sys.stdout.write(to_json({"plugins": rows, "errors": loaded.errors}))
        return
    table = [[r["name"], ",".join(r["extensionPoints"]), r["source"], r["version"]] for r in rows]
    sys.stdout.write(tabulate(table, headers=["NAME", "EXTENSION POINTS", "SOURCE", "VERSION"], tablefmt="plain") + "\n")


@app.callback()
def _root(version: bool = typer.Option(False, "--version", help="Print the version and exit.")) -> None:
    if version:
        typer.echo(f"kschedctl {__version__}")
        raise typer.Exit(0)


def main() -> None:
    app()


# The what-if commands (diff, capacity) live in their own module and register on this app.
from kschedctl.cli import whatif_commands as _whatif_commands  # noqa: E402,F401
