"""docs/writing-plugins.md says what the API is: every Handle member, public name and extension
point it names exists, and the example package it walks through is the one CI installs."""

from __future__ import annotations

import re
from pathlib import Path

import kschedctl.framework as api
from kschedctl.framework import EXTENSION_POINTS, Handle

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "writing-plugins.md").read_text(encoding="utf-8")


def test_every_handle_member_it_names_exists() -> None:
    named = set(re.findall(r"`handle\.([a-z_]+)", DOC))
    assert named >= {"snapshot_shared_lister", "objects", "pod_lister", "pod_group_manager", "features", "client"}
    assert sorted(n for n in named if not hasattr(Handle, n)) == []


def test_every_extension_point_is_in_its_table() -> None:
    table = DOC[DOC.index("| point (config field) |") :]
    table = table[: table.index("\n\n")]
    assert [ep.field for ep in EXTENSION_POINTS if f"`{ep.field}`" not in table] == []


def test_the_public_names_it_imports_exist() -> None:
    imported: set[str] = set()
    for block in re.findall(r"from kschedctl\.framework import \(?([^)\n]*(?:\n[^)\n]*)*?)\)?\n", DOC):
        imported.update(n.strip() for n in block.replace("\n", ",").split(",") if n.strip())
    assert imported >= {"PluginSpec", "hookimpl", "Handle", "NodeInfo", "PluginArgs"}
    assert sorted(n for n in imported if n not in api.__all__) == []


def test_the_example_it_walks_through_is_a_package_ci_installs() -> None:
    package = ROOT / "plugins" / "kschedctl-node-label"
    assert "plugins/kschedctl-node-label/" in DOC
    assert (package / "pyproject.toml").is_file() and list((package / "tests").glob("test_*.py"))
    assert 'node-label = "kschedctl_node_label.hooks"' in (package / "pyproject.toml").read_text(encoding="utf-8")
