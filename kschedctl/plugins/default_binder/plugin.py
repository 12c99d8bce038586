"""DefaultBinder (Bind): binds the pod to the node through the pods/binding subresource.

Upstream: pkg/scheduler/framework/plugins/defaultbinder/default_binder.go. Here the
"API call" is the handle's cluster client, which records the binding in the simulation.
"""

from __future__ import annotations

from typing import Any

from kschedctl.api.types import Pod
from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.handle import Handle
from kschedctl.framework.interface import Status
from kschedctl.framework.registry import PluginSpec
from kschedctl.plugins import names

NAME = names.DefaultBinder


class DefaultBinder:
    def __init__(self, args: dict[str, Any] | None, handle: Handle) -> None:
        self.handle = handle

    def name(self) -> str:
        return NAME

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        client = self.handle.client
        if client is not None:
            return client.bind(pod, node_name)
        return None


def plugin_spec() -> PluginSpec:
    return PluginSpec(NAME, DefaultBinder, DefaultBinder)
