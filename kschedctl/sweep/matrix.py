"""The sweep matrix file: read, checked against schemas/sweep-v1.json, expanded into cells.

Everything a cell needs is settled here, before any cell runs: snapshot paths expanded
(files, directories, globs, relative to the matrix file) and their bytes hashed; every
configuration patched, loaded and validated for every release and gate set it will run
with; releases and gates parsed. A problem with any of that is bad input (InputError: the
CLI's exit 2, one line naming the matrix file, the field and its line). What only a cell
reads — the content of its snapshot — fails that cell alone, when it runs.

Cells are the product snapshots x configurations (each entry's grid, in order) x releases x
gate sets x seeds, the last varying fastest; ``Cell.index`` is that order, and the results
are listed in it. ``Cell.key`` is a content hash of the cell's inputs: the snapshot's bytes,
the configuration after patching, the release, the gates, the seed, the plugin timeout, side
A for diff, and kschedctl's version; ``--resume`` skips the cells whose key has a result.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kschedctl import __version__
from kschedctl.api.decoding import DecodeError, load_yaml
from kschedctl.api.errors import InputError
from kschedctl.api.field import go_quote
from kschedctl.api.validation import dns1123_subdomain_errors
from kschedctl.cluster.loader import expand_paths, locate_line
from kschedctl.config.loader import load_config_text, parse_config_yaml
from kschedctl.config.schema import dotted_path, iter_schema_errors, load_schema
from kschedctl.framework.registry import Registry
from kschedctl.runtime.sandbox import DEFAULT_PLUGIN_TIMEOUT
from kschedctl.sweep import patch
from kschedctl.sweep.cell import content_key
from kschedctl.versions import (
    DEFAULT_VERSION,
    LockedFeatureGate,
    UnknownFeatureGate,
    UnsupportedVersion,
    parse_version,
)

SWEEP_SCHEMA = "sweep-v1.json"
COMMANDS = ("schedule", "diff", "simulate")
DEFAULT_CONFIG_LABEL = "default"
_GLOB_CHARS = set("*?[")


@dataclass(frozen=True)
class SnapshotSpec:
    """One value of the snapshot axis (for simulate: one Scenario file)."""

    label: str  # as the results show it: the path relative to the matrix file, or the entry's name
    paths: tuple[str, ...]  # what load_snapshot (or load_scenario) is given
    files: tuple[str, ...]  # every file those paths read, in reading order
    key: str  # sha256 of the files' bytes


@dataclass(frozen=True)
class ConfigSpec:
    """One value of the configuration axis: an entry of `configs` with one value per patch list."""

    label: str
    params: dict[str, Any]
    raw: dict[str, Any] | None  # the document to load (None: the built-in configuration)
    source: str  # how errors name it
    entry: str = ""  # the matrix field it comes from: configs[i]
    file: str | None = None  # the file it was read from (None: the built-in configuration)


@dataclass(frozen=True)
class SideA:
    """diff's baseline side."""

    config: ConfigSpec
    kube_version: str
    feature_gates: str


@dataclass(frozen=True)
class Cell:
    index: int
    snapshot: SnapshotSpec
    config: ConfigSpec
    kube_version: str
    feature_gates: str  # as --feature-gates takes them ("" for the release's defaults)
    seed: int
    key: str

    def axes(self) -> dict[str, Any]:
        return {
            "snapshot": self.snapshot.label,
            "config": self.config.label,
            "kubeVersion": self.kube_version,
            "featureGates": self.feature_gates,
            "seed": self.seed,
        }


@dataclass
class Matrix:
    path: str
    name: str
    command: str
    snapshots: list[SnapshotSpec]
    configs: list[ConfigSpec]
    kube_versions: list[str]
    feature_gates: list[str]
    seeds: list[int]
    plugin_timeout: float
    diff_a: SideA | None = None
    cells: list[Cell] = field(default_factory=list)

    def input_files(self) -> list[str]:
        """Every file the sweep reads: the matrix, each snapshot's (or scenario's) files, each
        configuration file. No output of the sweep may be one of them."""
        files = [self.path, *(f for s in self.snapshots for f in s.files), *(c.file for c in self.configs if c.file)]
        if self.diff_a is not None and self.diff_a.config.file:
            files.append(self.diff_a.config.file)
        return files

    def param_columns(self) -> list[str]:
        """Every patch column, in the order the configurations first use them."""
        seen: dict[str, None] = {}
        for c in self.configs:
            for k in c.params:
                seen.setdefault(k, None)
        return list(seen)


# --- reading -------------------------------------------------------------------------------


