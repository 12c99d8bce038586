"""Live clusters on the command line: --live/--context/--kubeconfig on commands, and what
`kschedctl capture` (kschedctl/cli/capture.py) shares with them.

``@live_options`` attaches the live flags to any command that takes ``snapshot`` files (and a
``config`` file): with --live the cluster is captured in memory, written to a private temporary
snapshot and the command runs on it unchanged, so `explain POD --live` and `explain POD` on a
captured file take the very same path. No scheduling here: capture is cluster/capture.py.
"""

from __future__ import annotations

import copy
import functools
import inspect
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn, TextIO, overload

import typer

from kschedctl.api.errors import InputError, show_file_as
from kschedctl.api.field import escape_control

if TYPE_CHECKING:
    from kschedctl.cluster.capture import Capture, Progress
    from kschedctl.cluster.kubeclient import Connection

# Startup: `schedule` without --live needs none of the capture code, so it is imported by the
# functions that capture (kschedctl/cluster/capture.py and its client).

LIVE_HELP = "Read the cluster of the current kubectl context instead of snapshot files."
CONTEXT_HELP = "The kubeconfig context to read (implies --live)."
KUBECONFIG_HELP = "The kubeconfig file to use (implies --live); default: $KUBECONFIG, then ~/.kube/config."
SCHEDULER_CONFIG_HELP = (
    "Read the KubeSchedulerConfiguration from a ConfigMap of the cluster: configmap/NAMESPACE/NAME, or configmap/NAMESPACE/NAME/KEY."
)


def fail_live(exc: BaseException, debug: bool) -> NoReturn:
    """The CLI's one-line error: exit 2, a traceback only with --debug; no secret in either."""
    from kschedctl.cluster.live_errors import redact

    if debug:
        typer.echo(redact(traceback.format_exc()).rstrip("\n"), err=True)
    if isinstance(exc, InputError):
        typer.echo(redact(f"error: {exc if exc.file else escape_control(exc.message)}"), err=True)
    else:
        typer.echo(
            redact(f"error: internal error: {type(exc).__name__}: {escape_control(str(exc))} (run with --debug for details)"), err=True
        )
    raise typer.Exit(2)


@contextmanager
def capture_progress(stream: TextIO | None = None) -> Iterator[Progress | None]:
    """A transient 'capturing Pods: 12000 objects' line on stderr; nothing when not a terminal."""
    stream = stream if stream is not None else sys.stderr
    if not getattr(stream, "isatty", lambda: False)():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress as RichProgress
    from rich.progress import SpinnerColumn, TextColumn

    bar = RichProgress(
        SpinnerColumn(), TextColumn("capturing {task.description}: {task.completed} objects"), console=Console(file=stream), transient=True
    )
    task = bar.add_task("API discovery", total=None)
    with bar:
        yield lambda kind, listed: bar.update(task, description=kind, completed=listed)


def capture_live(conn: Connection, chunk_size: int | None = None) -> Capture:
    """Capture the connection's cluster, warnings said on stderr; ``chunk_size`` None: the
    client's default (kubectl's)."""
    from kschedctl.cluster.capture import capture_cluster
    from kschedctl.cluster.kubeclient import DEFAULT_CHUNK_SIZE  # with the capture code (Startup, above)

    if chunk_size is None:
        chunk_size = DEFAULT_CHUNK_SIZE

    with capture_progress() as progress:
        capture = capture_cluster(conn, context=conn.context, server=conn.server, chunk_size=chunk_size, progress=progress)
    for warning in capture.warnings:
        typer.echo(f"warning: {warning}", err=True)
    return capture


def _safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._") or "cluster"


def kubeconfig_files(kubeconfig: str | None) -> list[str]:
    """The kubeconfig files a connection reads, as kubectl finds them: --kubeconfig, else every
    file of $KUBECONFIG, else ~/.kube/config. They are inputs: no output may overwrite them."""
    if kubeconfig:
        return [kubeconfig]
    env = os.environ.get("KUBECONFIG")
    if env:
        return [p for p in env.split(os.pathsep) if p]
    return [os.path.join(os.path.expanduser("~"), ".kube", "config")]


# --- --live on other commands ---------------------------------------------------------------


@dataclass
class LiveRequest:
    """What a command's --live, --context, --kubeconfig and --scheduler-config ask for (``live``: a cluster is read,
    also when --context or --kubeconfig is given)."""

    live: bool
    context: str | None
    kubeconfig: str | None
    scheduler_config: str | None

    @property
    def needs_cluster(self) -> bool:
        return self.live or bool(self.scheduler_config)


