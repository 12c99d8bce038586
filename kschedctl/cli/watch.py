"""`kschedctl watch [POD...]`: a live view of Pending pods, re-explained as the cluster changes.

Registered by kschedctl/cli/app.py. Only parsing and printing here: the cluster is kept by
list+watch in kschedctl/cluster/watch.py, the pods are re-explained by kschedctl/explain/watch.py,
the lines are kschedctl/output/watch_render.py. Exit codes as for every command: 0 once --duration passed or, with
--until-scheduled, no watched pod is pending; 2 bad input or a cluster that cannot be read (one
line on stderr); 130 interrupted (Ctrl-C, the usual way to stop it).
"""

from __future__ import annotations

import tempfile
import time
from enum import StrEnum
from typing import TYPE_CHECKING

import typer

from kschedctl.api.errors import InputError
from kschedctl.cli.guard import fail, guarded, say
from kschedctl.cli.live import CONTEXT_HELP, KUBECONFIG_HELP, SCHEDULER_CONFIG_HELP
from kschedctl.cli.options import CONFIG_HELP, DEBUG_HELP, GATES_HELP, VERSION_HELP
from kschedctl.cli.stdout import emit
from kschedctl.versions import DEFAULT_VERSION

if TYPE_CHECKING:
    from kschedctl.cluster.watch import LiveCluster

MAX_INTERVAL = 60


class WatchOutput(StrEnum):
    text = "text"
    json = "json"


def watch_command(
    pods: list[str] = typer.Argument(
        None, metavar="[POD...]", help="Pods to watch: NAME (with -n) or NAMESPACE/NAME; default: every pending pod."
    ),
    namespace: str | None = typer.Option(None, "-n", "--namespace", metavar="NAMESPACE", help="Watch this namespace's pods only."),
    context: str | None = typer.Option(None, "--context", metavar="CONTEXT", help=CONTEXT_HELP),
    kubeconfig: str | None = typer.Option(None, "--kubeconfig", metavar="FILE", help=KUBECONFIG_HELP),
    config: str | None = typer.Option(None, "--config", metavar="FILE", help=CONFIG_HELP),
    scheduler_config: str | None = typer.Option(None, "--scheduler-config", metavar="configmap/NS/NAME[/KEY]", help=SCHEDULER_CONFIG_HELP),
    output: WatchOutput = typer.Option(
        WatchOutput.text, "-o", "--output", help="text: one line per change; json: one JSON object per line."
    ),
    interval: int = typer.Option(
        5,
        "--interval",
        min=1,
        max=MAX_INTERVAL,
        metavar="SECONDS",
        help="How long each watch request lasts (its timeoutSeconds): changes show within it.",
    ),
    duration: float | None = typer.Option(
        None, "--duration", min=0, metavar="SECONDS", help="Stop after this long (default: until Ctrl-C)."
    ),
    until_scheduled: bool = typer.Option(False, "--until-scheduled", help="Stop once no watched pod is pending."),
    seed: int = typer.Option(1, "--seed", metavar="N", help="Seed for tie-breaking, the same every round so that a tie does not flicker."),
    kube_version: str = typer.Option(DEFAULT_VERSION, "--kube-version", metavar="X.Y", help=VERSION_HELP),
    feature_gates: str | None = typer.Option(None, "--feature-gates", metavar="GATES", help=GATES_HELP),
    debug: bool = typer.Option(False, "--debug", help=DEBUG_HELP),
) -> None:
    """Keep explaining the Pending pods of the current cluster: a line whenever one's answer changes."""
    from kschedctl.cluster.capture import ConfigMapRef, read_scheduler_config
    from kschedctl.cluster.kubeclient import connect
    from kschedctl.cluster.watch import LiveCluster
    from kschedctl.explain.explain import pod_key
    from kschedctl.explain.watch import PendingWatch
    from kschedctl.output.watch_render import render_event, render_header

    def run() -> None:
        if config and scheduler_config:
            fail("give --config or --scheduler-config, not both")
        keys = tuple(pod_key(p, namespace) for p in pods or [])
        from kschedctl.app.config import load_config, plugin_registry
        from kschedctl.app.release import release

        version = release(kube_version, feature_gates)
        conn = connect(kubeconfig, context)
        try:
            with tempfile.TemporaryDirectory(prefix="kschedctl-watch-") as workdir:
                config_path = config
                if scheduler_config:
                    text, _source = read_scheduler_config(conn, ConfigMapRef.parse(scheduler_config))
                    config_path = f"{workdir}/scheduler-config.yaml"
                    with open(config_path, "w", encoding="utf-8") as fh:
                        fh.write(text)
                registry = plugin_registry(say)
                cfg = load_config(config_path, version, registry, say)
                live = LiveCluster(conn, conn.context, conn.server, watch_seconds=interval)
                live.start()
                for warning in live.warnings:
                    typer.echo(f"warning: {warning}", err=True)
                watch = PendingWatch(live, cfg, registry, version, workdir, pods=keys, namespace=namespace, seed=seed)
                first = list(watch.first())
                missing = [k for k in keys if k not in watch.verdicts and not _known(live, k)]
                if missing:
                    raise InputError(f"pod {missing[0]} not found", file=conn.where)
                for warning in watch.warnings:
                    typer.echo(warning, err=True)
                if output == WatchOutput.text:
                    emit(render_header(len(watch.verdicts), conn.where, interval))
                for event in first:
                    emit(render_event(event, output.value))
                end = None if duration is None else time.monotonic() + duration
                while not (until_scheduled and not watch.verdicts) and (end is None or time.monotonic() < end):
                    for event in watch.round():
                        emit(render_event(event, output.value))
        finally:
            conn.close()

    guarded(debug, run)


def _known(live: LiveCluster, key: str) -> bool:
    """The pod exists (bound: not pending, so it has no verdict)."""
    from kschedctl.cluster.watch import object_key

    return any(o.get("kind") == "Pod" and object_key(o) == key for o in live.items())
