"""Help pages as kubectl users expect them: plain text that follows the terminal's width.

typer prints arguments with type placeholders (``POD <str>``, ``{POD}`` in the usage line) and
cuts a command's one-line summary to fit a fixed width. ``PlainCommand`` prints an argument by its
metavar alone, a usage line of plain metavars, and each command's first sentence whole in the
command list (wrapped by the formatter, never cut).
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument, TyperCommand, TyperGroup


class PlainCommand(TyperCommand):
    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Plain values skip typer's pydantic coercion (kschedctl/cli/coercion.py)."""
        from kschedctl.cli.coercion import install

        install(self.get_params(ctx))
        return super().parse_args(ctx, args)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                name = _argument_name(param)
                pieces.append(name if param.required else f"[{name}]")
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        arguments: list[tuple[str, str]] = []
        options: list[tuple[str, str]] = []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                if not param.hidden:
                    arguments.append((_argument_name(param), param.help or ""))
                continue
            record = param.get_help_record(ctx)
            if record is not None:
                options.append(record)
        if arguments:
            with formatter.section("Arguments"):
                formatter.write_dl(arguments)
        if options:
            with formatter.section("Options"):
                formatter.write_dl(options)

    def get_short_help_str(self, limit: int = 45) -> str:
        """The first sentence of the help, whole (the command list wraps it)."""
        text = (self.short_help or self.help or "").strip().split("\n\n")[0]
        first = text.split(". ")[0].strip().rstrip(".")
        return " ".join(first.split())


class PlainGroup(TyperGroup):
    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """The group's own options (--version) skip typer's pydantic coercion too."""
        from kschedctl.cli.coercion import install

        install(self.get_params(ctx))
        return super().parse_args(ctx, args)


def _argument_name(param: Any) -> str:
    name = param.metavar or str(param.name).upper()
    if param.nargs != 1 and not name.endswith("..."):
        name += "..."
    return name


__all__ = ["PlainCommand", "PlainGroup"]
