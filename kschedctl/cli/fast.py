"""The command line's fast path: `schedule`, `explain`, `simulate` and `validate` run without
typer when their options are of the plain kind that needs none of its help.

Importing typer (with click, its completion code, subprocess, shutil and the compressors those
import) is ~12 ms of a 150 ms `schedule` of 500 nodes, for reading a dozen options. A command
line this module can read in full (the command first, then known options each given once, with
values of the right type, and the command's positional arguments) runs the command's body
(kschedctl/cli/bodies/) with exactly the values typer would pass it; anything else returns None
and the typer app takes the command line as before: help, a misspelled or repeated option, a
value starting with a dash, `--`, attached short values (`-ojson`), a value typer would refuse
or read through pydantic (a number that is not a plain decimal), the live options, too few
positional arguments, click's shell-completion variables, a standard error whose encoding is
ASCII (where click's echo re-encodes). Exit statuses and stderr lines are the
typer command's: the bodies end with SystemExit as click lets it through, and ``invoke`` ends a
command as typer's main does (0 when it returns, 130 on Ctrl-C, 1 on end of input or a broken
pipe).

``commands()`` mirrors the typer commands' options; tests/test_cli_fast.py checks it against the
click commands typer builds (names, flags, types, choices, bounds, defaults), and the values it
reads against the ones typer passes for the same command lines.
"""

from __future__ import annotations

import codecs
import errno
import importlib
import os
import re
import sys
from collections.abc import Callable
from typing import Any, Literal

Kind = Literal["str", "int", "float", "flag", "choice"]

_PLAIN_INT = re.compile(r"(?:0|[1-9][0-9]{0,17})\Z")  # unsigned: a signed value (`--seed=-3`) is left to typer
_PLAIN_DECIMAL = re.compile(r"(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,15})?\Z")  # both read it as the nearest double


class Option:
    """One option of a command: the body's parameter, its flags, how its value reads. (Plain
    classes here, not dataclasses: a dataclass costs ~0.15 ms to define, paid by every run this
    module exists to make shorter.)"""

    __slots__ = ("name", "flags", "kind", "default", "choices", "min")

    def __init__(
        self, name: str, flags: tuple[str, ...], kind: Kind, default: Any, choices: tuple[str, ...] = (), min: float | None = None
    ) -> None:
        self.name = name
        self.flags = flags
        self.kind = kind
        self.default = default
        self.choices = choices
        self.min = min

    def read(self, raw: str) -> Any:
        """The value typer would pass for ``raw``; ValueError where typer would refuse it or
        where its reading is not plain: typer reads numbers through pydantic, whose reading of
        signs, spaces, underscores, exponents or "inf" is not int()'s or float()'s, so only
        plain decimals are read here (as kschedctl/cli/coercion.py reads integers)."""
        if self.kind == "int":
            if not _PLAIN_INT.match(raw) or (self.min is not None and int(raw) < self.min):
                raise ValueError(raw)
            return int(raw)
        if self.kind == "float":
            if not _PLAIN_DECIMAL.match(raw):
                raise ValueError(raw)
            value = float(raw)
            if self.min is not None and value < self.min:
                raise ValueError(raw)
            return value
        if self.kind == "choice" and raw not in self.choices:
            raise ValueError(raw)
        return raw


