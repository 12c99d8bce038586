"""NodeLabel's Filter, Score, args and hints, case by case.

upstream: pkg/scheduler/framework/plugins/nodelabel/node_label_test.go (TestValidateNodeLabelArgs,
TestNodeLabelFilter, TestNodeLabelScore, TestNodeLabelFilterWithoutNode,
TestNodeLabelScoreWithoutNode) and apis/config/validation/validation_pluginargs.go
(ValidateNodeLabelArgs: the messages).
"""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator
from kschedctl_node_label import ARGS_SCHEMA, ERR_REASON_PRESENCE_VIOLATED, NAME, NodeLabel, NodeLabelArgs, plugin_spec

from kschedctl.framework import (
    MAX_NODE_SCORE,
    ArgsError,
    Code,
    CycleState,
    Features,
    FilterPlugin,
    NodeInfo,
    QueueingHint,
)
from kschedctl.framework.args import schema_problems
from kschedctl.testing import make_node, make_pod

POD = make_pod("p").obj()


def plugin(args: dict[str, Any] | None) -> NodeLabel:
    """The plugin as kschedctl builds it: args decoded and defaulted first (no handle needed)."""
    return NodeLabel(NodeLabelArgs.from_dict(args), None)


def node_info(**labels: str) -> NodeInfo:
    builder = make_node("machine1")
    for key, value in labels.items():
        builder = builder.label(key, value)
    return NodeInfo(builder.obj())


# --- args -------------------------------------------------------------------------------------

VALIDATE = [
    # upstream: TestValidateNodeLabelArgs "happy case"
    (
        "happy case",
        {
            "presentLabels": ["foo", "bar"],
            "absentLabels": ["baz"],
            "presentLabelsPreference": ["foo", "bar"],
            "absentLabelsPreference": ["baz"],
        },
        [],
    ),
    # upstream: TestValidateNodeLabelArgs "label presence conflict"
    (
        "label presence conflict",
        {
            "presentLabels": ["foo", "bar"],
            "absentLabels": ["bar", "baz"],
            "presentLabelsPreference": ["foo", "bar"],
            "absentLabelsPreference": ["baz"],
        },
        [("presentLabels[1]", 'Invalid value: "bar": conflict with absentLabels[0]')],
    ),
    # upstream: TestValidateNodeLabelArgs "label preference conflict"
    (
        "label preference conflict",
        {
            "presentLabels": ["foo", "bar"],
            "absentLabels": ["baz"],
            "presentLabelsPreference": ["foo", "bar"],
            "absentLabelsPreference": ["bar", "baz"],
        },
        [("presentLabelsPreference[1]", 'Invalid value: "bar": conflict with absentLabelsPreference[0]')],
    ),
    # upstream: TestValidateNodeLabelArgs "both label presence and preference conflict"
    (
        "both label presence and preference conflict",
        {
            "presentLabels": ["foo", "bar"],
            "absentLabels": ["bar", "baz"],
            "presentLabelsPreference": ["foo", "bar"],
            "absentLabelsPreference": ["bar", "baz"],
        },
        [
            ("presentLabels[1]", 'Invalid value: "bar": conflict with absentLabels[0]'),
            ("presentLabelsPreference[1]", 'Invalid value: "bar": conflict with absentLabelsPreference[0]'),
        ],
    ),
    # validateNoConflict keeps the last index of a label listed twice
    (
        "present label listed twice",
        {"presentLabels": ["a", "b", "a"], "absentLabels": ["a"]},
        [("presentLabels[2]", 'Invalid value: "a": conflict with absentLabels[0]')],
    ),
]


@pytest.mark.parametrize("args, errors", [c[1:] for c in VALIDATE], ids=[c[0] for c in VALIDATE])
def test_validate_args(args: dict[str, Any], errors: list[tuple[str, str]]) -> None:
    assert [tuple(e) for e in NodeLabelArgs.from_dict(args).validate(Features.default())] == errors
    if errors:  # New refuses them too
        with pytest.raises(ArgsError):
            plugin(args)


def test_args_are_decoded_strictly() -> None:
    with pytest.raises(ArgsError, match='unknown field "presentLabel"'):
        NodeLabelArgs.from_dict({"presentLabel": ["foo"]})
    assert NodeLabelArgs.from_dict(None) == NodeLabelArgs()
    assert NodeLabelArgs.from_dict({"presentLabels": ["a"]}).to_dict() == {"presentLabels": ["a"]}


def test_the_schema_matches_the_args_type() -> None:
    Draft202012Validator.check_schema(ARGS_SCHEMA)
    assert schema_problems(NodeLabelArgs, ARGS_SCHEMA) == []


def test_plugin_spec() -> None:
    spec = plugin_spec()
    assert (spec.name, spec.args_type, spec.extension_points) == (NAME, NodeLabelArgs, ["filter", "score"])
    assert isinstance(plugin(None), FilterPlugin)


# --- Filter -------------------------------------------------------------------------------------

