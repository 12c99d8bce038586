"""The fuzz loop: dimensions of input, each a function that builds one mutated input from the
seeds, runs kschedctl on it and checks the contract.

A dimension is ``fn(rng, workdir, checker) -> description``: write the function and add it to
``DIMENSIONS`` with a weight, or to ``OPTIONAL_DIMENSIONS`` to run it only when named. The
plugin-misbehaviour dimension (kfuzz/plugins.py: a fake package registered through the pluggy
hook for the run, its methods raising, exiting, printing or returning the wrong type for some
pods) is one of those: `run.py --dimension plugin`.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kfuzz import seeds
from kfuzz.contract import Checker, Run
from kfuzz.mutate import Mutation, duplicate_object, mutate_structure, mutate_text, to_text

Dimension = Callable[[random.Random, Path, Checker], str]


def _write(path: Path, text: str) -> str:
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    return str(path)


def _mutated_snapshot(rng: random.Random, workdir: Path) -> tuple[str, Mutation]:
    doc = seeds.snapshot()
    roll = rng.random()
    mutation = duplicate_object(doc, rng) if roll < 0.08 else mutate_structure(doc, rng)
    for _ in range(rng.choice([0, 0, 0, 1, 2])):  # sometimes several changes at once
        more = mutate_structure(doc, rng)
        mutation = Mutation(f"{mutation.kind}+{more.kind}", mutation.path, [mutation.value, more.path, more.value])
    suffix, text = to_text(doc, rng)
    if roll > 0.82:
        text, mutation = mutate_text(to_text(seeds.snapshot(), rng)[1], rng)
    return _write(workdir / f"snapshot{suffix}", text), mutation


def snapshot_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    """A mutated snapshot through `schedule` (JSON, seeded, twice), sometimes the table, stdin,
    --write-snapshot (then the written file scheduled again) or `explain`."""
    path, mutation = _mutated_snapshot(rng, workdir)
    seed = str(rng.randrange(1000))
    use_stdin = rng.random() < 0.1
    source = "-" if use_stdin else path
    stdin = Path(path).read_bytes() if use_stdin else None
    args = ["schedule", source, "-o", "json", "--seed", seed]
    run = checker.run(args, stdin)
    if checker.basic(run, "schedule", "-" if use_stdin else path) and run.exit_code == 0 and not use_stdin:
        checker.schedule_invariants(run, path, lambda: checker.run(args))
        extra = rng.random()
        if extra < 0.2:
            out = str(workdir / rng.choice(["next.json", "next.yaml"]))
            written = checker.run(["schedule", path, "--seed", seed, "--write-snapshot", out])
            if checker.basic(written, "schedule", path) and written.exit_code == 0:
                chained = checker.run(["schedule", out, "-o", "json", "--seed", seed])
                if checker.basic(chained, "schedule", out) and chained.exit_code != 0:
                    checker.fail("write-snapshot", "the written snapshot is not accepted", chained)
        elif extra < 0.4:
            checker.basic(checker.run(["schedule", path, "-o", rng.choice(["table", "wide", "yaml"])]), "schedule", path)
        elif extra < 0.55:
            pod = rng.choice(["default/web-1", "default/gpu", "default/huge", "default/with-pvc", "podgroup/default/gang"])
            checker.basic(checker.run(["explain", pod, path, "-o", rng.choice(["json", "table"])]), "explain", path)
    return f"snapshot {mutation.describe()}"


def _mutated_yaml(doc: Any, rng: random.Random, structural_share: float) -> tuple[str, Mutation]:
    """The document mutated in its structure (that share of the time) or as text, as YAML."""
    if rng.random() < structural_share:
        mutation = mutate_structure(doc, rng)
        return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=4096), mutation
    return mutate_text(yaml.safe_dump(doc, sort_keys=False), rng)


def config_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    """A mutated configuration through `validate` and `schedule --config`: they must agree."""
    doc = seeds.config()
    text, mutation = _mutated_yaml(doc, rng, structural_share=0.8)
    cfg = _write(workdir / "config.yaml", text)
    snap = _write(workdir / "seed.yaml", yaml.safe_dump(seeds.snapshot(), sort_keys=False))
    validated = checker.run(["validate", cfg, "-o", rng.choice(["text", "json"])])
    checker.basic(validated, "validate", cfg if validated.exit_code == 2 else "")
    scheduled = checker.run(["schedule", snap, "--config", cfg, "-o", "json", "--seed", "3"])
    if checker.basic(scheduled, "schedule", cfg if scheduled.exit_code == 2 else ""):
        if validated.exit_code in (1, 2) and scheduled.exit_code != 2:
            checker.fail("one-config-path", "validate refused the configuration but schedule ran it", scheduled)
        elif validated.exit_code == 0 and scheduled.exit_code != 0:
            checker.fail("one-config-path", "validate accepted the configuration but schedule refused it", scheduled)
        elif scheduled.exit_code == 0:
            checker.schedule_invariants(scheduled, snap, lambda: checker.run(scheduled.args), check_fit=False)
    return f"config {mutation.describe()}"


def scenario_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    """A mutated scenario through `simulate` (twice: the same seed, the same output)."""
    _write(workdir / "seed-snapshot.yaml", yaml.safe_dump(seeds.snapshot(), sort_keys=False))
    doc = seeds.scenario("seed-snapshot.yaml")
    text, mutation = _mutated_yaml(doc, rng, structural_share=0.85)
    path = _write(workdir / "scenario.yaml", text)
    args = ["simulate", path, "-o", "json", "--seed", "5"]
    run = checker.run(args)
    if checker.basic(run, "simulate", path) and run.exit_code == 0:
        again = checker.run(args)
        if again.stdout != run.stdout:
            checker.fail("deterministic", "the same scenario and seed gave different output", again)
    return f"scenario {mutation.describe()}"


DIMENSIONS: dict[str, tuple[float, Dimension]] = {
    "snapshot": (0.62, snapshot_dimension),
    "config": (0.2, config_dimension),
    "scenario": (0.18, scenario_dimension),
}


def _plugin_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    from kfuzz.plugins import plugin_dimension

    return plugin_dimension(rng, workdir, checker)


# Chosen by name only (`--dimension plugin`): the default mix stays what it was, so a seed's
# inputs stay the same from one version of the fuzzer to the next.
def _dimension(name: str) -> Dimension:
    """The optional dimension ``name``: ``kfuzz/<name>.py``'s ``<name>_dimension``, imported on use."""

    def run(rng: random.Random, workdir: Path, checker: Checker) -> str:
        import importlib

        module = importlib.import_module(f"kfuzz.{name}")
        result: str = getattr(module, f"{name}_dimension")(rng, workdir, checker)
        return result

    return run


