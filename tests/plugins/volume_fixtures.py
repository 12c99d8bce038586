"""Shared fixtures for the volume plugin tests: a framework holding only the volume plugins."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kschedctl.testing import new_framework

VOLUME_PROFILE = """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled: [{name: '*'}]
      enabled:
      - {name: PrioritySort}
      - {name: DefaultBinder}
      - {name: VolumeRestrictions}
      - {name: NodeVolumeLimits}
      - {name: VolumeBinding}
      - {name: VolumeZone}
      - {name: DynamicResources, weight: 2}
"""


def volume_framework(
    nodes: Iterable[Any] = (), pods: Iterable[Any] = (), objects: Any = None, version: Any = None, config: str | None = None
) -> Any:
    return new_framework(config or VOLUME_PROFILE, nodes=nodes, pods=pods, objects=objects, version=version)
