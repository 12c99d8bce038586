"""The PodGroupPodsCount plugin, one module per concern:

- plugin.py: the faithful per-node port

Upstream: pkg/scheduler/framework/plugins/podgrouppodscount/.
"""

from __future__ import annotations

from kschedctl.plugins.pod_group_pods_count.plugin import PodGroupPodsCount, plugin_spec

__all__ = ["PodGroupPodsCount", "plugin_spec"]
