"""Shared fixtures: running the CLI in-process and writing snapshot files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kschedctl.api.decoding import SafeDumper
from kschedctl.cli.app import app


def _safe_dump(data: Any, stream: Any = None, **kwds: Any) -> Any:
    """yaml.safe_dump, quoting what kubectl's go-yaml reads as another type: PyYAML writes the
    strings "y", "n", "0o17", "1e3" plain, which go-yaml (and kschedctl) read as a boolean or
    a number. Test files are written as kubectl users would have to write them."""
    return yaml.dump_all([data], stream, Dumper=SafeDumper, **kwds)


yaml.safe_dump = _safe_dump

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


class CliResult:
    def __init__(self, exit_code: int, stdout: str, stderr: str) -> None:
        self.exit_code = exit_code
        self.stdout = stdout
        self.stderr = stderr

    def json(self) -> Any:
        return json.loads(self.stdout)


@pytest.fixture(autouse=True)
def _no_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables are wrapped to $COLUMNS when it is set; pytest-xdist's workers inherit COLUMNS=80
    from execnet, so every test starts without it and a test of wrapping sets its own."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture
def run_cli() -> Callable[..., CliResult]:
    def run(*args: str, input: str | None = None) -> CliResult:
        result = CliRunner().invoke(app, list(args), input=input)
        if result.exception and not isinstance(result.exception, SystemExit):
            raise result.exception
        return CliResult(result.exit_code, result.stdout, result.stderr)

    return run


@pytest.fixture
def write_snapshot(tmp_path: Path) -> Callable[..., str]:
    """Write objects (builders or dicts) as one List document; returns the path."""
    counter = {"n": 0}

    def write(*objects: Any, name: str | None = None) -> str:
        counter["n"] += 1
        items = [o.dict() if hasattr(o, "dict") else o for o in objects]
        path = tmp_path / (name or f"snapshot-{counter['n']}.yaml")
        path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}, sort_keys=False))
        return str(path)

    return write


@pytest.fixture
def explain_json(tmp_path: Path, run_cli: Callable[..., CliResult]) -> Callable[..., Any]:
    """`kschedctl explain POD SNAPSHOT --config CONFIG -o json` on YAML texts; the parsed output."""

    def explain(snapshot_yaml: str, config_yaml: str, pod: str = "default/web", *extra: str) -> Any:
        snap = tmp_path / "explain-snapshot.yaml"
        snap.write_text(snapshot_yaml)
        cfg = tmp_path / "explain-config.yaml"
        cfg.write_text(config_yaml)
        out = run_cli("explain", pod, str(snap), "--config", str(cfg), "-o", "json", *extra)
        assert out.exit_code == 0, out.stderr
        return out.json()

    return explain


@pytest.fixture
def columnar_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every Scheduler snapshot gets its columnar view whatever its size (it otherwise has one
    from COLUMNAR_MIN_NODES nodes on), so that a test's small cluster goes through the batch
    forms, the chunked filter walk and the tracked sums."""
    from kschedctl.backend.cache import columnar

    monkeypatch.setattr(columnar, "COLUMNAR_MIN_NODES", 0)


@pytest.fixture(params=["node-by-node", "columnar"])
def either_view(request: pytest.FixtureRequest) -> str:
    """Runs a test twice: as a small cluster runs (node by node, no columnar view), and with the
    columnar view (the batch forms, as from COLUMNAR_MIN_NODES nodes on)."""
    if request.param == "columnar":
        request.getfixturevalue("columnar_view")
    return str(request.param)
