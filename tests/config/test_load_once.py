"""A `--config` is read, checked, decoded and defaulted once (kschedctl/app/config.py): the
configuration the checks ran on is the one the command runs, and it is the configuration the
commands built before, when they validated the file and then loaded it a second time."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import kschedctl.config.checker as checker
import kschedctl.config.loader as loader
from kschedctl.api.errors import InputError
from kschedctl.app.config import finding_line, load_config
from kschedctl.plugins.plugin_manager import default_registry
from kschedctl.testing import make_node, make_pod
from kschedctl.versions import parse_version

CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    filter:
      enabled:
      - name: NodeResourcesFit
        weight: 2
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
- schedulerName: packer
"""


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every read of a configuration file and every defaulting, by the module that does it."""
    calls: list[str] = []
    for module in (checker, loader):
        for name in ("read_text", "set_defaults"):
            real: Callable[..., Any] = getattr(module, name)

            def counted(*args: Any, _real: Callable[..., Any] = real, _name: str = name, **kwargs: Any) -> Any:
                calls.append(_name)
                return _real(*args, **kwargs)

            monkeypatch.setattr(module, name, counted)
    return calls


def test_schedule_reads_and_defaults_the_configuration_once(
    tmp_path: Path, run_cli: Any, write_snapshot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG)
    snap = write_snapshot(make_node("n1").capacity(cpu="4", memory="8Gi"), make_pod("p").req(cpu="1"))
    calls = _counting(monkeypatch)
    result = run_cli("schedule", snap, "--config", str(config), "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert calls == ["read_text", "set_defaults"]
    # the configuration's warning is still said, once
    assert result.stderr.count("weight is used only at score") == 1


@pytest.mark.parametrize("release", ["1.35", "1.36", "1.37"])
def test_the_one_pass_configuration_is_the_two_pass_one(tmp_path: Path, release: str) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG)
    version, registry = parse_version(release), default_registry().registry
    said: list[str] = []
    cfg = load_config(str(config), version, registry, said.append)
    [report] = checker.validate_files([str(config)], version, registry, build_profiles=False)
    assert report.valid
    assert said == [f"warning: {finding_line(str(config), f)}" for f in report.findings]
    assert repr(cfg) == repr(loader.load_config_file(str(config), version, registry))


def test_the_first_error_is_raised_with_its_place(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG.replace("type: MostAllocated", "type: Most"))
    said: list[str] = []
    with pytest.raises(InputError) as raised:
        load_config(str(config), parse_version("1.36"), default_registry().registry, said.append)
    assert (raised.value.file, raised.value.obj, raised.value.line) == (str(config), "KubeSchedulerConfiguration", 14)
    assert raised.value.field == "profiles[0].pluginConfig[0].args.scoringStrategy.type"
    assert said == []
