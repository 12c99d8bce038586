"""`kschedctl simulate`'s work: a scenario run over virtual time."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kschedctl.api.inputs import check_stdin_once
from kschedctl.cli.guard import guarded, say, warn
from kschedctl.cli.stdout import emit_rendered

if TYPE_CHECKING:
    from kschedctl.scheduler.simulate import SimulationResult


def run_simulate(
    *,
    scenario: str,
    config: str | None,
    output: str,
    seed: int | None,
    kube_version: str,
    feature_gates: str | None,
    plugin_timeout: float,
    report: str | None,
    no_extenders: bool,
    instant_preemption: bool,
    debug: bool,
) -> None:
    """Run a scenario over virtual time: placements as they happen, and the final state."""
    from kschedctl.cluster.scenario import load_scenario
    from kschedctl.explain.verdict import word_run
    from kschedctl.output.layout import terminal_width
    from kschedctl.output.render import render_simulation
    from kschedctl.scheduler.simulate import run_scenario

    def run() -> SimulationResult:
        from kschedctl.app.inputs import configured
        from kschedctl.app.outputs import settle_outputs
        from kschedctl.app.release import release
        from kschedctl.app.snapshot import say_input_remarks

        check_stdin_once(scenario=scenario, config=config)
        targets = settle_outputs([("--report", report)], [*_scenario_inputs(scenario, report), config])
        version = release(kube_version, feature_gates)
        conf = configured(config, version, say, no_extenders)
        cfg, registry = conf.cfg, conf.registry
        loaded = load_scenario(scenario)
        say_input_remarks(loaded.cluster, version, say, emptiness_too=False)  # events may add what is missing
        from kschedctl.explain.pod_tables import attach_pod_tables
        from kschedctl.scheduler.victims import VictimExit

        result = run_scenario(
            loaded,
            cfg,
            registry,
            version,
            seed=seed,
            plugin_timeout=plugin_timeout,
            attach=attach_pod_tables if report is not None else None,
            victim_exit=VictimExit(instant_preemption),
        )
        word_run(result.run)
        if report is not None:
            from kschedctl.output.report import write_simulation_report
            from kschedctl.whatif.usage import cluster_usage

            write_simulation_report(result, cluster_usage(result.node_infos or {}), targets["--report"])
        return result

    result = guarded(debug, run)
    for warning in result.run.warnings:
        warn(warning)
    emit_rendered(render_simulation, result, output, terminal_width())


def _scenario_inputs(scenario: str, report: str | None) -> list[str]:
    """The scenario file and the snapshot files it reads (only looked up when there is an output
    to check them against)."""
    if report is None or scenario == "-":
        return [scenario]
    from kschedctl.sweep.matrix import scenario_files

    return [scenario, *scenario_files(scenario)]
