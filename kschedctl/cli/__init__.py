"""The command line. app.py holds the typer app and the core commands; the what-if commands
(diff, capacity, whatif_commands.py) and `sweep` (sweep_command.py) register on the same app.
They are imported here, so that every way in (the console scripts, `python -m kschedctl`,
tests importing kschedctl.cli.app) sees every command, and those modules can use app.py's
helpers without app.py importing them back.
"""

from kschedctl.cli import app as _app  # noqa: F401
from kschedctl.cli import sweep_command as _sweep_command  # noqa: F401
from kschedctl.cli import whatif_commands as _whatif_commands  # noqa: F401
