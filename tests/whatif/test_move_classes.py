"""How `diff` classes a move from what side B's attempt recorded (kschedctl/whatif/diff.py)."""

from __future__ import annotations

import pytest

from kschedctl.whatif.diff import AttemptView, classify_move


@pytest.mark.parametrize(
    "view, cls, why, detail",
    [
        pytest.param(
            AttemptView("n2", "n1", 300, 3, 300, None),
            "tieBreakOnly",
            "tied",
            "n1 was among B's 3 best nodes (total 300); the tie-break chose n2",
            id="tied",
        ),
        pytest.param(
            AttemptView("n2", "n1", 300, 1, 280, None), "scoresChanged", "outranked", "under B n1 scored 280, n2 300", id="outranked"
        ),
        pytest.param(
            AttemptView("n2", "n1", 300, 1, None, "NodeResourcesFit: Insufficient cpu"),
            "scoresChanged",
            "filtered",
            "under B n1 did not fit: NodeResourcesFit: Insufficient cpu",
            id="filtered",
        ),
        pytest.param(
            AttemptView("n2", "n1", 300, 1, None, None),
            "scoresChanged",
            "notEvaluated",
            "under B the attempt did not evaluate n1 (the node search stopped before it)",
            id="not-evaluated",
        ),
        pytest.param(
            AttemptView("n2", "n1", None, 0, None, None, nominated_only=True),
            "scoresChanged",
            "notEvaluated",
            "under B the attempt did not evaluate n1 (only its nominated node was evaluated)",
            id="nominated",
        ),
        pytest.param(
            AttemptView("n3", "n1", 300, 1, 280, None), "unknown", "notRecorded", "no recorded attempt of B chose n2", id="other-host"
        ),
        pytest.param(None, "unknown", "notRecorded", "no recorded attempt of B chose n2", id="no-attempt"),
    ],
)
def test_move_classes(view, cls, why, detail) -> None:
    cause = classify_move("default/p", "n1", "n2", view)
    assert (cause.cls, cause.why, cause.detail) == (cls, why, detail)
