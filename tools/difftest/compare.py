"""Comparisons of the oracle's records with kschedctl's output, stopping at the first difference.

sequential / sample: the oracle attempts every pending pod once in queue order, then retries
the pods whose preemption nominated a node (and nothing else); kschedctl's `simulate` trace gives
its attempts in the same order. Every first attempt is compared; retries are compared while
kschedctl retries the same pods in the same order (kschedctl also requeues pods on cluster
events, as kube's queue does; where it retries a pod the harness does not, comparing stops).
explain: per pod, every node's filter status, every score, the chosen node, the FitError
message and what preemption would do.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

# True when kschedctl breaks equal best totals by the lowest node name, as the oracle does
# (ksched.TIE_RULE "lowest"); otherwise a pick among kube's tied nodes ends the comparison.
LOWEST_NAME_TIES = True


NO_RETRIES = "no-retries"  # _compare_attempt: the pod's later attempts are not comparable

# kube 1.36.2 schedule_one_podgroup.go podGroupSchedulingDefaultAlgorithm: once a member's Permit
# succeeds and some member requires preemption, every member gets this status
GROUP_WAITS_FOR_PREEMPTION = "pod group is unschedulable, pod group is waiting for preemption to complete"
# ... and once no member's Permit succeeds, a member that preempted gets errPodGroupUnschedulable
# wrapping its own Permit message (submitPodGroupAlgorithmResult: "the preemption message is no
# longer relevant"), where a pod-by-pod harness reports its FitError
GROUP_UNSCHEDULABLE = "pod group is unschedulable, "
POD_BY_POD = "the harness runs the group's members pod by pod, kube's group cycle takes them together"


def _harness_runs_members_pod_by_pod(orc: dict, members: set[str]) -> bool:
    """From 1.36 kube takes a pod group's members together (ScheduleOne -> scheduleOnePodGroup);
    a harness that runs them pod by pod gives records without ``podGroup``."""
    version = str(orc.get("version") or "")
    if not members or not version.startswith("v1.") or int(version.split(".")[1]) < 36:
        return False
    return not any("podGroup" in r for r in orc["pods"])


def _preempts(rec: dict) -> bool:
    """Whether the harness's attempt nominated a node by preemption."""
    return bool((rec.get("preemption") or {}).get("nominatedNode"))


def _where_loops_part(rec: dict) -> str:
    """Where kube's group cycle and a pod-by-pod harness part by design after a member's attempt
    that compared equal: what comes after is not comparable. (A member the harness placed that
    the group cycle held back, its group waiting for a sibling's preemption, parts them before
    its attempt: compare_sequential.)

    * a member that preempts: the group cycle assumes it on its nominated node for the siblings
      that follow, the harness does not;
    * a member left waiting at Permit until the gang timed out: the harness holds its node
      meanwhile, the group cycle rejected the group at once."""
    if _preempts(rec):
        return "it preempts, and the group cycle assumes it on the nominated node for its siblings"
    if rec.get("permitWaitTimedOut"):
        return "the harness holds its node at Permit until the gang times out"
    return ""


@dataclass
class Difference:
    mode: str
    pod: str
    what: str
    kube: Any
    kschedctl: Any
    attempt: int = 1

    def line(self) -> str:
        return (
            f"[{self.mode}] {self.pod} (attempt {self.attempt}): {self.what}\n"
            f"    kube:      {self.kube!r}\n    kschedctl: {self.kschedctl!r}"
        )


@dataclass
class Outcome:
    compared: int = 0  # pod attempts (sequential) or pods (explain) found equal
    diff: Difference | None = None
    notes: list[str] = field(default_factory=list)


# --- sequential ---------------------------------------------------------------------------------


