"""tools/difftest's comparison never takes a Go map's order for a fact.

From the source of v1.36.2 pkg/scheduler/framework/plugins/noderesources/fit.go fitsRequest
(and the same function in 1.35 and the 1.37 tree): pods, cpu, memory and ephemeral-storage are
checked in that order, then ``for rName, rQuant := range podRequest.ScalarResources``, a Go map,
so two extended resources the node lacks are reported in either order from run to run.
"""

from __future__ import annotations

from tools.difftest.compare import comparable_reasons, compare_explain

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
