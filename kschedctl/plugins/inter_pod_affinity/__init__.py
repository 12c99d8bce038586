"""The InterPodAffinity plugin, one module per concern:

- plugin.py: the faithful per-node port
- details.py: the facts `explain` shows behind a Filter rejection
- counts.py: the per-snapshot counts kept across cycles

Upstream: pkg/scheduler/framework/plugins/interpodaffinity/.
"""

from __future__ import annotations

from kschedctl.plugins.inter_pod_affinity.plugin import InterPodAffinity, plugin_spec

__all__ = ["InterPodAffinity", "plugin_spec"]