def _ks_attempts(sim: dict) -> tuple[dict[str, dict[int, dict]], list[tuple[str, int]]]:
    per: dict[str, dict[int, dict]] = defaultdict(dict)
    order: list[tuple[str, int]] = []
    preempted: dict[str, list[dict]] = defaultdict(list)
    for e in sim.get("events", []):
        kind = e.get("event")
        if kind == "Preempted":
            preempted[e["preemptor"]].append(e)
        elif kind in ("Scheduled", "FailedScheduling"):
            rec = dict(e)
            rec["preempted"] = preempted.pop(e["pod"], [])
            if e["attempts"] not in per[e["pod"]]:
                per[e["pod"]][e["attempts"]] = rec
                order.append((e["pod"], e["attempts"]))
    return per, order


def compare_sequential(mode: str, orc: dict, sim: dict) -> Outcome:
    out = Outcome()
    per, order = _ks_attempts(sim)
    skipped = {s["pod"]: s["reason"] for s in sim.get("skipped", [])}
    ks_retries = [k for k in order if k[1] > 1]
    kube_retries = {(r["pod"], r["attempt"]) for r in orc["pods"] if r["attempt"] > 1}
    retry_pos = 0
    members = {m["pod"] for g in sim.get("podGroups", []) for m in g.get("members", [])}
    pod_by_pod = _harness_runs_members_pod_by_pod(orc, members)
    for rec in orc["pods"]:
        pod, attempt = rec["pod"], rec["attempt"]
        if attempt > 1 and (pod, attempt) not in kube_retries:
            continue  # a preemptor whose retries are not compared (see NO_RETRIES)
        if attempt > 1:
            # kschedctl's queue also retries pods that a cluster event (a victim's deletion) may
            # help; the harness retries preemptors only. A retry that failed again without
            # preempting changed nothing the next attempts see: step over it.
            while retry_pos < len(ks_retries) and ks_retries[retry_pos] not in kube_retries:
                other = per[ks_retries[retry_pos][0]][ks_retries[retry_pos][1]]
                if other["event"] != "FailedScheduling" or other["preempted"]:
                    out.notes.append(
                        f"retries not compared from {pod}: kschedctl's retry of {other['pod']} "
                        f"(attempt {other['attempts']}, requeued by a cluster event) changed the cluster"
                    )
                    return out
                retry_pos += 1
            if retry_pos >= len(ks_retries):
                out.diff = Difference(mode, pod, "kschedctl did not retry the preemptor", "retried", None, attempt)
                return out
            if ks_retries[retry_pos] != (pod, attempt):
                other_pod, other_attempt = ks_retries[retry_pos]
                out.notes.append(f"retries not compared from {pod}: kschedctl retried {other_pod} (attempt {other_attempt}) first")
                return out
            retry_pos += 1
        kr = per.get(pod, {}).get(attempt)
        parting = pod_by_pod and pod in members
        if parting and kr is not None and kr.get("message") == GROUP_WAITS_FOR_PREEMPTION:
            out.notes.append(f"stopped at {pod}: its group waits for a member's preemption; {POD_BY_POD}")
            return out
        # a preempting member of a group the cycle found infeasible: its message is the group's
        # (GROUP_UNSCHEDULABLE), its preemption is still compared
        group_worded = parting and kr is not None and _preempts(rec) and str(kr.get("message") or "").startswith(GROUP_UNSCHEDULABLE)
        d, stop = _compare_attempt(mode, rec, kr, skipped, compare_message=not group_worded)
        parted = _where_loops_part(rec) if parting and d is None else ""
        if parted:
            out.compared += 1
            out.notes.append(f"stopped after {pod}: {parted}; {POD_BY_POD}")
            return out
        if d is not None:
            out.diff = d
            return out
        out.compared += 1
        if stop == NO_RETRIES:
            kube_retries -= {k for k in kube_retries if k[0] == pod}
            stop = ""
        if stop:
            out.notes.append(stop)
            return out
    return out


