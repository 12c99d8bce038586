"""Importing this module readies a process to run sweep cells: the scheduler's modules are
imported and the plugin registry is built. The local pool's fork server preloads it, so that
each worker it forks starts warm instead of paying for both on its first cell.
"""

from __future__ import annotations

from kschedctl.cluster import scenario  # noqa: F401
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.scheduler import simulate  # noqa: F401
from kschedctl.sweep import cell  # noqa: F401
from kschedctl.whatif import diff  # noqa: F401

default_registry()
