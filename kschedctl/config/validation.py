"""Semantic validation of a defaulted KubeSchedulerConfiguration: kube's rules, then kschedctl's.

Upstream: pkg/scheduler/apis/config/validation/validation.go (ValidateKubeSchedulerConfiguration),
component-base/config/validation (leader election, client connection), the args validators
(validation_pluginargs.go: each plugin's typed args, ``PluginArgs.validate``) and the
plugin names against the registry. What building the profiles finds (NewFramework's errors,
profile.go's queue sort check) is kschedctl/runtime/profile.py's.

Messages follow apimachinery's field.Error: ``<path>: <type>[: <value>][: <detail>]``; an
Issue keeps the path apart from the rest so the CLI can map it to a line of the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kschedctl.api.jsontypes import JSONList, JSONObject
from kschedctl.api.validation import is_extended_resource_name, qualified_name_errors
from kschedctl.config.known_plugins import known_elsewhere
from kschedctl.framework import gosemantics as field
from kschedctl.framework.config_types import (
    PLUGIN_SET_FIELDS,
    KubeSchedulerConfiguration,
    PluginSet,
)
from kschedctl.framework.extension_points import WEIGHTED_FIELDS
from kschedctl.framework.features import Features
from kschedctl.framework.gosemantics import (
    FieldError,
    go_value,
    parse_go_duration,
)
from kschedctl.framework.registry import Registry
from kschedctl.runtime.sandbox import Sandbox, describe
from kschedctl.versions import KubeVersion

API_VERSION = "kubescheduler.config.k8s.io/v1"

# validation.go invalidPluginsByVersion: names removed from (and rejected by) the v1 API.
REMOVED_PLUGINS = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")
# validatePluginConfig's stagesToPluginSet (multiPoint is not checked upstream).
_REMOVED_CHECK_POINTS = (
    "preEnqueue",
    "queueSort",
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
)
_WEIGHTED_POINTS = ("multiPoint",) + WEIGHTED_FIELDS


@dataclass(frozen=True)
class Issue:
    path: str
    message: str  # field.Error's body: 'Invalid value: 0: should be ...'
    severity: str = "error"  # or "warning" (kschedctl's own advice; kube-scheduler accepts it)

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


# --- field.Error (apimachinery/pkg/util/validation/field/errors.go, via gosemantics) -----------
def invalid(path: str, value: Any, detail: str) -> Issue:
    return Issue(*field.invalid(path, value, detail))


def required(path: str, detail: str = "") -> Issue:
    return Issue(*field.required(path, detail))


def duplicate(path: str, value: Any) -> Issue:
    return Issue(*field.duplicate(path, value))


def forbidden(path: str, detail: str) -> Issue:
    return Issue(*field.forbidden(path, detail))


def not_found(path: str, value: Any, detail: str = "") -> Issue:
    return Issue(*field.not_found(path, value, detail))


def not_supported(path: str, value: Any, valid: Iterable[str]) -> Issue:
    return Issue(*field.not_supported(path, value, valid))


# --- kube's rules (validation.go) --------------------------------------------------------------
def _validate_top(cfg: KubeSchedulerConfiguration, raw: JSONObject) -> list[Issue]:
    out: list[Issue] = []
    cc = raw.get("clientConnection") or {}
    burst = cc.get("burst")
    if isinstance(burst, int) and burst < 0:
        out.append(invalid("clientConnection.burst", burst, "must be non-negative"))
    out.extend(_validate_leader_election(raw.get("leaderElection") or {}))
    if cfg.parallelism <= 0:
        out.append(invalid("parallelism", cfg.parallelism, "should be an integer value greater than zero"))
    return out


def _validate_leader_election(le: JSONObject) -> list[Issue]:
    """ValidateLeaderElectionConfiguration on the v1 defaults (zero/empty values are defaulted)."""
    out: list[Issue] = []
    if le.get("leaderElect") is False:
        return out

    def duration(key: str, default: float) -> tuple[str, float]:
        text = le.get(key)
        seconds = parse_go_duration(text)
        if seconds is None or seconds == 0:
            return (str(int(default)) + "s", default)
        return (str(text), seconds)  # (a duration was parsed: it is a string)

    lease, renew, retry = duration("leaseDuration", 15), duration("renewDeadline", 10), duration("retryPeriod", 2)
    for key, (text, seconds) in (("leaseDuration", lease), ("renewDeadline", renew), ("retryPeriod", retry)):
        if seconds <= 0:
            out.append(Issue(f"leaderElection.{key}", f"Invalid value: {text}: must be greater than zero"))
    if lease[1] <= renew[1]:
        out.append(Issue("leaderElection.leaseDuration", f"Invalid value: {renew[0]}: LeaseDuration must be greater than RenewDeadline"))
    lock = le.get("resourceLock") or "leases"
    if lock != "leases":
        out.append(invalid("leaderElection.resourceLock", lock, 'resourceLock value must be "leases"'))
    return out


def _percentage(path: str, value: int | None) -> list[Issue]:
    if value is not None and (value < 0 or value > 100):
        return [invalid(path, value, "not in valid range [0-100]")]
    return []


def _removed_message(name: str) -> str:
    return f'was invalid in version "{API_VERSION}" (KubeSchedulerConfiguration is version "{API_VERSION}")'


def _raw_profile(raw: JSONObject, i: int) -> JSONObject:
    profiles = raw.get("profiles") or []
    return profiles[i] if i < len(profiles) and isinstance(profiles[i], dict) else {}


def _raw_enabled(raw_profile: JSONObject, point: str) -> list[str]:
    plugins = raw_profile.get("plugins") or {}
    pset = plugins.get(point) or {}
    return [str(p.get("name", "")) for p in (pset.get("enabled") or []) if isinstance(p, dict)]


def _normalize_args_path(base: str, field: str) -> str:
    field = field or ""
    if field.startswith("profiles["):
        return field
    if field == "args" or field.startswith("args.") or field.startswith("args["):
        field = field[4:].lstrip(".")
    if not field:
        return base
    return f"{base}{field}" if field.startswith("[") else f"{base}.{field}"


def _validate_profile(i: int, cfg: KubeSchedulerConfiguration, raw: JSONObject, version: KubeVersion, registry: Registry) -> list[Issue]:
    """validateKubeSchedulerProfile + validatePluginConfig."""
    profile = cfg.profiles[i]
    path = f"profiles[{i}]"
    features = Features.of(version)
    out: list[Issue] = []
    if not profile.scheduler_name:
        out.append(required(f"{path}.schedulerName"))
    out.extend(_percentage(f"{path}.percentageOfNodesToScore", profile.percentage_of_nodes_to_score))
    raw_profile = _raw_profile(raw, i)
    for point in _REMOVED_CHECK_POINTS:
        for k, name in enumerate(_raw_enabled(raw_profile, point)):
            if name in REMOVED_PLUGINS:
                out.append(invalid(f"{path}.plugins.{point}.enabled[{k}]", name, _removed_message(name)))
    seen: set[str] = set()
    for j, pc in enumerate(profile.plugin_config):
        pc_path = f"{path}.pluginConfig[{j}]"
        if pc.name in seen:
            out.append(duplicate(pc_path, pc.name))
        seen.add(pc.name)
        if pc.name in REMOVED_PLUGINS:
            out.append(invalid(pc_path, pc.name, _removed_message(pc.name)))
            continue
        spec = registry.get(pc.name)
        if spec is None or spec.args_type is None or not isinstance(pc.args, spec.args_type):
            continue
        try:  # a package's validator runs sandboxed: whatever it does is one issue, never a crash
            validate = pc.args.validate
            problems = validate(features) if spec.trusted else Sandbox(spec.name).call(validate, features)
            problems = [FieldError(*p) for p in problems or ()]
        except Exception as exc:  # noqa: BLE001
            out.append(Issue(f"{pc_path}.args", f"Internal error: validating args of {pc.name} raised {describe(exc)}"))
            continue
        for field_path, message in problems:
            out.append(Issue(_normalize_args_path(f"{pc_path}.args", field_path), message))
    return out


def _plugin_set_value(pset: PluginSet) -> JSONObject:
    return {
        "enabled": [{"name": p.name, **({"weight": p.weight} if p.weight else {})} for p in pset.enabled],
        "disabled": [{"name": p.name} for p in pset.disabled],
    }


def _validate_common_queue_sort(cfg: KubeSchedulerConfiguration) -> list[Issue]:
    """validateCommonQueueSort, on the merged queueSort sets."""
    out: list[Issue] = []
    first = cfg.profiles[0]
    canon = first.plugins.get("queueSort") if first.plugins else PluginSet()
    name = canon.enabled[0].name if canon.enabled else ""
    if len(canon.enabled) > 1:
        out.append(invalid("profiles[0].plugins.queueSort.Enabled", len(canon.enabled), "only one queue sort plugin can be enabled"))
    canon_args = first.args_for(name) if name else None
    for i in range(1, len(cfg.profiles)):
        prof = cfg.profiles[i]
        curr = prof.plugins.get("queueSort") if prof.plugins else PluginSet()
        if _plugin_set_value(curr) != _plugin_set_value(canon):
            out.append(invalid(f"profiles[{i}].plugins.queueSort", _plugin_set_value(curr), "must be the same for all profiles"))
        for pc in prof.plugin_config:
            if pc.name == name and pc.args != canon_args:
                out.append(invalid(f"profiles[{i}].pluginConfig.args", pc.args, "queueSort must be the same for all profiles"))
    return out


def _validate_extenders(extenders: JSONList) -> list[Issue]:
    out: list[Issue] = []
    binders = 0
    managed: set[str] = set()
    for i, ext in enumerate(extenders):
        if not isinstance(ext, dict):
            continue
        path = f"extenders[{i}]"
        weight = ext.get("weight") or 0
        if ext.get("prioritizeVerb") and weight <= 0:
            out.append(invalid(f"{path}.weight", weight, "must have a positive weight applied to it"))
        if ext.get("bindVerb"):
            binders += 1
        for j, res in enumerate(ext.get("managedResources") or []):
            rname = str((res or {}).get("name", ""))
            rpath = f"{path}.managedResources[{j}].name"
            errs = qualified_name_errors(rname)
            out.extend(invalid(rpath, rname, msg) for msg in errs)
            if not errs and not is_extended_resource_name(rname):
                out.append(invalid(rpath, rname, "is an invalid extended resource name"))
            if rname in managed:
                out.append(invalid(rpath, rname, "duplicate extender managed resource name"))
            managed.add(rname)
    if binders > 1:
        out.append(invalid("extenders", f"found {binders} extenders implementing bind", "only one extender can implement bind"))
    return out


def kube_issues(cfg: KubeSchedulerConfiguration, version: KubeVersion, registry: Registry) -> list[Issue]:
    """ValidateKubeSchedulerConfiguration, in upstream's order."""
    raw = cfg.raw or {}
    out = _validate_top(cfg, raw)
    if not cfg.profiles:
        out.append(required("profiles"))
    else:
        names: dict[str, int] = {}
        for i, profile in enumerate(cfg.profiles):
            out.extend(_validate_profile(i, cfg, raw, version, registry))
            if profile.scheduler_name in names:
                out.append(duplicate(f"profiles[{i}].schedulerName", profile.scheduler_name))
            names[profile.scheduler_name] = i
        out.extend(_validate_common_queue_sort(cfg))
    out.extend(_percentage("percentageOfNodesToScore", cfg.percentage_of_nodes_to_score))
    if cfg.pod_initial_backoff_seconds <= 0:
        out.append(invalid("podInitialBackoffSeconds", cfg.pod_initial_backoff_seconds, "must be greater than 0"))
    if cfg.pod_max_backoff_seconds < cfg.pod_initial_backoff_seconds:
        out.append(
            invalid("podMaxBackoffSeconds", cfg.pod_max_backoff_seconds, "must be greater than or equal to PodInitialBackoffSeconds")
        )
    out.extend(_validate_extenders(cfg.extenders))
    return out


