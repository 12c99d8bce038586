"""NodeResourcesAllocatableArgs: defaulting, validation, JSON Schema, and the PluginSpec/hook.

upstream: kubernetes-sigs/scheduler-plugins apis/config/v1/defaults_test.go (TestSchedulingDefaults)
and apis/config/validation/validation_plugingargs_test.go (TestValidateNodeResourcesAllocatableArgs).
"""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator
from kschedctl_node_resources_allocatable import (
    ARGS_SCHEMA,
    NAME,
    NodeResourcesAllocatable,
    NodeResourcesAllocatableArgs,
    plugin_spec,
)

from kschedctl.framework import ArgsError, Features
from kschedctl.framework.args import schema_problems
from kschedctl.framework.gosemantics import aggregate


def default_args(args: dict | None) -> dict:
    """The args the plugin gets for this pluginConfig (decoded strictly, defaulted), as JSON."""
    return NodeResourcesAllocatableArgs.from_dict(args).to_dict()


def validate_args(args: dict) -> list:
    try:
        return NodeResourcesAllocatableArgs.decode(args).validate(Features.default())
    except ArgsError as exc:
        return list(exc.errors)


@pytest.mark.parametrize(
    "given, expected",
    [
        # upstream: defaults_test.go TestSchedulingDefaults "empty config NodeResourcesAllocatableArgs"
        pytest.param(
            {},
            {"resources": [{"name": "cpu", "weight": 1 << 20}, {"name": "memory", "weight": 1}], "mode": "Least"},
            id="empty config NodeResourcesAllocatableArgs",
        ),
        pytest.param(
            None, {"resources": [{"name": "cpu", "weight": 1 << 20}, {"name": "memory", "weight": 1}], "mode": "Least"}, id="no args at all"
        ),
        # upstream: defaults_test.go TestSchedulingDefaults "set non default NodeResourcesAllocatableArgs"
        pytest.param(
            {"resources": [{"name": "cpu", "weight": 1 << 10}, {"name": "memory", "weight": 2}], "mode": "Most"},
            {"resources": [{"name": "cpu", "weight": 1 << 10}, {"name": "memory", "weight": 2}], "mode": "Most"},
            id="set non default NodeResourcesAllocatableArgs",
        ),
        # SetDefaults: len(resources) == 0 counts as unset; mode "" counts as unset
        pytest.param(
            {"resources": [], "mode": ""},
            {"resources": [{"name": "cpu", "weight": 1 << 20}, {"name": "memory", "weight": 1}], "mode": "Least"},
            id="empty resources and mode",
        ),
    ],
)
def test_default_args(given, expected):
    assert default_args(given) == expected


def test_default_args_does_not_alias_defaults():
    first = default_args(None)
    first["resources"][0]["weight"] = 7
    assert default_args(None)["resources"][0]["weight"] == 1 << 20


@pytest.mark.parametrize(
    "args, expected",
    [
        # upstream: validation_plugingargs_test.go TestValidateNodeResourcesAllocatableArgs
        pytest.param(
            {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 2}], "mode": "Least"},
            None,
            id="correct config with valid resources and mode",
        ),
        pytest.param(
            {"resources": [{"name": "cpu", "weight": 0}, {"name": "memory", "weight": -1}], "mode": "Least"},
            "[resources[0].weight: Invalid value: 0: resource weight of cpu should be a positive value, got :0, "
            "resources[1].weight: Invalid value: -1: resource weight of memory should be a positive value, got :-1]",
            id="invalid resource weight (non-positive value)",
        ),
        pytest.param(
            {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 2}], "mode": "not existent"},
            'mode: Invalid value: "not existent": invalid support ModeType',
            id="invalid ModeType",
        ),
    ],
)
def test_validate_args(args, expected):
    errs = validate_args(args)
    if expected is None:
        assert errs == []
    else:
        assert aggregate(errs) == expected  # field.ErrorList.ToAggregate().Error()


def test_defaulted_args_are_valid():
    assert validate_args(default_args(None)) == []


@pytest.mark.parametrize(
    "args, ok",
    [
        pytest.param({"mode": "Most", "resources": [{"name": "cpu", "weight": 3}]}, True, id="valid"),
        pytest.param({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "NodeResourcesAllocatableArgs"}, True, id="typed"),
        pytest.param({"mode": "Most", "typo": 1}, False, id="unknown field (strict decoding)"),
        pytest.param({"resources": [{"name": "cpu", "weight": "3"}]}, False, id="weight not an integer"),
        pytest.param({"resources": [{"name": "cpu", "weight": 1 << 63}]}, False, id="weight beyond int64"),
        pytest.param({"resources": [{"name": "cpu", "wieght": 1}]}, False, id="unknown resource field"),
        pytest.param({"kind": "NodeResourcesFitArgs"}, False, id="wrong kind"),
    ],
)
def test_args_schema(args, ok):
    Draft202012Validator.check_schema(ARGS_SCHEMA)
    errors = list(Draft202012Validator(ARGS_SCHEMA).iter_errors(args))
    assert (errors == []) is ok, errors
    # the dataclass decodes strictly too: the same inputs fail
    try:
        NodeResourcesAllocatableArgs.decode(args)
        decoded = True
    except ArgsError:
        decoded = False
    assert decoded is ok


def test_args_schema_matches_the_dataclass():
    assert schema_problems(NodeResourcesAllocatableArgs, ARGS_SCHEMA) == []


def test_plugin_spec():
    spec = plugin_spec()
    assert spec.name == NAME == "NodeResourcesAllocatable"
    assert spec.plugin_class is NodeResourcesAllocatable
    assert spec.args_kind == "NodeResourcesAllocatableArgs"
    assert spec.extension_points == ["score"]
    assert spec.args_schema is ARGS_SCHEMA
    assert spec.args_type is NodeResourcesAllocatableArgs
    assert spec.args_type.from_dict(None).mode == "Least"
    plugin = spec.factory(spec.args_type.from_dict(None), None)
    assert plugin.name() == NAME and plugin.score_extensions() is plugin


def test_hook_returns_the_spec():
    from kschedctl_node_resources_allocatable import hooks

    specs = hooks.kschedctl_register_plugins()
    assert [s.name for s in specs] == [NAME]


def test_registered_through_entry_point():
    """Installed (pip install -e .): kschedctl's plugin manager finds it under the `kschedctl` group."""
    import importlib.metadata

    eps = [ep for ep in importlib.metadata.entry_points(group="kschedctl") if ep.value == "kschedctl_node_resources_allocatable.hooks"]
    if not eps:
        pytest.skip("package not installed: pip install --no-deps -e plugins/kschedctl-node-resources-allocatable")
    from kschedctl.plugins.plugin_manager import build_registry

    loaded = build_registry()
    spec = loaded.registry[NAME]
    assert (spec.source, spec.version) == ("kschedctl-node-resources-allocatable", "0.1.0")
