"""NodeLabel installed, end to end through kschedctl's commands: `plugins` lists it, `validate`
checks its args with the line, `schedule` and `explain` run it as they run an in-tree plugin.

These tests need the package installed (``pip install ./plugins/kschedctl-node-label``), as CI
does: kschedctl finds it through its entry point, as it would any third-party package.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kschedctl.cli.app import app
from kschedctl.testing import make_node, make_pod

CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled:
      - name: NodeLabel
        weight: 5
  pluginConfig:
  - name: NodeLabel
    args:
      presentLabels: [disk]
      absentLabels: [retiring]
      presentLabelsPreference: [fast]
"""


def run(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    """A snapshot (three nodes, one pending pod) and the configuration enabling NodeLabel."""
    objects = [
        make_node("plain").capacity(cpu="8", memory="16Gi").label("disk", "hdd"),
        make_node("retiring").capacity(cpu="8", memory="16Gi").label("disk", "ssd").label("retiring", "2026-06-01"),
        make_node("fast").capacity(cpu="8", memory="16Gi").label("disk", "ssd").label("fast", "yes"),
        make_node("no-disk").capacity(cpu="8", memory="16Gi"),
        make_pod("web").req(cpu="1"),
    ]
    snapshot = tmp_path / "snapshot.yaml"
    snapshot.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [o.dict() for o in objects]}))
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG)
    return str(snapshot), str(config)


def test_kschedctl_lists_the_installed_plugin() -> None:
    out = run("plugins", "-o", "json")
    row = next(p for p in json.loads(out.stdout)["plugins"] if p["name"] == "NodeLabel")
    assert row == {"name": "NodeLabel", "extensionPoints": ["filter", "score"], "source": "kschedctl-node-label", "version": "0.1.0"}


def test_schedule_runs_its_filter_and_score(files: tuple[str, str]) -> None:
    snapshot, config = files
    out = run("schedule", snapshot, "--config", config, "-o", "json", "--seed", "1")
    assert out.exit_code == 0, out.stderr
    [placement] = json.loads(out.stdout)["placements"]
    assert placement["node"] == "fast"  # the only node that passes the Filter and has the preferred label


def test_explain_shows_its_verdict_and_score_per_node(files: tuple[str, str]) -> None:
    snapshot, config = files
    out = run("explain", "default/web", snapshot, "--config", config, "-o", "json")
    assert out.exit_code == 0, out.stderr
    data = json.loads(out.stdout)
    nodes = data["nodes"]
    for name in ("retiring", "no-disk"):
        assert nodes[name]["filter"] == {
            "code": "UnschedulableAndUnresolvable",
            "plugin": "NodeLabel",
            "reasons": ["node(s) didn't have the requested labels"],
        }
    assert nodes["fast"]["scores"]["NodeLabel"] == {"score": 100, "weight": 5}
    assert nodes["plain"]["scores"]["NodeLabel"] == {"score": 0, "weight": 5}
    assert data["node"] == "fast"


def test_validate_points_at_conflicting_args(tmp_path: Path) -> None:
    config = tmp_path / "conflict.yaml"
    config.write_text(CONFIG.replace("absentLabels: [retiring]", "absentLabels: [retiring, disk]"))
    out = run("validate", str(config), "-o", "json")
    assert out.exit_code == 1
    [finding] = json.loads(out.stdout)["files"][0]["findings"]
    assert (finding["path"], finding["line"], finding["message"]) == (
        "profiles[0].pluginConfig[0].args.presentLabels[0]",
        13,
        'Invalid value: "disk": conflict with absentLabels[1]',
    )
