"""The NodeName plugin, one module per concern:

- plugin.py: the faithful per-node port
- details.py: the facts `explain` shows behind a Filter rejection

Upstream: pkg/scheduler/framework/plugins/nodename/.
"""

from __future__ import annotations

from kschedctl.plugins.node_name.plugin import NodeName, plugin_spec

__all__ = ["NodeName", "plugin_spec"]
