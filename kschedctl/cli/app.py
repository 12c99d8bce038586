"""The command line: the typer app and its commands, one module each (kschedctl/cli/<command>.py:
parse the options, call kschedctl.app and the library, render with kschedctl.output). No
scheduling here.

Commands and exit codes follow ../shared/contract.md: 0 done, 1 invalid config (validate),
2 bad usage or bad input (one line on stderr, no traceback unless --debug), 3 unschedulable
pods with --fail-on-unschedulable, 4 changes with `diff --fail-on-change`.
"""

from __future__ import annotations

import functools
import importlib
import sys
from typing import Any

import typer

from kschedctl import __version__
from kschedctl.cli.helpformat import PlainCommand, PlainGroup
from kschedctl.cli.stdout import run_process

# Startup (benchmarks/startup.py): `kschedctl --help` and argument errors need only typer and
# the commands' definitions, so the configuration, the framework (numpy), the renderers and the
# plugin entry points are imported inside the commands that use them.

# Plain help (click's formatter, not rich's boxes): flags print as flags, no type placeholders,
# and the text follows the terminal's width instead of being cut at 80 columns.
CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 1000}


class _App(typer.Typer):
    """Every command gets the plain help page (kschedctl/cli/helpformat.py)."""

    def command(self, *args: Any, cls: Any = PlainCommand, **kwargs: Any) -> Any:
        return super().command(*args, cls=cls, **kwargs)


# Each command: its name, and the module and function that define it, in the order of
# `kschedctl --help`.
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("schedule", "kschedctl.cli.schedule", "schedule"),
    ("explain", "kschedctl.cli.explain", "explain"),
    ("simulate", "kschedctl.cli.simulate", "simulate"),
    ("validate", "kschedctl.cli.validate", "validate"),
    ("capture", "kschedctl.cli.capture", "capture_command"),
    ("plugins", "kschedctl.cli.plugins", "plugins"),
    ("sweep", "kschedctl.cli.sweep", "sweep"),
    ("diff", "kschedctl.cli.diff", "diff"),
    ("capacity", "kschedctl.cli.capacity", "capacity"),
    ("watch", "kschedctl.cli.watch", "watch_command"),
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"kschedctl {__version__}")
        raise typer.Exit(0)


def _root(
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version, help="Print the version and exit."),
) -> None:
    """The Kubernetes scheduler as a command-line tool: where would each pending pod land, and why not."""


def build(only: str | None = None) -> typer.Typer:
    """The typer app with every command, or with the one named ``only``.

    A run names its command first (``kschedctl schedule ...``). typer turns every registered
    function into a click command when the app is called, reading each one's signature and
    types, and the commands' modules have to be imported for it: ~8 ms and ~5 ms a run for
    nine commands the run never calls. A command's parsing, help and errors do not depend on
    the other commands, so the app of that one command answers the same. Anything else (no
    command, an option first, an unknown name) gets the whole app."""
    new = _App(
        cls=PlainGroup,
        add_completion=False,
        no_args_is_help=True,
        rich_markup_mode=None,
        context_settings=CONTEXT_SETTINGS,
        pretty_exceptions_enable=False,
        help="The Kubernetes scheduler as a command-line tool: where would each pending pod land, and why not.",
    )
    for name, module, function in COMMANDS:
        if only is None or name == only:
            new.command(name)(getattr(importlib.import_module(module), function))
    new.callback()(_root)
    return new


def command_named(argv: list[str]) -> str | None:
    """The command a command line names first (``argv`` without the program), if it is one."""
    first = argv[0] if argv else None
    return first if first in {name for name, _, _ in COMMANDS} else None


@functools.cache
def _whole() -> typer.Typer:
    return build()


def __getattr__(name: str) -> Any:
    """``app``: the app with every command, built on first use (tests, the kubectl plugin,
    tools that run commands in-process)."""
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _whole()


def main() -> None:
    """The command as a process (kschedctl/cli/stdout.py's run_process), through the typer app
    of the command it names."""
    run_process(lambda: build(command_named(sys.argv[1:])))
