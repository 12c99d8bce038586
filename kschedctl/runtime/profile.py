"""Profiles: each scheduler name's Framework, built once per run.

Upstream: pkg/scheduler/profile/profile.go (NewMap, and cfgValidator: a scheduler name, no
duplicate names, the same queue sort plugin and args in every profile). The Scheduler builds
its map here with the run's Services, so `schedule`, `explain` and `simulate` build each
profile once; `validate` builds them with ``Services.minimal`` to report what NewFramework
would refuse, every profile's errors at once (profile_issues).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kschedctl.api.errors import InputError
from kschedctl.framework.config_types import KubeSchedulerConfiguration, Profile
from kschedctl.framework.gosemantics import go_quote
from kschedctl.framework.registry import Registry
from kschedctl.runtime.framework import Framework, FrameworkError
from kschedctl.runtime.services import Services

KIND = "KubeSchedulerConfiguration"


@dataclass(frozen=True)
class ProfileIssue:
    """Why a profile cannot be built: the configuration path and the message."""

    path: str
    message: str


class ProfileError(InputError, FrameworkError):
    """A profile of the configuration cannot be built (the first ProfileIssue)."""


def new_profile(profile: Profile, registry: Registry, services: Services) -> Framework:
    """newProfile: the profile's Framework (FrameworkError when NewFramework would fail)."""
    return Framework(profile, registry, services)


def build(
    cfg: KubeSchedulerConfiguration, registry: Registry, services: Services, *, skip: set[int] | None = None, check_queue_sort: bool = True
) -> tuple[dict[str, Framework], list[ProfileIssue]]:
    """Every profile's Framework by scheduler name, and the issues of those that cannot be
    built or contradict the first (profile.go's checks). Profiles in ``skip`` (known bad) are
    not built."""
    frameworks: dict[str, Framework] = {}
    issues: list[ProfileIssue] = []
    first: tuple[str, Any] | None = None
    for i, profile in enumerate(cfg.profiles):
        if skip and i in skip:
            continue
        raw_plugins = _raw_profile(cfg, i).get("plugins")
        try:
            fwk = new_profile(profile, registry, services)
        except Exception as exc:  # noqa: BLE001 - FrameworkError, or a plugin factory refusing its args
            message = str(exc) if isinstance(exc, FrameworkError) else f"{type(exc).__name__}: {exc}"
            issues.append(ProfileIssue(f"profiles[{i}].plugins" if raw_plugins else f"profiles[{i}]", message))
            continue
        issue = _check(i, profile, fwk, frameworks, first if check_queue_sort else None)
        if issue is not None:
            issues.append(issue)
            continue
        if first is None:
            first = _queue_sort_of(profile, fwk)
        frameworks[profile.scheduler_name] = fwk
    return frameworks, issues


def new_map(cfg: KubeSchedulerConfiguration, registry: Registry, services: Services) -> dict[str, Framework]:
    """NewMap: the frameworks of every profile, or ProfileError naming the configuration file
    and the path of the first profile that cannot be built."""
    frameworks, issues = build(cfg, registry, services)
    if issues:
        raise ProfileError(issues[0].message, file=cfg.source, obj=KIND, field=issues[0].path or None)
    return frameworks  # their waiting pods are one map, the Services' (services.py)


def profile_issues(
    cfg: KubeSchedulerConfiguration, registry: Registry, services: Services, skip: set[int] | None = None, check_queue_sort: bool = True
) -> list[ProfileIssue]:
    """What `validate` reports of the profiles: every issue of build()."""
    return build(cfg, registry, services, skip=skip, check_queue_sort=check_queue_sort)[1]


def _check(i: int, profile: Profile, fwk: Framework, built: dict[str, Framework], first: tuple[str, Any] | None) -> ProfileIssue | None:
    """cfgValidator.validate: a scheduler name, no duplicate, the first profile's queue sort."""
    name = profile.scheduler_name
    if name in built:
        return ProfileIssue(f"profiles[{i}].schedulerName", f"duplicate profile with scheduler name {go_quote(name)}")
    if first is None:
        return None
    sorter, args = _queue_sort_of(profile, fwk)
    if sorter != first[0]:
        return ProfileIssue(
            f"profiles[{i}].plugins",
            f"different queue sort plugins for profile {go_quote(name)}: {go_quote(sorter)}, first: {go_quote(first[0])}",
        )
    if args != first[1]:
        return ProfileIssue(f"profiles[{i}].pluginConfig", f"different queue sort plugin args for profile {go_quote(name)}")
    return None


def _queue_sort_of(profile: Profile, fwk: Framework) -> tuple[str, Any]:
    sorter = fwk.name_of(fwk.points["queueSort"][0]) if fwk.points["queueSort"] else ""
    return sorter, profile.args_for(sorter)


def _raw_profile(cfg: KubeSchedulerConfiguration, i: int) -> dict[str, Any]:
    profiles = (cfg.raw or {}).get("profiles")
    profile: dict[str, Any] = {}
    if isinstance(profiles, list) and i < len(profiles) and isinstance(profiles[i], dict):
        profile = profiles[i]
    return profile


__all__ = ["ProfileError", "ProfileIssue", "build", "new_map", "new_profile", "profile_issues"]
