"""JSON Schemas (draft 2020-12) of KubeSchedulerConfiguration v1 and the in-tree args kinds.

The schemas play the part of kube-scheduler's strict decoder: they reject unknown fields,
wrong types and out-of-range int32/int64 values, exactly the errors Go's decoding of
``staging/src/k8s.io/kube-scheduler/config/v1/types.go`` and ``types_pluginargs.go`` raises.
Value rules (ranges, uniqueness, plugin names) are left to ``config.validation`` so that
they carry kube-scheduler's own messages.

The files live once, in ``kschedctl/schemas/`` (package data, shipped in the wheel); the
repository's ``schemas/`` is a symbolic link to it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from kschedctl.api.jsontypes import JSONObject
from kschedctl.config.fastschema import conforms
from kschedctl.framework.args import describe_value, did_you_mean

if TYPE_CHECKING:  # jsonschema (about 85 ms to import) is loaded when a document needs it
    from importlib.resources.abc import Traversable

    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError
    from referencing import Registry as RefRegistry

CONFIG_SCHEMA = "kubescheduler-config-v1.json"

# plugin name -> schema file of its args kind (upstream decodes pluginConfig[i].args as <name>Args).
ARGS_SCHEMAS: dict[str, str] = {
    "NodeResourcesFit": "node-resources-fit-args-v1.json",
    "NodeResourcesBalancedAllocation": "node-resources-balanced-allocation-args-v1.json",
    "PodTopologySpread": "pod-topology-spread-args-v1.json",
    "InterPodAffinity": "inter-pod-affinity-args-v1.json",
    "NodeAffinity": "node-affinity-args-v1.json",
    "VolumeBinding": "volume-binding-args-v1.json",
    "DefaultPreemption": "default-preemption-args-v1.json",
    "DynamicResources": "dynamic-resources-args-v1.json",
    "PlacementBinPacking": "placement-bin-packing-args-v1.json",
}

SchemaPath = tuple[Any, ...]  # keys and indexes from the document root


def _beside() -> str | None:
    """The shipped schemas' directory beside the package's modules, where pip installs it and a
    checkout has it; None otherwise (a zip, say)."""
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "schemas")
    return here if os.path.isdir(here) else None


def _resources() -> Traversable:
    """The shipped schemas through importlib.resources: only where they are not beside the
    modules, as it costs a run some 2 ms of imports (zipfile, tempfile) for the same files."""
    from importlib import resources

    return resources.files("kschedctl").joinpath("schemas")


def schema_files() -> list[str]:
    """Names of the shipped schema files."""
    here = _beside()
    names = os.listdir(here) if here is not None else [f.name for f in _resources().iterdir()]
    return sorted(n for n in names if n.endswith(".json"))


@cache
def load_schema(name: str) -> JSONObject:
    here = _beside()
    if here is None:
        text = _resources().joinpath(name).read_text(encoding="utf-8")
    else:
        with open(os.path.join(here, name), encoding="utf-8") as fh:
            text = fh.read()
    schema: JSONObject = json.loads(text)
    return schema


def dotted_path(path: SchemaPath) -> str:
    """A schema error's path as the error lines print it: keys dotted, indexes in brackets."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


@lru_cache(maxsize=1)
def _ref_registry() -> RefRegistry:
    """Every schema under its file name, so the relative ``$ref``s of the config schema resolve."""
    from referencing import Registry as RefRegistry
    from referencing import Resource
    from referencing.jsonschema import DRAFT202012

    pairs = [(name, Resource.from_contents(load_schema(name), default_specification=DRAFT202012)) for name in schema_files()]
    return RefRegistry().with_resources(pairs)


@cache
def validator(name: str = CONFIG_SCHEMA) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema(name), registry=_ref_registry())


def iter_schema_errors(document: Any, schema: JSONObject | None = None) -> list[tuple[SchemaPath, str]]:
    """Every schema error as (absolute path, message); validate.py orders them by line.

    ``additionalProperties`` errors are split into one error per unexpected key, with the
    key in the path and kube's strict-decoding wording (``unknown field "x"``). A document the
    quick check (config/fastschema.py) finds valid has none, and jsonschema is not consulted.
    """
    if conforms(document, load_schema(CONFIG_SCHEMA) if schema is None else schema, load_schema) is True:
        return []
    from jsonschema import Draft202012Validator

    v = validator() if schema is None else Draft202012Validator(schema, registry=_ref_registry())
    out: list[tuple[SchemaPath, str]] = []
    for error in v.iter_errors(document):
        out.extend(_translate(error))
    return _dedupe(out)


def _dedupe(items: list[tuple[SchemaPath, str]]) -> list[tuple[SchemaPath, str]]:
    seen: set[tuple[SchemaPath, str]] = set()
    result = []
    for item in items:
        if item not in seen:
            seen.add(item)
            result.append(item)
    return result


_TYPE_NAMES = {
    "integer": "an integer",
    "string": "a string",
    "boolean": "a boolean",
    "object": "an object",
    "array": "a list",
    "number": "a number",
    "null": "null",
}


def _translate(error: ValidationError) -> list[tuple[SchemaPath, str]]:
    path: SchemaPath = tuple(error.absolute_path)
    kind = error.validator
    value: Any = error.validator_value  # the keyword's value in the schema (decoded JSON)
    if kind == "additionalProperties" and isinstance(error.instance, dict):
        schema = error.schema if isinstance(error.schema, Mapping) else {}
        allowed = set((schema.get("properties") or {}).keys())
        extra = [k for k in error.instance if k not in allowed]
        return [(path + (k,), f'unknown field "{k}"{did_you_mean(k, allowed)}') for k in extra]
    if kind == "type":
        wanted: list[str] = value if isinstance(value, list) else [value]
        names = " or ".join(_TYPE_NAMES.get(t, t) for t in wanted if t != "null") or "null"
        return [(path, f"Invalid value: {describe_value(error.instance)}: must be {names}")]
    if kind == "required":
        missing = [k for k in value if isinstance(error.instance, dict) and k not in error.instance]
        return [(path + (k,), "Required value") for k in missing]
    if kind == "const":
        return [(path, f"Invalid value: {describe_value(error.instance)}: must be {json.dumps(error.validator_value)}")]
    if kind == "minimum":
        return [(path, f"Invalid value: {describe_value(error.instance)}: out of range, must be >= {error.validator_value}")]
    if kind == "maximum":
        return [(path, f"Invalid value: {describe_value(error.instance)}: out of range, must be <= {error.validator_value}")]
    if kind == "pattern":
        return [(path, f'Invalid value: {describe_value(error.instance)}: not a duration (examples: "10s", "1m30s")')]
    return [(path, error.message)]
