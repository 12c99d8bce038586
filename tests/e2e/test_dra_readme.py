"""The README's Dynamic Resource Allocation examples are real output: each command below prints
exactly the block the README shows under it (examples/dra-gpu-cluster.yaml,
examples/scenario-dra-new-node.yaml)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

EXAMPLES = {
    "schedule": ["schedule", "examples/dra-gpu-cluster.yaml"],
    "explain": ["explain", "ml/pretrain-0", "examples/dra-gpu-cluster.yaml"],
    "simulate": ["simulate", "examples/scenario-dra-new-node.yaml"],
}


def _readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_readme_shows_the_real_output(run_cli, monkeypatch, name: str) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("COLUMNS", raising=False)
    out = run_cli(*EXAMPLES[name])
    assert out.exit_code == 0, out.stderr
    assert "created" in out.stderr and "ResourceClaimTemplates" in out.stderr
    assert "```\n" + out.stdout.rstrip("\n") + "\n```" in _readme()


def test_readme_shows_the_real_json(run_cli, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    out = run_cli("explain", "ml/train-llama-0", "examples/dra-gpu-cluster.yaml", "-o", "json")
    assert out.exit_code == 0, out.stderr
    dra = json.loads(out.stdout)["nodes"]["h100-node-1"]["dra"]
    assert "```json\n" + json.dumps(dra, indent=2) + "\n```" in _readme()
