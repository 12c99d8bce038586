"""NodeLabel for kschedctl: kube-scheduler's node-label Filter and Score plugin, as a package.

Upstream: pkg/scheduler/framework/plugins/nodelabel/node_label.go (deprecated in 1.21 in
favour of NodeAffinity, then removed). A Filter that wants some labels present and others
absent on a node, and a Score that prefers nodes by the labels they have or lack, regardless
of the pod. This package is the worked example of kschedctl's docs/writing-plugins.md: every
name it imports from kschedctl comes from ``kschedctl.framework``.
"""

from __future__ import annotations

from kschedctl.framework import PluginSpec

from .args import ARGS_SCHEMA, NodeLabelArgs
from .node_label import ERR_REASON_PRESENCE_VIOLATED, NAME, NodeLabel

__version__ = "0.1.0"
__all__ = ["ARGS_SCHEMA", "ERR_REASON_PRESENCE_VIOLATED", "NAME", "NodeLabel", "NodeLabelArgs", "plugin_spec"]


def plugin_spec() -> PluginSpec:
    """What kschedctl registers (hooks.py): the name configurations use, the factory
    ``factory(args, handle)``, the class the extension points are read from, the args kind
    and its JSON Schema (which lets `kschedctl validate` point at the line of a bad field)."""
    return PluginSpec(NAME, NodeLabel, NodeLabel, args_type=NodeLabelArgs, args_schema=ARGS_SCHEMA)
