"""The TaintToleration plugin, one module per concern:

- plugin.py: the faithful per-node port
- batch.py: its vectorised numpy twin, a subclass of the port adding the batch forms (what
  the registry builds)
- details.py: the facts `explain` shows behind a Filter rejection

Upstream: pkg/scheduler/framework/plugins/tainttoleration/.
"""

from __future__ import annotations

from kschedctl.framework.registry import PluginSpec, with_features
from kschedctl.plugins.taint_toleration.batch import TaintToleration
from kschedctl.plugins.taint_toleration.plugin import NAME


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, with_features(TaintToleration), TaintToleration)


__all__ = ["TaintToleration", "plugin_spec"]
