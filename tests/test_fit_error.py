"""FitError.Error() wording and ordering (pkg/scheduler/framework/types.go, types_test.go TestFitError_Error)."""

from kschedctl.framework.interface import Code, Status
from kschedctl.framework.types import Diagnosis, FitError, fit_error_for_single_node
from kschedctl.testing import make_pod


def _fit_error(num_nodes, statuses, absent=None, pre_filter_msg="", post_filter_msg=""):
    d = Diagnosis()
    for name, st in statuses.items():
        d.node_to_status.set(name, st)
    if absent is not None:
        d.node_to_status.set_absent_nodes_status(absent)
    d.pre_filter_msg = pre_filter_msg
    d.post_filter_msg = post_filter_msg
    return FitError(make_pod("p").obj(), num_nodes, d)


def test_histogram_entries_are_sorted_as_strings():
    # "10 ..." sorts before "2 ..." and uppercase before lowercase: sorting is on the whole entry.
    statuses = {f"n{i}": Status(Code.Unschedulable, "Insufficient cpu") for i in range(2)}
    statuses.update({f"m{i}": Status(Code.UnschedulableAndUnresolvable, "node(s) were unschedulable") for i in range(10)})
    err = _fit_error(12, statuses)
    assert err.message() == "0/12 nodes are available: 10 node(s) were unschedulable, 2 Insufficient cpu."


def test_every_reason_of_a_status_counts():
    err = _fit_error(1, {"n1": Status(Code.Unschedulable, "Insufficient cpu", "Insufficient memory")})
    assert err.message() == "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory."


def test_absent_nodes_take_the_absent_status():
    # PreFilterResult narrowing: nodes not in the map carry "node(s) didn't satisfy plugin(s) [...]".
    absent = Status(Code.UnschedulableAndUnresolvable, "node(s) didn't satisfy plugin(s) [NodeAffinity]")
    err = _fit_error(3, {"n1": Status(Code.Unschedulable, "Insufficient cpu")}, absent=absent)
    assert err.message() == ("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity].")


def test_pre_filter_message_replaces_the_histogram():
    err = _fit_error(3, {}, pre_filter_msg="pod has unbound immediate PersistentVolumeClaims")
    assert err.message() == "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims."


def test_post_filter_message_is_appended_without_a_period():
    # Newest format (reference 4.4; observed from kube-scheduler 1.35.4, reference section 12).
    statuses = {f"n{i}": Status(Code.Unschedulable, "Insufficient cpu") for i in range(3)}
    err = _fit_error(
        3,
        statuses,
        post_filter_msg="no new claims to deallocate, preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.",
    )
    assert err.message() == (
        "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, "
        "preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
    )


def test_single_node_fit_error_for_reserve_and_permit_rejections():
    err = fit_error_for_single_node(make_pod("p").obj(), "n1", Status(Code.Unschedulable, "rejected by gang", plugin="X"))
    assert err.message() == "0/1 nodes are available: 1 rejected by gang."
    assert err.diagnosis.unschedulable_plugins == {"X"}
