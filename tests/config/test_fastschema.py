"""config/fastschema.py says "valid" exactly when jsonschema finds no error.

The quick check lets a conforming configuration skip importing jsonschema (config/schema.py);
it must never call valid what jsonschema refuses, nor refuse what jsonschema accepts. Pinned
here on the shipped configurations and on hundreds of mutations of them (a value replaced by
any JSON value, a key removed, an unknown key added), for the config schema and every in-tree
args schema, against jsonschema's Draft202012Validator on the same shipped schemas.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from kschedctl.config.fastschema import conforms
from kschedctl.config.schema import ARGS_SCHEMAS, CONFIG_SCHEMA, _ref_registry, iter_schema_errors, load_schema

ROOT = Path(__file__).resolve().parents[2]

RICH_CONFIG = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
parallelism: 16
percentageOfNodesToScore: 50
podInitialBackoffSeconds: 1
podMaxBackoffSeconds: 10
leaderElection: {leaderElect: false, leaseDuration: 15s}
profiles:
  - schedulerName: default-scheduler
    plugins:
      score:
        enabled: [{name: NodeResourcesFit, weight: 3}]
        disabled: [{name: ImageLocality}]
    pluginConfig:
      - name: NodeResourcesFit
        args:
          ignoredResources: [example.com/foo]
          scoringStrategy:
            type: RequestedToCapacityRatio
            resources: [{name: cpu, weight: 2}]
            requestedToCapacityRatio:
              shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]
      - name: PodTopologySpread
        args:
          defaultingType: List
          defaultConstraints:
            - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway}
      - name: InterPodAffinity
        args: {hardPodAffinityWeight: 5}
      - name: DefaultPreemption
        args: {minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100}
      - name: VolumeBinding
        args: {bindTimeoutSeconds: 600}
      - name: NodeAffinity
        args:
          addedAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms:
                - matchExpressions: [{key: disk, operator: In, values: [ssd]}]
      - name: DynamicResources
        args: {filterTimeout: 10s}
"""


@lru_cache(maxsize=1)
def _documents() -> list[Any]:
    """The base documents (mutations work on deep copies)."""
    docs = [yaml.safe_load(RICH_CONFIG)]
    for path in sorted((ROOT / "profiles").glob("*.yaml")):
        docs.append(yaml.safe_load(path.read_text()))
    return docs


_VALIDATORS: dict[int, Draft202012Validator] = {}


def _jsonschema_valid(document: Any, schema: dict) -> bool:
    validator = _VALIDATORS.get(id(schema))
    if validator is None:
        validator = _VALIDATORS[id(schema)] = Draft202012Validator(schema, registry=_ref_registry())
    return bool(validator.is_valid(document))


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, prefix + (i,))
    return out


JSON_VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**64), 2**64),
        st.sampled_from([0, 1, -1, 100, 2**31, 2**63]),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from([1.0, 0.5, 10.0]),
        st.text(max_size=8),
        st.sampled_from(
            ["", "10s", "1m30s", "cpu", "LeastAllocated", "List", "x/y", "kubescheduler.config.k8s.io/v1", "KubeSchedulerConfiguration"]
        ),
    ),
    lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(st.text(max_size=6), children, max_size=3)),
    max_leaves=6,
)


@st.composite
def mutated(draw: Any) -> Any:
    doc = copy.deepcopy(draw(st.sampled_from(_documents())))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(doc)
        path = draw(st.sampled_from(paths[1:] if len(paths) > 1 else paths))
        parent = doc
        for part in path[:-1]:
            parent = parent[part]
        kind = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if not path:
            continue
        key = path[-1]
        if kind == "replace":
            parent[key] = draw(JSON_VALUES)
        elif kind == "delete":
            del parent[key]
        elif isinstance(parent[key], dict):
            parent[key][draw(st.sampled_from(["extra", "weight", "name", "args", "typ"]))] = draw(JSON_VALUES)
    return doc


def test_shipped_configurations_conform_without_jsonschema() -> None:
    schema = load_schema(CONFIG_SCHEMA)
    for doc in _documents():
        assert conforms(doc, schema, load_schema) is True
        assert _jsonschema_valid(doc, schema)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=mutated())
def test_quick_verdict_is_jsonschemas(doc: Any) -> None:
    schema = load_schema(CONFIG_SCHEMA)
    verdict = conforms(doc, schema, load_schema)
    if verdict is not None:
        assert verdict == _jsonschema_valid(doc, schema), doc


@pytest.mark.parametrize("plugin", sorted(ARGS_SCHEMAS))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(value=JSON_VALUES)
def test_quick_verdict_is_jsonschemas_on_args(plugin: str, value: Any) -> None:
    schema = load_schema(ARGS_SCHEMAS[plugin])
    for doc in (
        value,
        {"kind": f"{plugin}Args", "apiVersion": "kubescheduler.config.k8s.io/v1"} | (value if isinstance(value, dict) else {}),
    ):
        verdict = conforms(doc, schema, load_schema)
        if verdict is not None:
            assert verdict == _jsonschema_valid(doc, schema), (plugin, doc)


def test_errors_still_come_from_jsonschema() -> None:
    """A document the quick check refuses is worded by jsonschema, as before."""
    doc = yaml.safe_load(RICH_CONFIG)
    doc["profiles"][0]["pluginConfig"][0]["args"]["scoringStrategy"]["typo"] = 1
    doc["parallelism"] = "16"
    assert conforms(doc, load_schema(CONFIG_SCHEMA), load_schema) is False
    errors = iter_schema_errors(doc)
    assert (("parallelism",), 'Invalid value: "16": must be an integer') in errors
    assert any(path[-1] == "typo" and msg.startswith('unknown field "typo"') for path, msg in errors)


def test_unmodelled_keywords_and_values_defer_to_jsonschema() -> None:
    assert conforms({"a": 1}, {"type": "object", "patternProperties": {"^a$": {"type": "integer"}}}, load_schema) is None
    assert conforms({"a": (1, 2)}, {"properties": {"a": {"type": "array"}}}, load_schema) is None  # no JSON value
    assert conforms({"a": 1}, {"$ref": "elsewhere.json"}, load_schema) is None
