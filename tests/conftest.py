"""Shared fixtures: running the CLI in-process and writing snapshot files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kschedctl.cli.app import app

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


class CliResult:
    def __init__(self, exit_code: int, stdout: str, stderr: str) -> None:
        self.exit_code = exit_code
        self.stdout = stdout
        self.stderr = stderr

    def json(self) -> Any:
        return json.loads(self.stdout)


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
