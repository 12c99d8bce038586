"""Loading the input pauses the cyclic collector and freezes what was read, in kschedctl's own
process only (kschedctl/runtime/process.py loading())."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kschedctl.api.errors import InputError
from kschedctl.app import inputs as app_inputs
from kschedctl.app.release import release
from kschedctl.runtime import process

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "cluster.yaml"


@pytest.fixture
def collector() -> Iterator[list[bool]]:
    """Records whether the collector ran while the snapshot was read; restores it after."""
    seen: list[bool] = []
    real = app_inputs.load_cluster

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    app_inputs.load_cluster = spy  # type: ignore[assignment]
    try:
        yield seen
    finally:
        app_inputs.load_cluster = real  # type: ignore[assignment]
        gc.unfreeze()
        gc.enable()


def load() -> Any:
    return app_inputs.load_inputs([str(EXAMPLE)], None, release("1.35"), lambda *a, **k: None)


def test_the_process_loads_without_collections_then_freezes(collector: list[bool], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(process.STATE, "contained", True)
    gc.unfreeze()
    inputs = load()
    assert collector == [False]  # paused while reading
    assert gc.isenabled()  # and running again after
    assert gc.get_freeze_count() > 0  # what was read is out of the collections' way
    assert inputs.cluster.nodes  # the same snapshot as ever


def test_a_library_caller_keeps_its_collector(collector: list[bool]) -> None:
    assert not process.STATE.contained
    gc.unfreeze()
    load()
    assert collector == [True]
    assert gc.get_freeze_count() == 0


def test_a_failed_load_leaves_the_collector_running(collector: list[bool], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(process.STATE, "contained", True)
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: Node\n")
    with pytest.raises(InputError):
        app_inputs.load_inputs([str(bad)], None, release("1.35"), lambda *a, **k: None)
    assert gc.isenabled()
