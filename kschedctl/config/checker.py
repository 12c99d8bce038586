"""`kschedctl validate`: check KubeSchedulerConfiguration files the way kube-scheduler would.

Order, as kube-scheduler fails: YAML parsing (line and column) -> strict decoding, played by
the JSON Schemas in schemas/ (every error, each with its path and line; duplicate keys too)
-> the semantic rules of validation.go and validation_pluginargs.go, run on the defaulted
configuration, plus kschedctl's own checks (plugin names known to the registry, Framework
construction). Paths read like field.Path (`profiles[0].pluginConfig[1].args.scoringStrategy.type`);
lines come from composing the YAML with marks. A later stage runs only when the earlier
ones found no error, as kube-scheduler stops at the first stage that fails.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

import yaml

from kschedctl.api.decoding import DecodeError, build_document, compose_single
from kschedctl.api.errors import InputError
from kschedctl.api.inputs import read_text
from kschedctl.api.jsontypes import JSONObject
from kschedctl.config.defaults import set_defaults
from kschedctl.config.loader import decode
from kschedctl.config.schema import ARGS_SCHEMAS, iter_schema_errors
from kschedctl.config.unwrap import unwrap_config_text
from kschedctl.config.validation import Issue, profiles_to_build, semantic_issues
from kschedctl.framework.config_types import KubeSchedulerConfiguration
from kschedctl.framework.registry import Registry
from kschedctl.runtime.profile import profile_issues
from kschedctl.runtime.services import Services
from kschedctl.versions import KubeVersion

Path = tuple[Any, ...]


@dataclass
class Finding:
    path: str
    line: int | None
    message: str
    severity: str = "error"
    column: int | None = None

    def to_dict(self) -> JSONObject:
        return asdict(self)

    def __str__(self) -> str:
        where = f"{self.line}" if self.line is not None else "-"
        if self.column is not None:
            where += f":{self.column}"
        return f"{where}: {self.severity}: {self.path + ': ' if self.path else ''}{self.message}"


@dataclass
class ValidationReport:
    file: str
    valid: bool
    findings: list[Finding] = field(default_factory=list)
    unreadable: bool = False  # the file could not be read at all (exit code 2)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    def to_dict(self) -> JSONObject:
        return {"file": self.file, "valid": self.valid, "findings": [f.to_dict() for f in self.findings]}


# --- paths ------------------------------------------------------------------------------------
def format_path(path: Path) -> str:
    """('profiles', 0, 'plugins') -> 'profiles[0].plugins'."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


_TOKEN = re.compile(r"\[(\d+)\]|([^.\[\]]+)")


def parse_path(text: str) -> Path:
    return tuple(int(m.group(1)) if m.group(1) is not None else m.group(2) for m in _TOKEN.finditer(text))


class LineIndex:
    """Where each path of a composed YAML document starts (1-based line, column)."""

    def __init__(self, root: yaml.Node | None) -> None:
        self.marks: dict[Path, tuple[int, int]] = {}
        self.duplicates: list[tuple[Path, int, int]] = []
        self._seen: set[int] = set()  # nodes reached again through an alias are not walked again
        if root is not None:
            self.marks[()] = (root.start_mark.line + 1, root.start_mark.column + 1)
            self._walk(root, ())

    def _walk(self, node: yaml.Node, path: Path) -> None:
        if id(node) in self._seen:
            return
        self._seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for key, value in node.value:
                if not isinstance(key, yaml.ScalarNode) or key.value == "<<":
                    continue
                child = path + (key.value,)
                mark = (key.start_mark.line + 1, key.start_mark.column + 1)
                if key.value in seen:
                    self.duplicates.append((child, *mark))
                    continue
                seen.add(key.value)
                self.marks[child] = mark
                self._walk(value, child)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                child = path + (i,)
                self.marks[child] = (item.start_mark.line + 1, item.start_mark.column + 1)
                self._walk(item, child)

    def locate(self, path: Path) -> tuple[int | None, int | None]:
        """The line of the path, or of its nearest ancestor present in the file (defaulted fields)."""
        while True:
            if path in self.marks:
                return self.marks[path]
            if not path:
                return (None, None)
            path = path[:-1]


# --- the stages -------------------------------------------------------------------------------
def _compose(text: str, source: str) -> tuple[yaml.Node | None, Any, Finding | None]:
    """Compose (PyYAML's messages, with line and column) and build boundedly: JSON types only,
    go-yaml's alias limit, a depth limit (kschedctl.api.decoding). Duplicate keys are left to
    LineIndex, which reports every one of them."""
    try:
        node = compose_single(text, pure=True)
        data = build_document(node, text, allow_duplicates=True) if node is not None else None
        return node, data, None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or str(exc)
        line, col = (mark.line + 1, mark.column + 1) if mark else (None, None)
        where = f"line {line}, column {col}: " if mark else ""
        return None, None, Finding("", line, f"malformed YAML: {where}{problem}", "error", col)
    except yaml.YAMLError as exc:
        return None, None, Finding("", None, f"malformed YAML: {exc}", "error")
    except DecodeError as exc:
        return None, None, Finding("", exc.line, exc.message, "error")
    except RecursionError:
        return None, None, Finding("", None, "malformed YAML: nested too deeply", "error")


