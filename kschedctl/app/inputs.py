"""A command's inputs, loaded and checked once: the registry, the configuration, the snapshot."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kschedctl.app.config import Say, drop_extenders, load_config, plugin_registry
from kschedctl.app.snapshot import load_cluster
from kschedctl.runtime.process import loading

if TYPE_CHECKING:
    from kschedctl.cluster.loader import ClusterSnapshot
    from kschedctl.framework.config_types import KubeSchedulerConfiguration
    from kschedctl.framework.registry import Registry
    from kschedctl.versions import KubeVersion


@dataclass
class Configured:
    """The configuration to run and the registry it was checked against."""

    cfg: KubeSchedulerConfiguration
    registry: Registry


@dataclass
class Inputs:
    """What `schedule`, `explain`, `diff` (side A) and `capacity` run on."""

    cluster: ClusterSnapshot
    cfg: KubeSchedulerConfiguration
    registry: Registry


def configured(config: str | None, version: KubeVersion, say: Say, no_extenders: bool = False) -> Configured:
    """The registry (its load errors said) and the checked configuration (its warnings said),
    without its extenders when ``no_extenders``."""
    registry = plugin_registry(say)
    cfg = load_config(config, version, registry, say)
    if no_extenders:
        drop_extenders(cfg, say)
    return Configured(cfg, registry)


def load_inputs(
    snapshot: list[str], config: str | None, version: KubeVersion, say: Say, no_extenders: bool = False, pending_matters: bool = True
) -> Inputs:
    """Configuration first (a bad one fails before a large snapshot is read), then the snapshot;
    standard input is read at most once across them."""
    from kschedctl.api.inputs import check_stdin_once

    check_stdin_once(snapshot=snapshot, config=config)
    # the registry (every plugin's modules), the configuration and the snapshot: objects that
    # live as long as the run, read with the collector paused and then frozen (loading())
    with loading():
        conf = configured(config, version, say, no_extenders)
        cluster = load_cluster(snapshot, version, say, pending_matters=pending_matters)
    return Inputs(cluster, conf.cfg, conf.registry)