def load_matrix(path: str, registry: Registry) -> Matrix:
    """Read, check and expand the matrix file; InputError on the first problem."""
    doc = _read(path)
    problems = iter_schema_errors(doc, load_schema(SWEEP_SCHEMA))
    if problems:
        where, message = problems[0]
        raise _error(path, dotted_path(where), message)
    base = Path(path).parent
    command = doc.get("command", "schedule")
    snapshots = _snapshots(path, base, doc["snapshots"], command)
    configs = _configs(path, base, doc.get("configs") or [{}])
    versions = [str(v) for v in doc.get("kubeVersions") or [DEFAULT_VERSION]]
    gates = [_gates_text(g) for g in doc.get("featureGates") or [""]]
    seeds = _seeds(doc.get("seeds"))
    timeout = float(doc.get("pluginTimeout", DEFAULT_PLUGIN_TIMEOUT))
    diff_a = _side_a(path, base, doc) if command == "diff" else None
    if command != "diff" and "diff" in doc:
        raise _error(path, "diff", "only for command: diff")
    matrix = Matrix(path, _name(path, doc), command, snapshots, configs, versions, gates, seeds, timeout, diff_a)
    _check_runs(matrix, registry)
    matrix.cells = _cells(matrix)
    return matrix


def _name(path: str, doc: dict[str, Any]) -> str:
    """metadata.name, else the matrix file's stem. The name becomes a file name (the default
    NAME.results.parquet, in the working directory) and is printed: it must be a DNS-1123
    subdomain, as a Kubernetes object's name (no slash, no '..', no control character)."""
    name = (doc.get("metadata") or {}).get("name")
    if not name:
        return Path(path).stem
    errors = dns1123_subdomain_errors(name)
    if errors:
        raise _error(path, "metadata.name", f"Invalid value: {go_quote(name)}: {'; '.join(errors)}")
    return str(name)


def _read(path: str) -> Any:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {exc}", file=path) from None
    try:  # read as every other input: kubectl's YAML rules, strict and bounded
        return load_yaml(text)
    except DecodeError as exc:
        raise InputError(exc.message, file=path, line=exc.line) from None


def _error(path: str, dotted: str, message: str) -> InputError:
    return InputError(message, file=path, obj="Sweep", field=dotted or None, line=locate_line(path, 0, None, dotted or None))


# --- snapshots -----------------------------------------------------------------------------


def _snapshots(path: str, base: Path, entries: list[Any], command: str) -> list[SnapshotSpec]:
    out: dict[str, SnapshotSpec] = {}
    for i, entry in enumerate(entries):
        where = f"snapshots[{i}]"
        if isinstance(entry, dict):
            paths = tuple(str(base / p) for p in entry["paths"])
            specs = [_spec(path, where, entry["name"], paths, command)]
        else:
            specs = [_spec(path, where, label, (str(base / label),), command) for label in _expand_entry(path, where, base, entry)]
        for spec in specs:
            out.setdefault(spec.label, spec)  # listed twice (a file and a glob over it): once
    return list(out.values())


def _expand_entry(path: str, where: str, base: Path, entry: str) -> list[str]:
    """A file -> itself; a directory -> each snapshot file in it; a glob -> each match."""
    full = base / entry
    if _GLOB_CHARS & set(entry):
        matches = sorted(glob.glob(str(full), recursive=True))
        if not matches:
            raise _error(path, where, f"{entry}: matches no file")
        return [os.path.relpath(m, base) for m in matches]
    if full.is_dir():
        try:
            files = expand_paths([str(full)])
        except InputError as exc:
            raise _error(path, where, exc.message) from None
        if not files:
            raise _error(path, where, f"{entry}: no snapshot file (*.yaml, *.yml, *.json) in this directory")
        return [os.path.relpath(f, base) for f in files]
    if not full.exists():
        raise _error(path, where, f"{entry}: no such file or directory")
    return [entry]


def _spec(path: str, where: str, label: str, paths: tuple[str, ...], command: str) -> SnapshotSpec:
    try:
        files = expand_paths(list(paths))
    except InputError as exc:
        raise _error(path, where, f"{exc.file}: {exc.message}") from None
    if command == "simulate":
        files = files + [f for f in scenario_files(files[0]) if f not in files]
    chunks = []
    for f in files:
        try:
            chunks.append(Path(f).read_bytes())
        except OSError as exc:
            raise _error(path, where, f"{f}: cannot read: {exc.strerror or exc}") from None
    return SnapshotSpec(label, paths, tuple(files), content_key(chunks))


def scenario_files(scenario: str) -> list[str]:
    """The snapshot files a Scenario reads, named as load_scenario will name them. A scenario
    that does not parse reads nothing more: its cell reports why."""
    try:
        doc = load_yaml(Path(scenario).read_text(encoding="utf-8"))
        files = doc.get("snapshot") or []
        files = [files] if isinstance(files, str) else list(files)
        return expand_paths([str(Path(scenario).parent / f) for f in files])
    except (OSError, UnicodeDecodeError, DecodeError, AttributeError, TypeError, InputError):
        return []


# --- configurations ------------------------------------------------------------------------


def _configs(path: str, base: Path, entries: list[Any]) -> list[ConfigSpec]:
    out: list[ConfigSpec] = []
    labels: dict[str, int] = {}
    for i, entry in enumerate(entries):
        entry = {"file": entry} if isinstance(entry, str) else entry
        where = f"configs[{i}]"
        label = entry.get("name") or entry.get("file") or DEFAULT_CONFIG_LABEL
        if label in labels:
            raise _error(path, where, f"another entry (configs[{labels[label]}]) is labelled {label!r}: give each entry a distinct name")
        labels[label] = i
        file = str(base / entry["file"]) if entry.get("file") else None
        raw = _config_document(path, f"{where}.file", file) if file else None
        try:
            grid = patch.expand(raw, entry)
        except patch.PatchError as exc:
            raise _error(path, f"{where}.{exc.field}", exc.message) from None
        for p in grid:
            source = file or "<default>"
            if p.params:
                source += " patched with " + ", ".join(f"{k}={v}" for k, v in p.params.items())
            out.append(ConfigSpec(label, p.params, p.raw, source, where, file))
    return out