# --- kschedctl's checks: plugin names against the registry, weights ------------------------------
def _hint(name: str, registry: Registry) -> str:
    """Which package provides a well-known plugin, or what replaced a removed one; else the
    closest registered name (never for a well-known name: NodeResourcesLeastAllocated is not a
    misspelt NodeResourcesAllocatable)."""
    elsewhere = known_elsewhere(name)
    if elsewhere is not None:
        return f": {elsewhere}"
    import difflib  # only for a name that is not known: a suggestion

    close = difflib.get_close_matches(name, sorted(registry), n=1, cutoff=0.7)
    return f' (did you mean "{close[0]}"?)' if close else ""


def _enabled_anywhere(profile: Any) -> set[str]:
    names = {p.name for p in profile.plugins.multi_point.enabled}
    for point in PLUGIN_SET_FIELDS:
        names.update(p.name for p in profile.plugins.get(point).enabled)
    return names


def registry_issues(cfg: KubeSchedulerConfiguration, registry: Registry) -> list[Issue]:
    """Unknown plugin names (enabled anywhere, or in pluginConfig), and weight advice."""
    raw = cfg.raw or {}
    out: list[Issue] = []
    for i, profile in enumerate(cfg.profiles):
        raw_profile = _raw_profile(raw, i)
        plugins = raw_profile.get("plugins") or {}
        for point in ("multiPoint",) + PLUGIN_SET_FIELDS:
            pset = plugins.get(point) or {}
            for k, entry in enumerate(pset.get("enabled") or []):
                if not isinstance(entry, dict):
                    continue
                name, weight = str(entry.get("name", "")), entry.get("weight")
                path = f"profiles[{i}].plugins.{point}.enabled[{k}]"
                if name not in registry:
                    if not (name in REMOVED_PLUGINS and point in _REMOVED_CHECK_POINTS):
                        out.append(not_found(f"{path}.name", name, f"no plugin of this name is registered{_hint(name, registry)}"))
                    continue
                if isinstance(weight, int) and weight < 0:
                    out.append(
                        Issue(
                            f"{path}.weight",
                            f"Invalid value: {weight}: a negative weight inverts this plugin's scores (kube-scheduler accepts it)",
                            "warning",
                        )
                    )
                elif weight and point not in _WEIGHTED_POINTS:
                    out.append(
                        Issue(
                            f"{path}.weight",
                            f"Invalid value: {weight}: weight is used only at score and placementScore and is ignored here",
                            "warning",
                        )
                    )
        enabled = _enabled_anywhere(profile) if profile.plugins else set()
        for j, pc in enumerate(profile.plugin_config):
            if pc.name in REMOVED_PLUGINS:
                continue
            if pc.name not in registry:
                out.append(
                    not_found(
                        f"profiles[{i}].pluginConfig[{j}].name", pc.name, f"no plugin of this name is registered{_hint(pc.name, registry)}"
                    )
                )
            elif pc.name not in enabled:
                out.append(
                    Issue(
                        f"profiles[{i}].pluginConfig[{j}].name",
                        f"Invalid value: {go_value(pc.name)}: args given for a plugin this profile does not enable; they are ignored",
                        "warning",
                    )
                )
    return out


