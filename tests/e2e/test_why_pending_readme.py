"""The README's "Why is my pod Pending?" examples are real output: each command prints exactly
the block the README shows under it (examples/cluster.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

EXAMPLES = {
    "gated": ["explain", "batch/nightly-export", "examples/cluster.yaml"],
    "verdict": ["explain", "batch/analytics-big", "examples/cluster.yaml"],
    "note": ["explain", "shop/web-7d9f-pqrst", "examples/cluster.yaml", "--seed", "1"],
    "in-run": ["explain", "shop/web-7d9f-pqrst", "examples/cluster.yaml", "--seed", "1", "--in-run"],
}


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_readme_shows_the_real_output(run_cli, monkeypatch, name: str) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("COLUMNS", raising=False)
    out = run_cli(*EXAMPLES[name])
    assert out.exit_code == 0, out.stderr
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### Why is my pod Pending?") :]
    command = "```sh\nkschedctl " + " ".join(EXAMPLES[name]) + "\n```\n\n```\n"
    assert command + out.stdout.rstrip("\n") + "\n```" in section
