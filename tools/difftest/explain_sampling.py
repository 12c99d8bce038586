"""Category ``explain-sampling``: are explain's sampling and nomination statements true of kube?

Sampling. kube's first attempt of the head of the queue sees the snapshot as given, which is
what `kschedctl explain` evaluates. The oracle's ``-mode sequential -sample`` (``parallelism: 1``)
runs kube's own SchedulePod for it, with percentageOfNodesToScore and start index 0, and lists
the nodes it filtered in visiting order (``sampling.evaluated``; the one node it filtered past
the limit and dropped is ``filteredBeyondLimit``, which kube does not count: processedNodes is
feasible + statuses). explain's ``sampling`` must say the same: the count and the names
(``evaluatedNodes``), the start node, the feasible and scored counts, and the chosen node and
its tie. No ``sampling`` in explain means kube evaluated every node.

Nominations. ``-mode explain`` gives kube's per-node filter status for each pending pod with the
pods nominated to each node added (addGENominatedPods); the same mode on a copy of the snapshot
without any status.nominatedNodeName gives the statuses without them. A node whose status
differs is one where the pods kube's filter added decided the verdict: explain must name them
there (``details.NominatedPods``), and its filter status must be kube's (compare.compare_explain).
Everywhere explain names nominated pods, they must be the ones kube's rule adds: nominated to
that node, priority at least the pod's, not the pod itself, handled by a profile (in the queue).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from . import compare, ksched, oracle
from .generate import Case

EXPLAINED = ("default/low",)  # besides the first pod: a low-priority pod every nomination counts for


def _diff(pod: str, what: str, kube: Any, ks: Any) -> compare.Difference:
    return compare.Difference("explain-sampling", pod, what, kube, ks)


def compare_sampling(first: dict, k: dict) -> compare.Difference | None:
    """kube's first sampled attempt (the oracle's ``-sample`` record) against explain's JSON."""
    pod = first["pod"]
    s = first.get("sampling") or {}
    kube_eval: list[str] = list(s.get("evaluated") or [])
    ks = k.get("sampling")
    if first["outcome"] != "Scheduled":
        if k.get("node") is not None:
            return _diff(pod, "outcome", first["outcome"], k.get("node"))
        if ks is not None:
            return _diff(pod, "sampling of a pod that fits nowhere", None, ks)
        if len(kube_eval) != s.get("numAllNodes"):
            return _diff(pod, "evaluated (kube searched part of the nodes, explain says all)", len(kube_eval), s.get("numAllNodes"))
        return None
    if ks is None:
        if len(kube_eval) != s.get("numAllNodes"):
            return _diff(pod, "evaluated (explain says every node)", {"evaluated": len(kube_eval), "nodes": s.get("numAllNodes")}, None)
    else:
        kube_view = {
            "nodes": s.get("numAllNodes"),
            "evaluated": len(kube_eval),
            "startNode": kube_eval[0] if kube_eval else None,
            "feasible": len(s.get("feasibleInOrder") or []),
            "scored": len(first.get("scores") or {}) or len(s.get("feasibleInOrder") or []),
        }
        ks_view = {key: ks.get(key) for key in kube_view}
        if kube_view != ks_view:
            return _diff(pod, "sampling counts", kube_view, ks_view)
        ks_eval = ks.get("evaluatedNodes")
        if ks_eval != kube_eval:
            first_off = next(
                (i for i, (a, b) in enumerate(zip(kube_eval, ks_eval or [])) if a != b), min(len(kube_eval), len(ks_eval or []))
            )
            return _diff(
                pod,
                f"evaluated nodes, first difference at position {first_off}",
                kube_eval[first_off : first_off + 5],
                (ks_eval or [])[first_off : first_off + 5],
            )
        if s.get("filteredBeyondLimit") in set(ks_eval or []):
            return _diff(pod, "a node filtered past the limit counted", s.get("filteredBeyondLimit"), ks_eval)
    if k.get("node") != first.get("node"):
        return _diff(pod, "chosen node", {"node": first.get("node"), "ties": first.get("ties")}, k.get("node"))
    ties = first.get("ties") or []
    total = ((first.get("scores") or {}).get(first.get("node")) or {}).get("total")
    want_tie = {"total": total, "nodes": len(ties), "chosen": first.get("node")} if len(ties) > 1 else None
    if k.get("tie") != want_tie:
        return _diff(pod, "tie", want_tie, k.get("tie"))
    return None


def _nominated_rule(objects: list[dict], profiles: set[str], pod: str, node: str) -> list[str]:
    """The pods kube's filter adds on ``node`` for ``pod`` (schedule_one.go addGENominatedPods):
    nominated there, in the queue (a profile handles them), priority at least the pod's, not it."""
    by_key = {f"{x['metadata'].get('namespace', 'default')}/{x['metadata']['name']}": x for x in objects if x["kind"] == "Pod"}
    me = by_key[pod]
    prio = me["spec"].get("priority") or 0
    out = []
    for key, x in by_key.items():
        if key == pod or x["spec"].get("nodeName") or x["spec"].get("schedulerName") not in profiles:
            continue
        if (x.get("status") or {}).get("nominatedNodeName") == node and (x["spec"].get("priority") or 0) >= prio:
            out.append(key)
    return sorted(out)