def _plugin_process_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    from kfuzz.plugins import plugin_process_dimension

    return plugin_process_dimension(rng, workdir, checker)


OPTIONAL_DIMENSIONS: dict[str, tuple[float, Dimension]] = {
    "plugin": (1.0, _plugin_dimension),
    "plugin-process": (1.0, _plugin_process_dimension),
    **{
        name: (1.0, _dimension(name))
        for name in (
            "fidelity",
            "output",
            "live",
            "inputs",
            "extender",
            "release137",
            "app",
            "watch",
            "podgroups",
            "gpushare",
            "perf",
            "volumes",
            "preempt",
            "gangqueue",
        )
    },
}


@dataclass
class Report:
    inputs: int = 0
    seconds: float = 0.0
    by_dimension: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def summary(self) -> str:
        dims = ", ".join(f"{k} {v}" for k, v in sorted(self.by_dimension.items()))
        return f"{self.inputs} inputs ({dims}) in {self.seconds:.0f} s: {len(self.failures)} contract break(s)"


def fuzz(
    count: int,
    seed: int,
    workdir: Path,
    timeout: float = 20.0,
    dimensions: list[str] | None = None,
    progress: Callable[[int, Report], None] | None = None,
) -> Report:
    """Run ``count`` inputs; input i uses ``random.Random(f"{seed}:{i}")`` (reproducible alone)."""
    report = Report()
    table = {**DIMENSIONS, **OPTIONAL_DIMENSIONS}
    names = dimensions or list(DIMENSIONS)
    weights = [table[n][0] for n in names]
    start = time.perf_counter()
    for i in range(count):
        rng = random.Random(f"{seed}:{i}")
        name = rng.choices(names, weights)[0]
        case_dir = workdir / f"case-{i % 4}"
        case_dir.mkdir(parents=True, exist_ok=True)
        checker = Checker(timeout=timeout)
        description = table[name][1](rng, case_dir, checker)
        report.inputs += 1
        report.by_dimension[name] = report.by_dimension.get(name, 0) + 1
        for brk in checker.breaks:
            report.failures.append(f"[input {i}, seed {seed}] {description}\n{brk}")
        if progress is not None:
            progress(i, report)
    report.seconds = time.perf_counter() - start
    return report


def replay(seed: int, index: int, workdir: Path, timeout: float = 20.0, dimensions: list[str] | None = None) -> tuple[str, list[str]]:
    """Input ``index`` of a run again, alone (its files stay in ``workdir`` for a look)."""
    rng = random.Random(f"{seed}:{index}")
    table = {**DIMENSIONS, **OPTIONAL_DIMENSIONS}
    names = dimensions or list(DIMENSIONS)
    name = rng.choices(names, [table[n][0] for n in names])[0]
    checker = Checker(timeout=timeout)
    description = table[name][1](rng, workdir, checker)
    return description, [str(b) for b in checker.breaks]


__all__ = ["DIMENSIONS", "OPTIONAL_DIMENSIONS", "Report", "Run", "fuzz", "json", "replay"]
