"""The public plugin API: what `kschedctl.framework` exports, what the plugin packages import,
the one table of extension points, and the Handle plugins get instead of the scheduler.

Upstream's model: staging/src/k8s.io/kube-scheduler/framework/interface.go (Handle and one
interface per extension point) and pkg/scheduler/apis/config/types.go (Plugins).
"""

from __future__ import annotations

import ast
from dataclasses import fields
from pathlib import Path

import pytest

import kschedctl.framework as api
from kschedctl.framework.config_types import PLUGIN_SET_FIELDS, Plugins
from kschedctl.framework.extension_points import (
    CONFIG_FIELDS,
    EXTENSION_POINTS,
    extension_points_of,
)
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.testing import make_node, make_pod, new_framework

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = {"kschedctl.framework", "kschedctl.framework.gosemantics", "kschedctl.framework.args"}


def test_every_exported_name_exists():
    assert len(set(api.__all__)) == len(api.__all__)
    missing = [name for name in api.__all__ if not hasattr(api, name)]
    assert missing == []


@pytest.mark.parametrize("package", sorted(p.name for p in (ROOT / "plugins").iterdir() if p.is_dir()))
def test_plugin_packages_use_only_the_public_api(package):
    """The packages in plugins/ import kschedctl.framework (and its gosemantics / args
    modules) and nothing else of kschedctl."""
    sources = [p for p in (ROOT / "plugins" / package).glob("kschedctl_*/*.py")]
    assert sources
    private = []
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and node.level == 0
                else []
            )
            private += [(path.name, n) for n in names if n.startswith("kschedctl.") and n not in PUBLIC or n == "kschedctl"]
    assert private == []


def test_one_table_of_extension_points():
    assert PLUGIN_SET_FIELDS == CONFIG_FIELDS  # the config's plugin sets come from the table
    labels = [ep.label for ep in EXTENSION_POINTS]
    assert len(set(labels)) == len(labels)
    for ep in EXTENSION_POINTS:
        assert hasattr(ep.protocol, ep.method), ep  # the protocol declares the method that implements it
        assert getattr(api, ep.label) is ep.protocol  # and the protocol is public
    assert [ep.field for ep in EXTENSION_POINTS if not ep.configurable] == ["placementFeasible"]
    assert "placementFeasible" not in {f.name for f in fields(Plugins)} | set(PLUGIN_SET_FIELDS)


def test_plugins_listing_reads_the_table():
    registry = default_registry().registry
    assert registry["GangScheduling"].extension_points == ["preEnqueue", "reserve", "permit", "placementFeasible"]
    assert registry["TopologyPlacementGenerator"].extension_points == ["placementGenerate"]
    assert all(spec.extension_points == extension_points_of(spec.plugin_class) for spec in registry.values())


def test_the_handle_offers_services_not_the_scheduler():
    fwk = new_framework(nodes=[make_node("n1").capacity(cpu="2", memory="4Gi").obj()], pods=[make_pod("p").node("n1").obj()])
    handle = fwk.handle
    assert isinstance(handle, api.Handle)
    assert not hasattr(handle, "context") and not hasattr(handle, "__dict__")  # slots: nothing else hangs off it
    assert [n.name for n in handle.snapshot_shared_lister().list()] == ["n1"]
    assert [p.name for p in handle.pod_lister().list()] == ["p"]
    assert handle.pod_group_manager().state("default/none").all_pods_count() == 0
    assert handle.features == api.Features.of(handle.version)
    assert [name for name, _ in handle.plugins("queueSort")] == ["PrioritySort"]
    assert handle.client is None and handle.nominator is None  # no scheduler: nothing to bind or nominate
    assert handle.iterate_over_waiting_pods() == [] and handle.get_waiting_pod("x") is None
    # every in-tree plugin was given this very Handle
    assert all(getattr(pl, "handle", handle) is handle for pl in fwk.instances.values())