def _args_schema_errors(data: JSONObject, registry: Registry) -> list[tuple[Path, str]]:
    """Args of installed plugins that ship an ``args_schema`` (in-tree kinds are in the main schema)."""
    out: list[tuple[Path, str]] = []
    profiles = data.get("profiles")
    for i, profile in enumerate(profiles if isinstance(profiles, list) else []):
        if not isinstance(profile, dict) or not isinstance(profile.get("pluginConfig"), list):
            continue
        for j, pc in enumerate(profile["pluginConfig"]):
            name = pc.get("name") if isinstance(pc, dict) else None
            if not isinstance(name, str) or name in ARGS_SCHEMAS or not isinstance(pc.get("args"), dict):
                continue
            spec = registry.get(name)
            if spec is None or not spec.args_schema:
                continue
            args = {k: v for k, v in pc["args"].items() if k not in ("apiVersion", "kind")}
            prefix: Path = ("profiles", i, "pluginConfig", j, "args")
            out.extend((prefix + p, m) for p, m in iter_schema_errors(args, spec.args_schema))
    return out


def _as_registry(registry: Any) -> Registry:
    if registry is None:
        from kschedctl.plugins.plugin_manager import default_registry

        return default_registry().registry
    found: Registry = getattr(registry, "registry", registry)  # a PluginManager's, or itself
    return found


def validate_text(text: str, source: str, version: KubeVersion, registry: Any = None, build_profiles: bool = True) -> ValidationReport:
    return check_text(text, source, version, registry, build_profiles)[0]


def check_text(
    text: str, source: str, version: KubeVersion, registry: Any = None, build_profiles: bool = True
) -> tuple[ValidationReport, KubeSchedulerConfiguration | None]:
    """The report, and the decoded and defaulted configuration the checks ran on (None when a
    stage before defaulting failed): a command running the configuration takes it from here
    instead of reading, decoding and defaulting the file a second time (kschedctl/app/config.py)."""
    registry = _as_registry(registry)
    node, data, yaml_error = _compose(text, source)
    if yaml_error is not None:
        return ValidationReport(source, False, [yaml_error]), None
    index = LineIndex(node)

    def finding(path: Path, message: str, severity: str = "error") -> Finding:
        line, col = index.locate(path)
        return Finding(format_path(path), line, message, severity)

    findings = [Finding(format_path(p), line, f'key "{p[-1]}" already set in map', "error", col) for p, line, col in index.duplicates]
    if data is None:
        findings.append(Finding("", 1, "empty document: expected a KubeSchedulerConfiguration object"))
        return ValidationReport(source, False, findings), None
    schema_errors = iter_schema_errors(data)
    if isinstance(data, dict):
        schema_errors += _args_schema_errors(data, registry)
    schema_findings = [finding(p, m) for p, m in schema_errors]
    schema_findings.sort(key=lambda f: (f.line or 0, f.path))
    findings += schema_findings
    if findings:
        return ValidationReport(source, False, findings), None

    try:
        cfg = set_defaults(decode(data, source), version, registry)
    except Exception as exc:  # noqa: BLE001 - a defaulter of a plugin refusing its args
        field_path = getattr(exc, "field", None) or ""
        message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        return ValidationReport(source, False, [finding(parse_path(field_path), message)]), None
    issues = all_issues(cfg, version, registry) if build_profiles else semantic_issues(cfg, version, registry)
    for issue in issues:
        findings.append(finding(parse_path(issue.path), issue.message, issue.severity))
    return ValidationReport(source, not any(f.severity == "error" for f in findings), findings), cfg


def all_issues(cfg: KubeSchedulerConfiguration, version: KubeVersion, registry: Registry) -> list[Issue]:
    """Every semantic issue of a decoded and defaulted configuration, errors and warnings:
    kube's rules, the plugin names, and what building its profiles (``Services.minimal``)
    finds, as NewFramework and profile.NewMap would refuse them."""
    issues = semantic_issues(cfg, version, registry)
    skip, check_queue_sort = profiles_to_build(issues)
    return issues + [Issue(x.path, x.message) for x in profile_issues(cfg, registry, Services.minimal(version), skip, check_queue_sort)]


def configuration_errors(cfg: KubeSchedulerConfiguration, version: KubeVersion, registry: Registry) -> list[tuple[str, str]]:
    """The errors (path, message) `validate` reports, profiles built included: what a tool that
    runs one configuration many times (`sweep`) checks once, up front."""
    return [(x.path, x.message) for x in all_issues(cfg, version, registry) if x.severity == "error"]


def validate_files(paths: list[str], version: KubeVersion, registry: Any = None, build_profiles: bool = True) -> list[ValidationReport]:
    """One report per file, in the order given. ``registry`` is a Registry or a LoadedRegistry
    (None: kschedctl.plugins.plugin_manager.default_registry(), with installed packages).
    ``build_profiles=False`` leaves out what building the profiles finds: a command that runs the
    configuration builds them once anyway (scheduler/profile.new_map), and reports the same errors."""
    return [check_file(path, version, registry, build_profiles)[0] for path in paths]


def check_file(
    path: str, version: KubeVersion, registry: Any = None, build_profiles: bool = True
) -> tuple[ValidationReport, KubeSchedulerConfiguration | None]:
    """One file's report (read, unwrapped, checked as check_text) and the configuration checked."""
    try:
        text = read_text(path)
    except InputError as exc:
        return ValidationReport(path, False, [Finding("", None, exc.message)], True), None
    try:
        unwrapped = unwrap_config_text(text, path)
    except InputError as exc:
        return ValidationReport(path, False, [Finding("", None, exc.message)]), None
    report, cfg = check_text(unwrapped.text, path, version, registry, build_profiles)
    report.findings[:0] = [Finding("", None, note, "warning") for note in unwrapped.notes]
    return report, cfg
