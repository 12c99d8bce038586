"""The README's sweep example is real: the matrix it shows is examples/sweep-weights.yaml, and
the table under the command is what the command prints."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MATRIX = ROOT / "examples" / "sweep-weights.yaml"


def test_readme_shows_the_matrix_and_its_real_table(run_cli, monkeypatch, tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    body = "".join(line for line in MATRIX.read_text().splitlines(keepends=True) if not line.startswith("#"))
    assert "```yaml\n# examples/sweep-weights.yaml\n" + body + "```" in readme
    monkeypatch.chdir(tmp_path)  # the results file lands here, under the name the table gives
    out = run_cli("sweep", str(MATRIX), "--jobs", "2")
    assert out.exit_code == 0, out.stderr
    assert "```\n" + out.stdout.rstrip("\n") + "\n```" in readme
    assert (tmp_path / "fit-weights.results.parquet").exists()
