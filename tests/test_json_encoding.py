"""`-o json` and the written snapshots go through orjson when it is installed: the text must
be byte for byte what json.dumps(indent=2, ensure_ascii=False) writes (kschedctl/api/json_encoding.py)."""

from __future__ import annotations

import json
import math
from enum import IntEnum, StrEnum
from pathlib import Path
from typing import Any

import pytest

from kschedctl.api import json_encoding
from kschedctl.api.json_encoding import dumps_indented


class Color(StrEnum):
    RED = "red"


class Level(IntEnum):
    HIGH = 7


def standard(document: Any) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


CONTROL = "".join(chr(i) for i in range(0x20)) + '"\\\x7f\u2028\u2029\ufeff😀é'

DOCUMENTS: list[Any] = [
    {},
    [],
    {"placements": [], "unschedulable": [], "summary": {"pending": 0}},
    {"pod": "default/p-1", "node": "n-1", "score": None, "attempts": 1, "ok": True, "no": False},
    {"names": [CONTROL, "plain"], "nested": {"a": [{}, [], [[]], {"b": {}}]}},
    {"floats": [0.1, 1.0, -0.0, 0.0001, 123456.789, 1733400000.125, 9999999999999998.0]},
    {"small": 1e-05},
    {"large": 1e16},
    {"tiny": -2.5e-300},
    {"text that looks like an exponent": "1e5 and 0.00001"},
    {"tuple": (1, 2)},
    {1: "int key"},
    {"big": 2**70},
    {"enum": Color.RED, "level": Level.HIGH},
    {"surrogate": "\ud800"},
]


@pytest.mark.parametrize("document", DOCUMENTS, ids=range(len(DOCUMENTS)))
def test_same_text_as_the_standard_library(document: Any) -> None:
    assert dumps_indented(document) == standard(document)


def test_nan_is_written_as_the_standard_library_writes_it() -> None:
    assert dumps_indented({"x": math.nan, "y": math.inf}) == '{\n  "x": NaN,\n  "y": Infinity\n}\n'


def test_deep_nesting_is_left_to_the_standard_library() -> None:
    deep: Any = []
    for _ in range(300):  # beyond orjson's 254 levels, within Python's recursion limit
        deep = [deep]
    assert dumps_indented(deep) == standard(deep)


def test_orjson_writes_the_plain_documents() -> None:
    """The fast path is taken where it can be (else the change would buy nothing)."""
    if json_encoding.orjson is None:
        pytest.skip("orjson is not installed")
    calls: list[Any] = []
    real = json_encoding.json.dumps

    def spy(*args: Any, **kwargs: Any) -> str:
        calls.append(args)
        return real(*args, **kwargs)

    json_encoding.json.dumps = spy  # type: ignore[assignment]
    try:
        dumps_indented({"placements": [{"pod": "a/b", "node": "n", "score": 3}]})
        assert calls == []
        dumps_indented({"x": 1e-05})
        assert len(calls) == 1
    finally:
        json_encoding.json.dumps = real  # type: ignore[assignment]


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize(
    "args",
    [
        ["schedule", str(EXAMPLES / "cluster.yaml"), "-o", "json"],
        ["simulate", str(EXAMPLES / "scenario-drain.yaml"), "-o", "json"],
    ],
    ids=["schedule", "simulate"],
)
def test_run_output_is_the_standard_librarys(run_cli: Any, args: list[str]) -> None:
    """A real run's `-o json`: decoded and written again by the standard library, the same text."""
    result = run_cli(*args)
    assert result.exit_code in (0, 3), result.stderr
    assert result.stdout == standard(json.loads(result.stdout))