def _prepare(request: LiveRequest, snapshot: list[str], config: str | None, stack: ExitStack) -> tuple[list[str], str | None]:
    """The snapshot paths and config path the command will run on (temporary files when live)."""
    if request.live and snapshot:
        raise InputError("give snapshot files or --live/--context/--kubeconfig, not both")
    if not request.live and not snapshot:
        raise InputError("no snapshot: give snapshot files, or --live to read the cluster of the current kubectl context")
    if request.scheduler_config and config:
        raise InputError("give --config or --scheduler-config, not both")
    if not request.needs_cluster:
        return snapshot, config
    from kschedctl.cluster.capture import ConfigMapRef, read_scheduler_config, render_capture
    from kschedctl.cluster.kubeclient import connect

    ref = ConfigMapRef.parse(request.scheduler_config) if request.scheduler_config else None
    conn = connect(request.kubeconfig, request.context)
    stack.callback(conn.close)
    import tempfile  # only --live and a ConfigMap's configuration write a file

    workdir = stack.enter_context(tempfile.TemporaryDirectory(prefix="kschedctl-live-"))
    if request.live:
        capture = capture_live(conn)
        path = os.path.join(workdir, f"{_safe_name(conn.context)}.json")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(render_capture(capture, "compact-json"))
        snapshot = [path]
        show_file_as(path, f"{conn.where}, as captured")  # errors name the cluster, not a gone temp file
        stack.callback(show_file_as, path, None)
    if ref is not None:
        text, source = read_scheduler_config(conn, ref)
        config = os.path.join(workdir, f"{_safe_name(source.replace('/', '.'))}.yaml")
        with open(config, "w", encoding="utf-8") as fh:
            fh.write(text)
    return snapshot, config


OUTPUT_FLAGS = {"report": "--report", "write_snapshot": "--write-snapshot"}


def _check_live_outputs(kwargs: dict[str, Any], kubeconfig: str | None, config: str | None) -> None:
    """The command's outputs against what a live run reads (the kubeconfig, --config), before
    the capture; the command checks them again against the captured snapshot."""
    from kschedctl.api.outputs import check_outputs, resolve_output

    targets = [resolve_output(kwargs[name], flag) for name, flag in OUTPUT_FLAGS.items() if kwargs.get(name) is not None]
    check_outputs(targets, [*kubeconfig_files(kubeconfig), *([config] if config is not None else [])])


def _live_parameters() -> list[inspect.Parameter]:
    kw = inspect.Parameter.KEYWORD_ONLY
    return [
        inspect.Parameter("live", kw, annotation=bool, default=typer.Option(False, "--live", help=LIVE_HELP)),
        inspect.Parameter(
            "context", kw, annotation=str | None, default=typer.Option(None, "--context", metavar="CONTEXT", help=CONTEXT_HELP)
        ),
        inspect.Parameter(
            "kubeconfig", kw, annotation=str | None, default=typer.Option(None, "--kubeconfig", metavar="FILE", help=KUBECONFIG_HELP)
        ),
        inspect.Parameter(
            "scheduler_config",
            kw,
            annotation=str | None,
            default=typer.Option(None, "--scheduler-config", metavar="configmap/NS/NAME[/KEY]", help=SCHEDULER_CONFIG_HELP),
        ),
    ]


@overload
def live_options(command: Callable[..., Any], *, config_param: str = "config") -> Callable[..., Any]: ...


@overload
def live_options(command: None = None, *, config_param: str = "config") -> Callable[[Callable[..., Any]], Callable[..., Any]]: ...


def live_options(command: Callable[..., Any] | None = None, *, config_param: str = "config") -> Any:
    """Give a command --live, --context, --kubeconfig and --scheduler-config (one decorator line).

    The command must take ``snapshot`` (a list of paths; it becomes optional) and may take a
    config path (``config``, or the parameter named by ``config_param``: `diff` reads the live
    KubeSchedulerConfiguration as side A's) and ``debug``. Put it on the command's function
    (kschedctl/cli/app.py registers the result), bare (``@live_options``) or called
    (``@live_options(config_param="config_a")``).
    """
    if command is None:
        return functools.partial(live_options, config_param=config_param)
    signature = inspect.signature(command, eval_str=True)
    if "snapshot" not in signature.parameters:
        raise TypeError(f"{command.__name__}: @live_options needs a 'snapshot' parameter")
    params = []
    for param in signature.parameters.values():
        if param.name == "snapshot":
            info = copy.copy(param.default)
            info.default = None
            info.help = (info.help or "") + " Not with --live."
            param = param.replace(default=info)
        params.append(param)
    params += _live_parameters()
    takes_config = config_param in signature.parameters

    @functools.wraps(command)
    def wrapper(
        *args: Any,
        live: bool = False,
        context: str | None = None,
        kubeconfig: str | None = None,
        scheduler_config: str | None = None,
        **kwargs: Any,
    ) -> Any:
        request = LiveRequest(live or bool(context) or bool(kubeconfig), context, kubeconfig, scheduler_config)
        with ExitStack() as stack:
            try:
                if scheduler_config and not takes_config:
                    raise InputError(f"--scheduler-config: {command.__name__} takes no configuration")
                if request.needs_cluster:  # before the capture: a bad output path costs nothing
                    _check_live_outputs(kwargs, kubeconfig, kwargs.get(config_param))
                snapshot, config = _prepare(request, list(kwargs.get("snapshot") or []), kwargs.get(config_param), stack)
            except (typer.Exit, KeyboardInterrupt):
                raise
            except Exception as exc:  # noqa: BLE001 - one line, never a bare traceback
                fail_live(exc, bool(kwargs.get("debug")))
            kwargs["snapshot"] = snapshot
            if takes_config:
                kwargs[config_param] = config
            return command(*args, **kwargs)

    wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in params}
    return wrapper


__all__ = ["capture_live", "fail_live", "kubeconfig_files", "live_options"]
