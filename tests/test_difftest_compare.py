"""tools/difftest's comparison never takes a Go map's order for a fact.

From the source of v1.36.2 pkg/scheduler/framework/plugins/noderesources/fit.go fitsRequest
(and the same function in 1.35 and the 1.37 tree): pods, cpu, memory and ephemeral-storage are
checked in that order, then ``for rName, rQuant := range podRequest.ScalarResources``, a Go map,
so two extended resources the node lacks are reported in either order from run to run.
"""

from __future__ import annotations

from tools.difftest.compare import GROUP_WAITS_FOR_PREEMPTION, comparable_reasons, compare_explain, compare_sequential

EXT = ["Too many pods", "Insufficient cpu", "Insufficient example.com/b", "Insufficient example.com/a", "Insufficient hugepages-2Mi"]


def test_scalar_reasons_are_sorted_among_themselves():
    assert comparable_reasons(EXT) == [
        "Too many pods",
        "Insufficient cpu",
        "Insufficient example.com/a",
        "Insufficient example.com/b",
        "Insufficient hugepages-2Mi",
    ]
    # cpu, memory, ephemeral-storage keep kube's fixed order
    fixed = ["Insufficient memory", "Insufficient cpu"]
    assert comparable_reasons(fixed) == fixed


def _explain_record(reasons):
    status = {"code": "Unschedulable", "plugin": "NodeResourcesFit", "reasons": reasons}
    return {"pod": "default/p", "outcome": "Unschedulable", "filter": {"n1": status}}


def test_explain_comparison_ignores_the_order_of_extended_resources():
    kube = _explain_record(["Insufficient example.com/b", "Insufficient example.com/a"])
    ours = {
        "nodes": {
            "n1": {
                "filter": {
                    "code": "Unschedulable",
                    "plugin": "NodeResourcesFit",
                    "reasons": ["Insufficient example.com/a", "Insufficient example.com/b"],
                }
            }
        }
    }
    assert compare_explain(kube, ours, set()) is None
    # a reason missing is still a difference
    ours["nodes"]["n1"]["filter"]["reasons"] = ["Insufficient example.com/a"]
    assert compare_explain(kube, ours, set()) is not None


# tools/difftest -c gangs at 1.36 against kschedoracle 1.36.2 -mode sequential, whose loop runs
# pod-group members pod by pod, while kube 1.36.2 takes a group's members together
# (schedule_one.go ScheduleOne -> schedule_one_podgroup.go scheduleOnePodGroup).
WAIT = "Wait: waiting for minCount pods from a gang to be scheduled, one or more plugins asked to wait and no plugin rejected pod"
GROUP = [{"podGroup": "default/job0-g0", "members": [{"pod": "default/w0-g0-0"}, {"pod": "default/w0-g0-1"}]}]


def _harness(*recs, version="v1.36.2"):
    return {"version": version, "pods": [{"attempt": 1, **r} for r in recs]}


def _kschedctl(*events):
    return {"events": [{"attempts": 1, **e} for e in events], "skipped": [], "podGroups": GROUP}


def _placed(pod, node, **extra):
    return {"pod": pod, "outcome": "Scheduled", "node": node, "ties": [node], "feasibleNodes": [node], **extra}


def _failed(pod, message, **extra):
    return {"pod": pod, "outcome": "Unschedulable", "fitError": message, **extra}


FIT = "0/5 nodes are available: 5 Insufficient cpu, 5 Insufficient memory."
PREEMPTION = {"status": "Success", "nominatedNode": "n02", "victims": ["default/fill2"]}


def test_a_group_waiting_for_preemption_ends_the_comparison_with_a_note():
    # gangs-61: the harness leaves w0-g0-0 on n00 waiting at Permit; kube's group cycle holds the
    # group back because w0-g0-1 preempts (podGroupSchedulingDefaultAlgorithm)
    orc = _harness(_placed("default/w0-g0-0", "n00", permitStatus=WAIT), _failed("default/w0-g0-1", FIT))
    sim = _kschedctl(
        {"event": "FailedScheduling", "pod": "default/w0-g0-0", "message": GROUP_WAITS_FOR_PREEMPTION},
        {"event": "FailedScheduling", "pod": "default/w0-g0-1", "message": "something else"},
    )
    out = compare_sequential("sequential", orc, sim)
    assert out.diff is None and out.compared == 0
    assert "waits for a member's preemption" in out.notes[0]
    # with the release before the group cycle (1.35) it is a difference
    out = compare_sequential("sequential", {**orc, "version": "v1.35.4"}, sim)
    assert out.diff is not None and out.diff.what == "outcome"
    # as it is with a harness whose records name the group (it runs the group cycle)
    named = {**orc, "pods": [{**r, "podGroup": "default/job0-g0"} for r in orc["pods"]]}
    assert compare_sequential("sequential", named, sim).diff is not None