def advice_issues(cfg: KubeSchedulerConfiguration) -> list[Issue]:
    """Configurations kube-scheduler accepts but cannot run well (warnings, never errors).

    NodeAffinityArgs.addedAffinity: ValidateNodeAffinityArgs (validation_pluginargs.go) only
    parses the terms; a negative preference weight passes, gives negative scores, and every pod
    of the profile then fails with "returns an invalid score" (kschedoracle explain, 1.35.4:
    `plugin "NodeAffinity" returns an invalid score -1, it should in the range of [0, 100] after
    normalizing`)."""
    out: list[Issue] = []
    profiles = (cfg.raw or {}).get("profiles")
    for i, profile in enumerate(profiles if isinstance(profiles, list) else []):
        configs = profile.get("pluginConfig") if isinstance(profile, dict) else None
        for j, pc in enumerate(configs if isinstance(configs, list) else []):
            if not isinstance(pc, dict) or pc.get("name") != "NodeAffinity" or not isinstance(pc.get("args"), dict):
                continue
            added = pc["args"].get("addedAffinity")
            terms = added.get("preferredDuringSchedulingIgnoredDuringExecution") if isinstance(added, dict) else None
            for k, term in enumerate(terms if isinstance(terms, list) else []):
                weight = term.get("weight") if isinstance(term, dict) else None
                if isinstance(weight, int) and not isinstance(weight, bool) and weight < 0:
                    out.append(
                        Issue(
                            f"profiles[{i}].pluginConfig[{j}].args.addedAffinity."
                            f"preferredDuringSchedulingIgnoredDuringExecution[{k}].weight",
                            f"Invalid value: {weight}: a negative weight gives negative scores and every pod of this "
                            'profile then fails with "invalid score" (kube-scheduler accepts it)',
                            "warning",
                        )
                    )
    return out


