"""The command line: the typer app and its commands, one module each (kschedctl/cli/<command>.py:
parse the options, call kschedctl.app and the library, render with kschedctl.output). No
scheduling here.

Commands and exit codes follow ../shared/contract.md: 0 done, 1 invalid config (validate),
2 bad usage or bad input (one line on stderr, no traceback unless --debug), 3 unschedulable
pods with --fail-on-unschedulable, 4 changes with `diff --fail-on-change`.
"""

from __future__ import annotations

import traceback
from typing import Any

import typer

from kschedctl import __version__
from kschedctl.cli.capacity import capacity
from kschedctl.cli.capture import capture_command
from kschedctl.cli.diff import diff
from kschedctl.cli.explain import explain
from kschedctl.cli.helpformat import PlainCommand, PlainGroup
from kschedctl.cli.plugins import plugins
from kschedctl.cli.schedule import schedule
from kschedctl.cli.simulate import simulate
from kschedctl.cli.stdout import run_app
from kschedctl.cli.sweep import sweep
from kschedctl.cli.validate import validate
from kschedctl.cli.watch import watch_command

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


app = _App(
    cls=PlainGroup,
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings=CONTEXT_SETTINGS,
    pretty_exceptions_enable=False,
    help="The Kubernetes scheduler as a command-line tool: where would each pending pod land, and why not.",
)

# The order of `kschedctl --help`.
app.command()(schedule)
app.command()(explain)
app.command()(simulate)
app.command()(validate)
app.command("capture")(capture_command)
app.command()(plugins)
app.command()(sweep)
app.command()(diff)
app.command()(capacity)
app.command("watch")(watch_command)


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
