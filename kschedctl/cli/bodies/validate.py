"""`kschedctl validate`'s work: KubeSchedulerConfiguration files checked as kube-scheduler
would; exit 0 valid, 1 invalid, 2 unreadable."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kschedctl.api.inputs import check_stdin_once
from kschedctl.cli.guard import guarded, say
from kschedctl.cli.stdout import emit

if TYPE_CHECKING:
    from kschedctl.config.checker import ValidationReport


def run_validate(*, configs: list[str], output: str, kube_version: str, feature_gates: str | None, debug: bool) -> None:
    """Check KubeSchedulerConfiguration files (schema and semantics): exit 0 valid, 1 invalid, 2 unreadable."""
    from kschedctl.config.checker import validate_files
    from kschedctl.output.render import render_validation

    def run() -> list[ValidationReport]:
        from kschedctl.app.config import plugin_registry
        from kschedctl.app.release import release

        check_stdin_once(configs=configs)
        registry = plugin_registry(say)  # a broken plugin package is said on stderr; validation goes on without it
        return validate_files(configs, release(kube_version, feature_gates), registry)

    reports = guarded(debug, run)
    emit(render_validation(reports, output))
    unreadable = [r for r in reports if r.unreadable]
    for report in unreadable:
        say(f"error: {report.file}: {report.findings[0].message}")
    if unreadable:
        raise SystemExit(2)
    if not all(r.valid for r in reports):
        raise SystemExit(1)