def _profile_index(path: str) -> int | None:
    m = re.match(r"profiles\[(\d+)\]", path)
    return int(m.group(1)) if m else None


def semantic_issues(cfg: KubeSchedulerConfiguration, version: KubeVersion, registry: Registry) -> list[Issue]:
    """Every semantic issue (errors and warnings) of a decoded and defaulted configuration:
    kube's rules, the plugin names and advice (warnings). Building the profiles (what
    NewFramework refuses) is kschedctl.runtime.profile's: `validate` adds its issues
    (profiles_to_build says which profiles), and so does every run given a --config, which
    runs validate's checks first (kschedctl/app/config.py)."""
    return kube_issues(cfg, version, registry) + registry_issues(cfg, registry) + advice_issues(cfg)


def profiles_to_build(issues: list[Issue]) -> tuple[set[int], bool]:
    """(profiles not to build, whether to check queue sorts across profiles): profiles that
    already have errors would only repeat them as Framework errors, and profile.go's queue
    sort check is skipped once validation.go's fired."""
    errors = [x for x in issues if x.severity == "error"]
    skip = {idx for x in errors if (idx := _profile_index(x.path)) is not None}
    queue_sort_reported = any(".queueSort" in x.path or "queueSort must be" in x.message for x in errors)
    return skip, not queue_sort_reported


def validate_config(cfg: KubeSchedulerConfiguration, version: KubeVersion, registry: Registry) -> list[tuple[str, str]]:
    """The errors (no warnings) of a defaulted configuration, as (path, message), its profiles
    not built (kschedctl.config.checker.configuration_errors adds what building them finds)."""
    return [(x.path, x.message) for x in semantic_issues(cfg, version, registry) if x.severity == "error"]