FILTER = [
    # upstream: TestNodeLabelFilter, node labels {foo, bar}
    ("present label does not match", {"presentLabels": ["baz"]}, Code.UnschedulableAndUnresolvable),
    ("absent label does not match", {"absentLabels": ["baz"]}, Code.Success),
    ("one of two present labels matches", {"presentLabels": ["foo", "baz"]}, Code.UnschedulableAndUnresolvable),
    ("one of two absent labels matches", {"absentLabels": ["foo", "baz"]}, Code.UnschedulableAndUnresolvable),
    ("all present abels match", {"presentLabels": ["foo", "bar"]}, Code.Success),
    ("all absent labels match", {"absentLabels": ["foo", "bar"]}, Code.UnschedulableAndUnresolvable),
    ("both present and absent label matches", {"presentLabels": ["foo"], "absentLabels": ["bar"]}, Code.UnschedulableAndUnresolvable),
    ("neither present nor absent label matches", {"presentLabels": ["foz"], "absentLabels": ["baz"]}, Code.UnschedulableAndUnresolvable),
    ("present label matches and absent label doesn't match", {"presentLabels": ["foo"], "absentLabels": ["baz"]}, Code.Success),
    (
        "present label doesn't match and absent label matches",
        {"presentLabels": ["foz"], "absentLabels": ["bar"]},
        Code.UnschedulableAndUnresolvable,
    ),
    # node_label.go: with neither list every node passes
    ("no labels asked for", {}, Code.Success),
]


@pytest.mark.parametrize("args, code", [c[1:] for c in FILTER], ids=[c[0] for c in FILTER])
def test_filter(args: dict[str, Any], code: Code) -> None:
    status = plugin(args).filter(CycleState(), POD, node_info(foo="any value", bar="any value"))
    if code == Code.Success:
        assert status is None
    else:
        assert status is not None
        assert (status.code, status.reasons) == (code, [ERR_REASON_PRESENCE_VIOLATED])


def test_filter_without_node() -> None:
    # upstream: TestNodeLabelFilterWithoutNode "node does not exist"
    status = plugin(None).filter(CycleState(), POD, NodeInfo())
    assert status is not None and (status.code, status.message()) == (Code.Error, "node not found")


# --- Score --------------------------------------------------------------------------------------

SCORE = [
    # upstream: TestNodeLabelScore, node labels {foo: "", bar: ""}
    ("one present label match", {"presentLabelsPreference": ["foo"]}, MAX_NODE_SCORE),
    ("one present label mismatch", {"presentLabelsPreference": ["somelabel"]}, 0),
    ("two present labels match", {"presentLabelsPreference": ["foo", "bar"]}, MAX_NODE_SCORE),
    ("two present labels mismatch", {"presentLabelsPreference": ["somelabel1", "somelabel2"]}, 0),
    ("two present labels only one matches", {"presentLabelsPreference": ["foo", "somelabel"]}, MAX_NODE_SCORE // 2),
    ("one absent label match", {"absentLabelsPreference": ["foo"]}, 0),
    ("one absent label mismatch", {"absentLabelsPreference": ["somelabel"]}, MAX_NODE_SCORE),
    ("two absent labels match", {"absentLabelsPreference": ["foo", "bar"]}, 0),
    ("two absent labels mismatch", {"absentLabelsPreference": ["somelabel1", "somelabel2"]}, MAX_NODE_SCORE),
    ("two absent labels only one matches", {"absentLabelsPreference": ["foo", "somelabel"]}, MAX_NODE_SCORE // 2),
    (
        "two present labels match, two absent labels mismatch",
        {"presentLabelsPreference": ["foo", "bar"], "absentLabelsPreference": ["somelabel1", "somelabel2"]},
        MAX_NODE_SCORE,
    ),
    (
        "two present labels both mismatch, two absent labels both match",
        {"absentLabelsPreference": ["foo", "bar"], "presentLabelsPreference": ["somelabel1", "somelabel2"]},
        0,
    ),
    (
        "two present labels one matches, two absent labels mismatch",
        {"presentLabelsPreference": ["foo", "somelabel"], "absentLabelsPreference": ["somelabel1", "somelabel2"]},
        3 * MAX_NODE_SCORE // 4,
    ),
    # node_label.go: no preference at all scores 0 (no division by zero)
    ("no preferences", {}, 0),
    # Go's integer division: 2 of 3 preferences is 66, not 67
    ("two of three preferences", {"presentLabelsPreference": ["foo", "bar", "somelabel"]}, 66),
]


@pytest.mark.parametrize("args, want", [c[1:] for c in SCORE], ids=[c[0] for c in SCORE])
def test_score(args: dict[str, Any], want: int) -> None:
    assert plugin(args).score(CycleState(), POD, node_info(foo="", bar="")) == (want, None)


def test_score_without_node() -> None:
    # upstream: TestNodeLabelScoreWithoutNode "node does not exist"
    score, status = plugin(None).score(CycleState(), POD, NodeInfo())
    assert score == 0 and status is not None and status.code == Code.Error


# --- queueing hints -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "labels, hint",
    [
        ({"disk": "ssd"}, QueueingHint.Queue),
        ({"disk": "ssd", "retiring": "2026-01-01"}, QueueingHint.QueueSkip),
        ({}, QueueingHint.QueueSkip),
    ],
    ids=["passes", "has-an-absent-label", "lacks-the-present-label"],
)
def test_a_rejected_pod_is_retried_only_for_a_node_that_passes(labels: dict[str, str], hint: QueueingHint) -> None:
    pl = plugin({"presentLabels": ["disk"], "absentLabels": ["retiring"]})
    events = {(h.event.resource, h.event.action) for h in pl.events_to_register()}
    assert events == {("Node", "Add"), ("Node", "UpdateNodeLabel")}
    node = node_info(**labels).node
    assert node is not None
    assert pl.is_schedulable_after_node_change(POD, None, node) == hint
