"""The plugin registry and the KubeSchedulerConfiguration a command runs with.

A `--config` file goes through kschedctl.config.checker once: read, unwrapped (a ConfigMap, a
manifest), YAML, schema, decoded, defaulted, validated. The configuration the checks ran on is
the one returned: the file is not read, decoded and defaulted a second time. Its first error is
the command's error (with file, object, field and line), its warnings are said. Building the
profiles is left to the run (profile.new_map raises the same errors), so that each profile is
built once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kschedctl.config.checker import Finding
    from kschedctl.framework.config_types import KubeSchedulerConfiguration
    from kschedctl.framework.registry import Registry
    from kschedctl.versions import KubeVersion

Say = Callable[[str], None]  # one stderr line, as printed (the command line escapes it)


def plugin_registry(say: Say) -> Registry:
    """Every plugin known (in-tree and installed packages); a package that failed to load is
    said as a warning, and the command goes on without it."""
    from kschedctl.plugins.plugin_manager import default_registry

    loaded = default_registry()
    for err in loaded.errors:
        say(f"warning: {err}")
    return loaded.registry


def load_config(path: str | None, version: KubeVersion, registry: Registry, say: Say) -> KubeSchedulerConfiguration:
    """The checked configuration of `--config PATH`, or kube-scheduler's defaults (None)."""
    if path is None:
        from kschedctl.config.loader import load_config_file

        return load_config_file(None, version, registry)
    from kschedctl.api.errors import InputError
    from kschedctl.config.checker import check_file
    from kschedctl.config.loader import KIND

    report, cfg = check_file(path, version, registry, build_profiles=False)
    errors = report.errors
    if errors:
        first = errors[0]
        raise InputError(first.message, file=path, obj=None if report.unreadable else KIND, field=first.path or None, line=first.line)
    for finding in report.findings:
        say(f"warning: {finding_line(path, finding)}")
    assert cfg is not None  # no error: every stage ran
    return cfg


def finding_line(path: str, finding: Finding) -> str:
    """`FILE:LINE: PATH: MESSAGE`, as a warning about the configuration reads."""
    where = f"{path}:{finding.line}" if finding.line is not None else path
    return f"{where}: {finding.path}: {finding.message}" if finding.path else f"{where}: {finding.message}"


def drop_extenders(cfg: KubeSchedulerConfiguration, say: Say) -> None:
    """`--no-extenders`: the configuration's HTTP extenders are not called, and that is said
    (with each extender's URL, its password never shown)."""
    if not cfg.extenders:
        return
    from kschedctl.scheduler.extender_http import display_url

    say(
        f"warning: --no-extenders: not calling the configuration's {len(cfg.extenders)} extender(s) "
        f"({', '.join(display_url(str(e.get('urlPrefix', ''))) for e in cfg.extenders)}): decisions may differ from the cluster's"
    )
    cfg.extenders = []


def load_config_document(
    document: dict[str, Any] | None, source: str, version: KubeVersion, registry: Registry
) -> KubeSchedulerConfiguration:
    """A sweep cell's configuration: the matrix's (patched) document, already checked whole when
    the sweep started (kschedctl/sweep/matrix.py), decoded, defaulted and validated again here
    (None: the built-in configuration); its first error raised, named after ``source``."""
    from kschedctl.api.errors import InputError
    from kschedctl.config.loader import KIND, load_config_text
    from kschedctl.config.validation import validate_config

    text = json.dumps(document) if document is not None else ""
    cfg = load_config_text(text, source, version, registry)
    problems = validate_config(cfg, version, registry)
    if problems:
        path, msg = problems[0]
        raise InputError(msg, file=source, obj=KIND, field=path or None)
    return cfg
