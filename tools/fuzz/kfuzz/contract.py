"""Running kschedctl on one input and checking the contract (../shared/contract.md).

For every run: the exit code is one the command may give, nothing is a traceback or an
"internal error", a failure (exit 2) is exactly one ``error:`` line on stderr naming the input
file, a success with ``-o json`` prints valid JSON. For every successful ``schedule``: no node
is over-committed by the run (for each resource a placed pod requests, bound + placed pods fit
the node's allocatable, and the pod count fits), every pending pod of the input is reported
exactly once, and the same ``--seed`` gives byte-identical output.

Commands run in-process (kschedctl.cli.app through typer's runner: ~15 ms a run) under a
per-run time limit; a run that exceeds it is a "hang" break.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from typer.testing import CliRunner

from kschedctl.cli.app import app

ALLOWED_EXIT = {"capture": {0, 2}, "schedule": {0, 2}, "explain": {0, 2}, "simulate": {0, 2}, "validate": {0, 1, 2}, "diff": {0, 2}}


class RunTimeout(BaseException):
    """Raised by the alarm inside a run (a BaseException: kschedctl's guards must not eat it)."""


@dataclass
class Run:
    args: list[str]
    exit_code: int
    stdout: str
    stderr: str
    crash: str | None = None  # an exception that escaped the CLI, or "hang"


@dataclass
class Break:
    """One contract break: which rule, on which run, with what output."""

    rule: str
    detail: str
    run: Run | None = None

    def __str__(self) -> str:
        out = f"{self.rule}: {self.detail}"
        if self.run is not None:
            out += f"\n  args: {self.run.args}\n  exit: {self.run.exit_code}\n  stderr: {self.run.stderr[:600]!r}"
            if self.run.crash:
                out += f"\n  crash: {self.run.crash[:2000]}"
        return out


@dataclass
class Checker:
    timeout: float = 20.0
    breaks: list[Break] = field(default_factory=list)

    def run(self, args: list[str], stdin: str | bytes | None = None) -> Run:
        def on_alarm(signum: int, frame: Any) -> None:
            raise RunTimeout()

        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, self.timeout)
        try:
            result = CliRunner().invoke(app, args, input=stdin)
            crash = None
            if result.exception is not None and not isinstance(result.exception, SystemExit):
                import traceback

                crash = "".join(traceback.format_exception(result.exception))
            return Run(args, result.exit_code, result.stdout, result.stderr, crash)
        except RunTimeout:
            return Run(args, -1, "", "", f"hang: no result after {self.timeout} s")
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    def fail(self, rule: str, detail: str, run: Run | None = None) -> None:
        self.breaks.append(Break(rule, detail, run))

    # --- rules for every run ------------------------------------------------------------------
    def basic(self, run: Run, command: str, input_file: str, plugin_output: bool = False) -> bool:
        """The rules every run obeys; False when the run broke one. ``plugin_output``: lines a
        plugin printed may appear on stderr (the sandbox sends plugin stdout there)."""
        before = len(self.breaks)
        if run.crash:
            self.fail("crash" if not run.crash.startswith("hang") else "hang", run.crash.splitlines()[-1], run)
            return False
        if run.exit_code not in ALLOWED_EXIT[command]:
            self.fail("exit-code", f"{command} exited {run.exit_code}", run)
        for text in (run.stdout, run.stderr):
            if "Traceback" in text:
                self.fail("traceback", "a traceback was printed", run)
        if "internal error" in run.stderr:
            self.fail("internal-error", run.stderr.strip().splitlines()[-1][:300], run)
        lines = [line for line in run.stderr.split("\n") if line]
        stray = [line for line in lines if not line.startswith(("error: ", "warning: "))]
        if stray and not plugin_output:
            self.fail("stderr-line", f"a stderr line that is neither an error nor a warning: {stray[0][:200]!r}", run)
        errors = [line for line in lines if line.startswith("error: ")]
        if run.exit_code == 2:
            if len(errors) != 1:
                self.fail("one-error-line", f"{len(errors)} error lines", run)
            elif input_file and input_file not in errors[0]:
                self.fail("names-file", f"the error does not name {input_file}: {errors[0][:300]}", run)
        elif errors:
            self.fail("error-without-exit-2", errors[0][:300], run)
        if run.exit_code == 0 and "-o" in run.args and run.args[run.args.index("-o") + 1] == "json":
            try:
                json.loads(run.stdout)
            except ValueError as exc:
                self.fail("json-stdout", f"stdout is not JSON: {exc}", run)
        return len(self.breaks) == before

    # --- rules for successful schedules -------------------------------------------------------
    def schedule_invariants(self, run: Run, snapshot_file: str, rerun: Callable[[], Run], check_fit: bool = True) -> None:
        data = json.loads(run.stdout)
        from kschedctl.cluster.loader import is_pending, load_snapshot

        cluster = load_snapshot([snapshot_file])
        pending = sorted(p.key for p in cluster.pods if is_pending(p))
        reported = sorted(
            [p["pod"] for p in data["placements"]] + [u["pod"] for u in data["unschedulable"]] + [s["pod"] for s in data["skipped"]]
        )
        if reported != pending:
            missing = sorted(set(pending) - set(reported))
            extra = sorted(set(reported) - set(pending))
            twice = sorted({k for k in reported if reported.count(k) > 1})
            self.fail("pending-once", f"missing {missing[:5]}, extra {extra[:5]}, twice {twice[:5]}", run)
        if check_fit:
            self._no_overcommit(run, cluster, data)
        again = rerun()
        if again.stdout != run.stdout:
            self.fail("deterministic", "the same --seed gave different output", again)

    def _no_overcommit(self, run: Run, cluster: Any, data: dict) -> None:
        from kschedctl.framework.resource import Resource, compute_pod_resource_request

        victims = {v for p in data["preemptions"] for v in p["victims"]}
        pods = {p.key: p for p in cluster.pods}
        nodes = {n.name: n for n in cluster.nodes}
        on_node: dict[str, list[Any]] = {}
        for pod in cluster.pods:
            if pod.node_name and not pod.is_terminal and pod.key not in victims:
                on_node.setdefault(pod.node_name, []).append(pod)
        placed_on: dict[str, list[Any]] = {}
        for p in data["placements"]:
            if p.get("preemptedBy") or p["pod"] in victims:
                continue
            pod = pods[p["pod"]]
            on_node.setdefault(p["node"], []).append(pod)
            placed_on.setdefault(p["node"], []).append(pod)
        for name, placed in placed_on.items():
            node = nodes.get(name)
            if node is None:
                self.fail("overcommit", f"pod placed on unknown node {name}", run)
                continue
            alloc = Resource.from_list(node.allocatable)
            used = Resource()
            for pod in on_node[name]:
                used.add(compute_pod_resource_request(pod))
            wanted: set[str] = set()
            for pod in placed:
                wanted.update(k for k, v in compute_pod_resource_request(pod).as_dict().items() if v)
            have, use = alloc.as_dict(), used.as_dict()
            for res in wanted:
                if use.get(res, 0) > have.get(res, 0):
                    self.fail("overcommit", f"node {name}: {res} {use.get(res)} > allocatable {have.get(res, 0)}", run)
            if len(on_node[name]) > alloc.allowed_pod_number:
                self.fail("overcommit", f"node {name}: {len(on_node[name])} pods > {alloc.allowed_pod_number}", run)
