"""Run one generated DRA cluster through the real kube-scheduler (kschedoracle) and kschedctl
(--kube-version 1.35, in this process), and list the differences.

sequential: pods one after another in queue order, each placement (and its claim writes) seen by
the next. Compared per pod, for the first attempt of each: outcome, node, the FitError message,
and after the attempt each claim of the pod: the devices allocated (request, driver, pool,
device), the node selector and the number of reservedFor entries.
explain: every pending pod against the snapshot as given: every node's filter status (code,
plugin, reasons).
Equal best totals: the oracle takes the lowest node name; kschedctl is made to do the same here.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import yaml

from tools.difftest.oracle import default_oracle

CONFIG = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n"


GATES = ""  # feature gates of the run (kube's names), both sides


def oracle(snapshot: Path, config: Path, mode: str) -> dict:
    binary = default_oracle("1.35")
    out = snapshot.parent / f"oracle-{mode}.json"
    gates = ["-feature-gates", GATES] if GATES else []
    proc = subprocess.run(
        [binary, "-mode", mode, "-snapshot", str(snapshot), "-config", str(config), "-out", str(out), *gates],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"oracle {mode} failed: {proc.stderr.strip()[-2000:]}")
    return json.loads(out.read_text())


def _lowest_name_ties() -> None:
    from kschedctl.scheduler.algorithm import SchedulingAlgorithm

    def select(self: Any, table: Any) -> str:
        best = max(table.totals)
        return min(n for n, t in zip(table.names, table.totals) if t == best)

    SchedulingAlgorithm.select_host_from_table = select  # type: ignore[method-assign]


def _setup() -> tuple[Any, Any, Any]:
    from kschedctl.config.loader import load_config_file
    from kschedctl.plugins.plugin_manager import default_registry
    from kschedctl.versions import KubeVersion, parse_feature_gates

    version = KubeVersion("1.35", parse_feature_gates(GATES))
    registry = default_registry().registry
    return version, load_config_file(None, version, registry), registry


def _claim_records(sched: Any, pod: Any) -> list[dict]:
    from kschedctl.api.resourceclaim import pod_claim_refs

    out = []
    for ref in pod_claim_refs(pod):
        rec: dict[str, Any] = {"name": ref.pod_claim_name, "devices": []}
        if ref.claim_name is None:
            out.append(rec)
            continue
        claim = sched.objects.resource_claims.get(f"{pod.namespace}/{ref.claim_name}")
        if claim is None:
            out.append(rec)
            continue
        rec["claim"] = claim.key
        rec["reservedFor"] = len(claim.reserved_for)
        if claim.allocation is not None:
            rec["devices"] = sorted(
                [{"request": r.request, "driver": r.driver, "pool": r.pool, "device": r.device} for r in claim.allocation.results],
                key=lambda d: (d["request"], d["driver"], d["pool"], d["device"]),
            )
            rec["nodeSelector"] = claim.allocation.node_selector
        out.append(rec)
    return out


def kschedctl_sequential(snapshot: Path) -> list[dict]:
    """First attempts in order, with each pod's claims right after its attempt."""
    from kschedctl.cluster.loader import load_snapshot
    from kschedctl.scheduler.scheduler import Scheduler

    cluster = load_snapshot([str(snapshot)])
    version, cfg, registry = _setup()
    sched = Scheduler(cluster, cfg, registry, version, seed=1)
    records: list[dict] = []
    seen: set[str] = set()
    original = sched.schedule_one

    def schedule_one(qpi: Any) -> None:
        pod = qpi.pod
        before = len(sched.trace)
        original(qpi)
        if pod.key in seen:
            return
        seen.add(pod.key)
        rec: dict[str, Any] = {"pod": pod.key, "outcome": None, "node": None, "fitError": None}
        for e in sched.trace[before:]:
            if e.get("pod") != pod.key:
                continue
            if e["event"] == "Scheduled":
                rec.update(outcome="Scheduled", node=e["node"])
            elif e["event"] == "FailedScheduling":
                outcome = sched.outcomes.get(pod.uid)
                rec.update(outcome="Error" if outcome is not None and outcome.error else "Unschedulable", fitError=e["message"])
        rec["claims"] = _claim_records(sched, pod)
        records.append(rec)

    sched.schedule_one = schedule_one
    result = sched.run()
    for s in result.skipped:
        records.append({"pod": s.pod, "outcome": "Skipped", "node": None, "fitError": s.reason, "claims": []})
    return records


def kschedctl_explain(snapshot: Path, pods: list[str]) -> dict[str, dict]:
    from kschedctl.cluster.loader import load_snapshot
    from kschedctl.explain.explain import explain_pod

    version, cfg, registry = _setup()
    out = {}
    for key in pods:
        cluster = load_snapshot([str(snapshot)])
        res = explain_pod(cluster, key, cfg, registry, version, seed=1)
        out[key] = {n.name: {"code": n.code, "plugin": n.plugin, "reasons": n.reasons} for n in res.nodes}
    return out


def _oracle_claims(p: dict) -> list[dict]:
    out = []
    for c in p.get("claims") or []:
        rec = {"name": c["name"], "devices": c.get("devices") or []}
        if c.get("claim"):
            rec["claim"] = c["claim"]
            rec["reservedFor"] = c.get("reservedFor", 0)
        if c.get("nodeSelector") is not None:
            rec["nodeSelector"] = c["nodeSelector"]
        out.append(rec)
    return out


