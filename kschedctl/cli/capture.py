"""`kschedctl capture`: the current cluster into one snapshot file (and, with --scheduler-config,
its KubeSchedulerConfiguration beside it). Reading the cluster is kschedctl/cluster/capture.py."""

from __future__ import annotations

import os

import typer

from kschedctl.api.errors import InputError
from kschedctl.api.field import escape_control
from kschedctl.cli.live import SCHEDULER_CONFIG_HELP, capture_live, fail_live, kubeconfig_files
from kschedctl.cli.stdout import StdoutError, emit
from kschedctl.cluster.kubeclient import DEFAULT_CHUNK_SIZE


def capture_command(
    output: str = typer.Option(
        "-", "-o", "--output", metavar="FILE", help="Snapshot file to write (*.json: JSON, else YAML), or - for stdout."
    ),
    kubeconfig: str | None = typer.Option(
        None, "--kubeconfig", metavar="FILE", help="The kubeconfig file; default: $KUBECONFIG, then ~/.kube/config."
    ),
    context: str | None = typer.Option(None, "--context", metavar="CONTEXT", help="The kubeconfig context; default: its current-context."),
    scheduler_config: str | None = typer.Option(None, "--scheduler-config", metavar="configmap/NS/NAME[/KEY]", help=SCHEDULER_CONFIG_HELP),
    config_output: str | None = typer.Option(
        None,
        "--config-output",
        metavar="FILE",
        help="Where --scheduler-config's configuration goes (default: SNAPSHOT-scheduler-config.yaml beside the snapshot).",
    ),
    chunk_size: int = typer.Option(
        DEFAULT_CHUNK_SIZE, "--chunk-size", min=0, metavar="N", help="Objects per list request (0: all at once), as kubectl's --chunk-size."
    ),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks."),
) -> None:
    """Capture the current cluster into one snapshot file: every kind kschedctl reads, never Secrets."""
    from kschedctl.api.outputs import check_outputs, resolve_output, write_output
    from kschedctl.cluster.capture import ConfigMapRef, format_for, read_scheduler_config, render_capture
    from kschedctl.cluster.kubeclient import connect

    try:
        ref = ConfigMapRef.parse(scheduler_config) if scheduler_config else None
        config_path = config_output or (_config_path_beside(output) if ref else None)
        if ref and config_path is None:
            raise InputError("--scheduler-config with -o -: give --config-output FILE for the configuration")
        targets = [resolve_output(output, "-o")] if output != "-" else []
        if config_path is not None:
            targets.append(resolve_output(config_path, "--config-output"))
        check_outputs(targets, kubeconfig_files(kubeconfig))
        conn = connect(kubeconfig, context)
        try:
            config = read_scheduler_config(conn, ref) if ref is not None else None  # fail before the long part
            capture = capture_live(conn, chunk_size)
            if config is not None and config_path is not None:
                capture.notes.append(f"scheduler configuration: {config[1]} -> {config_path}")
                write_output(targets[-1], config[0])
        finally:
            conn.close()
        if output == "-":
            emit(render_capture(capture, "yaml"))
        else:
            write_output(targets[0], render_capture(capture, format_for(output)))
            typer.echo(f"captured {len(capture.items)} objects from {conn.where} into {escape_control(output)}", err=True)
    except (typer.Exit, KeyboardInterrupt, StdoutError):
        raise
    except OSError as exc:
        fail_live(InputError(f"cannot write: {exc.strerror or exc}", file=exc.filename or output), debug)
    except Exception as exc:  # noqa: BLE001 - one line, never a bare traceback
        fail_live(exc, debug)


def _config_path_beside(output: str) -> str | None:
    if output == "-":
        return None
    stem, _ = os.path.splitext(output)
    return f"{stem}-scheduler-config.yaml"
