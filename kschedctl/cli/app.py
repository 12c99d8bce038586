"""The command line: parses arguments, calls the library, renders. No scheduling here.

Commands and exit codes follow ../shared/contract.md: 0 done, 1 invalid config (validate),
2 bad usage or bad input (one line on stderr, no traceback unless --debug), 3 unschedulable
pods with --fail-on-unschedulable.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable, Iterable
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from kschedctl import __version__
from kschedctl.api.errors import InputError
from kschedctl.api.field import escape_control
from kschedctl.api.inputs import check_stdin_once
from kschedctl.api.outputs import OutputPath, check_outputs, resolve_output
from kschedctl.cli.helpformat import PlainCommand, PlainGroup
from kschedctl.cli.live import capture_command, live_options
from kschedctl.cli.stdout import emit, run_app
from kschedctl.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
from kschedctl.versions import (
    DEFAULT_VERSION,
    SUPPORTED_VERSIONS,
    KubeVersion,
    UnsupportedVersion,
    parse_version,
)

if TYPE_CHECKING:
    from kschedctl.framework.config_types import KubeSchedulerConfiguration
    from kschedctl.framework.registry import Registry

# Startup (benchmarks/startup.py): `kschedctl --help` and argument errors need only typer and
# this module's definitions, so the configuration, the framework (numpy), the renderers and the
# plugin entry points are imported inside the commands that use them.

# Plain help (click's formatter, not rich's boxes): flags print as flags, no type placeholders,
# and the text follows the terminal's width instead of being cut at 80 columns.
CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 1000}


class _App(typer.Typer):
    """Every command gets the plain help page (kschedctl/cli/helpformat.py)."""

    def command(self, *args: Any, cls: Any = PlainCommand, **kwargs: Any) -> Any:  # type: ignore[override]
        return super().command(*args, cls=cls, **kwargs)


app = _App(
    cls=PlainGroup,
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings=CONTEXT_SETTINGS,
    pretty_exceptions_enable=False,
    help="The Kubernetes scheduler as a command-line tool: where would each pending pod land, and why not.",
)

T = TypeVar("T")


class RunOutput(StrEnum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"


class ExplainOutput(StrEnum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"


class TextOutput(StrEnum):
    text = "text"
    json = "json"


class TableOutput(StrEnum):
    table = "table"
    json = "json"


SNAPSHOT_HELP = "Snapshot files, directories, or - for standard input."
CONFIG_HELP = "A KubeSchedulerConfiguration (v1) file, or - for standard input; default: kube-scheduler's defaults."
OUTPUT_HELP = "Output format; wide: every column, nothing wrapped or abbreviated."
SEED_HELP = "Seed for tie-breaking: same input and seed, same output."
VERSION_HELP = "Emulated kube-scheduler release (1.35, 1.36, 1.37)."
GATES_HELP = "Feature gates to set, e.g. GenericWorkload=true,GangScheduling=true."
DEBUG_HELP = "Show tracebacks."
PLUGIN_TIMEOUT_HELP = (
    "Seconds a call into an installed plugin may take before it fails that pod's attempt "
    "(the plugin is not called again in the run); 0: no limit."
)


def _fail(message: str, code: int = 2) -> None:
    """One line on stderr, whatever the message holds (control characters escaped)."""
    typer.echo(f"error: {escape_control(message)}", err=True)
    raise typer.Exit(code)


def _guarded(debug: bool, fn: Callable[[], T]) -> T:
    """Bad input becomes one line on stderr and exit 2; a traceback only with --debug."""
    from kschedctl.runtime.framework import FrameworkError

    try:
        return fn()
    except typer.Exit:
        raise
    except (InputError, FrameworkError, UnsupportedVersion) as exc:
        if debug:
            traceback.print_exc()
        _fail(str(exc))
    except RecursionError:
        if debug:
            traceback.print_exc()
        _fail("input nested too deeply to process")
    except Exception as exc:  # noqa: BLE001 - last line of defence: never a bare traceback
        if debug:
            traceback.print_exc()
        _fail(f"internal error: {type(exc).__name__}: {_safe_str(exc)} (run with --debug for details)")
    raise AssertionError("unreachable")


def _safe_str(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - an exception whose str() fails
        return "<unprintable>"
    return text if len(text) <= 500 else text[:500] + "..."


def _version(text: str, feature_gates: str | None = None) -> KubeVersion:
    if not text:  # parse_version would fall back to the default: an empty flag is a mistake
        raise UnsupportedVersion(f"unsupported --kube-version '': supported releases are {', '.join(SUPPORTED_VERSIONS)}")
    return parse_version(text, feature_gates)


def input_files(paths: Iterable[str | None]) -> list[str]:
    """Every file a command will read among ``paths``, as far as can be told before reading:
    a directory as the loader expands it. A path that cannot be expanded stays as given (reading
    it fails later, with its own message)."""
    from kschedctl.cluster.loader import expand_paths

    out: list[str] = []
    for p in paths:
        if not p:
            continue
        try:
            out += expand_paths([p])
        except InputError:
            out.append(p)
    return out


def settle_outputs(outputs: Iterable[tuple[str, str | None]], inputs: Iterable[str | None]) -> dict[str, OutputPath]:
    """The command's outputs (flag, path as given), resolved now, before any plugin code runs (a
    plugin may os.chdir()), and checked (kschedctl/api/outputs.py): none is an input or another
    output, each is a regular file or new. Keyed by flag; a flag not given is left out."""
    targets = {flag: resolve_output(given, flag) for flag, given in outputs if given is not None}
    if targets:
        check_outputs(list(targets.values()), input_files(inputs))
    return targets


def _warn_registry_errors() -> None:
    from kschedctl.plugins.plugin_manager import default_registry

    for err in default_registry().errors:
        typer.echo(f"warning: {escape_control(str(err))}", err=True)


def _load(snapshot: list[str], config: str | None, version: KubeVersion, no_extenders: bool = False, pending_matters: bool = True):
    from kschedctl.cluster.loader import load_snapshot

    check_stdin_once(snapshot=snapshot, config=config)
    cfg, registry = _load_config(config, version, no_extenders)
    cluster = load_snapshot(snapshot)
    for warning in cluster.warnings:
        typer.echo(escape_control(warning), err=True)
    _say_input_remarks(cluster, version, pending_matters=pending_matters)
    return cluster, cfg, registry


def _load_config(config: str | None, version: KubeVersion, no_extenders: bool = False):
    from kschedctl.plugins.plugin_manager import default_registry

    _warn_registry_errors()
    registry = default_registry().registry
    cfg = _checked_config(config, version, registry)
    if no_extenders and cfg.extenders:
        from kschedctl.scheduler.extender_http import display_url  # a URL's password is shown nowhere

        _warn(
            f"--no-extenders: not calling the configuration's {len(cfg.extenders)} extender(s) "
            f"({', '.join(display_url(str(e.get('urlPrefix', ''))) for e in cfg.extenders)}): decisions may differ from the cluster's"
        )
        cfg.extenders = []
    return cfg, registry


def _checked_config(config: str | None, version: KubeVersion, registry: Registry) -> KubeSchedulerConfiguration:
    """The configuration, after exactly the checks `validate` runs on it (kschedctl.config.checker:
    YAML, schema, semantics): its first error is this command's error, its warnings are printed.
    Building the profiles is left to the run (profile.new_map raises the same ProfileError), so that
    each profile is built once."""
    from kschedctl.config.loader import KIND, load_config_file

    if config is not None:
        from kschedctl.config.checker import validate_files

        [report] = validate_files([config], version, registry, build_profiles=False)
        errors = report.errors
        if errors:
            first = errors[0]
            raise InputError(first.message, file=config, obj=None if report.unreadable else KIND, field=first.path or None, line=first.line)
        for finding in report.findings:
            _warn(_finding_line(config, finding))
    return load_config_file(config, version, registry)


def _finding_line(path: str, finding: Any) -> str:
    where = f"{path}:{finding.line}" if finding.line is not None else path
    return f"{where}: {finding.path}: {finding.message}" if finding.path else f"{where}: {finding.message}"


def _warn(text: str) -> None:
    typer.echo(f"warning: {escape_control(text)}", err=True)


def _say_input_remarks(cluster: Any, version: KubeVersion, emptiness_too: bool = True, pending_matters: bool = True) -> None:
    """What the snapshot lacks (kschedctl/cluster/references.py), said on stderr: an empty
    snapshot, no pending pod, objects the pods refer to that are not in it."""
    from kschedctl.cluster.group_remarks import pod_group_remarks
    from kschedctl.cluster.references import emptiness, missing_references

    note = emptiness(cluster, pending_matters) if emptiness_too else None
    if note:
        _warn(note)
    for missing in missing_references(cluster, version):
        _warn(missing.message())
    for remark in pod_group_remarks(cluster.objects, version):
        _warn(remark)
    from kschedctl.cluster.release_remarks import release_remarks

    for remark in release_remarks(cluster, version):
        _warn(remark)


@app.command()
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
    debug: bool = typer.Option(False, "--debug", help=DEBUG_HELP),
) -> None:
    """Schedule every pending pod; print placements and diagnoses."""
    from kschedctl.output.layout import terminal_width
    from kschedctl.output.render import render_run
    from kschedctl.scheduler.scheduler import Scheduler

    def run():
        check_stdin_once(snapshot=snapshot, config=config, write_snapshot=write_snapshot)
        targets = settle_outputs([("--write-snapshot", write_snapshot), ("--report", report)], [*snapshot, config])
        version = _version(kube_version, feature_gates)
        cluster, cfg, registry = _load(snapshot, config, version, no_extenders)
        from kschedctl.cli.progress import progress_bar
        from kschedctl.cluster.loader import is_pending
        from kschedctl.explain.verdict import word_coscheduling_groups, word_run

        sched = Scheduler(cluster, cfg, registry, version, seed=seed, plugin_timeout=plugin_timeout)
        tables = None
        if report is not None:  # the report's per-pod node tables, recorded on the run's attempts
            from kschedctl.explain.pod_tables import PodTables

            tables = PodTables(sched.framework_for_pod)
            sched.algorithm.recorders.append(tables)
        with progress_bar(sum(1 for p in cluster.pods if is_pending(p))) as callback:
            result = word_coscheduling_groups(word_run(sched.run(progress=callback)), cluster)
        if tables is not None:
            result.pod_tables = tables.tables()
        if write_snapshot is not None:
            from kschedctl.output.writer import write_snapshot_file

            write_snapshot_file(cluster, result, targets["--write-snapshot"])
        if report is not None:
            from kschedctl.output.report import write_run_report
            from kschedctl.whatif.usage import cluster_usage

            write_run_report(result, cluster_usage(sched.cache.nodes), targets["--report"])
        return result

    result = _guarded(debug, run)
    for warning in result.warnings:
        typer.echo(f"warning: {escape_control(warning)}", err=True)
    if namespace:
        result = result.in_namespace(namespace)
    emit(render_run(result, output.value, terminal_width()))
    if fail_on_unschedulable and result.unschedulable:
        raise typer.Exit(3)


@app.command()
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

    def run():
        _refuse_swapped_arguments(pod, snapshot)
        version = _version(kube_version, feature_gates)
        key = pod_key(pod, namespace)
        cluster, cfg, registry = _load(snapshot, config, version, no_extenders, pending_matters=False)
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
            )
        except InputError as exc:  # an unknown pod: the snapshot is where it was looked for
            if exc.file is None:
                exc.file = ", ".join(snapshot)
            raise

    result = _guarded(debug, run)
    for warning in result.warnings:
        typer.echo(f"warning: {escape_control(warning)}", err=True)
    emit(render_explain(result, output.value, terminal_width(), top=top))


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


@app.command()
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
    debug: bool = typer.Option(False, "--debug", help=DEBUG_HELP),
) -> None:
    """Run a scenario over virtual time: placements as they happen, and the final state."""
    from kschedctl.cluster.scenario import load_scenario
    from kschedctl.explain.verdict import word_run
    from kschedctl.output.layout import terminal_width
    from kschedctl.output.render import render_simulation
    from kschedctl.scheduler.simulate import run_scenario

    def run():
        check_stdin_once(scenario=scenario, config=config)
        targets = settle_outputs([("--report", report)], [*_scenario_inputs(scenario, report), config])
        version = _version(kube_version, feature_gates)
        cfg, registry = _load_config(config, version, no_extenders)
        loaded = load_scenario(scenario)
        _say_input_remarks(loaded.cluster, version, emptiness_too=False)  # events may add what is missing
        from kschedctl.explain.pod_tables import attach_pod_tables

        result = run_scenario(
            loaded,
            cfg,
            registry,
            version,
            seed=seed,
            plugin_timeout=plugin_timeout,
            attach=attach_pod_tables if report is not None else None,
        )
        word_run(result.run)
        if report is not None:
            from kschedctl.output.report import write_simulation_report
            from kschedctl.whatif.usage import cluster_usage

            write_simulation_report(result, cluster_usage(result.node_infos or {}), targets["--report"])
        return result

    result = _guarded(debug, run)
    for warning in result.run.warnings:
        typer.echo(f"warning: {escape_control(warning)}", err=True)
    emit(render_simulation(result, output.value, terminal_width()))


def _scenario_inputs(scenario: str, report: str | None) -> list[str]:
    """The scenario file and the snapshot files it reads (only looked up when there is an output
    to check them against)."""
    if report is None or scenario == "-":
        return [scenario]
    from kschedctl.sweep.matrix import scenario_files

    return [scenario, *scenario_files(scenario)]


@app.command()
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
    from kschedctl.plugins.plugin_manager import default_registry

    def run():
        check_stdin_once(configs=configs)
        _warn_registry_errors()  # a broken plugin package is said on stderr; validation goes on without it
        return validate_files(configs, _version(kube_version, feature_gates), default_registry().registry)

    reports = _guarded(debug, run)
    emit(render_validation(reports, output.value))
    unreadable = [r for r in reports if r.unreadable]
    for report in unreadable:
        typer.echo(f"error: {escape_control(f'{report.file}: {report.findings[0].message}')}", err=True)
    if unreadable:
        raise typer.Exit(2)
    if not all(r.valid for r in reports):
        raise typer.Exit(1)


app.command("capture")(capture_command)


@app.command()
def plugins(
    output: TableOutput = typer.Option(TableOutput.table, "-o", "--output", help="Output format."),
) -> None:
    """List every plugin known: in-tree and from installed packages."""
    from kschedctl.output.layout import Column, fit_table, terminal_width
    from kschedctl.output.render import escaped, to_json
    from kschedctl.plugins.plugin_manager import default_registry

    loaded = default_registry()
    for err in loaded.errors:
        typer.echo(f"warning: {escape_control(str(err))}", err=True)
    rows = [
        {
            "name": s.name,
            "extensionPoints": s.extension_points,
            "source": s.source,
            "version": s.version or __version__ if s.source == "in-tree" else s.version,
        }
        for s in sorted(loaded.registry.values(), key=lambda s: (s.source != "in-tree", s.name))
    ]
    if output == TableOutput.json:
        emit(to_json({"plugins": rows, "errors": loaded.errors}))
        return
    table = escaped([[r["name"], ",".join(r["extensionPoints"]), r["source"], r["version"]] for r in rows])
    columns = [Column("NAME"), Column("EXTENSION POINTS", wrap=True), Column("SOURCE"), Column("VERSION")]
    emit(fit_table(columns, table, terminal_width()).text + "\n")


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"kschedctl {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version, help="Print the version and exit."),
) -> None:
    """The Kubernetes scheduler as a command-line tool: where would each pending pod land, and why not."""


def main() -> None:
    """The command as a process: guarded against the plugin code it runs (framework/runtime/
    process.py: its own output on a private descriptor, fd 1 and plugin prints on stderr, no
    os._exit or exec by plugin code, no fork child printing a result), standard output's write
    errors ending it as kschedctl/cli/stdout.py says (a closed pipe: quiet, exit 141; anything
    else: one line, exit 2), and ended with the command's status once the result is flushed,
    whatever threads a plugin left running."""
    from kschedctl.runtime import process

    process.contain()
    code = 1
    try:
        run_app(app)
    except SystemExit as exc:
        code = process.exit_code(exc)
    except KeyboardInterrupt:
        code = 130
    except BaseException:  # noqa: BLE001 - the process still ends below, with a traceback
        traceback.print_exc()
    process.finish(code)
