"""The VolumeBinding plugin, one module per concern:

- plugin.py: the faithful per-node port
- batch.py: its batch twin, a subclass of the port adding the batch Filter (what the registry
  builds)
- details.py: the facts `explain` shows behind a Filter rejection
- args.py: its typed args

Upstream: pkg/scheduler/framework/plugins/volumebinding/.
"""

from __future__ import annotations

from kschedctl.framework.registry import PluginSpec, with_features
from kschedctl.plugins.volume_binding.args import VolumeBindingArgs
from kschedctl.plugins.volume_binding.batch import VolumeBinding
from kschedctl.plugins.volume_binding.plugin import NAME


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, with_features(VolumeBinding), VolumeBinding, args_type=VolumeBindingArgs)


__all__ = ["VolumeBinding", "plugin_spec"]
