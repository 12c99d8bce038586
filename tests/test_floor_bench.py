"""benchmarks/floor.py: a run's cost split into the interpreter, the dependencies, kschedctl's
own modules, the plugin packages and the run's work. The recording is of a real run, the
import programs really import what it imported, and the split and ceilings are the arithmetic
the table says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import floor  # noqa: E402
from floor import Cost, Recorded  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "cluster.yaml"


@pytest.fixture(scope="module")
def recorded() -> Recorded:
    if not EXAMPLE.exists():
        pytest.skip("no examples/cluster.yaml")
    return floor.record(sys.executable, ["schedule", str(EXAMPLE), "-o", "json", "--seed", "1"])


def test_the_recording_is_what_a_schedule_imported(recorded: Recorded) -> None:
    names = set(recorded.modules)
    assert {"kschedctl.cli", "kschedctl.scheduler.scheduler", "yaml", "pluggy"} <= names
    assert "typer" not in names  # a plain command line runs without it (kschedctl/cli/fast.py)
    assert not any(name.endswith("__main__") for name in names)  # importing one would run a command
    assert len(names) == len(recorded.modules)
    assert "kschedctl" not in recorded.plugin_packages


def test_each_layer_adds_to_the_one_before_in_the_runs_order(recorded: Recorded) -> None:
    layers = floor.layer_modules(recorded)
    assert list(layers) == list(floor.LAYERS)
    assert layers["python"] == []
    tops = {name.split(".")[0] for name in layers["dependencies"]}
    assert "kschedctl" not in tops and not tops & set(recorded.plugin_packages)
    assert {"yaml", "pluggy"} <= tops
    order = {name: i for i, name in enumerate(recorded.modules)}
    for below, above in zip(floor.LAYERS, floor.LAYERS[1:]):
        assert set(layers[below]) <= set(layers[above])
        assert [order[n] for n in layers[above]] == sorted(order[n] for n in layers[above])
    assert layers["plugin packages"] == recorded.modules


def test_an_import_program_imports_its_layer_and_exits_cleanly(recorded: Recorded) -> None:
    prog = floor.programs(recorded)["dependencies"]
    check = prog[1].replace(
        "os._exit(0)", "import sys; print(' '.join(sorted(n for n in sys.modules if n.split('.')[0] in ('pluggy', 'kschedctl'))))"
    )
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True).stdout.split()
    assert "pluggy" in out
    # of kschedctl only what the command line installs before anything else (kschedctl/cli/__init__.py)
    assert {n for n in out if n.startswith("kschedctl")} == {
        "kschedctl",
        "kschedctl.regex_start",
        "kschedctl.startup",
        "kschedctl.yaml_start",
    }
    assert subprocess.run([sys.executable, *prog], capture_output=True, check=False).returncode == 0


def test_the_split_is_each_program_less_the_one_before() -> None:
    costs = {
        "python": Cost(instructions=30),
        "dependencies": Cost(instructions=500),
        "kschedctl": Cost(instructions=700),
        "plugin packages": Cost(instructions=690),  # noise below the layer under it: 0, never negative
        "command": Cost(instructions=840),
    }
    assert floor.split(costs) == [
        ("python", 30.0),
        ("dependencies", 470.0),
        ("kschedctl", 200.0),
        ("plugin packages", 0.0),
        ("the run's work", 150.0),
    ]


def test_the_ceilings_free_kschedctls_modules_then_everything_but_the_dependencies() -> None:
    shares = [("python", 0.01), ("dependencies", 0.09), ("kschedctl", 0.05), ("plugin packages", 0.0), ("the run's work", 0.05)]
    modules_free, deps_only = floor.ceilings(shares, 0.20, 0.30)
    assert modules_free == pytest.approx(0.30 / 0.15)
    assert deps_only == pytest.approx(0.30 / 0.10)


def test_the_report_names_each_part_and_the_total(recorded: Recorded) -> None:
    costs = {label: Cost(wall_s=0.01 * (i + 1), cpu_s=0.01 * (i + 1)) for i, label in enumerate([*floor.LAYERS, "command"])}
    text = floor.report(recorded, costs, kube_s=0.1)
    for part in ("| python |", "| dependencies |", "| kschedctl |", "| plugin packages |", "| the run's work |", "| the command |"):
        assert part in text
    assert "ratio now 2.00x" in text