def _oracle_outcome(p: dict) -> dict:
    """The oracle's record in kschedctl's words: a gated pod is skipped with the gating
    plugin's message; an error after the host was chosen (PreBind) leaves the pod unplaced."""
    outcome = p["outcome"]
    message = p.get("fitError") or p.get("error")
    if outcome == "Gated":
        outcome = "Skipped"
        message = str(message or "").split(": ", 1)[-1]
    if p.get("preBindStatus"):
        message = p["preBindStatus"].split(": ", 1)[-1]
    node = p.get("node") if outcome == "Scheduled" else None
    return {"outcome": outcome, "node": node, "fitError": message}


def _norm_filter(entry: dict) -> dict:
    if entry.get("code") == "Success":
        return {"code": "Success"}
    from tools.difftest.compare import comparable_reasons  # extended resources' reasons: a Go map's order

    return {"code": entry.get("code"), "plugin": entry.get("plugin") or "", "reasons": comparable_reasons(list(entry.get("reasons") or []))}


def compare_cluster(snapshot_doc: dict, workdir: Path, modes: tuple[str, ...] = ("sequential", "explain"), gates: str = "") -> list[str]:
    global GATES
    GATES = gates
    _lowest_name_ties()
    workdir.mkdir(parents=True, exist_ok=True)
    snap = workdir / "snapshot.yaml"
    snap.write_text(yaml.safe_dump(snapshot_doc, sort_keys=False))
    cfg = workdir / "config.yaml"
    cfg.write_text(CONFIG)
    diffs: list[str] = []
    if "sequential" in modes:
        want = oracle(snap, cfg, "sequential")
        got = kschedctl_sequential(snap)
        by_pod = {r["pod"]: r for r in got}
        with_claims = {
            f"{it['metadata'].get('namespace', 'default')}/{it['metadata']['name']}"
            for it in snapshot_doc["items"]
            if it["kind"] == "Pod" and it["spec"].get("resourceClaims")
        }
        for p in want["pods"]:
            if p.get("attempt", 1) != 1:
                continue
            mine = by_pod.get(p["pod"])
            if mine is None:
                diffs.append(f"{p['pod']}: oracle attempted it ({p['outcome']}), kschedctl did not")
                continue
            theirs = _oracle_outcome(p)
            ours = {k: mine[k] for k in ("outcome", "node", "fitError")}
            if theirs != ours:
                diffs.append(f"{p['pod']}: sequential outcome\n  oracle    {theirs}\n  kschedctl {ours}")
                break  # later pods see a different cluster
            if p["outcome"] == "Scheduled" and _oracle_claims(p) != [
                {k: v for k, v in c.items() if k != "nodeSelector" or v is not None} for c in mine["claims"]
            ]:
                diffs.append(f"{p['pod']}: claims after the attempt\n  oracle    {_oracle_claims(p)}\n  kschedctl {mine['claims']}")
                break
            if any(v in with_claims for v in (p.get("preemption") or {}).get("victims") or []):
                # kschedctl plays the resourceclaim controller, which frees a deleted victim's
                # devices; the oracle runs the scheduler alone: the clusters part here.
                break
    if "explain" in modes:
        want = oracle(snap, cfg, "explain")
        pods = [p["pod"] for p in want["pods"]][:12]
        got = kschedctl_explain(snap, pods)
        for p in want["pods"][:12]:
            theirs = {n: _norm_filter(e) for n, e in (p.get("filter") or {}).items()}
            ours = {n: _norm_filter(e) for n, e in got[p["pod"]].items()}
            if any(e["code"] == "Error" for e in theirs.values()):
                # kube stops filtering at the first error; kschedctl's explain shows every node
                ours = {n: e for n, e in ours.items() if n in theirs}
            if theirs and theirs != ours:
                diffs.append(f"{p['pod']}: explain filter\n  oracle    {theirs}\n  kschedctl {ours}")
    return diffs


__all__ = ["compare_cluster"]


def record(snapshot_doc: dict, workdir: Path, gates: str, source: str) -> dict:
    """The oracle's answers for one cluster, in the compared shape, for a test fixture
    (tests/dra/oracle/*.json): sequential first attempts up to where the clusters part, and
    explain filter statuses."""
    global GATES
    GATES = gates
    workdir.mkdir(parents=True, exist_ok=True)
    snap = workdir / "snapshot.yaml"
    snap.write_text(yaml.safe_dump(snapshot_doc, sort_keys=False))
    cfg = workdir / "config.yaml"
    cfg.write_text(CONFIG)
    seq = oracle(snap, cfg, "sequential")
    with_claims = {
        f"{it['metadata'].get('namespace', 'default')}/{it['metadata']['name']}"
        for it in snapshot_doc["items"]
        if it["kind"] == "Pod" and it["spec"].get("resourceClaims")
    }
    attempts = []
    for p in seq["pods"]:
        if p.get("attempt", 1) != 1:
            continue
        rec = _oracle_outcome(p)
        rec["pod"] = p["pod"]
        if p["outcome"] == "Scheduled":
            rec["claims"] = _oracle_claims(p)
        attempts.append(rec)
        if any(v in with_claims for v in (p.get("preemption") or {}).get("victims") or []):
            break
    ex = oracle(snap, cfg, "explain")
    explain = {p["pod"]: {n: _norm_filter(e) for n, e in (p.get("filter") or {}).items()} for p in ex["pods"][:12]}
    return {"source": source, "gates": gates, "snapshot": snapshot_doc, "sequential": attempts, "explain": explain}
