"""What several commands' options share: the output formats and the help texts."""

from __future__ import annotations

from enum import StrEnum


class RunOutput(StrEnum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"


class ExplainOutput(StrEnum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"


class TextOutput(StrEnum):
    text = "text"
    json = "json"


class TableOutput(StrEnum):
    table = "table"
    json = "json"


SNAPSHOT_HELP = "Snapshot files, directories, or - for standard input."
CONFIG_HELP = "A KubeSchedulerConfiguration (v1) file, or - for standard input; default: kube-scheduler's defaults."
OUTPUT_HELP = "Output format; wide: every column, nothing wrapped or abbreviated."
SEED_HELP = "Seed for tie-breaking: same input and seed, same output."
VERSION_HELP = "Emulated kube-scheduler release (1.35, 1.36, 1.37)."
GATES_HELP = "Feature gates to set, e.g. GenericWorkload=true,GangScheduling=true."
DEBUG_HELP = "Show tracebacks."
INSTANT_PREEMPTION_HELP = (
    "Remove preemption victims at once (the old reading). By default a victim keeps its room until "
    "kube-scheduler would see it gone: its terminationGracePeriodSeconds (30 when unset) plus 0.05 s "
    "on the virtual clock, while the queue goes on."
)
PLUGIN_TIMEOUT_HELP = (
    "Seconds a call into an installed plugin may take before it fails that pod's attempt "
    "(the plugin is not called again in the run); 0: no limit."
)
