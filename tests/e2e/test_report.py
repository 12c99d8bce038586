"""`--report FILE.html` on schedule, diff, capacity and simulate: one self-contained page, opened
in a real headless Chromium with the network off; every chart renders (plotly draws its SVG),
no console error, no request leaves the file; the per-pod table is searchable.

The browser tests need Debian's chromium (`.ci/run` installs it). Without it they are skipped
locally with that reason, and fail in CI (CI=true), where they must run.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from kschedctl.testing import make_node, make_pod

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from headless_browser import HeadlessBrowser, find_chromium  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "cluster.yaml")
SCENARIO = str(ROOT / "examples" / "scenario-drain.yaml")
WHATIF = str(ROOT / "examples" / "whatif-cluster.yaml")
MOST_ALLOCATED = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated}}
"""

pytest.importorskip("plotly", reason="--report needs plotly: pip install 'kschedctl[report]'")


def _chromium_or_skip() -> None:
    if find_chromium() is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI: .ci/run must install it (apt-get install -y chromium)")
        pytest.skip("chromium is not installed (apt-get install -y chromium); CI runs this test")


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    """One report of each command, written through the CLI."""
    from typer.testing import CliRunner

    from kschedctl.cli.app import app

    out = tmp_path_factory.mktemp("reports")
    config = out / "most.yaml"
    config.write_text(MOST_ALLOCATED)
    pod = out / "pod.yaml"
    import yaml
    pod.write_text(yaml.safe_dump(make_pod("web").req(cpu="500m", memory="512Mi").dict()))
    matrix = out / "sweep.yaml"
    matrix.write_text(f"apiVersion: kschedctl.io/v1alpha1\nkind: Sweep\nsnapshots: [{EXAMPLE}, {WHATIF}]\n"
                      "configs: [{name: fit, scoringStrategy: [LeastAllocated, MostAllocated]}]\nseeds: [0, 1]\n")
    commands = {
        "sweep": ["sweep", str(matrix), "--jobs", "1", "--results", str(out / "sweep.parquet")],
        "schedule": ["schedule", EXAMPLE, "--seed", "1"],
        "diff": ["diff", EXAMPLE, "--kube-version-a", "1.35", "--config-b", str(config)],
        "capacity": ["capacity", EXAMPLE, "--pod", str(pod), "--seed", "1"],
        "simulate": ["simulate", SCENARIO, "--seed", "1"],
    }
    paths = {}
    for name, args in commands.items():
        path = out / f"{name}.html"
        result = CliRunner().invoke(app, [*args, "--report", str(path)])
        assert result.exit_code == 0, (name, result.stdout, result.stderr)
        paths[name] = path
    return paths


def test_report_is_one_self_contained_file(reports: dict[str, Path]) -> None:
    for name, path in reports.items():
        text = path.read_text(encoding="utf-8")
        assert "plotly.js v" in text, name  # the library itself is in the page
        assert not re.search(r"<script[^>]+src=", text), name  # nothing loaded from elsewhere
        assert not re.search(r"<link[^>]+href=", text), name
        assert text.count('class="chart"') >= 2, name
    assert "Timeline" in reports["simulate"].read_text(encoding="utf-8")
    assert "A (before) and B (after)" in reports["diff"].read_text(encoding="utf-8")


def test_reports_render_in_headless_chromium_offline(reports: dict[str, Path], tmp_path: Path) -> None:
    _chromium_or_skip()
    with HeadlessBrowser() as browser:
        for name, path in reports.items():
            browser.open(path)
            charts = browser.evaluate("document.querySelectorAll('.chart').length")
            assert charts >= 2, name
            # plotly draws each chart as SVG inside its div
            browser.wait_until("Array.from(document.querySelectorAll('.chart'))"
                               ".every(d => d.querySelector('svg.main-svg g.cartesianlayer'))")
            assert browser.evaluate("document.querySelectorAll('.chart .trace').length") > 0, name
            if name == "sweep":
                _metric_menu_switches_the_boxes(browser)
            if name == "schedule":
                _search_filters_the_table(browser)
                browser.screenshot(tmp_path / "schedule.png")
                assert (tmp_path / "schedule.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            assert browser.problems() == [], name


def _metric_menu_switches_the_boxes(browser: HeadlessBrowser) -> None:
    """One chart per varying axis (snapshot, scoringStrategy, seed); each menu entry shows that
    metric's boxes (one per snapshot where another axis is on x) and titles the y axis."""
    charts = browser.evaluate("Array.from(document.querySelectorAll('.chart')).map(d => d.layout.xaxis.title.text)")
    assert charts == ["snapshot", "scoringStrategy", "seed"]
    picked = browser.evaluate("""(async () => {
        const d = document.getElementById('chart-2');
        const button = d.layout.updatemenus[0].buttons.find(b => b.label === 'nodes used');
        await Plotly.update(d, ...button.args);
        return {title: d.layout.yaxis.title.text, boxes: d.querySelectorAll('.trace.boxes').length,
                y: d.data.filter(t => t.visible === true).map(t => t.y)};
    })()""")
    assert picked["title"] == "nodes used" and picked["boxes"] == 2
    # cluster.yaml uses 5 nodes either way; whatif-cluster.yaml 6 spread (LeastAllocated), 3 packed
    assert picked["y"] == [[5, 5, 5, 5], [6, 6, 3, 3]]
    assert browser.evaluate("document.querySelectorAll('#table-1 tbody tr').length") == 8


def _search_filters_the_table(browser: HeadlessBrowser) -> None:
    rows = browser.evaluate("document.querySelectorAll('#table-1 tbody tr').length")
    shown = browser.evaluate("""(() => { const i = document.querySelector('input[data-table="table-1"]');
        i.value = 'analytics-big'; i.dispatchEvent(new Event('input'));
        return Array.from(document.querySelectorAll('#table-1 tbody tr'))
            .filter(tr => tr.style.display !== 'none').map(tr => tr.cells[0].textContent); })()""")
    assert rows == 6 and shown == ["batch/analytics-big"]
    assert browser.evaluate("document.getElementById('table-1-count').textContent") == "1 rows"


def test_missing_plotly_is_one_clear_line(run_cli, write_snapshot, tmp_path, monkeypatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_plotly(name, *args, **kwargs):
        if name.startswith("plotly"):
            raise ImportError("No module named 'plotly'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_plotly)
    snap = write_snapshot(make_node("n1").capacity(cpu="1", memory="1Gi"), make_pod("p").req(cpu="100m"))
    out = run_cli("schedule", snap, "--report", str(tmp_path / "r.html"))
    assert out.exit_code == 2
    assert out.stderr.strip() == "error: --report needs the plotly package: pip install 'kschedctl[report]'"


def test_nodes_for_report(run_cli, write_snapshot, tmp_path) -> None:
    import yaml

    snap = write_snapshot(make_node("n1").capacity(cpu="1", memory="4Gi"),
                          *[make_pod(f"p{i}").req(cpu="1") for i in range(3)])
    node = tmp_path / "node.yaml"
    node.write_text(yaml.safe_dump(make_node("m5").capacity(cpu="2", memory="8Gi").dict()))
    page = tmp_path / "nodes-for.html"
    out = run_cli("capacity", snap, "--nodes-for", str(node), "--report", str(page))
    assert out.exit_code == 0, out.stderr
    text = page.read_text(encoding="utf-8")
    assert "1 nodes like m5 are needed for 3 pods (1 fit on the existing nodes)" in text  # n1 takes one, m5-e-0 two
    assert "binpacking_estimator.go" in text and 'class="chart"' in text
