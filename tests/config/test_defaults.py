"""v1 defaulting: mergePluginSet (apis/config/v1/default_plugins.go, default_plugins_test.go
TestMergePlugins) and MultiPoint expansion (framework/runtime/framework.go expandMultiPointPlugins,
framework_test.go TestNewFrameworkMultiPointExpansion)."""

import pytest

from kschedctl.config.defaults import merge_plugin_set
from kschedctl.config.loader import load_config_text
from kschedctl.framework.config_types import Plugin, PluginSet
from kschedctl.framework.registry import PluginSpec, Registry
from kschedctl.runtime.framework import Framework, FrameworkError
from kschedctl.runtime.services import Services
from kschedctl.versions import KubeVersion


def names(plugins):
    return [(p.name, p.weight) for p in plugins]


def test_merge_replaces_a_default_in_place_and_appends_new_ones():
    # TestMergePlugins "enable a custom plugin and re-configure a default one"
    default = PluginSet(enabled=[Plugin("A"), Plugin("B", 1), Plugin("C")])
    custom = PluginSet(enabled=[Plugin("X", 5), Plugin("B", 7)])
    merged = merge_plugin_set(default, custom)
    assert names(merged.enabled) == [("A", None), ("B", 7), ("C", None), ("X", 5)]


def test_merge_disabling_star_drops_every_default():
    # TestMergePlugins "disable all default plugins with '*'"
    default = PluginSet(enabled=[Plugin("A"), Plugin("B")])
    custom = PluginSet(enabled=[Plugin("B", 3)], disabled=[Plugin("*")])
    merged = merge_plugin_set(default, custom)
    assert names(merged.enabled) == [("B", 3)]
    assert [p.name for p in merged.disabled] == ["*"]


def test_merge_keeps_duplicate_custom_plugins_for_the_framework_to_reject():
    merged = merge_plugin_set(PluginSet(enabled=[Plugin("A")]), PluginSet(enabled=[Plugin("X"), Plugin("X")]))
    assert names(merged.enabled) == [("A", None), ("X", None), ("X", None)]


# --- MultiPoint expansion with fake plugins --------------------------------------------------


class _Base:
    def __init__(self, args, handle):
        self.args = args

    def name(self):
        return type(self).__name__


class Sort(_Base):
    def less(self, a, b):
        return True


class Bind(_Base):
    def bind(self, state, pod, node):
        return None


class FilterScore(_Base):
    def filter(self, state, pod, node_info):
        return None

    def score(self, state, pod, node_info):
        return 0, None

    def score_extensions(self):
        return None


class OnlyFilter(_Base):
    def filter(self, state, pod, node_info):
        return None


class OnlyScore(_Base):
    def score(self, state, pod, node_info):
        return 0, None

    def score_extensions(self):
        return None


def _registry():
    r = Registry()
    for cls in (Sort, Bind, FilterScore, OnlyFilter, OnlyScore):
        r.register(PluginSpec(cls.__name__, cls, cls))
    return r


BASE = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: test
  plugins:
    multiPoint:
      disabled: [{name: "*"}]
      enabled: [{name: Sort}, {name: Bind}%s]
%s
"""


def _framework(mp_extra="", points=""):
    registry = _registry()
    cfg = load_config_text(BASE % (mp_extra, points), "t.yaml", KubeVersion(), registry)
    return Framework(cfg.profiles[0], registry, Services.minimal())


def test_multipoint_expands_to_every_point_a_plugin_implements():
    fwk = _framework(", {name: FilterScore, weight: 5}, {name: OnlyFilter}")
    assert fwk.list_plugins()["filter"] == ["FilterScore", "OnlyFilter"]
    assert fwk.list_plugins()["score"] == ["FilterScore"]
    assert fwk.score_weights == {"FilterScore": 5}


def test_specific_point_overrides_come_first_with_their_own_weight():
    # framework_test.go "Override MultiPoint plugins weights": the specific entry wins
    points = "    score:\n      enabled: [{name: OnlyScore, weight: 2}, {name: FilterScore, weight: 9}]\n"
    fwk = _framework(", {name: FilterScore, weight: 5}", points)
    # overrides first in the point's order, then MultiPoint-only plugins, then the rest
    assert fwk.list_plugins()["score"] == ["FilterScore", "OnlyScore"]
    assert fwk.score_weights == {"FilterScore": 9, "OnlyScore": 2}


def test_disabling_a_plugin_at_one_point_keeps_it_elsewhere():
    points = "    score:\n      disabled: [{name: FilterScore}]\n"
    fwk = _framework(", {name: FilterScore}", points)
    assert "score" not in fwk.list_plugins()
    assert fwk.list_plugins()["filter"] == ["FilterScore"]


def test_star_at_a_point_takes_nothing_from_multipoint():
    points = "    filter:\n      disabled: [{name: '*'}]\n      enabled: [{name: OnlyFilter}]\n"
    fwk = _framework(", {name: FilterScore}", points)
    assert fwk.list_plugins()["filter"] == ["OnlyFilter"]
    assert fwk.list_plugins()["score"] == ["FilterScore"]


def test_unset_or_zero_weight_becomes_one():
    fwk = _framework(", {name: OnlyScore, weight: 0}")
    assert fwk.score_weights == {"OnlyScore": 1}


@pytest.mark.parametrize(
    "mp_extra,points,message",
    [
        (", {name: FilterScore}, {name: FilterScore}", "", "already registered as"),
        (", {name: Nope}", "", '"Nope" does not exist'),
        ("", "    bind:\n      disabled: [{name: Bind}]\n", 'at least one bind plugin is needed for profile with scheduler name "test"'),
        ("", "    filter:\n      enabled: [{name: Sort}]\n", 'plugin "Sort" does not extend FilterPlugin plugin'),
    ],
)
def test_framework_construction_errors(mp_extra, points, message):
    with pytest.raises(FrameworkError, match=message):
        _framework(mp_extra, points)


def test_multiple_queue_sort_plugins_are_rejected():
    registry = _registry()

    class Sort2(Sort):
        pass

    registry.register(PluginSpec("Sort2", Sort2, Sort2))
    cfg = load_config_text(BASE % (", {name: Sort2}", ""), "t.yaml", KubeVersion(), registry)
    with pytest.raises(FrameworkError, match='only one queue sort plugin required for profile with scheduler name "test", but got 2'):
        Framework(cfg.profiles[0], registry, Services.minimal())
