"""The TaintToleration plugin, one module per concern:

- plugin.py: the faithful per-node port
- details.py: the facts `explain` shows behind a Filter rejection

Upstream: pkg/scheduler/framework/plugins/tainttoleration/.
"""

from __future__ import annotations

from kschedctl.plugins.taint_toleration.plugin import TaintToleration, plugin_spec

__all__ = ["TaintToleration", "plugin_spec"]
