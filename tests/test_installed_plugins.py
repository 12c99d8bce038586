"""Plugins from installed packages: listed, configurable, isolated when they crash or fail to load.

Needs the example package installed (CI does it; by hand, from the repository root):

    python -m pip install --no-deps --no-build-isolation -e plugins/kschedctl-node-resources-allocatable

The package is ported from kubernetes-sigs/scheduler-plugins pkg/noderesources/allocatable.go.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import re
import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from kschedctl.cluster.loader import load_snapshot
from kschedctl.config.defaults import default_plugins
from kschedctl.config.loader import load_config_text
from kschedctl.framework.interface import Status
from kschedctl.framework.registry import PluginSpec, Registry
from kschedctl.hookspecs import hookimpl
from kschedctl.plugins import plugin_manager
from kschedctl.scheduler.scheduler import Scheduler
from kschedctl.testing import make_node, make_pod
from kschedctl.versions import KubeVersion

DIST = "kschedctl-node-resources-allocatable"
PLUGIN = "NodeResourcesAllocatable"
INSTALL = "python -m pip install --no-deps --no-build-isolation -e plugins/kschedctl-node-resources-allocatable"


def _installed() -> bool:
    try:
        importlib.import_module("kschedctl_node_resources_allocatable")
        importlib.metadata.distribution(DIST)
    except (ImportError, importlib.metadata.PackageNotFoundError):
        return False
    return True


INSTALLED = _installed()
# Only the tests that use the example package skip without it; the isolation tests always run.
needs_package = pytest.mark.skipif(not INSTALLED, reason=f"example plugin package {DIST} is not installed; run: {INSTALL}")


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test builds the plugin registry anew (it is cached per process) and leaves the cache as it was."""
    monkeypatch.setattr(plugin_manager, "_DEFAULT", None)


def missing_default_plugins() -> list[str]:
    """Default plugins not (yet) registered: disabled in every config below, so the tests run either way."""
    registry = plugin_manager.default_registry().registry
    return [p.name for p in default_plugins(KubeVersion()).multi_point.enabled if p.name not in registry]


