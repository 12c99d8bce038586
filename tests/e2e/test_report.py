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
    matrix.write_text(
        f"apiVersion: kschedctl.io/v1alpha1\nkind: Sweep\nsnapshots: [{EXAMPLE}, {WHATIF}]\n"
        "configs: [{name: fit, scoringStrategy: [LeastAllocated, MostAllocated]}]\nseeds: [0, 1]\n"
    )
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
            browser.wait_until(
                "Array.from(document.querySelectorAll('.chart')).every(d => d.querySelector('svg.main-svg g.cartesianlayer'))"
            )
            assert browser.evaluate("document.querySelectorAll('.chart .trace').length") > 0, name
            assert browser.evaluate(LEGEND_OVERLAPS) == [], name
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

    snap = write_snapshot(make_node("n1").capacity(cpu="1", memory="4Gi"), *[make_pod(f"p{i}").req(cpu="1") for i in range(3)])
    node = tmp_path / "node.yaml"
    node.write_text(yaml.safe_dump(make_node("m5").capacity(cpu="2", memory="8Gi").dict()))
    page = tmp_path / "nodes-for.html"
    out = run_cli("capacity", snap, "--nodes-for", str(node), "--report", str(page))
    assert out.exit_code == 0, out.stderr
    text = page.read_text(encoding="utf-8")
    assert "1 nodes like m5 are needed for 3 pods (1 fit on the existing nodes)" in text  # n1 takes one, m5-e-0 two
    assert "binpacking_estimator.go" in text and 'class="chart"' in text


# --- what a user looks for, at 800 and 1,400 px ---------------------------------------------

WIDTHS = (800, 1400)
CHARTS_DRAWN = "Array.from(document.querySelectorAll('.chart')).every(d => d.querySelector('svg.main-svg g.cartesianlayer'))"
# every chart's legend against its plot area and its axis labels: the pairs that overlap
LEGEND_OVERLAPS = """Array.from(document.querySelectorAll('.chart')).flatMap(d => {
    const legend = d.querySelector('g.legend');
    if (!legend) return [];
    const L = legend.getBoundingClientRect();
    const hit = e => { const r = e.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && L.left < r.right - 1 && r.left < L.right - 1
            && L.top < r.bottom - 1 && r.top < L.bottom - 1; };
    return Array.from(d.querySelectorAll('.nsewdrag, g[class^="xtick"] text, g[class^="ytick"] text, '
        + '.g-xtitle text, .g-ytitle text, .updatemenu-header')).filter(hit).map(e => d.id + ': ' + (e.textContent || e.className.baseVal));
})"""


def preemption_cluster() -> list:
    """Four full nodes in two zones with long names, a tainted GPU node and a cordoned node; two
    priority-1000 pods each preempt two priority-0 fillers; `prod/huge` (6 cpu) fits nowhere."""
    objs: list = []
    for i, zone in enumerate(("eu-west-1a", "eu-west-1b")):
        for j in range(2):
            name = f"ip-10-0-{i}-{j}.eu-west-1.compute.internal"
            objs.append(make_node(name).capacity(cpu="4", memory="8Gi", pods="20").zone(zone))
            objs += [make_pod(f"filler-{i}-{j}-{k}", "batch").req(cpu="2", memory="1Gi").priority(0).node(name) for k in range(2)]
    objs.append(
        make_node("gpu-node-0.eu-west-1.compute.internal")
        .capacity(cpu="8", memory="16Gi", **{"nvidia.com/gpu": "2"})
        .zone("eu-west-1c")
        .taint("nvidia.com/gpu")
    )
    objs.append(make_node("cordoned-0.eu-west-1.compute.internal").capacity(cpu="8", memory="16Gi").zone("eu-west-1c").unschedulable())
    objs += [make_pod(f"critical-{n}", "prod").req(cpu="4", memory="1Gi").priority(1000) for n in range(2)]
    objs.append(make_pod("huge", "prod").req(cpu="6", memory="1Gi").priority(0))
    return objs


