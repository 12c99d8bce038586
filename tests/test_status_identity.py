"""Distinct Statuses of a batch by identity (kschedctl/framework/interface.py ``by_identity``,
``SparseStatuses.distinct``): nodes a plugin rejects the same way share one Status object, and
what is worded, recorded or checked once per object must see each object exactly once, and
two equal but separate Statuses as two."""

from __future__ import annotations

from kschedctl.framework.interface import Code, SparseStatuses, Status, by_identity
from kschedctl.lazy import numpy as np


def test_each_object_once_in_first_seen_order_and_equal_ones_kept_apart() -> None:
    tight, full = Status(Code.Unschedulable, "Insufficient cpu"), Status(Code.Unschedulable, "Too many pods")
    twin = Status(Code.Unschedulable, "Insufficient cpu")  # equal to `tight`, another object
    batch = [None, full, tight, None, tight, twin, full]
    found = by_identity(batch)
    assert list(found.values()) == [None, full, tight, twin]
    assert [v is w for v, w in zip(found.values(), [None, full, tight, twin])] == [True] * 4
    assert by_identity(tuple(batch)) == found
    column = np.full(len(batch), None, object)
    column[:] = batch
    assert list(by_identity(column).values()) == [None, full, tight, twin]
    assert by_identity([]) == {}


def test_sparse_statuses_give_the_same_objects_by_either_walk() -> None:
    shared = Status(Code.Unschedulable, "node(s) had untolerated taint")
    other = Status(Code.UnschedulableAndUnresolvable, "node(s) didn't match Pod's node affinity/selector")
    few = SparseStatuses([None, shared, None, None, other, None], [1, 4])  # from the positions
    most = SparseStatuses([shared, shared, other, None, shared], [0, 1, 2, 4])  # the whole list in C
    assert list(few.distinct().values()) == [shared, other]
    assert list(most.distinct().values()) == [shared, other]
    assert all(id(v) == k for k, v in most.distinct().items())


def test_the_module_codes_are_codes_members() -> None:
    """interface.py's SUCCESS... are Code's own members (read as module globals in the hot
    paths): a Status made with one equals, and is what is_success/is_skip/is_rejected say."""
    from kschedctl.framework import interface as fi

    pairs = [
        (fi.SUCCESS, Code.Success),
        (fi.ERROR, Code.Error),
        (fi.UNSCHEDULABLE, Code.Unschedulable),
        (fi.UNRESOLVABLE, Code.UnschedulableAndUnresolvable),
        (fi.WAIT, Code.Wait),
        (fi.SKIP, Code.Skip),
        (fi.PENDING, Code.Pending),
    ]
    assert all(mine is theirs for mine, theirs in pairs)
    verdicts = [(Status(c).is_success(), Status(c).is_skip(), Status(c).is_wait(), Status(c).is_rejected()) for c in Code]
    assert verdicts == [
        (True, False, False, False),
        (False, False, False, False),
        (False, False, False, True),
        (False, False, False, True),
        (False, False, True, False),
        (False, True, False, False),
        (False, False, False, True),
    ]
