"""The command line. app.py builds the typer app from its table of commands, one module each
(schedule.py, explain.py, simulate.py, validate.py, plugins.py, sweep.py, diff.py, capacity.py,
watch.py; `capture` is live.py's, beside the --live options); options.py and guard.py are what
they share. fast.py runs a plain `schedule`, `explain`, `simulate` or `validate` command line
without typer, calling the same work (bodies/) as the typer commands.
The inputs are loaded and checked by kschedctl.app.
"""

from kschedctl import module_start, regex_start, startup, yaml_start

# before the rest of kschedctl is imported (kschedctl/module_start.py)
module_start.install()
# before the commands and the libraries they import compile their patterns (kschedctl/regex_start.py)
regex_start.install()
# before the commands and typer define their dataclasses (kschedctl/startup.py)
startup.install()
# before anything imports PyYAML (kschedctl/yaml_start.py)
yaml_start.install()
