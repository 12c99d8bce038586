"""Decode a KubeSchedulerConfiguration v1 file into typed objects, then apply v1 defaults.

Upstream: cmd/kube-scheduler/app/options (loadConfigFromFile) and the v1 scheme. Decoding
is strict: unknown fields are errors, as kube-scheduler's strict decoder reports them.
"""

from __future__ import annotations

from typing import Any

from kschedctl.api.errors import InputError
from kschedctl.api.inputs import read_text
from kschedctl.api.json_decoding import DecodeError
from kschedctl.api.jsontypes import JSONObject
from kschedctl.config.defaults import ConfigError, set_defaults
from kschedctl.config.unwrap import unwrap_config_text
from kschedctl.framework.config_types import (
    PLUGIN_SET_FIELDS,
    KubeSchedulerConfiguration,
    Plugin,
    PluginConfig,
    Plugins,
    PluginSet,
    Profile,
)
from kschedctl.framework.registry import Registry
from kschedctl.versions import KubeVersion

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"

_TOP_FIELDS = {
    "apiVersion",
    "kind",
    "parallelism",
    "leaderElection",
    "clientConnection",
    "enableProfiling",
    "enableContentionProfiling",
    "percentageOfNodesToScore",
    "podInitialBackoffSeconds",
    "podMaxBackoffSeconds",
    "profiles",
    "extenders",
    "delayCacheUntilActive",
}
_PROFILE_FIELDS = {"schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig"}


def _err(msg: str, source: str, field: str | None = None) -> ConfigError:
    return ConfigError(msg, file=source, obj=KIND, field=field)


def parse_config_yaml(text: str, source: str) -> JSONObject:
    """The file's single document, read strictly and boundedly (kschedctl.api.decoding)."""
    try:
        if text.strip():
            from kschedctl.api.decoding import load_yaml  # PyYAML: only for a configuration file

            raw = load_yaml(text)
        else:
            raw = {"apiVersion": API_VERSION, "kind": KIND}
    except DecodeError as exc:
        raise ConfigError(exc.message, file=source, line=exc.line) from None
    if not isinstance(raw, dict):
        raise _err("expected a KubeSchedulerConfiguration object", source)
    return raw


def decode(raw: JSONObject, source: str) -> KubeSchedulerConfiguration:
    """Strict decoding of the v1 object (no defaulting)."""
    if raw.get("apiVersion") != API_VERSION:
        raise _err(f"unsupported apiVersion {raw.get('apiVersion')!r}, expected {API_VERSION!r}", source, "apiVersion")
    if raw.get("kind") != KIND:
        raise _err(f"unsupported kind {raw.get('kind')!r}, expected {KIND!r}", source, "kind")
    for key in raw:
        if key not in _TOP_FIELDS:
            raise _err(f'strict decoding error: unknown field "{key}"', source, key)
    cfg = KubeSchedulerConfiguration(raw=raw, source=source)
    cfg.parallelism = _int(raw, "parallelism", source, 16)
    cfg.percentage_of_nodes_to_score = _opt_int(raw, "percentageOfNodesToScore", source)
    cfg.pod_initial_backoff_seconds = _int(raw, "podInitialBackoffSeconds", source, 1)
    cfg.pod_max_backoff_seconds = _int(raw, "podMaxBackoffSeconds", source, 10)
    cfg.delay_cache_until_active = bool(raw.get("delayCacheUntilActive", False))
    cfg.extenders = list(raw.get("extenders") or [])
    for i, p in enumerate(raw.get("profiles") or []):
        cfg.profiles.append(_profile(p, f"profiles[{i}]", source))
    return cfg


def _int(raw: JSONObject, key: str, source: str, default: int, where: str = "") -> int:
    value = raw.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise _err(f"expected an integer, got {value!r}", source, f"{where}{key}")
    return value


def _opt_int(raw: JSONObject, key: str, source: str, where: str = "") -> int | None:
    if raw.get(key) is None:
        return None
    return _int(raw, key, source, 0, where)


def _profile(raw: Any, where: str, source: str) -> Profile:
    if not isinstance(raw, dict):
        raise _err("expected an object", source, where)
    for key in raw:
        if key not in _PROFILE_FIELDS:
            raise _err(f'strict decoding error: unknown field "{where}.{key}"', source, f"{where}.{key}")
    profile = Profile(
        scheduler_name=str(raw.get("schedulerName") or ""),
        scheduler_name_set=raw.get("schedulerName") is not None,
        percentage_of_nodes_to_score=_opt_int(raw, "percentageOfNodesToScore", source, f"{where}."),
    )
    if raw.get("plugins") is not None:
        profile.plugins = _plugins(raw["plugins"], f"{where}.plugins", source)
    for i, pc in enumerate(raw.get("pluginConfig") or []):
        if not isinstance(pc, dict) or "name" not in pc:
            raise _err("each pluginConfig entry needs a name", source, f"{where}.pluginConfig[{i}]")
        args = pc.get("args")
        if args is not None and not isinstance(args, dict):
            raise _err("args must be an object", source, f"{where}.pluginConfig[{i}].args")
        if args is not None:
            args = {k: v for k, v in args.items() if k not in ("apiVersion", "kind")}
        profile.plugin_config.append(PluginConfig(str(pc["name"]), args))
    return profile


def _plugins(raw: Any, where: str, source: str) -> Plugins:
    if not isinstance(raw, dict):
        raise _err("expected an object", source, where)
    plugins = Plugins()
    for key, value in raw.items():
        if key == "multiPoint":
            plugins.multi_point = _plugin_set(value, f"{where}.{key}", source)
        elif key in PLUGIN_SET_FIELDS:
            plugins.sets[key] = _plugin_set(value, f"{where}.{key}", source)
        else:
            raise _err(f'strict decoding error: unknown field "{where}.{key}"', source, f"{where}.{key}")
    return plugins


def _plugin_set(raw: Any, where: str, source: str) -> PluginSet:
    if raw is None:
        return PluginSet()
    if not isinstance(raw, dict):
        raise _err("expected an object", source, where)
    out = PluginSet()
    for key in raw:
        if key not in ("enabled", "disabled"):
            raise _err(f'strict decoding error: unknown field "{where}.{key}"', source, f"{where}.{key}")
    for attr in ("enabled", "disabled"):
        for i, p in enumerate(raw.get(attr) or []):
            if not isinstance(p, dict) or not p.get("name"):
                raise _err("each plugin needs a name", source, f"{where}.{attr}[{i}]")
            weight = p.get("weight")
            if weight is not None and (isinstance(weight, bool) or not isinstance(weight, int)):
                raise _err(f"expected an integer, got {weight!r}", source, f"{where}.{attr}[{i}].weight")
            getattr(out, attr).append(Plugin(str(p["name"]), weight))
    return out


def load_config_text(text: str, source: str, version: KubeVersion, registry: Registry) -> KubeSchedulerConfiguration:
    """Parse, decode and default; semantic validation is config.validation's job."""
    cfg = decode(parse_config_yaml(text, source), source)
    return set_defaults(cfg, version, registry)


def load_config_file(path: str | None, version: KubeVersion, registry: Registry) -> KubeSchedulerConfiguration:
    if path is None:
        return load_config_text("", "<default>", version, registry)
    try:
        text = read_text(path)
    except InputError as exc:
        raise ConfigError(exc.message, file=path) from None
    return load_config_text(unwrap_config_text(text, path).text, path, version, registry)
