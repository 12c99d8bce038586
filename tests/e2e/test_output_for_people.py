"""Output for people, through the CLI on kubectl-shaped snapshots: tables that fit the terminal
(`-o wide` unabridged), help pages (`-h`, plain flags, every option explained, not cut at 80
columns), `--version`, `-` for standard input on every file argument, `explain -n` with
suggestions for an unknown pod, and empty snapshots said on stderr."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kubectl_shape as k
import pytest
import typer
import yaml

from kschedctl import __version__
from kschedctl.cli.app import app
from kschedctl.testing import make_node, make_pod

ROOT = Path(__file__).resolve().parents[2]
DRAIN = str(ROOT / "examples" / "scenario-drain.yaml")


def _cluster() -> dict[str, Any]:
    """Six nodes whose rejections have long reasons, three pending pods, a running one."""
    nodes = [
        k.node(
            make_node(f"ip-10-0-{z}-{i}.eu-west-1.compute.internal")
            .capacity(cpu="4", memory="16Gi")
            .zone(f"eu-west-1{'abc'[z - 1]}")
            .label("pool", "general" if i % 2 else "batch")
        )
        for z in (1, 2, 3)
        for i in (11, 12)
    ]
    nodes[0]["spec"]["taints"] = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    nodes[1]["spec"]["unschedulable"] = True
    pods = [
        k.pod(
            make_pod("web-7d9f-pqrst", "shop")
            .req(cpu="500m", memory="1Gi")
            .label("app", "web")
            .spread(1, "topology.kubernetes.io/zone", selector={"matchLabels": {"app": "web"}})
            .node_affinity_in("pool", ["general"])
        ),
        k.pod(make_pod("analytics-0", "batch").req(cpu="6", memory="96Gi")),
        k.pod(
            make_pod("web-7d9f-abcde", "shop")
            .req(cpu="500m", memory="1Gi")
            .label("app", "web")
            .node("ip-10-0-2-11.eu-west-1.compute.internal")
        ),
        k.pod(make_pod("api-5c8b-xk2p9", "shop").req(cpu="1", memory="2Gi")),
    ]
    return k.listed(*nodes, *pods)


@pytest.fixture
def cluster_file(tmp_path: Path) -> str:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump(_cluster(), sort_keys=False))
    return str(path)


def _lines_within(text: str, width: int) -> bool:
    return all(len(line) <= width for line in text.splitlines())


def _words(text: str) -> list[str]:
    return text.replace("\n", " ").split()


# --- tables fit the terminal ----------------------------------------------------------------


@pytest.mark.parametrize("width", [80, 100, 132], ids=["80-columns", "100-columns", "132-columns"])
def test_explain_table_fits_the_terminal_and_keeps_every_reason(run_cli, cluster_file, monkeypatch, width):
    wide = run_cli("explain", "batch/analytics-0", cluster_file, "-o", "wide")
    assert max(len(line) for line in wide.stdout.splitlines()) > width  # it would not fit as is
    monkeypatch.setenv("COLUMNS", str(width))
    out = run_cli("explain", "batch/analytics-0", cluster_file)
    assert out.exit_code == 0, out.stderr
    assert _lines_within(out.stdout, width)
    # nothing dropped: every word of the kube message and of each node's reasons is there
    data = run_cli("explain", "batch/analytics-0", cluster_file, "-o", "json").json()
    for word in _words(data["message"]):
        assert word in out.stdout
    for node in data["nodes"].values():
        for reason in node["filter"].get("reasons", []):
            assert all(w in out.stdout for w in _words(reason))


def test_explain_wide_prints_one_line_per_node_unabridged(run_cli, cluster_file, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    out = run_cli("explain", "shop/web-7d9f-pqrst", cluster_file, "-o", "wide").stdout
    lines = out.splitlines()
    table = lines[next(i for i, line in enumerate(lines) if line.startswith("NODE")) + 1 :]
    rows = [line for line in table[: table.index("")] if ".compute.internal" in line]
    assert len(rows) == 6
    assert "NodeResourcesBalancedAllocation" in out  # full plugin names in the header, no legend
    assert "UnschedulableAndUnresolvable: TaintToleration: node(s) had untolerated taint(s)" in out


def test_narrow_explain_abbreviates_score_headers_with_a_legend(run_cli, cluster_file, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    out = run_cli("explain", "shop/web-7d9f-pqrst", cluster_file).stdout
    header = next(line for line in out.splitlines() if line.startswith("NODE"))
    assert "NRBA" in header and "NodeResourcesBalancedAllocation" not in header
    assert "NRBA=NodeResourcesBalancedAllocation" in out
    assert _lines_within(out, 100)


def test_unset_columns_and_a_pipe_leave_lines_whole(run_cli, cluster_file, monkeypatch):
    """No terminal (a pipe, a file) and no COLUMNS: one line per row, for grep and scripts."""
    monkeypatch.delenv("COLUMNS", raising=False)
    out = run_cli("schedule", cluster_file, "--seed", "1").stdout
    [line] = [line for line in out.splitlines() if line.startswith("batch/analytics-0: ")]
    assert line.endswith("Preemption is not helpful for scheduling.")


def test_schedule_messages_wrap_with_an_indent(run_cli, cluster_file, monkeypatch):
    monkeypatch.setenv("COLUMNS", "70")
    out = run_cli("schedule", cluster_file, "--seed", "1").stdout
    assert _lines_within(out, 70)
    start = out.index("batch/analytics-0: 0/6 nodes are available:")
    block = out[start:].split("\n\n")[0].splitlines()
    assert len(block) > 1 and all(line.startswith("  ") for line in block[1:])
    monkeypatch.setenv("COLUMNS", "70")
    wide = run_cli("schedule", cluster_file, "--seed", "1", "-o", "wide").stdout
    assert any(len(line) > 70 for line in wide.splitlines())  # -o wide never wraps


def test_simulate_table_fits_the_terminal(run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    out = run_cli("simulate", DRAIN, "--seed", "1")
    assert out.exit_code == 0, out.stderr
    assert _lines_within(out.stdout, 60)


# --- help pages -------------------------------------------------------------------------------


def _commands() -> dict[str, Any]:
    return typer.main.get_command(app).commands  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", ["schedule", "explain", "simulate", "validate", "plugins", "capture", "diff", "capacity"])
def test_dash_h_is_help(run_cli, command):
    short, long = run_cli(command, "-h"), run_cli(command, "--help")
    assert short.exit_code == 0 and short.stdout == long.stdout
    assert short.stdout.startswith(f"Usage: root {command} [OPTIONS]") or "Usage:" in short.stdout


@pytest.mark.parametrize("command", ["schedule", "explain", "simulate", "validate", "plugins", "capture", "diff", "capacity"])
def test_every_option_and_argument_has_help_text(command):
    params = _commands()[command].params
    missing = [p.name for p in params if not (p.help or "").strip()]
    assert missing == []


@pytest.mark.parametrize("command", ["schedule", "explain", "simulate", "validate", "diff", "capacity"])
def test_flags_show_no_type_placeholder(run_cli, command):
    out = run_cli(command, "--help").stdout
    assert "<bool>" not in out and "<str>" not in out and "<list[str]>" not in out
    assert "  --debug  " in out or "  --debug " in out


def test_help_follows_a_wide_terminal_instead_of_80_columns():
    """(A subprocess: click's test runner forces 80 columns on help pages.)"""
    import os
    import subprocess
    import sys

    env = {**os.environ, "COLUMNS": "200"}
    out = subprocess.run(
        [sys.executable, "-m", "kschedctl", "schedule", "--help"], capture_output=True, text=True, env=env, timeout=60, check=True
    ).stdout
    assert max(len(line) for line in out.splitlines()) > 80
    assert "…" not in out
    line = next(line for line in out.splitlines() if "--plugin-timeout" in line)
    assert "fails that pod's attempt" in line  # the whole help text on the option's line


def test_root_help_lists_each_command_summary_whole(run_cli):
    out = run_cli("-h").stdout
    commands = out[out.index("Commands:") :]
    assert "..." not in commands and "…" not in commands
    assert "every node's filter result" in commands


def test_version(run_cli):
    out = run_cli("--version")
    assert out.exit_code == 0
    assert out.stdout == f"kschedctl {__version__}\n"


# --- standard input ----------------------------------------------------------------------------

CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled: [{name: ImageLocality}]
"""


def test_validate_reads_stdin(run_cli):
    out = run_cli("validate", "-", input=CONFIG)
    assert out.exit_code == 0, out.stdout + out.stderr
    assert out.stdout == "-: valid\n"
    bad = run_cli("validate", "-", "-o", "json", input=CONFIG.replace("disabled", "enabled").replace("ImageLocality", "NoSuchPlugin"))
    assert bad.exit_code == 1 and bad.json()["files"][0]["file"] == "-"


def test_config_from_stdin(run_cli, cluster_file):
    out = run_cli("explain", "shop/web-7d9f-pqrst", cluster_file, "--config", "-", "-o", "json", input=CONFIG)
    assert out.exit_code == 0, out.stderr
    scored = [n for n in out.json()["nodes"].values() if "scores" in n]
    assert scored and all("ImageLocality" not in n["scores"] for n in scored)


def test_explain_snapshot_from_stdin(run_cli, cluster_file):
    text = Path(cluster_file).read_text()
    out = run_cli("explain", "web-7d9f-pqrst", "-n", "shop", "-", "-o", "json", input=text)
    assert out.exit_code == 0, out.stderr
    assert out.json()["pod"] == "shop/web-7d9f-pqrst"


def test_scenario_from_stdin(run_cli, monkeypatch):
    monkeypatch.chdir(ROOT / "examples")
    from_file = run_cli("simulate", DRAIN, "-o", "json", "--seed", "1")
    from_stdin = run_cli("simulate", "-", "-o", "json", "--seed", "1", input=Path(DRAIN).read_text())
    assert from_stdin.exit_code == 0, from_stdin.stderr
    assert from_stdin.stdout == from_file.stdout


def test_stdin_given_twice_is_refused(run_cli):
    out = run_cli("schedule", "-", "--config", "-", input=CONFIG)
    assert out.exit_code == 2
    assert out.stderr.startswith("error: ") and "standard input (-) given 2 times (snapshot, config)" in out.stderr


# --- explain -n and unknown pods -------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["web-7d9f-pqrst", "{file}", "-n", "shop"],
        ["shop/web-7d9f-pqrst", "{file}"],
        ["--namespace", "shop", "shop/web-7d9f-pqrst", "{file}"],
        ["web-7d9f-pqrst", "{file}", "--namespace=shop"],
        ["-nshop", "web-7d9f-pqrst", "{file}"],
    ],
    ids=["name-n", "ns/name", "both-agree", "namespace=", "-nNS"],
)
def test_explain_namespace_forms(run_cli, cluster_file, args):
    out = run_cli("explain", *[a.format(file=cluster_file) for a in args], "-o", "json")
    assert out.exit_code == 0, out.stderr
    assert out.json()["pod"] == "shop/web-7d9f-pqrst"


def test_explain_namespaces_that_disagree(run_cli, cluster_file):
    out = run_cli("explain", "batch/web-7d9f-pqrst", cluster_file, "-n", "shop")
    assert out.exit_code == 2
    assert "names namespace 'batch' but --namespace is 'shop'" in out.stderr


@pytest.mark.parametrize(
    "pod, suggestion",
    [
        ("web-7d9f-pqrst", "shop/web-7d9f-pqrst"),  # right name, default namespace
        ("shop/web-7d9f-pqrts", "shop/web-7d9f-pqrst"),  # a typo
        ("shop/analytics-0", "batch/analytics-0"),  # wrong namespace
    ],
    ids=["default-namespace", "typo", "wrong-namespace"],
)
def test_unknown_pod_names_the_file_and_suggests(run_cli, cluster_file, pod, suggestion):
    out = run_cli("explain", pod, cluster_file)
    assert out.exit_code == 2
    [line] = out.stderr.splitlines()[-1:]
    assert line.startswith(f"error: {cluster_file}: Pod ")
    assert "<input>" not in line
    assert f"did you mean {suggestion}" in line


def test_unknown_pod_in_several_inputs_names_them_all(run_cli, cluster_file, tmp_path):
    other = tmp_path / "more"
    other.mkdir()
    (other / "extra.yaml").write_text(yaml.safe_dump(k.listed(k.node(make_node("n9")))))
    out = run_cli("explain", "shop/nope", cluster_file, str(other))
    assert out.exit_code == 2
    assert f"error: {cluster_file}, {other}: Pod shop/nope: not found in the snapshot" in out.stderr


# --- empty snapshots --------------------------------------------------------------------------


def test_empty_snapshot_is_said_on_stderr(run_cli, tmp_path):
    empty = tmp_path / "empty.yaml"
    empty.write_text(yaml.safe_dump(k.listed()))
    out = run_cli("schedule", str(empty), "-o", "json")
    assert out.exit_code == 0
    assert out.json()["summary"] == {"pending": 0, "scheduled": 0, "unschedulable": 0, "skipped": 0, "preempted": 0}
    assert "warning: the snapshot holds no nodes and no pods" in out.stderr


def test_no_pending_pods_is_said_on_stderr(run_cli, tmp_path):
    path = tmp_path / "running.yaml"
    path.write_text(
        yaml.safe_dump(k.listed(k.node(make_node("n1").capacity(cpu="2", memory="4Gi")), k.pod(make_pod("web-1").req(cpu="1").node("n1"))))
    )
    out = run_cli("schedule", str(path))
    assert out.exit_code == 0
    assert "0 pending: 0 scheduled" in out.stdout
    assert "warning: no pending pods in the snapshot: nothing to schedule (1 pod(s), none pending; 1 node(s))" in out.stderr
    explained = run_cli("explain", "web-1", str(path))  # explaining a bound pod says nothing of pending pods
    assert "no pending pods" not in explained.stderr


def test_empty_stdin_is_an_empty_snapshot(run_cli):
    out = run_cli("schedule", "-", "-o", "json", input="")
    assert out.exit_code == 0 and out.json()["summary"]["pending"] == 0
    assert "holds no nodes and no pods" in out.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["explain", "batch/analytics-big", "examples/cluster.yaml"],
        ["schedule", "examples/cluster.yaml"],
        ["capacity", "examples/whatif-cluster.yaml", "--pod", "examples/whatif-web-deployment.yaml"],
        ["diff", "examples/whatif-cluster.yaml", "--config-b", "profiles/bin-packing.yaml"],
    ],
    ids=["explain", "schedule", "capacity", "diff"],
)
def test_every_free_text_line_fits_the_terminal(run_cli, monkeypatch, args):
    """COLUMNS=120: the verdict, diagnoses, capacity's stop message and diff's notes and summary
    are wrapped to the terminal, counted in characters (an em dash is one column, three bytes)."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "120")
    out = run_cli(*args, "--seed", "1")
    assert out.exit_code == 0, out.stderr
    assert max(len(line) for line in out.stdout.splitlines()) <= 120
