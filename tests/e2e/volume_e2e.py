"""Helpers for the volume plugins' `kschedctl explain -o json` tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer.testing

import kschedctl.cli.app
from kschedctl.testing import only_plugins

CONFIG = only_plugins(
    "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone", "DynamicResources", weights={"DynamicResources": 2}
)

NODES = """\
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: a}},
   status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {kubernetes.io/hostname: n2, topology.kubernetes.io/zone: b}},
   status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
"""


def explain(tmp_path: Path, items: str, pod: str = "default/web", extra: tuple[str, ...] = ()) -> dict[str, Any]:
    snap = tmp_path / "snap.yaml"
    snap.write_text("apiVersion: v1\nkind: List\nitems:\n" + NODES + items)
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(CONFIG)
    result = typer.testing.CliRunner().invoke(
        kschedctl.cli.app.app, ["explain", pod, str(snap), "--config", str(cfg), "-o", "json", *extra]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)