def compare_nominations(
    rec: dict, bare: dict | None, k: dict, objects: list[dict], profiles: set[str]
) -> tuple[compare.Difference | None, int]:
    """explain's NominatedPods facts for one pod against kube: (difference, nodes where kube's
    verdict depended on nominated pods)."""
    pod = rec["pod"]
    knodes = k.get("nodes") or {}
    mattered = 0
    if bare is not None:
        for node, st in sorted((rec.get("filter") or {}).items()):
            if compare._status(st) == compare._status((bare.get("filter") or {}).get(node)):
                continue
            mattered += 1
            facts = ((knodes.get(node) or {}).get("details") or {}).get("NominatedPods")
            if not facts:
                return _diff(
                    pod,
                    f"NominatedPods on {node} (kube's verdict there depends on them)",
                    {
                        "with": compare._status(st),
                        "without": compare._status(bare["filter"].get(node)),
                        "pods": _nominated_rule(objects, profiles, pod, node),
                    },
                    None,
                ), mattered
    for node, kn in sorted(knodes.items()):
        facts = (kn.get("details") or {}).get("NominatedPods")
        if not facts:
            continue
        named = sorted(p["pod"] for p in facts.get("pods") or [])
        want = _nominated_rule(objects, profiles, pod, node)
        if named != want:
            return _diff(pod, f"NominatedPods on {node}", want, named), mattered
    return None, mattered


def _strip_nominations(objects: list[dict]) -> list[dict]:
    out = copy.deepcopy(objects)
    for x in out:
        if x["kind"] == "Pod":
            (x.get("status") or {}).pop("nominatedNodeName", None)
    return out


def run(
    case: Case, oracle_bin: str, snap: Path, cfg: Path, ks_args: list[str], dumps: dict[str, Any], pods: dict[str, int], notes: list[str]
) -> list[compare.Difference]:
    """One cluster: the sampled first attempt, then the nominations of the first pod and ``low``."""
    seq = oracle.run(oracle_bin, "sequential", snap, cfg, case.gates, sample=True)
    oracle.check_release(seq, case.release)
    dumps["kube-sample.json"] = seq
    first = next(r for r in seq["pods"] if r.get("attempt") == 1 and r["outcome"] not in ("Gated", "NoProfile"))
    k, err = ksched.run_json(["explain", first["pod"], str(snap), *ks_args])
    explained: dict[str, Any] = {first["pod"]: k if k is not None else err}
    dumps["kschedctl-explain.json"] = explained
    if k is None:
        return [_diff(first["pod"], "kschedctl failed", "ok", err)]
    d = compare_sampling(first, k)
    if d:
        return [d]
    pods["sampling"] = pods.get("sampling", 0) + 1
    s = first.get("sampling") or {}
    notes += case.notes
    notes.append(f"{first['pod']}: {len(s.get('evaluated') or [])}/{s.get('numAllNodes')} evaluated, {len(first.get('ties') or [])} tied")

    exp = oracle.run(oracle_bin, "explain", snap, cfg, case.gates, sample=True)
    bare_snap = snap.with_name("snapshot-no-nominations.json")
    bare_snap.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": _strip_nominations(case.objects)}))
    bare = oracle.run(oracle_bin, "explain", bare_snap, cfg, case.gates, sample=True)
    dumps["kube-explain.json"], dumps["kube-explain-no-nominations.json"] = exp, bare
    profiles = set(exp.get("profiles") or {})
    no_score = {name for name, points in (exp.get("profiles") or {}).items() if not points.get("score")}
    bare_by_pod = {r["pod"]: r for r in bare["pods"]}
    diffs: list[compare.Difference] = []
    mattered_total = 0
    for rec in exp["pods"]:
        if rec["pod"] != first["pod"] and rec["pod"] not in EXPLAINED:
            continue
        kk = explained.get(rec["pod"])
        if kk is None:
            kk, err = ksched.run_json(["explain", rec["pod"], str(snap), *ks_args])
            explained[rec["pod"]] = kk if kk is not None else err
            if kk is None:
                diffs.append(_diff(rec["pod"], "kschedctl failed", "ok", err))
                break
        d = compare.compare_explain(rec, kk, no_score)
        if d is None:
            d, mattered = compare_nominations(rec, bare_by_pod.get(rec["pod"]), kk, case.objects, profiles)
            mattered_total += mattered
        if d:
            diffs.append(d)
            break
        pods["nominations"] = pods.get("nominations", 0) + 1
    pods["nominated-nodes"] = pods.get("nominated-nodes", 0) + mattered_total
    return diffs
