"""SchedulingGates tests, from upstream schedulinggates/scheduling_gates_test.go."""

from __future__ import annotations

import pytest

from kschedctl.framework.interface import Code, QueueingHint, Status
from kschedctl.plugins.scheduling_gates.plugin import SchedulingGates
from kschedctl.testing import make_pod


@pytest.mark.parametrize(
    "pod, want",
    [
        # upstream: scheduling_gates_test.go TestPreEnqueue 'pod does not carry scheduling gates'
        pytest.param(make_pod("p").obj(), None, id="pod does not carry scheduling gates"),
        # upstream: scheduling_gates_test.go TestPreEnqueue 'pod carries scheduling gates'
        pytest.param(
            make_pod("p").gates("foo", "bar").obj(),
            Status(Code.UnschedulableAndUnresolvable, "waiting for scheduling gates: [foo bar]"),
            id="pod carries scheduling gates",
        ),
        # one gate still prints as a Go slice
        pytest.param(
            make_pod("p").gates("example.com/wait").obj(),
            Status(Code.UnschedulableAndUnresolvable, "waiting for scheduling gates: [example.com/wait]"),
            id="single gate",
        ),
    ],
)
def test_pre_enqueue(pod, want):
    got = SchedulingGates(None, None).pre_enqueue(pod)
    if want is None:
        assert got is None
    else:
        assert got == want
        assert got.message() == want.message()


def test_events_to_register():
    # upstream: scheduling_gates.go EventsToRegister (queueing hints on): Pod/UpdatePodSchedulingGatesEliminated
    events = SchedulingGates(None, None).events_to_register()
    assert [(e.event.resource, e.event.action) for e in events] == [("Pod", "UpdatePodSchedulingGatesEliminated")]


@pytest.mark.parametrize(
    "new, want",
    [
        # upstream: scheduling_gates_test.go Test_isSchedulableAfterUpdatePodSchedulingGatesEliminated 'queue-wait-for-scheduling-gates-eliminated'
        pytest.param(make_pod("p").obj(), QueueingHint.Queue, id="queue-wait-for-scheduling-gates-eliminated"),
        # upstream: ... 'skip-queue-on-other-pod-updated'
        pytest.param(make_pod("other").obj(), QueueingHint.QueueSkip, id="skip-queue-on-other-pod-updated"),
    ],
)
def test_queueing_hint(new, want):
    pod = make_pod("p").gates("foo").obj()
    assert SchedulingGates(None, None).is_schedulable_after_gates_eliminated(pod, pod, new) == want
