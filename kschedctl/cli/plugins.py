"""`kschedctl plugins`: every plugin known, in-tree and from installed packages."""

from __future__ import annotations

import typer

from kschedctl import __version__
from kschedctl.api.field import escape_control
from kschedctl.cli.options import TableOutput
from kschedctl.cli.stdout import emit


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