def test_a_preempting_member_is_compared_then_ends_the_comparison():
    orc = _harness(_failed("default/w0-g0-0", FIT, preemption=PREEMPTION), _failed("default/w0-g0-1", "x"))
    preempted = {"event": "Preempted", "preemptor": "default/w0-g0-0", "node": "n02", "victims": ["default/fill2"]}
    sim = _kschedctl(
        preempted,
        {"event": "FailedScheduling", "pod": "default/w0-g0-0", "message": FIT},
        {"event": "FailedScheduling", "pod": "default/w0-g0-1", "message": "y"},
    )
    out = compare_sequential("sequential", orc, sim)
    assert out.diff is None and out.compared == 1 and "it preempts" in out.notes[0]
    # the member's own attempt is still compared: other victims are a difference
    other = {**preempted, "victims": ["default/fill3"]}
    sim["events"][0] = other
    out = compare_sequential("sequential", orc, sim)
    assert out.diff is not None and out.diff.what == "preemption victims"


def test_a_preempting_member_of_an_infeasible_group_keeps_the_group_message():
    # gangs-33 at 1.36: w0-g0-0 preempts, its siblings fit nowhere, so no member's Permit
    # succeeds and the group cycle words the preemptor's failure as errPodGroupUnschedulable
    # around its Permit message (schedule_one_podgroup.go submitPodGroupAlgorithmResult); the
    # pod-by-pod harness reports its FitError. The preemption itself is still compared.
    orc = _harness(_failed("default/w0-g0-0", FIT, preemption=PREEMPTION), _failed("default/w0-g0-1", FIT))
    preempted = {"event": "Preempted", "preemptor": "default/w0-g0-0", "node": "n02", "victims": ["default/fill2"]}
    worded = "pod group is unschedulable, " + WAIT.removeprefix("Wait: ")
    sim = _kschedctl(
        preempted,
        {"event": "FailedScheduling", "pod": "default/w0-g0-0", "message": worded},
        {"event": "FailedScheduling", "pod": "default/w0-g0-1", "message": FIT},
    )
    out = compare_sequential("sequential", orc, sim)
    assert out.diff is None and out.compared == 1 and "it preempts" in out.notes[0]
    sim["events"][0] = {**preempted, "node": "n03"}
    out = compare_sequential("sequential", orc, sim)
    assert out.diff is not None and out.diff.what == "preemption node"
    # any other message of a preempting member is still a difference
    sim["events"][0] = preempted
    sim["events"][1] = {**sim["events"][1], "message": "pod group is unschedulable"}
    out = compare_sequential("sequential", orc, sim)
    assert out.diff is not None and out.diff.what == "message"
    # and so is the group's wording at 1.35, which has no group cycle
    out = compare_sequential(
        "sequential", {**orc, "version": "v1.35.4"}, {**sim, "events": [preempted, {**sim["events"][1], "message": worded}]}
    )
    assert out.diff is not None and out.diff.what == "message"


def test_a_member_waiting_at_permit_until_the_timeout_ends_the_comparison():
    orc = _harness(_placed("default/w0-g0-0", "n00", permitStatus=WAIT, permitWaitTimedOut=True), _placed("default/solo", "n01"))
    sim = _kschedctl(
        {"event": "FailedScheduling", "pod": "default/w0-g0-0", "message": "pod group is unschedulable"},
        {"event": "Scheduled", "pod": "default/solo", "node": "n00"},
    )
    out = compare_sequential("sequential", orc, sim)
    assert out.diff is None and "until the gang times out" in out.notes[0]
    # a pod outside the groups is compared as ever
    orc = _harness(_placed("default/solo", "n01"))
    sim2 = _kschedctl({"event": "Scheduled", "pod": "default/solo", "node": "n00"})
    out = compare_sequential("sequential", orc, sim2)
    assert out.diff is not None and out.diff.what == "node"
