"""Typed plugin args: strict decoding, defaulting and validation in one dataclass per kind, the
shipped JSON Schemas held to the dataclasses, and `schedule --config` refusing what strict
decoding refuses.

Upstream: pkg/scheduler/apis/config/types_pluginargs.go, v1/defaults.go,
validation/validation_pluginargs.go; the scheme decodes pluginConfig args strictly (an unknown
field is an error: "strict decoding error: unknown field").
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import pytest

from kschedctl.config.schema import ARGS_SCHEMAS, load_schema
from kschedctl.framework import ArgsError, ArgsStruct, Int32, PluginArgs
from kschedctl.framework.args import schema_problems
from kschedctl.plugins.node_resources.args import NodeResourcesFitArgs, ResourceSpec, ScoringStrategy
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.testing import make_node, make_pod


@pytest.mark.parametrize("plugin", sorted(ARGS_SCHEMAS))
def test_shipped_schema_matches_the_args_dataclass(plugin):
    spec = default_registry().registry[plugin]
    assert spec.args_type is not None and spec.args_kind == load_schema(ARGS_SCHEMAS[plugin])["title"]
    assert schema_problems(spec.args_type, load_schema(ARGS_SCHEMAS[plugin])) == []


@dataclass(frozen=True)
class Point(ArgsStruct):
    x: Int32 = 0


@dataclass(frozen=True)
class DemoArgs(PluginArgs):
    KIND: ClassVar[str] = "DemoArgs"
    points: tuple[Point, ...] | None = None
    name: str | None = None


def test_schema_problems_finds_a_drifted_schema():
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {"points": {"type": "array", "items": {"$ref": "#/$defs/Point"}}, "nmae": {"type": "string"}},
        "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "string"}}}},
    }
    assert schema_problems(DemoArgs, schema) == [
        "name: only in the dataclass",
        "nmae: only in the schema",
        "points[]: the schema allows unknown fields",
        "points[].x: range [None, None] in the schema, [-2147483648, 2147483647] in the dataclass",
        "points[].x: ['string'] in the schema, integer in the dataclass",
    ]


@pytest.mark.parametrize(
    "data, errors",
    [
        pytest.param(
            {"scoringStratgy": {}},
            [("scoringStratgy", 'unknown field "scoringStratgy" (did you mean "scoringStrategy"?)')],
            id="unknown field",
        ),
        pytest.param({"scoringStrategy": {"type": 1}}, [("scoringStrategy.type", "Invalid value: 1: must be a string")], id="wrong type"),
        pytest.param(
            {"scoringStrategy": {"resources": [{"name": "cpu", "weight": "3"}]}},
            [("scoringStrategy.resources[0].weight", 'Invalid value: "3": must be an integer')],
            id="nested",
        ),
        pytest.param(
            {"scoringStrategy": {"resources": [{"name": "cpu", "weight": 1 << 63}]}},
            [("scoringStrategy.resources[0].weight", "Invalid value: 9223372036854775808: out of range, must be <= 9223372036854775807")],
            id="beyond int64",
        ),
        pytest.param({"ignoredResources": "cpu"}, [("ignoredResources", 'Invalid value: "cpu": must be a list')], id="not a list"),
        pytest.param(
            {"kind": "InterPodAffinityArgs"},
            [("kind", 'Invalid value: "InterPodAffinityArgs": must be "NodeResourcesFitArgs"')],
            id="another kind",
        ),
    ],
)
def test_strict_decoding(data, errors):
    # the same paths and messages as the JSON Schema stage of `validate` (config/schema.py)
    with pytest.raises(ArgsError) as exc:
        NodeResourcesFitArgs.from_dict(data)
    assert exc.value.errors == errors


def test_defaulting_and_json_form():
    # v1 defaults.go SetDefaults_NodeResourcesFitArgs
    args = NodeResourcesFitArgs.from_dict({"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu"}]}})
    assert args.scoring_strategy == ScoringStrategy("MostAllocated", (ResourceSpec("cpu", 1),))
    assert args.to_dict() == {"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}]}}
    assert NodeResourcesFitArgs.from_dict(args.to_dict()) == args  # round trip
    with pytest.raises(dataclasses.FrozenInstanceError):
        args.scoring_strategy = None  # type: ignore[misc]  # frozen


def test_schedule_refuses_an_args_typo(run_cli, write_snapshot, tmp_path):
    """`schedule --config` decodes args strictly too: a typo is one error line and exit 2, never
    silently ignored with the defaults used."""
    cfg = tmp_path / "typo.yaml"
    cfg.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
        "- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStratgy: {type: MostAllocated}\n"
    )
    snap = write_snapshot(make_node("n1").capacity(cpu="2", memory="4Gi"), make_pod("p").req(cpu="1"))
    out = run_cli("schedule", snap, "--config", str(cfg))
    assert out.exit_code == 2
    assert out.stderr.strip().splitlines() == [
        f"error: {cfg}:7: KubeSchedulerConfiguration: profiles[0].pluginConfig[0].args.scoringStratgy: "
        'unknown field "scoringStratgy" (did you mean "scoringStrategy"?)'
    ]