def _compare_attempt(
    mode: str, rec: dict, kr: dict | None, skipped: dict[str, str], compare_message: bool = True
) -> tuple[Difference | None, str]:
    pod, attempt, outcome = rec["pod"], rec["attempt"], rec["outcome"]

    def diff(what: str, kube: Any, ks: Any) -> tuple[Difference, str]:
        return Difference(mode, pod, what, kube, ks, attempt), ""

    if outcome in ("Gated", "NoProfile"):
        kube = rec.get("error", "")
        if outcome == "Gated":
            kube = kube.split(": ", 1)[1] if ": " in kube else kube
        if pod not in skipped:
            return diff("gated pod not skipped", kube, kr)
        if outcome == "Gated" and skipped[pod] != kube:
            return diff("skip reason", kube, skipped[pod])
        return None, ""
    if kr is None:
        return diff("no attempt in kschedctl's trace", outcome, skipped.get(pod, "not skipped either"))
    if outcome == "Scheduled":
        if rec.get("permitWaitTimedOut"):
            if kr["event"] == "Scheduled":
                return diff("placed (kube: waiting at Permit until the gang times out)", None, kr["node"])
            return None, ""
        if kr["event"] != "Scheduled":
            return diff("outcome", f"Scheduled on {rec['node']}", kr.get("message"))
        if kr["node"] != rec["node"]:
            if not LOWEST_NAME_TIES and kr["node"] in (rec.get("ties") or ()):
                return None, f"stopped at {pod}: equal best totals {rec['ties']}, kschedctl chose {kr['node']}"
            return diff("node", {"node": rec["node"], "ties": rec.get("ties")}, kr["node"])
        if len(rec.get("feasibleNodes") or []) > 1:
            kube_total = (rec.get("scores") or {}).get(rec["node"], {}).get("total")
            if kube_total is not None and kr.get("score") != kube_total:
                return diff("score of the chosen node", kube_total, kr.get("score"))
        return None, ""
    if outcome in ("Unschedulable", "Error"):
        if kr["event"] == "Scheduled":
            return diff(
                "outcome",
                rec.get("fitError") or rec.get("error") or rec.get("permitStatus") or rec.get("reserveStatus"),
                f"Scheduled on {kr['node']}",
            )
        kube_msg = rec.get("fitError") if outcome == "Unschedulable" else rec.get("error")
        if compare_message and kube_msg and kr.get("message") != kube_msg:
            return diff("message", kube_msg, kr.get("message"))
        pre = rec.get("preemption") or {}
        nominated = pre.get("nominatedNode")
        ks_pre = kr.get("preempted") or []
        if nominated:
            if not ks_pre:
                return diff("preemption", {"node": nominated, "victims": pre.get("victims")}, None)
            e = ks_pre[-1]
            ties = pre.get("nominatedNodeTies") or [nominated]
            if e["node"] != nominated:
                if e["node"] in ties:
                    return None, f"stopped at {pod}: preemption candidates tie {ties}, kschedctl chose {e['node']}"
                return diff("preemption node", {"node": nominated, "ties": ties}, e["node"])
            if sorted(e["victims"]) != sorted(pre.get("victims") or []):
                return diff("preemption victims", sorted(pre.get("victims") or []), sorted(e["victims"]))
            if not e["victims"]:
                # every victim was already terminating: nothing is evicted and nothing changes;
                # the harness retries the preemptor, kschedctl's queue has no event to do so
                return None, NO_RETRIES
        elif ks_pre:
            return diff("preemption", None, ks_pre)
        return None, ""
    return diff("unknown oracle outcome", outcome, kr)


def compare_final(sim: dict, final: dict) -> Difference | None:
    """`schedule` and `simulate` (same engine) must agree on the final placements."""
    a = sorted((p["pod"], p["node"]) for p in sim.get("placements", []))
    b = sorted((p["pod"], p["node"]) for p in final.get("placements", []))
    if a != b:
        return Difference("schedule", "*", "schedule and simulate disagree", a, b)
    return None


# --- explain ------------------------------------------------------------------------------------

# NodeResourcesFit's fitsRequest (fit.go) checks pods, cpu, memory and ephemeral-storage in that
# order, then ranges over the pod's ScalarResources, a Go map: the "Insufficient X" reasons of
# extended resources (and hugepages, attachable volumes) come in a random order on each run.
_ORDERED_FIT_REASONS = frozenset({"Too many pods", "Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage"})


