"""DynamicResources: upstream dynamicresources/dynamicresources_test.go TestPlugin "empty"
(a pod without claims), and validation_pluginargs_test.go / defaults for DynamicResourcesArgs."""

from __future__ import annotations

import pytest
from volume_fixtures import volume_framework

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.gosemantics import parse_duration
from kschedctl.framework.interface import Code, NodeScore
from kschedctl.plugins import dynamic_resources as dra
from kschedctl.testing import args_defaults, args_errors, make_node, make_pod
from kschedctl.versions import KubeVersion


def setup(version=None):
    fwk = volume_framework(nodes=[make_node("n1").obj(), make_node("n2").obj()], version=version)
    return fwk, fwk.instances["DynamicResources"]


def test_pod_without_claims():
    # upstream: TestPlugin "empty": prefilter Skip, postfilter Unschedulable "no new claims to deallocate",
    # prebindPreFlight Skip
    fwk, pl = setup()
    pod = make_pod("foo").obj()
    assert pl.pre_enqueue(pod) is None
    state = CycleState()
    result, status = pl.pre_filter(state, pod, fwk.snapshot.list())
    assert result is None and status.code == Code.Skip
    assert pl.filter(state, pod, fwk.snapshot.get("n1")) is None
    _, post = pl.post_filter(state, pod, None)
    assert (post.code, post.reasons) == (Code.Unschedulable, ["no new claims to deallocate"])
    assert pl.score(state, pod, fwk.snapshot.get("n1")) == (0, None)
    scores = [NodeScore("n1", 0), NodeScore("n2", 0)]
    assert pl.score_extensions().normalize_score(state, pod, scores) is None
    assert [s.score for s in scores] == [0, 0]
    assert pl.reserve(state, pod, "n1") is None
    assert pl.unreserve(state, pod, "n1") is None
    assert pl.pre_bind_pre_flight(state, pod, "n1").code == Code.Skip
    assert pl.pre_bind(state, pod, "n1") is None


def test_runtime_post_filter_message():
    # reference section 12: the PostFilter part of every 1.35 FitError starts with this text
    fwk, _ = setup()
    pod = make_pod("foo").obj()
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod, fwk.snapshot.list())
    _, status = fwk.instances["DynamicResources"].post_filter(state, pod, None)
    assert status.message() == "no new claims to deallocate"


def test_normalize_score_default_normalize():
    # upstream: helper.DefaultNormalizeScore(MaxNodeScore, false)
    _, pl = setup()
    scores = [NodeScore("n1", 3), NodeScore("n2", 6)]
    pl.normalize_score(CycleState(), make_pod("p").obj(), scores)
    assert [s.score for s in scores] == [50, 100]


def test_plugin_disabled_without_feature_gate():
    # upstream: dynamicresources.go `if !pl.enabled` paths
    fwk, pl = setup(KubeVersion().with_gates(DynamicResourceAllocation=False))
    pod = make_pod("foo").obj()
    state = CycleState()
    assert pl.pre_filter(state, pod, fwk.snapshot.list())[1].code == Code.Skip
    _, post = pl.post_filter(state, pod, None)
    assert post.reasons == ["plugin disabled"]


@pytest.mark.parametrize(
    "version, want",
    [
        pytest.param("1.35", {"filterTimeout": "10s"}, id="1.35-no-binding-conditions"),
        pytest.param("1.36", {"filterTimeout": "10s", "bindingTimeout": "10m0s"}, id="1.36-binding-conditions-beta"),
        pytest.param("1.37", {"filterTimeout": "10s", "bindingTimeout": "10m0s"}, id="1.37"),
    ],
)
def test_default_args(version, want):
    # upstream: apis/config/v1 defaults.go SetDefaults_DynamicResourcesArgs
    assert args_defaults(dra.DynamicResourcesArgs, None, KubeVersion(version)) == want


@pytest.mark.parametrize(
    "version, args, want",
    [
        pytest.param("1.37", {"filterTimeout": "10s", "bindingTimeout": "10m0s"}, [], id="valid"),
        pytest.param(
            "1.37",
            {"filterTimeout": "-1s"},
            [("filterTimeout", 'Invalid value: "-1s": must be zero or positive')],
            id="negative-filter-timeout",
        ),
        pytest.param(
            "1.37",
            {"bindingTimeout": "500ms"},
            [("bindingTimeout", 'Invalid value: "500ms": must be at least 1 second')],
            id="binding-timeout-too-short",
        ),
        pytest.param(
            "1.35",
            {"bindingTimeout": "1m"},
            [("bindingTimeout", "Forbidden: DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled")],
            id="binding-timeout-forbidden-in-1.35",
        ),
    ],
)
def test_validate_args(version, args, want):
    # upstream: validation_pluginargs.go ValidateDynamicResourcesArgs (the bad *metav1.Duration is printed
    # as JSON: its String() quoted, as field.Error prints values that are not simple types)
    assert args_errors(dra.DynamicResourcesArgs, args, KubeVersion(version)) == want


def test_parse_duration():
    # time.ParseDuration, now in gosemantics (its own tests: tests/test_gosemantics.py)
    assert parse_duration("1m30s") == 90 and parse_duration("-1s") == -1 and parse_duration("0") == 0
    with pytest.raises(ValueError, match='time: invalid duration "10"'):
        parse_duration("10")
