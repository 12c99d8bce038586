"""Well-known plugin names that no installed package registers: the message says where the
plugin comes from or what replaced it, never a did-you-mean to a different plugin."""

from __future__ import annotations

import pytest

from kschedctl.config.validation import _hint
from kschedctl.plugins.plugin_manager import default_registry

CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled:
      - name: {name}
"""


@pytest.mark.parametrize(
    "name, expected",
    [
        (
            "NodeResourcesLeastAllocated",
            "kube-scheduler removed it; use NodeResourcesFit with args scoringStrategy: {type: LeastAllocated}",
        ),
        ("NodeResourcesMostAllocated", "use NodeResourcesFit with args scoringStrategy: {type: MostAllocated}"),
        ("SelectorSpread", "use PodTopologySpread with defaultingType: System"),
        ("CapacityScheduling", "it is a kubernetes-sigs/scheduler-plugins plugin, not available for kschedctl"),
        ("NodeAfinity", '(did you mean "NodeAffinity"?)'),
    ],
    ids=["least-allocated", "most-allocated", "selector-spread", "scheduler-plugins", "misspelt"],
)
def test_validate_says_where_a_well_known_plugin_comes_from(run_cli, tmp_path, name, expected):
    path = tmp_path / "config.yaml"
    path.write_text(CONFIG.format(name=name))
    out = run_cli("validate", str(path))
    assert out.exit_code == 1
    assert f'Not found: "{name}": no plugin of this name is registered' in out.stdout and expected in out.stdout
    assert "NodeResourcesAllocatable" not in out.stdout  # the old did-you-mean for the removed plugins


def test_a_shipped_package_that_is_not_installed_is_named_with_its_pip_command():
    registry = {k: v for k, v in default_registry().registry.items() if k != "Coscheduling"}
    assert _hint("Coscheduling", registry) == (
        ": it is provided by the package in plugins/kschedctl-coscheduling: pip install ./plugins/kschedctl-coscheduling"
    )
