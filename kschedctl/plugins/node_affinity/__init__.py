"""The NodeAffinity plugin, one module per concern:

- plugin.py: the faithful per-node port
- details.py: the facts `explain` shows behind a Filter rejection

Upstream: pkg/scheduler/framework/plugins/nodeaffinity/.
"""

from __future__ import annotations

from kschedctl.plugins.node_affinity.plugin import NodeAffinity, plugin_spec

__all__ = ["NodeAffinity", "plugin_spec"]
