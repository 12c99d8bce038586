"""The app dimension: a configuration is loaded once (kschedctl/app) as it was loaded twice.

Each input is the seed configuration mutated (structure or text), sometimes inside a ConfigMap,
read under a random release. kschedctl.app.config.load_config reads, checks, decodes, defaults
and validates it in one pass; the commands used to validate the file (config.checker, every
stage but building the profiles), stop at its first error, say its warnings, then read, decode
and default it a second time (config.loader). Both are run here, and must give the same error
(text, file, object, field, line), the same warnings in the same order, and an equal
configuration. Then `schedule --config` on the seed snapshot must keep the contract, and fail
exactly when the one-pass load failed, with that error.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import yaml

from kfuzz import seeds
from kfuzz.contract import Checker
from kfuzz.mutate import mutate_structure, mutate_text

RELEASES = ["1.35", "1.36", "1.37"]


def app_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    from kschedctl.plugins.plugin_manager import default_registry
    from kschedctl.versions import parse_version

    doc = seeds.config()
    if rng.random() < 0.8:
        mutation = mutate_structure(doc, rng)
        text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=4096)
    else:
        text, mutation = mutate_text(yaml.safe_dump(doc, sort_keys=False), rng)
    wrapped = rng.random() < 0.25
    if wrapped:
        text = _in_config_map(text)
    path = workdir / "config.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    release = rng.choice(RELEASES)
    version = parse_version(release)
    registry = default_registry().registry
    once = _one_pass(str(path), version, registry)
    twice = _two_passes(str(path), version, registry)
    if once != twice:
        checker.fail("load-once", f"one pass {_short(once)} != two passes {_short(twice)}")
    snap = workdir / "seed.yaml"
    snap.write_text(yaml.safe_dump(seeds.snapshot(), sort_keys=False), encoding="utf-8")
    run = checker.run(["schedule", str(snap), "--config", str(path), "--kube-version", release, "-o", "json", "--seed", "3"])
    if checker.basic(run, "schedule", str(path) if run.exit_code == 2 else "") and once[0] is not None:
        from kschedctl.api.field import escape_control

        if run.exit_code != 2:
            checker.fail("load-once", f"the load failed ({once[0][0][:200]}) but schedule ran", run)
        elif escape_control(f"error: {once[0][0]}") not in run.stderr:
            checker.fail("load-once", "schedule's error is not the load's", run)
    return f"app {release}{' configmap' if wrapped else ''} {mutation.describe()}"


def _in_config_map(text: str) -> str:
    """The configuration as a ConfigMap's data (how clusters ship it)."""
    return yaml.safe_dump(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "sched", "namespace": "kube-system"}, "data": {"config.yaml": text}},
        sort_keys=False,
        allow_unicode=True,
        width=4096,
    )


Outcome = tuple[tuple[str, Any, Any, Any, Any] | None, list[str], str | None]


def _error(exc: Any) -> tuple[str, Any, Any, Any, Any]:
    return (str(exc), exc.file, exc.obj, exc.field, exc.line)


def _one_pass(path: str, version: Any, registry: Any) -> Outcome:
    from kschedctl.api.errors import InputError
    from kschedctl.app.config import load_config

    said: list[str] = []
    try:
        cfg = load_config(path, version, registry, said.append)
    except InputError as exc:
        return _error(exc), said, None
    return None, said, repr(cfg)


def _two_passes(path: str, version: Any, registry: Any) -> Outcome:
    """What the commands did before kschedctl/app: validate_files, then load_config_file."""
    from kschedctl.api.errors import InputError
    from kschedctl.app.config import finding_line
    from kschedctl.config.checker import validate_files
    from kschedctl.config.loader import KIND, load_config_file

    [report] = validate_files([path], version, registry, build_profiles=False)
    if report.errors:
        first = report.errors[0]
        exc = InputError(first.message, file=path, obj=None if report.unreadable else KIND, field=first.path or None, line=first.line)
        return _error(exc), [], None
    said = [f"warning: {finding_line(path, f)}" for f in report.findings]
    try:
        cfg = load_config_file(path, version, registry)
    except InputError as exc:
        return _error(exc), said, None
    return None, said, repr(cfg)


def _short(outcome: Outcome) -> str:
    error, said, cfg = outcome
    return f"(error={error!r:.300}, warnings={len(said)}, cfg={cfg!r:.200})"
