"""The README's what-if examples are real output: each command below prints exactly the block
the README shows under it."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

EXAMPLES = {
    "diff": ["diff", "examples/whatif-cluster.yaml", "--config-b", "profiles/bin-packing.yaml"],
    "capacity": ["capacity", "examples/whatif-cluster.yaml", "--pod", "examples/whatif-web-deployment.yaml", "--seed", "1"],
    "nodes-for": [
        "capacity",
        "examples/whatif-cluster.yaml",
        "--nodes-for",
        "examples/whatif-node-m5-xlarge.yaml",
        "--pod",
        "examples/whatif-web-deployment.yaml",
        "--max",
        "60",
        "--seed",
        "1",
    ],
}


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_readme_shows_the_real_output(run_cli, monkeypatch, name: str) -> None:
    monkeypatch.chdir(ROOT)
    out = run_cli(*EXAMPLES[name])
    assert out.exit_code == 0, out.stderr
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "```\n" + out.stdout.rstrip("\n") + "\n```" in readme