def comparable_reasons(reasons: list[str]) -> list[str]:
    """``reasons`` with the scalar-resource "Insufficient X" reasons sorted among themselves
    (each keeps a place of one of them): their order is a Go map's, on either side a fact of
    nothing, so it is never compared."""
    scalar = [i for i, r in enumerate(reasons) if r.startswith("Insufficient ") and r not in _ORDERED_FIT_REASONS]
    out = list(reasons)
    for i, r in zip(scalar, sorted(reasons[i] for i in scalar)):
        out[i] = r
    return out


def _status(st: dict | None) -> tuple[str, str, list[str]]:
    st = st or {}
    return st.get("code", ""), st.get("plugin", ""), comparable_reasons(list(st.get("reasons") or []))


def compare_explain(rec: dict, k: dict, no_score_profiles: set[str]) -> Difference | None:
    pod = rec["pod"]

    def diff(what: str, kube: Any, ks: Any) -> Difference:
        return Difference("explain", pod, what, kube, ks)

    knodes = k.get("nodes") or {}
    for node, st in sorted((rec.get("filter") or {}).items()):
        kst = (knodes.get(node) or {}).get("filter")
        if _status(st) != _status(kst):
            return diff(f"filter on {node}", _status(st), _status(kst))
    # A pod whose nominated node passes is scored there alone (evaluateNominatedNode); kschedctl's
    # explain scores every feasible node (its contract), so normalized scores are not comparable.
    scores = {} if rec.get("viaNominatedNode") else (rec.get("scores") or {})
    for node, ns in sorted(scores.items()):
        kn = knodes.get(node) or {}
        kube_plugins = {p: (v["score"], v["weight"]) for p, v in (ns.get("plugins") or {}).items()}
        ks_plugins = {p: (v["score"], v["weight"]) for p, v in (kn.get("scores") or {}).items()}
        if kube_plugins != ks_plugins:
            delta = {
                p: (kube_plugins.get(p), ks_plugins.get(p))
                for p in set(kube_plugins) | set(ks_plugins)
                if kube_plugins.get(p) != ks_plugins.get(p)
            }
            return diff(f"scores on {node} (kube, kschedctl)", delta, None)
        if ns.get("total") != kn.get("total"):
            return diff(f"total on {node}", ns.get("total"), kn.get("total"))
    outcome = rec["outcome"]
    if outcome == "Scheduled":
        sampled = rec.get("sampled")
        want = None
        if sampled and sampled.get("outcome") == "Scheduled":
            want = sampled.get("node")
        elif rec.get("profile") not in no_score_profiles:
            want = rec.get("node")
        if want is not None and k.get("node") != want:
            ties = (sampled or rec).get("ties") or ()
            if LOWEST_NAME_TIES or k.get("node") not in ties:
                return diff("node", {"node": want, "ties": ties}, k.get("node"))
        if k.get("node") is None:
            return diff("node", rec.get("node"), k.get("message"))
    elif outcome == "Unschedulable":
        if k.get("node") is not None:
            return diff("node", None, k.get("node"))
        if rec.get("fitError") is not None and k.get("message") != rec["fitError"]:
            return diff("message", rec["fitError"], k.get("message"))
        pre = rec.get("preemption") or {}
        kpre = k.get("preemption") or {}
        nominated = pre.get("nominatedNode")
        if nominated != kpre.get("nominatedNode"):
            ties = pre.get("nominatedNodeTies") or [nominated]
            if kpre.get("nominatedNode") not in ties:
                return diff("preemption node", {"node": nominated, "ties": ties}, kpre.get("nominatedNode"))
        elif sorted(pre.get("victims") or []) != sorted(kpre.get("victims") or []):
            return diff("preemption victims", sorted(pre.get("victims") or []), sorted(kpre.get("victims") or []))
    elif outcome == "Error":
        if k.get("message") != rec.get("error"):
            return diff("error message", rec.get("error"), k.get("message"))
    return None