def config_yaml(enabled: list[dict] | None = None, plugin_config: list[dict] | None = None) -> str | None:
    """A v1 config: the defaults plus `enabled` at multiPoint; None when that is the built-in default."""
    missing = missing_default_plugins()
    if not enabled and not plugin_config and not missing:
        return None
    multi_point: dict[str, Any] = {"enabled": enabled or []}
    if missing:
        multi_point["disabled"] = [{"name": n} for n in missing]
    profile: dict[str, Any] = {"schedulerName": "default-scheduler", "plugins": {"multiPoint": multi_point}}
    if plugin_config:
        profile["pluginConfig"] = plugin_config
    return yaml.safe_dump(
        {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", "profiles": [profile]}, sort_keys=False
    )


def config_args(cfg: str | None, tmp_path: Path, name: str) -> list[str]:
    if cfg is None:
        return []
    path = tmp_path / name
    path.write_text(cfg)
    return ["--config", str(path)]


# --- listed with its package -------------------------------------------------------------------


@needs_package
def test_listed_with_source_package_and_version(run_cli):
    out = run_cli("plugins", "-o", "json")
    assert out.exit_code == 0, out.stderr
    data = out.json()
    rows = {row["name"]: row for row in data["plugins"]}
    assert rows[PLUGIN] == {"name": PLUGIN, "extensionPoints": ["score"], "source": DIST, "version": importlib.metadata.version(DIST)}
    assert rows["NodeName"]["source"] == "in-tree"
    assert not [e for e in data["errors"] if DIST in e or "allocatable" in e.lower()]
    table = run_cli("plugins").stdout
    assert any(line.split()[:1] == [PLUGIN] and DIST in line for line in table.splitlines())


# --- configured, it changes a placement --------------------------------------------------------


def two_node_snapshot(write_snapshot) -> str:
    """A small and a big node: the default scorers (LeastAllocated, BalancedAllocation) prefer the
    big one; NodeResourcesAllocatable in mode Least prefers the node with less allocatable."""
    return write_snapshot(
        make_node("small").capacity(cpu="2", memory="4Gi"),
        make_node("big").capacity(cpu="16", memory="64Gi"),
        make_pod("web").req(cpu="500m", memory="512Mi"),
    )


@needs_package
def test_enabling_it_changes_the_placement(run_cli, write_snapshot, tmp_path):
    snap = two_node_snapshot(write_snapshot)
    baseline = run_cli("schedule", snap, "-o", "json", "--seed", "1", *config_args(config_yaml(), tmp_path, "default.yaml"))
    assert baseline.exit_code == 0, baseline.stderr
    assert [(p["pod"], p["node"]) for p in baseline.json()["placements"]] == [("default/web", "big")]

    with_plugin = config_yaml(enabled=[{"name": PLUGIN, "weight": 10}])
    out = run_cli("schedule", snap, "-o", "json", "--seed", "1", *config_args(with_plugin, tmp_path, "alloc.yaml"))
    assert out.exit_code == 0, out.stderr
    assert [(p["pod"], p["node"]) for p in out.json()["placements"]] == [("default/web", "small")]


@needs_package
def test_explain_shows_its_scores_and_args_reach_it(run_cli, write_snapshot, tmp_path):
    snap = two_node_snapshot(write_snapshot)
    least = config_yaml(enabled=[{"name": PLUGIN, "weight": 10}])
    data = run_cli("explain", "default/web", snap, "-o", "json", *config_args(least, tmp_path, "least.yaml")).json()
    assert data["node"] == "small"
    assert data["nodes"]["small"]["scores"][PLUGIN] == {"score": 100, "weight": 10}
    assert data["nodes"]["big"]["scores"][PLUGIN] == {"score": 0, "weight": 10}

    most = config_yaml(enabled=[{"name": PLUGIN, "weight": 10}], plugin_config=[{"name": PLUGIN, "args": {"mode": "Most"}}])
    data = run_cli("explain", "default/web", snap, "-o", "json", *config_args(most, tmp_path, "most.yaml")).json()
    assert data["node"] == "big"
    assert data["nodes"]["big"]["scores"][PLUGIN] == {"score": 100, "weight": 10}
    assert data["nodes"]["small"]["scores"][PLUGIN] == {"score": 0, "weight": 10}


@needs_package
def test_invalid_args_are_rejected_with_upstream_message(run_cli, write_snapshot, tmp_path):
    snap = two_node_snapshot(write_snapshot)
    bad = config_yaml(enabled=[{"name": PLUGIN, "weight": 10}], plugin_config=[{"name": PLUGIN, "args": {"mode": "Sideways"}}])
    out = run_cli("schedule", snap, *config_args(bad, tmp_path, "bad.yaml"))
    assert out.exit_code == 2
    assert "mode" in out.stderr and 'Invalid value: "Sideways": invalid support ModeType' in out.stderr


@needs_package
@pytest.mark.parametrize(
    "args, expected",
    [
        # the package's args_schema (strict decoding)
        pytest.param({"mode": "Most", "typo": 1}, ['args.typo: unknown field "typo"'], id="schema: unknown field"),
        # the package's validate_args: upstream validation_plugingargs_test.go TestValidateNodeResourcesAllocatableArgs
        pytest.param(
            {"mode": "Sideways", "resources": [{"name": "cpu", "weight": 0}]},
            [
                "args.resources[0].weight: Invalid value: 0: resource weight of cpu should be a positive value, got :0",
                'args.mode: Invalid value: "Sideways": invalid support ModeType',
            ],
            id="validator: weight and mode",
        ),
    ],
)
def test_validate_checks_its_args(run_cli, tmp_path, args, expected):
    cfg = config_yaml(enabled=[{"name": PLUGIN, "weight": 10}], plugin_config=[{"name": PLUGIN, "args": args}])
    path = tmp_path / "cfg.yaml"
    path.write_text(cfg or "")
    out = run_cli("validate", str(path))
    assert out.exit_code == 1, out.stdout + out.stderr
    for message in expected:
        assert f"profiles[0].pluginConfig[0].{message}" in out.stdout


@needs_package
def test_validate_accepts_good_args(run_cli, tmp_path):
    cfg = config_yaml(
        enabled=[{"name": PLUGIN, "weight": 10}],
        plugin_config=[
            {"name": PLUGIN, "args": {"mode": "Most", "resources": [{"name": "cpu", "weight": 1}, {"name": "nvidia.com/gpu", "weight": 5}]}}
        ],
    )
    path = tmp_path / "cfg.yaml"
    path.write_text(cfg or "")
    out = run_cli("validate", str(path))
    assert out.exit_code == 0, out.stdout + out.stderr


# --- a crashing plugin fails only the pods it crashes on ---------------------------------------


class Crashy:
    """A Filter plugin that raises on pods labelled crash=yes and passes every other pod."""

    def __init__(self, args: dict | None, handle: Any) -> None:
        pass

    def name(self) -> str:
        return "Crashy"

    def filter(self, state: Any, pod: Any, node_info: Any) -> Status | None:
        if pod.labels.get("crash") == "yes":
            raise RuntimeError("boom: cannot evaluate this pod")
        return None


def crash_snapshot(write_snapshot) -> str:
    return write_snapshot(
        make_node("n1").capacity(cpu="4", memory="8Gi"),
        make_node("n2").capacity(cpu="4", memory="8Gi"),
        make_pod("ok-1").req(cpu="100m"),
        make_pod("bad").label("crash", "yes").req(cpu="100m"),
        make_pod("ok-2").req(cpu="100m"),
    )


def assert_crash_isolated(data: dict) -> None:
    assert sorted(p["pod"] for p in data["placements"]) == ["default/ok-1", "default/ok-2"]
    [failed] = data["unschedulable"]
    assert failed["pod"] == "default/bad"
    assert failed.get("error") is True
    assert "Crashy" in failed["message"]
    assert "RuntimeError: boom: cannot evaluate this pod" in failed["message"]


def test_crashing_plugin_in_a_manual_registry(write_snapshot):
    registry = Registry()
    registry.merge(plugin_manager.default_registry().registry)
    registry.register(PluginSpec("Crashy", Crashy, Crashy, source="test"))
    version = KubeVersion()
    cfg = load_config_text(config_yaml(enabled=[{"name": "Crashy"}]) or "", "<test>", version, registry)
    cluster = load_snapshot([crash_snapshot(write_snapshot)])
    result = Scheduler(cluster, cfg, registry, version, seed=1).run()
    assert_crash_isolated(result.to_dict())
    [failed] = result.unschedulable
    assert failed.error


class CrashyHooks:
    """Registered on the plugin manager like an installed package's hook module."""

    @hookimpl
    def kschedctl_register_plugins(self) -> list[PluginSpec]:
        return [PluginSpec("Crashy", Crashy, Crashy, source="crashy-test-package", version="0.0.1")]


def test_crashing_plugin_through_the_hook_and_cli(run_cli, write_snapshot, tmp_path, monkeypatch):
    real = plugin_manager.get_plugin_manager

    def with_crashy():
        pm, packages, errors = real()
        pm.register(CrashyHooks(), name="kschedctl:crashy")
        return pm, packages, errors

    monkeypatch.setattr(plugin_manager, "get_plugin_manager", with_crashy)
    listed = {r["name"]: r for r in run_cli("plugins", "-o", "json").json()["plugins"]}
    assert listed["Crashy"]["source"] == "crashy-test-package" and listed["Crashy"]["extensionPoints"] == ["filter"]

    cfg = config_args(config_yaml(enabled=[{"name": "Crashy"}]), tmp_path, "crashy.yaml")
    out = run_cli("schedule", crash_snapshot(write_snapshot), "-o", "json", "--seed", "1", *cfg)
    assert out.exit_code == 0, out.stderr
    assert_crash_isolated(out.json())


# --- a package that fails to load is reported and skipped --------------------------------------


class FakeEntryPoint:
    """What importlib.metadata gives for an entry point of an installed distribution."""

    group = "kschedctl"

    def __init__(self, name: str, value: str, dist_name: str) -> None:
        self.name = name
        self.value = value
        self.dist = SimpleNamespace(name=dist_name, version="1.2.3")

    def load(self) -> Any:
        return importlib.import_module(self.value)


@pytest.fixture
def broken_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    """An installed package whose hook module fails to import (a dependency is missing)."""
    (tmp_path / "kschedctl_broken_example_hooks.py").write_text(
        textwrap.dedent("""
        import kschedctl_dependency_that_is_not_installed  # noqa: F401
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    real = plugin_manager.entry_points
    broken = FakeEntryPoint("broken-example", "kschedctl_broken_example_hooks", "kschedctl-broken-example")

    def entry_points(**selection: Any) -> list:
        found = list(real(**selection))
        return found + [broken] if selection.get("group") == plugin_manager.ENTRY_POINT_GROUP else found

    monkeypatch.setattr(plugin_manager, "entry_points", entry_points)
    return "kschedctl-broken-example"


def test_package_whose_import_fails_is_reported_and_skipped(run_cli, broken_package, write_snapshot, tmp_path):
    out = run_cli("plugins", "-o", "json")
    assert out.exit_code == 0
    data = out.json()
    [error] = [e for e in data["errors"] if broken_package in e]
    assert "ModuleNotFoundError" in error and "kschedctl_dependency_that_is_not_installed" in error
    assert "skipped" in error
    assert f"warning: {error}" in out.stderr
    names = {r["name"] for r in data["plugins"]}
    assert {"NodeName", "DefaultBinder"} <= names  # in-tree plugins are still there
    if INSTALLED:
        assert PLUGIN in names  # and so is the package that loads

    table = run_cli("plugins")
    assert table.exit_code == 0 and "NodeName" in table.stdout and broken_package in table.stderr

    snap = two_node_snapshot(write_snapshot)
    enabled = [{"name": PLUGIN, "weight": 10}] if INSTALLED else None
    run = run_cli("schedule", snap, "-o", "json", "--seed", "1", *config_args(config_yaml(enabled), tmp_path, "c.yaml"))
    assert run.exit_code == 0 and broken_package in run.stderr
    assert [p["node"] for p in run.json()["placements"]] == ["small" if INSTALLED else "big"]


def test_package_whose_hook_raises_is_reported_and_skipped(run_cli, monkeypatch):
    class RaisingHooks:
        KSCHEDCTL_PLUGIN_API = 1

        @hookimpl
        def kschedctl_register_plugins(self) -> list[PluginSpec]:
            raise RuntimeError("cannot read my data file")

    real = plugin_manager.entry_points
    ep = FakeEntryPoint("raising-example", "unused", "kschedctl-raising-example")
    ep.load = lambda: RaisingHooks()  # type: ignore[method-assign]
    monkeypatch.setattr(plugin_manager, "entry_points", lambda **sel: list(real(**sel)) + ([ep] if sel.get("group") == "kschedctl" else []))
    out = run_cli("plugins", "-o", "json")
    assert out.exit_code == 0
    data = out.json()
    [error] = [e for e in data["errors"] if "raising-example" in e]
    assert "RuntimeError: cannot read my data file" in error
    assert "NodeName" in {r["name"] for r in data["plugins"]}


def test_misspelled_in_tree_module_raises(monkeypatch):
    """A typo in IN_TREE_MODULES is kschedctl's bug: it raises, it never drops a plugin silently."""
    from kschedctl.plugins import intree

    monkeypatch.setattr(intree, "IN_TREE_MODULES", ["node_name", "node_nmae"])
    with pytest.raises(ModuleNotFoundError, match="kschedctl.plugins.node_nmae"):
        plugin_manager.build_registry()


# --- installed packages that misbehave: reported and skipped, never fatal -------------------------


@pytest.fixture
def install_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """Install a package whose entry-point module has this source (an entry point of the group)."""
    real = plugin_manager.entry_points
    added: list[FakeEntryPoint] = []
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(
        plugin_manager, "entry_points", lambda **sel: list(real(**sel)) + (added if sel.get("group") == "kschedctl" else [])
    )

    def install(module: str, source: str) -> str:
        dist = module.replace("_", "-")
        module = f"{module}_{re.sub(r'[^A-Za-z0-9_]', '_', tmp_path.name)}"  # a fresh import per test
        (tmp_path / f"{module}.py").write_text(textwrap.dedent(source))
        added.append(FakeEntryPoint(module, module, dist))
        return dist

    return install


BAD_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  percentageOfNodesToScore: 101
"""


@pytest.mark.parametrize(
    "source, error",
    [
        pytest.param("import sys\nsys.exit(3)\n", "failed to load and was skipped: SystemExit: 3", id="sys.exit at import"),
        pytest.param(
            "class Stop(BaseException):\n    pass\nraise Stop('no')\n",
            "failed to load and was skipped: Stop: no",
            id="BaseException at import",
        ),
        pytest.param(
            "print('hello from import')\nKSCHEDCTL_PLUGIN_API = 2\n",
            "was written for plugin API 2; this kschedctl provides plugin API 1: skipped",
            id="other API version",
        ),
        pytest.param("print('hello from import')\n", "declares no plugin API version", id="no API version"),
        pytest.param(
            """\
        from kschedctl.framework import hookimpl
        KSCHEDCTL_PLUGIN_API = 1

        @hookimpl
        def kschedctl_register_plugins():
            return "NodeName"
        """,
            "returned str from kschedctl_register_plugins, expected a list of PluginSpec; skipped",
            id="hook returns a non-list",
        ),
        pytest.param(
            """\
        from kschedctl.framework import hookimpl
        KSCHEDCTL_PLUGIN_API = 1

        @hookimpl
        def kschedctl_register_plugins():
            return [object()]
        """,
            "returned object in its list of plugins, expected PluginSpec; skipped",
            id="hook returns non-specs",
        ),
        pytest.param(
            """\
        import sys
        from kschedctl.framework import hookimpl
        KSCHEDCTL_PLUGIN_API = 1

        @hookimpl
        def kschedctl_register_plugins():
            print("hello from the hook")
            sys.exit("bye")
        """,
            "failed to register its plugins: SystemExit: bye; skipped",
            id="hook calls sys.exit",
        ),
    ],
)
def test_a_broken_package_is_reported_and_skipped(source, error, install_package, run_cli, write_snapshot, tmp_path):
    dist = install_package("kschedctl_misbehaving_example", source)
    listed = run_cli("plugins", "-o", "json")
    assert listed.exit_code == 0
    data = listed.json()  # its prints went to stderr: stdout is still JSON
    [message] = [e for e in data["errors"] if "misbehaving" in e]
    assert error in message and "\n" not in message
    assert {"NodeName", "DefaultBinder"} <= {r["name"] for r in data["plugins"]}

    # validate still says what it says without the package: invalid config, exit 1
    bad = tmp_path / "bad.yaml"
    bad.write_text(BAD_CONFIG)
    out = run_cli("validate", str(bad))
    assert out.exit_code == 1, out.stdout + out.stderr
    assert f"warning: plugin package '{dist}'" in out.stderr
    assert "profiles[0].percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]" in out.stdout
    good = tmp_path / "good.yaml"
    good.write_text(BAD_CONFIG.replace("101", "50"))
    assert run_cli("validate", str(good)).exit_code == 0

    snap = write_snapshot(make_node("n1").capacity(cpu="2", memory="4Gi"), make_pod("p").req(cpu="1"))
    run = run_cli("schedule", snap, "-o", "json", "--seed", "1")
    assert run.exit_code == 0 and dist in run.stderr
    assert [p["pod"] for p in run.json()["placements"]] == ["default/p"]


def test_an_installed_package_whose_plugin_misbehaves(install_package, run_cli, write_snapshot, tmp_path):
    """A package that loads fine and declares the API, whose Filter plugin calls sys.exit() and
    prints for one pod: that pod fails naming the plugin, the others are scheduled."""
    install_package(
        "kschedctl_exiting_example",
        """\
        import sys
        from kschedctl.framework import PluginSpec, hookimpl
        KSCHEDCTL_PLUGIN_API = 1

        class Exiting:
            def __init__(self, args, handle):
                pass

            def name(self):
                return "Exiting"

            def filter(self, state, pod, node_info):
                print("plugin output on stdout")
                if pod.labels.get("exit") == "yes":
                    sys.exit(7)
                return None

        @hookimpl
        def kschedctl_register_plugins():
            return [PluginSpec("Exiting", Exiting, Exiting)]
        """,
    )
    cfg = config_args(config_yaml(enabled=[{"name": "Exiting"}]), tmp_path, "exiting.yaml")
    snap = write_snapshot(
        make_node("n1").capacity(cpu="4", memory="8Gi"),
        make_pod("ok").req(cpu="100m"),
        make_pod("bad").label("exit", "yes").req(cpu="100m"),
    )
    out = run_cli("schedule", snap, "-o", "json", "--seed", "1", *cfg)
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert [p["pod"] for p in data["placements"]] == ["default/ok"]
    [failed] = data["unschedulable"]
    assert failed["pod"] == "default/bad" and failed["error"] is True
    assert failed["message"] == ('running "Exiting" filter plugin: plugin "Exiting" raised in Filter: SystemExit: 7')
    assert "plugin output on stdout" in out.stderr
