"""kubectl-ksched: kschedctl as a kubectl plugin, taking kubectl's habits.

kubectl runs any executable named ``kubectl-<name>`` found on PATH for ``kubectl <name> ...``,
passing the remaining arguments (flags given before the plugin name are kubectl's own). This
entry point turns kubectl's flags into kschedctl's and runs the same commands:

- live by default: a command that can read a cluster gets ``--live`` unless snapshot files are
  given;
- ``-n/--namespace NS``: ``explain POD`` means ``explain NS/POD``; ``schedule`` shows NS's pods.
  Without ``-n``, the kubeconfig context's namespace (else ``default``), as kubectl does;
- ``-A/--all-namespaces``: ``schedule`` shows every namespace;
- ``--context``, ``--kubeconfig``, ``-o``: passed on;
- ``--pending``: the pending pods, which is what ``schedule`` reports in any case.

Every pending pod of the cluster is still scheduled whatever the namespace: ``-n`` narrows
what is shown, as with ``kubectl get``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import typer

from kschedctl.api.errors import InputError
from kschedctl.cli.app import app
from kschedctl.cli.stdout import run_app
from kschedctl.cluster.kubeclient import resolve_kubeconfig
from kschedctl.runtime.frame_room import call_with_room

PROG_NAME = "kubectl ksched"
_VALUE_FLAGS = {"-n": "namespace", "--namespace": "namespace", "--context": "context", "--kubeconfig": "kubeconfig"}
_BOOL_FLAGS = {"-A": "all_namespaces", "--all-namespaces": "all_namespaces", "--pending": "pending"}


@dataclass
class KubectlFlags:
    namespace: str | None = None
    all_namespaces: bool = False
    context: str | None = None
    kubeconfig: str | None = None
    pending: bool = False


def split_kubectl_flags(args: list[str]) -> tuple[KubectlFlags, list[str]]:
    """kubectl's flags (anywhere before ``--``) out of the arguments; the rest in order."""
    flags, rest = KubectlFlags(), []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest.extend(args[i:])
            break
        name, eq, value = arg.partition("=")
        if arg in _BOOL_FLAGS:
            setattr(flags, _BOOL_FLAGS[arg], True)
        elif name in _VALUE_FLAGS and eq:
            setattr(flags, _VALUE_FLAGS[name], value)
        elif arg in _VALUE_FLAGS:
            if i + 1 >= len(args):
                raise InputError(f"flag needs an argument: {arg}")
            setattr(flags, _VALUE_FLAGS[arg], args[i + 1])
            i += 1
        elif arg.startswith("-n") and len(arg) > 2 and not arg.startswith("--"):  # -nshop, as kubectl takes it
            flags.namespace = arg[2:]
        else:
            rest.append(arg)
        i += 1
    return flags, rest


def _options(command: Any) -> list[Any]:
    """The command's click options (typer may vendor click: duck-typed)."""
    return [p for p in command.params if getattr(p, "param_type_name", "") == "option"]


def _value_options(command: Any) -> set[str]:
    return {name for p in _options(command) if not p.is_flag and not p.count for name in (*p.opts, *p.secondary_opts)}


def _positionals(args: list[str], start: int, value_options: set[str]) -> list[int]:
    """Indices of positional arguments after ``start`` (option values skipped)."""
    found: list[int] = []
    i = start
    while i < len(args):
        arg = args[i]
        if arg == "--":
            found.extend(range(i + 1, len(args)))
            break
        if arg.startswith("-") and arg != "-":
            if arg in value_options:
                i += 1  # its value
        else:
            found.append(i)
        i += 1
    return found


def _default_namespace(flags: KubectlFlags) -> str:
    """The context's namespace, as kubectl picks it; 'default' when there is no kubeconfig to ask."""
    try:
        return resolve_kubeconfig(flags.kubeconfig, flags.context).namespace
    except InputError:
        return "default"


def translate(args: list[str], namespace_of: Callable[[KubectlFlags], str] = _default_namespace) -> list[str]:
    """kubectl-style arguments -> kschedctl arguments."""
    flags, rest = split_kubectl_flags(args)
    index = next((i for i, a in enumerate(rest) if not a.startswith("-")), None)
    commands = getattr(typer.main.get_command(app), "commands", {})
    command = commands.get(rest[index]) if index is not None else None
    if command is None or index is None:
        return rest  # help, --version, or an unknown command that kschedctl reports
    name = rest[index]
    options = {o for p in _options(command) for o in (*p.opts, *p.secondary_opts)}
    positionals = _positionals(rest, index + 1, _value_options(command))
    out = list(rest)
    snapshot_args = positionals
    if name == "explain" and positionals:
        if flags.all_namespaces:
            raise InputError("a resource cannot be retrieved by name across all namespaces")
        out[positionals[0]] = _qualified(rest[positionals[0]], flags.namespace or namespace_of(flags))
        snapshot_args = positionals[1:]
    if "--namespace" in options and not flags.all_namespaces and name != "explain":  # explain: the name says it
        out += ["--namespace", flags.namespace or namespace_of(flags)]
    elif name == "capture" and flags.namespace:
        typer.echo("warning: capture reads every namespace (the scheduler sees them all); -n ignored", err=True)
    for flag, value in (("--context", flags.context), ("--kubeconfig", flags.kubeconfig)):
        if value is not None and flag in options:
            out += [flag, value]
    if "--live" in options and not snapshot_args and "--live" not in rest:
        out.append("--live")
    return out


def _qualified(pod: str, namespace: str) -> str:
    """NAME -> NS/NAME and podgroup/NAME -> podgroup/NS/NAME; already qualified names stay."""
    if pod.startswith("podgroup/"):
        return pod if pod.count("/") >= 2 else f"podgroup/{namespace}/{pod.split('/', 1)[1]}"
    return pod if "/" in pod else f"{namespace}/{pod}"


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        translated = translate(args)
    except InputError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise SystemExit(2) from None
    # stdout's write errors as kschedctl's; the frames in a chunk of their own (runtime/frame_room.py)
    call_with_room(lambda: run_app(app, args=translated, prog_name=PROG_NAME))


if __name__ == "__main__":  # pragma: no cover - `python -m kschedctl.cli.kubectl_plugin`
    main()
