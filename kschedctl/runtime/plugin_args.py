"""A plugin's pluginConfig args, decoded and defaulted by its own args type: the runtime's
part, because a package's code runs sandboxed (framework/runtime/framework.go
getPluginArgsOrDefault; the decoding is the plugin's `from_dict`).

The PluginSpec (kschedctl/framework/registry.py) names the args type; calling a package's code
is the runtime's, so it is done here, with the Sandbox, never in the plugin API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kschedctl.framework.args import PluginArgs
    from kschedctl.framework.features import Features
    from kschedctl.framework.registry import PluginSpec


def new_args(spec: PluginSpec, raw: Any, features: Features) -> PluginArgs:
    """Strict decoding and v1 defaulting of the plugin's pluginConfig args (None: none
    given). A package's own code runs sandboxed: whatever it does is an ArgsError naming
    the plugin, never a crash."""
    from kschedctl.framework.args import ArgsError
    from kschedctl.framework.gosemantics import FieldError
    from kschedctl.runtime.sandbox import Sandbox, describe

    assert spec.args_type is not None
    if spec.trusted:
        args: PluginArgs = spec.args_type.from_dict(raw, features)
        return args
    try:
        return Sandbox(spec.name).call(spec.args_type.from_dict, raw, features)
    except ArgsError:
        raise
    except Exception as exc:  # noqa: BLE001 - third-party defaulting code
        raise ArgsError([FieldError("", f"Internal error: decoding args of {spec.name}: {describe(exc)}")]) from exc
