"""Tests of `kschedctl validate` (validate_files / validate_config) and of the shipped schemas.

Upstream cases come from pkg/scheduler/apis/config/validation/validation_test.go
(TestValidateKubeSchedulerConfigurationV1*), framework/runtime/framework_test.go (TestNewFramework)
and component-base/config/validation; kschedctl's own checks say so.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest
from jsonschema import Draft202012Validator

from kschedctl.config.checker import (
    ValidationReport,
    format_path,
    parse_path,
    validate_files,
    validate_text,
)
from kschedctl.config.loader import load_config_text
from kschedctl.config.schema import ARGS_SCHEMAS, load_schema, schema_files
from kschedctl.config.validation import validate_config
from kschedctl.framework.args import PluginArgs, Raw
from kschedctl.framework.registry import PluginSpec, Registry
from kschedctl.versions import KubeVersion

REPO = Path(__file__).resolve().parents[2]
HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
V = KubeVersion()


def check(text: str, registry: Registry, tmp_path: Path) -> ValidationReport:
    path = tmp_path / "config.yaml"
    path.write_text(textwrap.dedent(text))
    [report] = validate_files([str(path)], V, registry)
    assert report.file == str(path)
    return report


# --- the shipped files ---------------------------------------------------------------------------
def test_schemas_are_kept_once():
    """kschedctl/schemas/ (package data, in the wheel) is the only copy; the repository's
    schemas/ is a link to it, so the two can never drift."""
    exported, shipped = REPO / "schemas", REPO / "kschedctl" / "schemas"
    assert exported.is_symlink() and exported.resolve() == shipped.resolve()
    assert sorted(p.name for p in shipped.glob("*.json")) == schema_files()


def test_schemas_are_valid_draft_2020_12_with_one_per_args_kind():
    for name in schema_files():
        schema = load_schema(name)
        Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert {load_schema(f)["title"] for f in ARGS_SCHEMAS.values()} == {
        "NodeResourcesFitArgs",
        "NodeResourcesBalancedAllocationArgs",
        "PodTopologySpreadArgs",
        "InterPodAffinityArgs",
        "NodeAffinityArgs",
        "VolumeBindingArgs",
        "DefaultPreemptionArgs",
        "DynamicResourcesArgs",
        "PlacementBinPackingArgs",
    }
    points = load_schema("kubescheduler-config-v1.json")["$defs"]["Plugins"]["properties"]
    assert {"multiPoint", "preEnqueue", "queueSort", "bind", "placementGenerate", "placementScore"} <= set(points)


PROFILES = sorted((REPO / "profiles").glob("*.yaml"))


@pytest.mark.parametrize("profile", PROFILES, ids=[p.name for p in PROFILES])
def test_every_profile_validates(profile, registry):
    [report] = validate_files([str(profile)], V, registry)
    assert report.valid, [str(f) for f in report.findings]
    assert [f for f in report.findings if f.severity == "error"] == []


def test_profiles_present():
    assert {p.name for p in PROFILES} >= {
        "default.yaml",
        "bin-packing.yaml",
        "gpu-requested-to-capacity-ratio.yaml",
        "zone-spreading.yaml",
        "two-profiles.yaml",
        "gang-scheduling.yaml",
    }


def test_default_profile_file_is_the_builtin_default(registry):
    """profiles/default.yaml builds the same framework as no configuration at all."""
    from kschedctl.runtime.framework import Framework
    from kschedctl.runtime.services import Services

    written = load_config_text((REPO / "profiles" / "default.yaml").read_text(), "default.yaml", V, registry)
    builtin = load_config_text("", "<default>", V, registry)
    fw = Framework(written.profiles[0], registry, Services.minimal())
    fb = Framework(builtin.profiles[0], registry, Services.minimal())
    assert {k: [p.name() for p in v] for k, v in fw.points.items()} == {k: [p.name() for p in v] for k, v in fb.points.items()}
    assert fw.score_weights == fb.score_weights
    builtin_args = {pc.name: pc.args for pc in builtin.profiles[0].plugin_config}
    for pc in written.profiles[0].plugin_config:
        if builtin_args.get(pc.name) is not None:
            assert pc.args == builtin_args[pc.name], pc.name


# --- YAML and schema stage -----------------------------------------------------------------------
def test_yaml_syntax_error_reports_line_and_column(registry, tmp_path):
    report = check(HEAD + "profiles:\n  - schedulerName: a\n    plugins: [\n", registry, tmp_path)
    [f] = report.findings
    assert not report.valid and f.line == 6 and f.column == 1
    assert f.message.startswith("malformed YAML: line 6, column 1: ")


def test_yaml_bad_indentation_reports_line_and_column(registry, tmp_path):
    report = check(HEAD + "parallelism: 4\n  percentageOfNodesToScore: 5\n", registry, tmp_path)
    [f] = report.findings
    assert (f.line, f.column) == (4, 27)
    assert "mapping values are not allowed here" in f.message


def test_every_schema_error_is_reported_with_path_and_line(registry, tmp_path):
    text = HEAD + textwrap.dedent("""\
        paralelism: 4
        podInitialBackoffSeconds: "1"
        profiles:
          - schedulerName: a
            plugins:
              score:
                enabled:
                  - weight: 2
                  - name: ImageLocality
                    weight: 3000000000
            pluginConfig:
              - name: NodeResourcesFit
                args:
                  scoringStrategy:
                    typ: MostAllocated
        """)
    report = check(text, registry, tmp_path)
    got = [(f.path, f.line, f.message) for f in report.findings]
    assert got == [
        ("paralelism", 3, 'unknown field "paralelism" (did you mean "parallelism"?)'),
        ("podInitialBackoffSeconds", 4, 'Invalid value: "1": must be an integer'),
        ("profiles[0].plugins.score.enabled[0].name", 10, "Required value"),
        ("profiles[0].plugins.score.enabled[1].weight", 12, "Invalid value: 3000000000: out of range, must be <= 2147483647"),
        ("profiles[0].pluginConfig[0].args.scoringStrategy.typ", 17, 'unknown field "typ" (did you mean "type"?)'),
    ]


def test_duplicate_key_is_an_error(registry, tmp_path):
    report = check(HEAD + "parallelism: 4\nparallelism: 8\n", registry, tmp_path)
    [f] = report.findings
    assert (f.path, f.line, f.message) == ("parallelism", 4, 'key "parallelism" already set in map')


def test_empty_document(registry, tmp_path):
    report = check("# nothing\n", registry, tmp_path)
    assert not report.valid and "empty document" in report.findings[0].message


def test_unreadable_file(registry, tmp_path):
    [report] = validate_files([str(tmp_path / "missing.yaml")], V, registry)
    assert not report.valid and report.findings[0].message.startswith("cannot read")


# Each case: (id, yaml body after apiVersion/kind, expected path, expected message, expected line).
BROKEN = [
    # upstream: framework.go NewFramework (updatePluginList) for the PlacementScore / PlacementGenerate
    # extension points: a plugin listed at a point it does not implement
    (
        "placement-score-not-implemented",
        """\
        profiles:
          - plugins:
              placementScore:
                enabled: [{name: NodeName}]
        """,
        "profiles[0].plugins",
        'plugin "NodeName" does not extend PlacementScorePlugin plugin',
        4,
    ),
    (
        "placement-generate-not-implemented",
        """\
        profiles:
          - plugins:
              placementGenerate:
                enabled: [{name: PodGroupPodsCount}]
        """,
        "profiles[0].plugins",
        'plugin "PodGroupPodsCount" does not extend PlacementGeneratePlugin plugin',
        4,
    ),
    # upstream: strict decoding of Plugin.weight (int32) at placementScore
    (
        "placement-score-weight-not-int",
        """\
        profiles:
          - plugins:
              placementScore:
                enabled: [{name: PodGroupPodsCount, weight: high}]
        """,
        "profiles[0].plugins.placementScore.enabled[0].weight",
        'Invalid value: "high": must be an integer',
        6,
    ),
    # upstream: strict decoding of PlacementBinPackingArgs (ScoringStrategy has no "shape")
    (
        "placement-bin-packing-args-unknown-field",
        """\
        profiles:
          - pluginConfig:
              - name: PlacementBinPacking
                args:
                  scoringStrategy: {type: MostAllocated, shape: []}
        """,
        "profiles[0].pluginConfig[0].args.scoringStrategy.shape",
        'unknown field "shape"',
        7,
    ),
    # upstream: placement_bin_packing_test.go TestPlacementBinPackingArgsValidation
    # "Fails to validate if feature is not enabled" (the message is kschedctl's)
    (
        "placement-bin-packing-without-gate",
        """\
        profiles:
          - plugins:
              placementScore:
                enabled: [{name: PlacementBinPacking}]
            pluginConfig:
              - name: PlacementBinPacking
                args:
                  scoringStrategy: {type: MostAllocated}
        """,
        "profiles[0].pluginConfig[0].args",
        "Forbidden: PlacementBinPacking requires the TopologyAwareWorkloadScheduling feature gate",
        9,
    ),
    # upstream: the v1 decoder rejects v1beta3 names; apiVersion must be v1
    (
        "old-api-version",
        "",
        "apiVersion",
        'Invalid value: "kubescheduler.config.k8s.io/v1beta3": must be "kubescheduler.config.k8s.io/v1"',
        1,
    ),
    # upstream: validation_test.go 'non-empty-healthz-bind-addr' (the field is gone from v1)
    ("healthz-bind-address-removed", "healthzBindAddress: 0.0.0.0:10251\n", "healthzBindAddress", 'unknown field "healthzBindAddress"', 3),
    # upstream: strict decoding of NodeResourcesFitArgs (kind must match the plugin)
    (
        "args-of-another-kind",
        """\
        profiles:
          - pluginConfig:
              - name: NodeResourcesFit
                args:
                  kind: InterPodAffinityArgs
        """,
        "profiles[0].pluginConfig[0].args.kind",
        'Invalid value: "InterPodAffinityArgs": must be "NodeResourcesFitArgs"',
        7,
    ),
    # upstream: validation_test.go 'bad-parallelism-invalid-value'
    ("bad-parallelism", "parallelism: 0\n", "parallelism", "Invalid value: 0: should be an integer value greater than zero", 3),
    # upstream: validation_test.go 'bad-percentage-of-nodes-to-score'
    (
        "bad-percentage-of-nodes-to-score",
        "percentageOfNodesToScore: 101\n",
        "percentageOfNodesToScore",
        "Invalid value: 101: not in valid range [0-100]",
        3,
    ),
    # upstream: validation.go validatePercentageOfNodesToScore on a profile
    (
        "bad-profile-percentage",
        "profiles:\n- percentageOfNodesToScore: -1\n",
        "profiles[0].percentageOfNodesToScore",
        "Invalid value: -1: not in valid range [0-100]",
        4,
    ),
    # upstream: validation.go podInitialBackoffSeconds
    (
        "bad-initial-backoff",
        "podInitialBackoffSeconds: 0\npodMaxBackoffSeconds: 5\n",
        "podInitialBackoffSeconds",
        "Invalid value: 0: must be greater than 0",
        3,
    ),
    # upstream: validation.go podMaxBackoffSeconds
    (
        "max-backoff-below-initial",
        "podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 2\n",
        "podMaxBackoffSeconds",
        "Invalid value: 2: must be greater than or equal to PodInitialBackoffSeconds",
        4,
    ),
    # upstream: validation_test.go 'scheduler-name-not-set'
    ("scheduler-name-not-set", "profiles:\n- schedulerName: a\n- plugins: {}\n", "profiles[1].schedulerName", "Required value", 5),
    # upstream: validation_test.go 'repeated-scheduler-name'
    (
        "repeated-scheduler-name",
        "profiles:\n- schedulerName: a\n- schedulerName: a\n",
        "profiles[1].schedulerName",
        'Duplicate value: "a"',
        5,
    ),
    # upstream: validation_test.go 'different-queue-sort'
    (
        "different-queue-sort",
        """\
        profiles:
          - schedulerName: a
          - schedulerName: b
            plugins:
              queueSort:
                enabled: [{name: NodeName}]
        """,
        "profiles[1].plugins.queueSort",
        'Invalid value: {"disabled":[],"enabled":[{"name":"NodeName"}]}: must be the same for all profiles',
        7,
    ),
    # upstream: validation_test.go 'duplicated-plugin-config'
    (
        "duplicated-plugin-config",
        """\
        profiles:
          - pluginConfig:
              - name: InterPodAffinity
                args: {hardPodAffinityWeight: 1}
              - name: InterPodAffinity
                args: {hardPodAffinityWeight: 2}
        """,
        "profiles[0].pluginConfig[1]",
        'Duplicate value: "InterPodAffinity"',
        7,
    ),
    # upstream: validation_test.go 'bad-removed-plugins-1'
    (
        "removed-plugin-enabled",
        """\
        profiles:
          - plugins:
              filter:
                enabled: [{name: NodeName}, {name: EBSLimits}]
        """,
        "profiles[0].plugins.filter.enabled[1]",
        'Invalid value: "EBSLimits": was invalid in version '
        '"kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration is version "kubescheduler.config.k8s.io/v1")',
        6,
    ),
    # upstream: validation_test.go 'bad-plugins-config' (removed plugin in pluginConfig)
    (
        "removed-plugin-config",
        "profiles:\n- pluginConfig:\n  - name: GCEPDLimits\n",
        "profiles[0].pluginConfig[0]",
        'Invalid value: "GCEPDLimits": was invalid in version "kubescheduler.config.k8s.io/v1" '
        '(KubeSchedulerConfiguration is version "kubescheduler.config.k8s.io/v1")',
        5,
    ),
    # upstream: validation_test.go 'extender-negative-weight'
    (
        "extender-negative-weight",
        "extenders:\n- urlPrefix: http://127.0.0.1:1/x\n  prioritizeVerb: p\n  weight: -1\n",
        "extenders[0].weight",
        "Invalid value: -1: must have a positive weight applied to it",
        6,
    ),
    # upstream: validation_test.go 'extender-duplicate-bind'
    (
        "extender-duplicate-bind",
        "extenders:\n- urlPrefix: a\n  bindVerb: b\n- urlPrefix: c\n  bindVerb: d\n",
        "extenders",
        'Invalid value: "found 2 extenders implementing bind": only one extender can implement bind',
        3,
    ),
    # upstream: TestValidatePolicy 'invalid extended resource name'
    (
        "extender-bad-resource",
        "extenders:\n- urlPrefix: a\n  managedResources: [{name: kubernetes.io/foo}]\n",
        "extenders[0].managedResources[0].name",
        'Invalid value: "kubernetes.io/foo": is an invalid extended resource name',
        5,
    ),
    # upstream: component-base ValidateLeaderElectionConfiguration + validation.go resourceLock check
    (
        "resource-lock-not-leases",
        "leaderElection:\n  resourceLock: endpoints\n",
        "leaderElection.resourceLock",
        'Invalid value: "endpoints": resourceLock value must be "leases"',
        4,
    ),
    # upstream: component-base ValidateLeaderElectionConfiguration (lease <= renew deadline)
    (
        "lease-not-above-renew",
        "leaderElection:\n  leaseDuration: 5s\n",
        "leaderElection.leaseDuration",
        "Invalid value: 10s: LeaseDuration must be greater than RenewDeadline",
        4,
    ),
    # upstream: framework.go NewFramework "at least one bind plugin is needed"
    (
        "no-bind-plugin",
        """\
        profiles:
          - schedulerName: lonely
            plugins:
              multiPoint:
                disabled: [{name: "*"}]
                enabled: [{name: PrioritySort}, {name: NodeName}]
        """,
        "profiles[0].plugins",
        'at least one bind plugin is needed for profile with scheduler name "lonely"',
        5,
    ),
    # upstream: framework.go updatePluginList "does not extend"
    (
        "plugin-at-point-it-does-not-implement",
        """\
        profiles:
          - plugins:
              bind:
                enabled: [{name: NodeName}]
        """,
        "profiles[0].plugins",
        'plugin "NodeName" does not extend BindPlugin plugin',
        4,
    ),
    # upstream: framework.go "only one queue sort plugin required"
    (
        "two-queue-sorts",
        """\
        profiles:
          - schedulerName: s
            plugins:
              multiPoint:
                enabled: [{name: FancySort}]
        """,
        "profiles[0].plugins",
        'only one queue sort plugin required for profile with scheduler name "s", but got 2',
        5,
    ),
    # upstream: profile.go cfgValidator "different queue sort plugins"
    (
        "different-queue-sort-through-multipoint",
        """\
        profiles:
          - schedulerName: a
          - schedulerName: b
            plugins:
              multiPoint:
                disabled: [{name: PrioritySort}]
                enabled: [{name: FancySort}]
        """,
        "profiles[1].plugins",
        'different queue sort plugins for profile "b": "FancySort", first: "PrioritySort"',
        6,
    ),
    # kschedctl: plugin names must be registered (in-tree or installed)
    (
        "unknown-plugin-name",
        """\
        profiles:
          - plugins:
              score:
                enabled: [{name: NodeAfinity, weight: 2}]
        """,
        "profiles[0].plugins.score.enabled[0].name",
        'Not found: "NodeAfinity": no plugin of this name is registered (did you mean "NodeAffinity"?)',
        6,
    ),
    # kschedctl: pluginConfig for a plugin that is not registered
    (
        "plugin-config-for-unknown-plugin",
        "profiles:\n- pluginConfig:\n  - name: MyPlugin\n    args: {a: 1}\n",
        "profiles[0].pluginConfig[0].name",
        'Not found: "MyPlugin": no plugin of this name is registered',
        5,
    ),
    # upstream: validation_pluginargs.go via the plugin's typed args (a fake plugin, see registry below)
    (
        "plugin-args-rule",
        """\
        profiles:
          - plugins:
              score:
                enabled: [{name: FakeScore}]
            pluginConfig:
              - name: FakeScore
                args:
                  scoringStrategy:
                    type: Foo
        """,
        "profiles[0].pluginConfig[0].args.scoringStrategy.type",
        'Unsupported value: "Foo": supported values: "LeastAllocated", "MostAllocated"',
        11,
    ),
]


class FancySort:
    def __init__(self, args, handle):
        pass

    def name(self):
        return "FancySort"

    def less(self, a, b):
        return False


class FakeScore:
    def __init__(self, args, handle):
        self.args = args

    def name(self):
        return "FakeScore"

    def score(self, state, pod, node_info):
        return 0, None


@dataclass(frozen=True)
class FakeScoreArgs(PluginArgs):
    KIND: ClassVar[str] = "FakeScoreArgs"
    scoring_strategy: Raw = None

    def validate(self, features):
        kind = (self.scoring_strategy or {}).get("type")
        if kind not in ("LeastAllocated", "MostAllocated"):
            return [("scoringStrategy.type", f'Unsupported value: "{kind}": supported values: "LeastAllocated", "MostAllocated"')]
        return []


@pytest.fixture(scope="module")
def extended_registry(registry):
    extended = Registry()
    extended.merge(registry)
    extended.register(PluginSpec("FancySort", FancySort, FancySort, source="fancy-sort"))
    extended.register(
        PluginSpec(
            "FakeScore",
            FakeScore,
            FakeScore,
            args_type=FakeScoreArgs,
            source="fake-score",
            args_schema={"type": "object", "additionalProperties": False, "properties": {"scoringStrategy": {"type": "object"}}},
        )
    )
    return extended


@pytest.mark.parametrize("body, path, message, line", [c[1:] for c in BROKEN], ids=[c[0] for c in BROKEN])
def test_broken_config_fails_with_path_message_and_line(body, path, message, line, extended_registry, tmp_path):
    head = HEAD if not body == "" else "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n"
    report = check(head + textwrap.dedent(body), extended_registry, tmp_path)
    assert not report.valid
    found = [(f.path, f.message, f.line) for f in report.findings if f.severity == "error"]
    assert (path, message, line) in found, found


def test_out_of_tree_args_schema_is_applied(extended_registry, tmp_path):
    # kschedctl: an installed plugin's PluginSpec.args_schema plays the strict decoder for its args
    report = check(
        HEAD + "profiles:\n- plugins:\n    score:\n      enabled: [{name: FakeScore}]\n"
        "  pluginConfig:\n  - name: FakeScore\n    args: {scoringStrategy: {}, extra: 1}\n",
        extended_registry,
        tmp_path,
    )
    assert [(f.path, f.message, f.line) for f in report.findings] == [
        ("profiles[0].pluginConfig[0].args.extra", 'unknown field "extra"', 9)
    ]


def test_semantic_errors_are_all_reported(extended_registry, tmp_path):
    # upstream: ValidateKubeSchedulerConfiguration aggregates every error
    report = check(HEAD + "parallelism: 0\npercentageOfNodesToScore: 200\npodInitialBackoffSeconds: 0\n", extended_registry, tmp_path)
    assert [f.path for f in report.findings] == ["parallelism", "percentageOfNodesToScore", "podInitialBackoffSeconds"]


def test_negative_weight_is_a_warning_only(extended_registry, tmp_path):
    # kschedctl: kube accepts negative int32 weights; we warn since they invert the plugin's scores
    report = check(
        HEAD + "profiles:\n- plugins:\n    score:\n      enabled: [{name: ImageLocality, weight: -1}]\n", extended_registry, tmp_path
    )
    assert report.valid
    [f] = report.findings
    assert (f.severity, f.path, f.line) == ("warning", "profiles[0].plugins.score.enabled[0].weight", 6)


def test_args_for_plugin_not_enabled_is_a_warning(extended_registry, tmp_path):
    report = check(
        HEAD + "profiles:\n- pluginConfig:\n  - name: FakeScore\n    args: {scoringStrategy: {type: MostAllocated}}\n",
        extended_registry,
        tmp_path,
    )
    assert report.valid
    assert [(f.severity, f.path) for f in report.findings] == [("warning", "profiles[0].pluginConfig[0].name")]


def test_real_node_resources_fit_args_rules(registry, tmp_path):
    # upstream: validation_pluginargs_test.go TestValidateFitArgs 'ScoringStrategy: type is unsupported'
    report = check(
        HEAD + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: Invalid\n",
        registry,
        tmp_path,
    )
    assert not report.valid
    f = next(f for f in report.findings if f.path == "profiles[0].pluginConfig[0].args.scoringStrategy.type")
    assert f.line == 8 and f.message.startswith('Unsupported value: "Invalid"')


def test_validate_config_returns_errors_for_schedule(extended_registry):
    cfg = load_config_text(HEAD + "parallelism: -2\nprofiles:\n- schedulerName: a\n- schedulerName: a\n", "c.yaml", V, extended_registry)
    assert validate_config(cfg, V, extended_registry) == [
        ("parallelism", "Invalid value: -2: should be an integer value greater than zero"),
        ("profiles[1].schedulerName", 'Duplicate value: "a"'),
    ]
    assert validate_config(load_config_text("", "<default>", V, extended_registry), V, extended_registry) == []


def test_validate_text_accepts_loaded_registry_and_default(tmp_path):
    # registry=None uses kschedctl.plugins.plugin_manager.default_registry() (in-tree plus installed packages)
    text = HEAD + textwrap.dedent("""\
        profiles:
          - plugins:
              multiPoint:
                disabled: [{name: "*"}]
                enabled: [{name: PrioritySort}, {name: NodeName}, {name: DefaultBinder}]
        """)
    report = validate_text(text, "x.yaml", V, None)
    assert report.valid, [str(f) for f in report.findings]
    assert json.loads(json.dumps(report.to_dict()))["valid"] is True


@pytest.mark.parametrize(
    "text, parts",
    [
        ("profiles[0].pluginConfig[1].args.scoringStrategy.type", ("profiles", 0, "pluginConfig", 1, "args", "scoringStrategy", "type")),
        ("extenders", ("extenders",)),
        ("", ()),
    ],
)
def test_path_round_trip(text, parts):
    assert parse_path(text) == parts
    assert format_path(parts) == text


PLACEMENT = """\
    profiles:
      - plugins:
          placementGenerate:
            enabled: [{name: TopologyPlacementGenerator}]
          placementScore:
            enabled: [{name: PlacementBinPacking, weight: 3}, {name: PodGroupPodsCount, weight: 2}]
        pluginConfig:
          - name: PlacementBinPacking
            args:
              scoringStrategy: {type: %s}
    """


def test_placement_points_are_accepted_with_the_gate(registry, tmp_path):
    # upstream: topology-aware-scheduling docs, "Customizing plugin weights" (placementScore weights)
    path = tmp_path / "placement.yaml"
    path.write_text(HEAD + textwrap.dedent(PLACEMENT % "LeastAllocated"))
    gated = KubeVersion().with_gates(TopologyAwareWorkloadScheduling=True, GenericWorkload=True, GangScheduling=True)
    [report] = validate_files([str(path)], gated, registry)
    assert report.valid, [str(f) for f in report.findings]


def test_placement_bin_packing_unknown_strategy(registry, tmp_path):
    # upstream: placement_bin_packing_test.go TestPlacementBinPackingArgsValidation "Fails to validate if
    # scoring strategy is unknown"
    path = tmp_path / "placement.yaml"
    path.write_text(HEAD + textwrap.dedent(PLACEMENT % "Foo"))
    [report] = validate_files([str(path)], KubeVersion().with_gates(TopologyAwareWorkloadScheduling=True), registry)
    assert not report.valid
    assert [(f.path, f.message) for f in report.findings if f.severity == "error"] == [
        (
            "profiles[0].pluginConfig[0].args.scoringStrategy.type",
            'Unsupported value: "Foo": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"',
        )
    ]
