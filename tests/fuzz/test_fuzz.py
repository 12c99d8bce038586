"""The mutation fuzzer (tools/fuzz) in the test suite: a small fixed run on every `pytest`, a long
one under `pytest -m fuzz` (KSCHEDCTL_FUZZ_COUNT inputs, default 2000; tools/fuzz/run.py for more).

The contract it checks is in tools/fuzz/kfuzz/contract.py: allowed exit codes, no traceback or
internal error, one error line naming the file, valid JSON, and on every successful schedule no
over-committed node, every pending pod reported once, the same output for the same --seed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "fuzz"))

from kfuzz import seeds  # noqa: E402
from kfuzz.contract import Checker  # noqa: E402
from kfuzz.mutate import BAD_VALUES, field_paths  # noqa: E402
from kfuzz.runner import fuzz  # noqa: E402


def test_seeds_are_valid_inputs(tmp_path):
    snap = tmp_path / "seed-snapshot.yaml"
    snap.write_text(yaml.safe_dump(seeds.snapshot(), sort_keys=False))
    cfg = tmp_path / "config.yaml"
    cfg.write_text(yaml.safe_dump(seeds.config(), sort_keys=False))
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(yaml.safe_dump(seeds.scenario("seed-snapshot.yaml"), sort_keys=False))
    checker = Checker()
    run = checker.run(["schedule", str(snap), "-o", "json", "--seed", "1"])
    assert run.exit_code == 0, run.stderr
    checker.schedule_invariants(run, str(snap), lambda: checker.run(run.args))
    assert checker.run(["validate", str(cfg)]).exit_code == 0
    assert checker.run(["schedule", str(snap), "--config", str(cfg)]).exit_code == 0
    assert checker.run(["simulate", str(scenario)]).exit_code == 0
    assert not checker.breaks, [str(b) for b in checker.breaks]


def test_the_seed_snapshot_uses_every_kind_the_scheduler_reads():
    from kschedctl.api.admission import ADMITTERS

    kinds = {item["kind"] for item in seeds.snapshot()["items"]}
    assert set(ADMITTERS) <= kinds and "ConfigMap" in kinds
    assert len(list(field_paths(seeds.snapshot()))) > 400 and len(BAD_VALUES) >= 45


def test_small_fixed_fuzz_run(tmp_path):
    report = fuzz(40, seed=20261201, workdir=tmp_path, timeout=20.0)
    assert report.inputs == 40 and set(report.by_dimension) == {"snapshot", "config", "scenario"}
    assert not report.failures, "\n\n".join(report.failures)


def test_small_fixed_plugin_fuzz_run(tmp_path):
    """A fake plugin package (kfuzz/plugins.py) misbehaving for some pods: the run keeps the contract."""
    report = fuzz(8, seed=20261201, workdir=tmp_path, timeout=30.0, dimensions=["plugin"])
    assert report.inputs == 8 and not report.failures, "\n\n".join(report.failures)


def test_small_fixed_fidelity_fuzz_run(tmp_path):
    """Gate sets per release (locked gates refused alike by every command) and image sizes nodes
    disagree on (ImageLocality from the cache's first size), kfuzz/fidelity.py."""
    report = fuzz(10, seed=20261205, workdir=tmp_path, timeout=30.0, dimensions=["fidelity"])
    assert report.inputs == 10 and not report.failures, "\n\n".join(report.failures)


def test_small_fixed_output_fuzz_run(tmp_path):
    """Output targets (kfuzz/output.py: inputs, links, FIFOs, devices, ...): nothing destroyed."""
    report = fuzz(6, seed=20261201, workdir=tmp_path, timeout=30.0, dimensions=["output"])
    assert report.inputs == 6 and not report.failures, "\n\n".join(report.failures)


def test_small_fixed_live_fuzz_run(tmp_path):
    """A hostile API server (tools/fuzz/kfuzz/live.py): huge, slow, endless and malformed answers."""
    report = fuzz(10, seed=20261201, workdir=tmp_path, timeout=30.0, dimensions=["live"])
    assert report.inputs == 10
    assert not report.failures, "\n\n".join(report.failures)


@pytest.mark.fuzz
def test_long_fuzz_run(tmp_path):
    count = int(os.environ.get("KSCHEDCTL_FUZZ_COUNT", "2000"))
    report = fuzz(count, seed=int(os.environ.get("KSCHEDCTL_FUZZ_SEED", "1")), workdir=tmp_path, timeout=30.0)
    print(report.summary())
    assert not report.failures, "\n\n".join(report.failures[:20])


def test_small_fixed_extender_fuzz_run(tmp_path):
    """A hostile HTTP extender on 127.0.0.1 (kfuzz/extender.py): the run keeps the contract."""
    report = fuzz(6, seed=7, workdir=tmp_path, timeout=30.0, dimensions=["extender"])
    assert report.inputs == 6 and not report.failures, "\n\n".join(report.failures)


def test_small_fixed_gangqueue_fuzz_run(tmp_path):
    """Random gangs (kfuzz/gangqueue.py): the shared requeue and kept counts give the output of
    asking every gated pod on its own and walking the pods."""
    report = fuzz(12, seed=7, workdir=tmp_path, timeout=30.0, dimensions=["gangqueue"])
    assert report.inputs == 12 and not report.failures, "\n\n".join(report.failures)