@pytest.fixture(scope="module")
def preemption_report(tmp_path_factory) -> Path:
    import yaml
    from typer.testing import CliRunner

    from kschedctl.cli.app import app

    out = tmp_path_factory.mktemp("preemption")
    snap = out / "cluster.yaml"
    snap.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [o.dict() for o in preemption_cluster()]}))
    page = out / "preemption.html"
    result = CliRunner().invoke(app, ["schedule", str(snap), "--seed", "1", "--report", str(page)])
    assert result.exit_code == 0, result.stderr
    return page


def _artefacts(tmp_path: Path) -> Path:
    """Where the screenshots go: $KSCHEDCTL_REPORT_SCREENSHOTS when set (to look at them), else
    the test's tmp dir."""
    folder = Path(os.environ.get("KSCHEDCTL_REPORT_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_page_names_victims_blockers_and_node_tables(preemption_report: Path) -> None:
    text = preemption_report.read_text(encoding="utf-8")
    assert "Preemptions (4 victims)" in text
    assert "batch/filler-1-0-0, batch/filler-1-0-1" in text and "batch/filler-0-0-0, batch/filler-0-0-1" in text
    assert "preempted batch/filler-1-0-0, batch/filler-1-0-1" in text  # the preemptor's own row and summary
    assert "A reason blocks a pod when it rejects nodes the pod is allowed on" in text
    assert text.count('<details class="pod-table"') == 3  # prod/huge, the two preemptors
    # a preemptor: the failed attempt that made it preempt, then the one that placed it
    block = text.split('data-pod="prod/critical-0"')[1].split("</details>")[0]
    assert "Attempt 1: 0 of 6 evaluated nodes fit" in block and "Attempt 2: 1 of 1 evaluated nodes fit" in block
    assert "Rejected: 4 × NodeResourcesFit: Insufficient cpu, 1 × NodeUnschedulable" in block


def test_report_at_800_and_1400_px(preemption_report: Path, tmp_path: Path) -> None:
    """At both widths: no sideways scrolling, no legend over data or labels, the victims in
    their table, one collapsed node table per pod with a row per node, the heat map of 6 nodes."""
    _chromium_or_skip()
    folder = _artefacts(tmp_path)
    for width in WIDTHS:
        with HeadlessBrowser(width=width, height=900) as browser:
            browser.open(preemption_report)
            browser.wait_until(CHARTS_DRAWN)
            assert browser.evaluate("document.documentElement.scrollWidth") <= width
            assert browser.evaluate(LEGEND_OVERLAPS) == [], width
            victims = browser.evaluate(
                "Array.from(document.querySelectorAll('#preemptions tbody tr'))"
                ".map(tr => [tr.cells[0].textContent, tr.cells[2].textContent])"
            )
            assert sorted(victims) == [
                ["prod/critical-0", "batch/filler-1-0-0, batch/filler-1-0-1"],
                ["prod/critical-1", "batch/filler-0-0-0, batch/filler-0-0-1"],
            ]
            huge = browser.evaluate("""(() => { const d = document.querySelector('details[data-pod="prod/huge"]');
                const closed = !d.open; d.open = true;
                return {closed, rows: Array.from(d.querySelectorAll('tbody tr')).map(tr => [tr.cells[0].textContent,
                        tr.cells[1].textContent]), visible: d.querySelector('table').getBoundingClientRect().height > 0};
            })()""")
            assert huge["closed"] and huge["visible"]
            assert len(huge["rows"]) == 6
            assert ["cordoned-0.eu-west-1.compute.internal", "rejected by NodeUnschedulable"] in huge["rows"]
            assert ["gpu-node-0.eu-west-1.compute.internal", "rejected by TaintToleration"] in huge["rows"]
            heat = browser.evaluate("""(() => { const d = Array.from(document.querySelectorAll('.chart'))
                .find(c => c.data[0].type === 'heatmap');
                return {rows: d.data[0].y, columns: d.data[0].z[0].length,
                        drawn: d.querySelectorAll('.hm, image').length > 0}; })()""")
            assert heat == {"rows": ["cpu", "memory", "pods", "nvidia.com/gpu"], "columns": 6, "drawn": True}
            ranked = browser.evaluate("""Array.from(document.querySelectorAll('.chart')).find(c =>
                c.data.length === 2 && c.data[0].name === 'blocking').data.map(t => [t.name, t.y, t.x])""")
            assert ranked[0] == [
                "blocking",
                ["Insufficient cpu", "node(s) had untolerated taint(s)", "node(s) were unschedulable"],
                [1, 0, 0],
            ]
            assert ranked[1][2] == [0, 1, 1]  # the taint and the cordon: incidental
            browser.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
            assert browser.evaluate("document.documentElement.scrollWidth") <= width  # wide tables scroll inside
            browser.screenshot(folder / f"schedule-preemption-{width}.png")
            assert browser.problems() == [], width


def test_heat_map_of_1000_nodes_stays_one_picture(tmp_path: Path) -> None:
    """1,000 nodes in 4 zones: one column a node, no node names on the axis (the zones are
    marked instead), drawn at 800 px without sideways scrolling."""
    _chromium_or_skip()
    from kschedctl.output.report import write_run_report
    from kschedctl.scheduler.result import RunResult
    from kschedctl.whatif.usage import ClusterUsage, NodeUsage

    nodes = [
        NodeUsage(
            f"node-{i:04d}",
            f"zone-{i % 4}",
            "",
            {"cpu": 8000, "memory": 32 << 30},
            {"cpu": (i * 37) % 8000, "memory": (i % 32) << 30},
            i % 110,
            110,
            i % 110,
        )
        for i in range(1000)
    ]
    page = tmp_path / "big.html"
    write_run_report(RunResult(pending=0), ClusterUsage(nodes), page)
    folder = _artefacts(tmp_path)
    with HeadlessBrowser(width=800, height=900) as browser:
        browser.open(page)
        browser.wait_until(CHARTS_DRAWN)
        heat = browser.evaluate("""(() => { const d = Array.from(document.querySelectorAll('.chart'))
            .find(c => c.data[0].type === 'heatmap');
            return {columns: d.data[0].z[0].length, ticks: d.querySelectorAll('g.xtick text').length,
                    zones: Array.from(d.querySelectorAll('.annotation-text')).map(a => a.textContent),
                    width: d.getBoundingClientRect().width}; })()""")
        assert heat["columns"] == 1000 and heat["ticks"] == 0
        assert heat["zones"] == ["zone-0", "zone-1", "zone-2", "zone-3"]
        assert browser.evaluate("document.documentElement.scrollWidth") <= 800
        assert browser.evaluate(LEGEND_OVERLAPS) == []
        browser.screenshot(folder / "heat-map-1000-nodes-800.png")
        assert browser.problems() == []


def test_node_tables_are_capped(run_cli, write_snapshot, tmp_path) -> None:
    """55 nodes, 55 pods that fit nowhere and 12 that fit: tables for the first 50 unschedulable
    pods (the page says 5 have none) and a sample of 10 placed ones, 50 rows each (the page says
    how many are hidden). Without --report no recorder runs (schedule's output is unchanged)."""
    from kschedctl.output.report import MAX_NODE_ROWS, MAX_POD_TABLES

    nodes = [make_node(f"n{i:02d}").capacity(cpu="2", memory="4Gi", pods="110") for i in range(55)]
    pods = [make_pod(f"big-{i:02d}").req(cpu="4") for i in range(55)]
    pods += [make_pod(f"small-{i:02d}").req(cpu="100m") for i in range(12)]
    snap = write_snapshot(*nodes, *pods)
    page = tmp_path / "capped.html"
    out = run_cli("schedule", snap, "--seed", "1", "--report", str(page))
    assert out.exit_code == 0, out.stderr
    assert run_cli("schedule", snap, "--seed", "1").stdout == out.stdout
    text = page.read_text(encoding="utf-8")
    blocks = re.findall(r'<details class="pod-table" data-pod="([^"]+)"', text)
    assert MAX_POD_TABLES == 50 and len([b for b in blocks if "/big-" in b]) == 50
    assert len([b for b in blocks if "/small-" in b]) == 10
    assert "5 unschedulable pods have no table here (over the cap)." in text
    assert text.count(f"{55 - MAX_NODE_ROWS} more nodes hidden (of 55)") == 60  # every table
    first = text.split('data-pod="default/big-00"')[1].split("</details>")[0]
    assert first.count('<tr class="rejected"') == MAX_NODE_ROWS
    assert "Insufficient cpu" in first
    assert "Rejected: 55 × NodeResourcesFit: Insufficient cpu." in first  # the hidden rows counted too