def _config_document(path: str, where: str, file: str) -> dict[str, Any]:
    try:
        text = Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _error(path, where, f"{file}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    return parse_config_yaml(text, file)


def _side_a(path: str, base: Path, doc: dict[str, Any]) -> SideA:
    spec = doc.get("diff") or {}
    file = str(base / spec["config"]) if spec.get("config") else None
    raw = _config_document(path, "diff.config", file) if file else None
    config = ConfigSpec(spec.get("config") or DEFAULT_CONFIG_LABEL, {}, raw, file or "<default>", "diff.config", file)
    return SideA(config, str(spec.get("kubeVersion") or DEFAULT_VERSION), _gates_text(spec.get("featureGates") or ""))


def _gates_text(value: str | dict[str, bool]) -> str:
    if isinstance(value, dict):
        return ",".join(f"{k}={'true' if v else 'false'}" for k, v in value.items())
    return value.strip()


def _seeds(value: Any) -> list[int]:
    if value is None:
        return [0]
    if isinstance(value, dict):
        first = int(value.get("first", 0))
        return list(range(first, first + int(value["count"])))
    return [int(s) for s in value]


def _check_runs(matrix: Matrix, registry: Registry) -> None:
    """Every release and gate set parses, and every configuration loads and validates under
    each (release, gates) it runs with: errors here would fail every cell alike."""
    from kschedctl.config.checker import configuration_errors

    path = matrix.path
    for i, v in enumerate(matrix.kube_versions):
        _version(path, f"kubeVersions[{i}]", v, "")
    for j, g in enumerate(matrix.feature_gates):
        for v in matrix.kube_versions:
            _version(path, f"featureGates[{j}]", v, g)
    runs = [(config, v, g) for config in matrix.configs for v in matrix.kube_versions for g in matrix.feature_gates]
    if matrix.diff_a is not None:
        a = matrix.diff_a
        _version(path, "diff.kubeVersion", a.kube_version, "")
        _version(path, "diff.featureGates", a.kube_version, a.feature_gates)
        runs.append((a.config, a.kube_version, a.feature_gates))
    seen: set[tuple[str, str, str]] = set()
    for config, v, g in runs:
        where = config.entry
        ident = (json.dumps(config.raw, sort_keys=True), v, g)
        if ident in seen:
            continue
        seen.add(ident)
        version = parse_version(v, g)
        try:
            cfg = load_config_text(json.dumps(config.raw) if config.raw is not None else "", config.source, version, registry)
            problems = configuration_errors(cfg, version, registry)  # its profiles built too
        except InputError as exc:
            raise _error(path, where, f"{exc} (kube-scheduler {v}{', gates ' + g if g else ''})") from None
        if problems:
            field_path, msg = problems[0]
            raise _error(path, where, f"{config.source}: {field_path}: {msg} (kube-scheduler {v}{', gates ' + g if g else ''})")


def _version(path: str, where: str, version: str, gates: str) -> None:
    try:
        parse_version(version, gates)
    except LockedFeatureGate as exc:  # locked from some release on: say which one refuses
        raise _error(path, where, f"{exc} (kube-scheduler {version})") from None
    except (UnsupportedVersion, UnknownFeatureGate) as exc:
        raise _error(path, where, str(exc)) from None


# --- cells ---------------------------------------------------------------------------------


def _cells(matrix: Matrix) -> list[Cell]:
    cells: list[Cell] = []
    for snapshot in matrix.snapshots:
        for config in matrix.configs:
            for v in matrix.kube_versions:
                for g in matrix.feature_gates:
                    for seed in matrix.seeds:
                        key = cell_key(matrix, snapshot, config, v, g, seed)
                        cells.append(Cell(len(cells), snapshot, config, v, g, seed, key))
    return cells


def cell_key(matrix: Matrix, snapshot: SnapshotSpec, config: ConfigSpec, version: str, gates: str, seed: int) -> str:
    """A content hash of everything the cell's result depends on."""
    inputs: dict[str, Any] = {
        "kschedctl": __version__,
        "command": matrix.command,
        "snapshot": snapshot.key,
        "config": config.raw,
        "kubeVersion": version,
        "featureGates": sorted(parse_version(version, gates).gate_overrides.items()),
        "seed": seed,
        "pluginTimeout": matrix.plugin_timeout,
    }
    if matrix.diff_a is not None:
        a = matrix.diff_a
        inputs["diffA"] = {
            "config": a.config.raw,
            "kubeVersion": a.kube_version,
            "featureGates": sorted(parse_version(a.kube_version, a.feature_gates).gate_overrides.items()),
        }
    text = json.dumps(inputs, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
