"""Feature gates: one Features object for plugins (feature.Features upstream), and no gate
name that can be misspelled into "off".

Upstream: pkg/scheduler/framework/plugins/feature/feature.go; pkg/features/kube_features.go.
"""

from __future__ import annotations

import ast
from dataclasses import fields
from pathlib import Path

import pytest

from kschedctl.framework.features import Features, field_name
from kschedctl.versions import FEATURE_GATES, KubeVersion, UnknownFeatureGate

ROOT = Path(__file__).resolve().parent.parent


def test_one_field_per_gate():
    assert sorted(f.name for f in fields(Features)) == sorted(field_name(g) for g in FEATURE_GATES)


@pytest.mark.parametrize("release", ["1.35", "1.36", "1.37"])
def test_features_follow_the_release_and_overrides(release):
    version = KubeVersion(release, {"GangScheduling": True})
    features = Features.of(version)
    for gate in FEATURE_GATES:
        assert getattr(features, field_name(gate)) == version.feature_enabled(gate)
    assert features.gang_scheduling is True
    assert Features.of(KubeVersion("1.35")).dra_device_binding_conditions is False
    assert Features.of(KubeVersion("1.36")).dra_device_binding_conditions is True


def test_unknown_gate_raises_instead_of_reading_false():
    with pytest.raises(UnknownFeatureGate, match="SchedulerQueueingHint'"):
        KubeVersion().feature_enabled("SchedulerQueueingHint")  # typo of SchedulerQueueingHints
    with pytest.raises(UnknownFeatureGate):
        KubeVersion("1.37", {"NoSuchGate": True})


def test_every_gate_named_in_the_code_exists():
    """Every string literal passed to feature_enabled(...) anywhere in kschedctl is a known gate."""
    named = []
    for path in (ROOT / "kschedctl").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "feature_enabled"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                named.append((path.name, node.args[0].value))
    assert named, "the scan found no call sites"
    assert [(f, g) for f, g in named if g not in FEATURE_GATES] == []