class Command:
    """A command the fast path runs: its body (``module:function``), the parameters its
    positional arguments fill in order (``many``: the last takes a list of one or more, else
    each takes exactly one), its options, and the options it leaves to typer (the live ones: a
    cluster to read)."""

    __slots__ = ("name", "body", "positional", "many", "options", "typer_only")

    def __init__(
        self,
        name: str,
        body: str,
        positional: tuple[str, ...],
        many: bool,
        options: tuple[Option, ...],
        typer_only: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        self.body = body
        self.positional = positional
        self.many = many
        self.options = options
        self.typer_only = typer_only

    def option(self, flag: str) -> Option | None:
        for opt in self.options:
            if flag in opt.flags:
                return opt
        return None


RUN_OUTPUTS = ("table", "wide", "json", "yaml")
LIVE_FLAGS = ("--live", "--context", "--kubeconfig", "--scheduler-config")


def commands() -> dict[str, Command]:
    """The commands the fast path runs, by name, with their options."""
    from kschedctl.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
    from kschedctl.versions import DEFAULT_VERSION

    config = Option("config", ("--config",), "str", None)
    seed = Option("seed", ("--seed",), "int", None)
    version = Option("kube_version", ("--kube-version",), "str", DEFAULT_VERSION)
    gates = Option("feature_gates", ("--feature-gates",), "str", None)
    timeout = Option("plugin_timeout", ("--plugin-timeout",), "float", float(DEFAULT_PLUGIN_TIMEOUT), min=0)
    report = Option("report", ("--report",), "str", None)
    no_extenders = Option("no_extenders", ("--no-extenders",), "flag", False)
    instant = Option("instant_preemption", ("--instant-preemption",), "flag", False)
    debug = Option("debug", ("--debug",), "flag", False)
    run_output = Option("output", ("-o", "--output"), "choice", "table", RUN_OUTPUTS)
    namespace = Option("namespace", ("-n", "--namespace"), "str", None)
    commands = (
        Command(
            "schedule",
            "kschedctl.cli.bodies.schedule:run_schedule",
            ("snapshot",),
            True,
            (
                config,
                run_output,
                seed,
                Option("write_snapshot", ("--write-snapshot",), "str", None),
                version,
                gates,
                Option("fail_on_unschedulable", ("--fail-on-unschedulable",), "flag", False),
                namespace,
                timeout,
                report,
                no_extenders,
                instant,
                debug,
            ),
            LIVE_FLAGS,
        ),
        Command(
            "explain",
            "kschedctl.cli.bodies.explain:run_explain",
            ("pod", "snapshot"),
            True,
            (
                namespace,
                config,
                run_output,
                seed,
                version,
                gates,
                timeout,
                no_extenders,
                instant,
                Option("evaluate", ("--evaluate",), "flag", False),
                Option("in_run", ("--in-run",), "flag", False),
                Option("all_filters", ("--all-filters",), "flag", False),
                Option("top", ("--top",), "int", 3, min=0),
                debug,
            ),
            LIVE_FLAGS,
        ),
        Command(
            "simulate",
            "kschedctl.cli.bodies.simulate:run_simulate",
            ("scenario",),
            False,
            (config, run_output, seed, version, gates, timeout, report, no_extenders, instant, debug),
        ),
        Command(
            "validate",
            "kschedctl.cli.bodies.validate:run_validate",
            ("configs",),
            True,
            (Option("output", ("-o", "--output"), "choice", "text", ("text", "json")), version, gates, debug),
        ),
    )
    return {c.name: c for c in commands}


NAMES = frozenset({"schedule", "explain", "simulate", "validate"})


class Call:
    """A command line read in full: the body to call and its keyword arguments."""

    __slots__ = ("command", "kwargs")

    def __init__(self, command: Command, kwargs: dict[str, Any]) -> None:
        self.command = command
        self.kwargs = kwargs

    def load(self) -> Callable[..., None]:
        module, _, function = self.command.body.partition(":")
        fn: Callable[..., None] = getattr(importlib.import_module(module), function)
        return fn


def parse(argv: list[str]) -> Call | None:
    """The call ``argv`` (without the program) asks for, or None: typer reads it."""
    if not argv or argv[0] not in NAMES or not _plain_process():
        return None
    command = commands()[argv[0]]
    values: dict[str, Any] = {}
    positional: list[str] = []
    i = 1
    while i < len(argv):
        token = argv[i]
        i += 1
        if token == "-" or not token.startswith("-"):
            positional.append(token)
            continue
        flag, eq, attached = token.partition("=") if token.startswith("--") else (token, "", "")
        opt = command.option(flag)
        if opt is None or opt.name in values:
            return None  # unknown (help, a typo, `--`, `-ojson`, the live options) or repeated
        if opt.kind == "flag":
            if eq:
                return None
            values[opt.name] = True
            continue
        if eq:
            raw = attached
        elif i < len(argv) and not (argv[i].startswith("-") and argv[i] != "-"):
            raw = argv[i]
            i += 1
        else:
            return None  # no value, or one that looks like an option
        try:
            values[opt.name] = opt.read(raw)
        except ValueError:
            return None
    names = command.positional
    if len(positional) < len(names) or (len(positional) > len(names) and not command.many):
        return None
    kwargs = {opt.name: values.get(opt.name, opt.default) for opt in command.options}
    kwargs.update(zip(names[:-1], positional))
    rest = positional[len(names) - 1 :]
    kwargs[names[-1]] = rest if command.many else rest[0]
    return Call(command, kwargs)


def _plain_process() -> bool:
    """No shell-completion request (click answers those before parsing) and a standard error
    click's echo writes to as it is (one whose encoding is not ASCII)."""
    if any(key.startswith("_") and key.endswith("_COMPLETE") for key in os.environ):
        return False
    encoding = getattr(sys.stderr, "encoding", None) or "ascii"
    try:
        return codecs.lookup(encoding).name != "ascii"
    except LookupError:
        return True


class _QuietFlush:
    """A stream whose flush ignores a broken pipe, as typer leaves the standard streams after
    one (click's PacifyFlushWrapper)."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped

    def flush(self) -> None:
        try:
            self.wrapped.flush()
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


def invoke(body: Callable[..., None], kwargs: dict[str, Any]) -> None:
    """Run the body and end as typer's main ends a command: SystemExit(0) when it returns, its
    own SystemExit as it is, 130 on Ctrl-C, a blank line and "Aborted!" then 1 at the end of
    input, 1 on a broken pipe (the standard streams' flush made quiet)."""
    try:
        body(**kwargs)
    except EOFError:
        from kschedctl.cli.guard import echo_err

        echo_err("")
        echo_err("Aborted!")
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        sys.stdout = _QuietFlush(sys.stdout)
        sys.stderr = _QuietFlush(sys.stderr)
        raise SystemExit(1) from None
    raise SystemExit(0)


__all__ = ["Call", "Command", "Option", "commands", "invoke", "parse"]
