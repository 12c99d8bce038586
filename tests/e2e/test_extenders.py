"""HTTP scheduler extenders through the CLI, against an extender the tests start on 127.0.0.1
(tests/extender_server.py), on kubectl-shaped snapshots.

Upstream: pkg/scheduler/extender.go, schedule_one.go (findNodesThatPassExtenders,
prioritizeNodes, extendersBinding), framework/preemption/preemption.go (callExtenders),
scheduler.go (buildExtenders). The kube texts below were checked against the real
kube-scheduler 1.35.4 (kschedoracle -mode sequential -sample, an extender answering as each case
says, two or three 4-cpu nodes and one pending 1-cpu pod): they are pinned here as recorded facts.
"""

from __future__ import annotations

import json
import shutil
import ssl
import subprocess
import sys
from pathlib import Path
from typing import Any

import kubectl_shape as k
import pytest
import yaml

from kschedctl.testing import make_node, make_pod

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from extender_server import ExtenderServer, free_port, node_names  # noqa: E402


def _snapshot(tmp_path: Path, *objects: Any, nodes: int = 3, cpu: str = "4") -> str:
    items = [k.node(make_node(f"n{i}").capacity(cpu=cpu, memory="8Gi")) for i in range(nodes)]
    items += [o if isinstance(o, dict) else k.pod(o) for o in objects]
    path = tmp_path / "snap.yaml"
    path.write_text(yaml.safe_dump(k.listed(*items), sort_keys=False))
    return str(path)


def _config(tmp_path: Path, *extenders: dict[str, Any]) -> str:
    path = tmp_path / "config.yaml"
    path.write_text(
        yaml.safe_dump(
            {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", "extenders": list(extenders)},
            sort_keys=False,
        )
    )
    return str(path)


def _schedule(run_cli, snap: str, config: str, *extra: str) -> Any:
    out = run_cli("schedule", snap, "--config", config, "-o", "json", "--seed", "1", *extra)
    assert out.exit_code == 0, out.stderr
    return out


def _drop(node: str, message: str, unresolvable: bool = False):
    key = "FailedAndUnresolvableNodes" if unresolvable else "FailedNodes"

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        kept = [n for n in node_names(request) if n != node]
        if request.get("NodeNames") is not None:
            return {"NodeNames": kept, key: {node: message}}
        items = [n for n in request["Nodes"]["items"] if n["metadata"]["name"] != node]
        return {"Nodes": {"items": items}, key: {node: message}}

    return answer


# --- filter ----------------------------------------------------------------------------------


@pytest.mark.parametrize("cache_capable", [True, False], ids=["node-names", "node-objects"])
def test_filter_drops_nodes_with_its_messages(run_cli, tmp_path, cache_capable):
    with ExtenderServer(filter=_drop("n0", "n0 is reserved")) as srv:
        ext = {"urlPrefix": srv.url, "filterVerb": "filter", "nodeCacheCapable": cache_capable}
        snap = _snapshot(tmp_path, make_pod("web-0").req(cpu="1"), nodes=1)
        data = _schedule(run_cli, snap, _config(tmp_path, ext)).json()
        [request] = [r for v, r in srv.requests if v == "filter"]
    # the wire: Go's field names (no JSON tags), names or a NodeList
    assert set(request) == {"Pod", "Nodes", "NodeNames"}
    assert request["Pod"]["metadata"]["name"] == "web-0"
    if cache_capable:
        assert request["NodeNames"] == ["n0"] and request["Nodes"] is None
    else:
        assert request["NodeNames"] is None and [n["metadata"]["name"] for n in request["Nodes"]["items"]] == ["n0"]
    [u] = data["unschedulable"]
    assert (
        u["message"] == "0/1 nodes are available: 1 n0 is reserved. no new claims to deallocate, preemption: "
        "0/1 nodes are available: 1 No preemption victims found for incoming pod."
    )
    assert u["reasons"] == {"n0 is reserved": 1}


def test_unresolvable_wins_and_preemption_is_not_tried_there(run_cli, tmp_path):
    def answer(request):
        return {"NodeNames": [], "FailedNodes": {"n0": "soft", "n1": "soft"}, "FailedAndUnresolvableNodes": {"n0": "hard"}}

    with ExtenderServer(filter=answer) as srv:
        ext = {"urlPrefix": srv.url, "filterVerb": "filter", "nodeCacheCapable": True}
        data = _schedule(run_cli, _snapshot(tmp_path, make_pod("web-0").req(cpu="1"), nodes=2), _config(tmp_path, ext)).json()
    [u] = data["unschedulable"]
    assert u["reasons"] == {"hard": 1, "soft": 1}
    assert u["message"].endswith(
        "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling."
    )


def test_explain_names_the_extender_and_shows_its_scores(run_cli, tmp_path):
    prio = lambda request: [{"Host": n, "Score": 10 if n == "n2" else 3} for n in node_names(request)]  # noqa: E731
    with ExtenderServer(filter=_drop("n0", "n0 is reserved"), prioritize=prio) as srv:
        ext = {"urlPrefix": srv.url, "filterVerb": "filter", "prioritizeVerb": "prioritize", "weight": 2, "nodeCacheCapable": True}
        out = run_cli(
            "explain", "web-0", _snapshot(tmp_path, make_pod("web-0").req(cpu="1")), "--config", _config(tmp_path, ext), "-o", "json"
        )
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert data["nodes"]["n0"]["filter"] == {"code": "Unschedulable", "plugin": srv.url, "reasons": ["n0 is reserved"]}
    for name, raw in (("n1", 3), ("n2", 10)):
        node = data["nodes"][name]
        assert node["scores"][srv.url] == {"score": raw, "weight": 20}  # weight 2 x MaxNodeScore/MaxExtenderPriority
        plugins = sum(s["score"] * s["weight"] for p, s in node["scores"].items() if p != srv.url)
        assert node["total"] == plugins + raw * 20
    assert data["node"] == "n2"


# --- prioritize ------------------------------------------------------------------------------


def test_prioritize_adds_score_times_weight_times_ten(run_cli, tmp_path):
    def prio(request):
        return [{"Host": n, "Score": {"n0": 0, "n1": 10, "n2": 5}[n]} for n in node_names(request)]

    snap = _snapshot(tmp_path, make_pod("web-0").req(cpu="1"))
    without = run_cli("schedule", snap, "-o", "json", "--seed", "1").json()["placements"][0]
    with ExtenderServer(prioritize=prio) as srv:
        ext = {"urlPrefix": srv.url, "prioritizeVerb": "prioritize", "weight": 3, "nodeCacheCapable": True}
        [placed] = _schedule(run_cli, snap, _config(tmp_path, ext)).json()["placements"]
    assert placed["node"] == "n1"
    assert placed["score"] == without["score"] + 10 * 3 * 10


def test_prioritize_error_gives_no_score_and_is_said(run_cli, tmp_path):
    with ExtenderServer(prioritize=lambda r: (503, b"")) as srv:
        ext = {"urlPrefix": srv.url, "prioritizeVerb": "prioritize", "weight": 1}
        out = _schedule(run_cli, _snapshot(tmp_path, make_pod("web-0").req(cpu="1")), _config(tmp_path, ext))
    assert len(out.json()["placements"]) == 1
    assert (
        f"warning: extender {srv.url}: prioritize failed (no score given by it): failed prioritize with "
        f"extender at URL {srv.url}/prioritize, code 503" in out.stderr
    )


def test_node_objects_become_node_infos_without_pods(run_cli, tmp_path):
    """A filter extender that is not node-cache-capable answers Node objects; upstream scores the
    NodeInfos it makes of them, which hold no pods: n1's 3-cpu pod is not seen by the scores
    and n1 ties with the empty n2 (kschedoracle -mode sequential -sample: n1 and n2 both 473,
    NodeResourcesFit 86 on both)."""
    hog = make_pod("hog-0").req(cpu="3").node("n1")
    snap = _snapshot(tmp_path, hog, make_pod("web-0").req(cpu="1"))
    with ExtenderServer(filter=_drop("n0", "n0 is reserved")) as srv:
        ext = {"urlPrefix": srv.url, "filterVerb": "filter", "prioritizeVerb": "prioritize", "weight": 1}
        srv.answers["prioritize"] = lambda r: [{"Host": n, "Score": 0} for n in node_names(r)]
        out = run_cli("explain", "web-0", snap, "--config", _config(tmp_path, ext), "-o", "json", "--kube-version", "1.35")
        cached = dict(ext, nodeCacheCapable=True)
        seen = run_cli("explain", "web-0", snap, "--config", _config(tmp_path, cached), "-o", "json", "--kube-version", "1.35")
    nodes = out.json()["nodes"]
    assert nodes["n1"]["total"] == nodes["n2"]["total"] == 473
    assert nodes["n1"]["scores"]["NodeResourcesFit"]["score"] == 86
    cached_nodes = seen.json()["nodes"]  # with node names the real NodeInfos are scored
    assert cached_nodes["n1"]["total"] == 397 and cached_nodes["n2"]["total"] == 473


# --- errors ------------------------------------------------------------------------------------

KUBE_TEXTS = [
    # (case, the extender's answer, kube-scheduler 1.35.4's error text, {url} the extender URL)
    ("http-500", lambda r: (500, b"boom"), "failed filter with extender at URL {url}/filter, code 500"),
    ("empty-body", lambda r: (200, b""), "EOF"),
    ("html", lambda r: (200, b"<html>"), "invalid character '<' looking for beginning of value"),
    ("truncated", lambda r: (200, b'{"NodeNames": ["n0"'), "unexpected EOF"),
    ("error-field", lambda r: {"Error": "quota exceeded"}, "quota exceeded"),
    (
        "wrong-type",
        lambda r: {"NodeNames": "n0"},
        "json: cannot unmarshal string into Go struct field ExtenderFilterResult.NodeNames of type []string",
    ),
    ("wrong-element", lambda r: {"NodeNames": [1]}, "json: cannot unmarshal number into ExtenderFilterResult.NodeNames.0 of type string"),
    ("array", lambda r: (200, b"[]"), "json: cannot unmarshal array into Go value of type v1.ExtenderFilterResult"),
    (
        "unknown-node",
        lambda r: {"NodeNames": ["zz"]},
        'extender "{url}" claims a filtered node "zz" which is not found in the input node list',
    ),
]


@pytest.mark.parametrize("answer, text", [c[1:] for c in KUBE_TEXTS], ids=[c[0] for c in KUBE_TEXTS])
def test_a_failing_filter_fails_the_attempt_with_kubes_text(run_cli, tmp_path, answer, text):
    with ExtenderServer(filter=answer) as srv:
        ext = {"urlPrefix": srv.url, "filterVerb": "filter", "nodeCacheCapable": True}
        data = _schedule(run_cli, _snapshot(tmp_path, make_pod("web-0").req(cpu="1"), nodes=2), _config(tmp_path, ext)).json()
    [u] = data["unschedulable"]
    assert u["message"] == text.format(url=srv.url)
    assert u["error"] is True  # an Error status, not a FitError: the pod backs off and is retried


def test_unreachable_extender_fails_the_attempt(run_cli, tmp_path):
    port = free_port()
    ext = {"urlPrefix": f"http://127.0.0.1:{port}/x", "filterVerb": "filter"}
    data = _schedule(run_cli, _snapshot(tmp_path, make_pod("web-0").req(cpu="1")), _config(tmp_path, ext)).json()
    [u] = data["unschedulable"]
    assert u["message"] == f'Post "http://127.0.0.1:{port}/x/filter": dial tcp 127.0.0.1:{port}: connect: connection refused'


def test_timeout(run_cli, tmp_path):
    with ExtenderServer(filter=lambda r: {"NodeNames": node_names(r)}) as srv:
        srv.delay = 1.0
        ext = {"urlPrefix": srv.url, "filterVerb": "filter", "nodeCacheCapable": True, "httpTimeout": "200ms"}
        data = _schedule(run_cli, _snapshot(tmp_path, make_pod("web-0").req(cpu="1"), nodes=1), _config(tmp_path, ext)).json()
    [u] = data["unschedulable"]
    assert u["message"] == f'Post "{srv.url}/filter": context deadline exceeded (Client.Timeout exceeded while awaiting headers)'


def test_ignorable_extender_is_skipped_and_said(run_cli, tmp_path):
    port = free_port()
    ext = {"urlPrefix": f"http://127.0.0.1:{port}/x", "filterVerb": "filter", "ignorable": True}
    out = _schedule(run_cli, _snapshot(tmp_path, make_pod("web-0").req(cpu="1")), _config(tmp_path, ext))
    assert [p["pod"] for p in out.json()["placements"]] == ["default/web-0"]
    assert f"warning: extender http://127.0.0.1:{port}/x: filter failed (ignorable extender skipped)" in out.stderr


def test_ignorable_extenders_are_called_last(run_cli, tmp_path):
    calls: list[str] = []
    with (
        ExtenderServer(filter=lambda r: (calls.append("a"), {"NodeNames": node_names(r)})[1]) as a,
        ExtenderServer(filter=lambda r: (calls.append("b"), {"NodeNames": node_names(r)})[1]) as b,
    ):
        exts = [
            {"urlPrefix": a.url, "filterVerb": "filter", "ignorable": True, "nodeCacheCapable": True},
            {"urlPrefix": b.url, "filterVerb": "filter", "nodeCacheCapable": True},
        ]
        _schedule(run_cli, _snapshot(tmp_path, make_pod("web-0").req(cpu="1")), _config(tmp_path, *exts))
    assert calls == ["b", "a"]


# --- managed resources -------------------------------------------------------------------------


def test_managed_resources_decide_interest_and_ignored_ones_leave_the_fit(run_cli, tmp_path):
    gpu = make_pod("train-0").req(cpu="1").res({"example.com/gpu": "1"})
    plain = make_pod("web-0").req(cpu="1")
    with ExtenderServer(filter=lambda r: {"NodeNames": node_names(r)}) as srv:
        ext = {
            "urlPrefix": srv.url,
            "filterVerb": "filter",
            "nodeCacheCapable": True,
            "managedResources": [{"name": "example.com/gpu", "ignoredByScheduler": True}],
        }
        data = _schedule(run_cli, _snapshot(tmp_path, gpu, plain), _config(tmp_path, ext)).json()
        pods = [r["Pod"]["metadata"]["name"] for v, r in srv.requests if v == "filter"]
    assert pods == ["train-0"]  # IsInterested: only the pod asking for the managed resource
    # no node has example.com/gpu, yet the pod fits: NodeResourcesFit ignores the resource
    assert sorted(p["pod"] for p in data["placements"]) == ["default/train-0", "default/web-0"]


# --- bind --------------------------------------------------------------------------------------


def test_bind_goes_to_the_extender(run_cli, tmp_path):
    with ExtenderServer(bind=lambda r: {}) as srv:
        ext = {"urlPrefix": srv.url, "bindVerb": "bind"}
        data = _schedule(run_cli, _snapshot(tmp_path, make_pod("web-0", "shop").req(cpu="1")), _config(tmp_path, ext)).json()
        [(verb, request)] = srv.requests
    [placed] = data["placements"]
    assert request == {
        "PodName": "web-0",
        "PodNamespace": "shop",
        "PodUID": k.pod(make_pod("web-0", "shop"))["metadata"]["uid"],
        "Node": placed["node"],
    }


def test_bind_error_fails_the_binding_cycle(run_cli, tmp_path):
    with ExtenderServer(bind=lambda r: {"Error": "binding refused"}) as srv:
        ext = {"urlPrefix": srv.url, "bindVerb": "bind"}
        data = _schedule(run_cli, _snapshot(tmp_path, make_pod("web-0").req(cpu="1")), _config(tmp_path, ext)).json()
    assert data["placements"] == []
    assert data["unschedulable"][0]["message"] == "binding refused"


# --- preemption --------------------------------------------------------------------------------


def _preemption_snapshot(tmp_path: Path) -> str:
    return _snapshot(
        tmp_path,
        make_pod("low-0").req(cpu="2").priority(0).node("n0"),
        make_pod("low-1").req(cpu="2").priority(5).node("n1"),
        make_pod("high-0").req(cpu="2").priority(100),
        nodes=2,
        cpu="2",
    )


def test_preempt_extender_chooses_among_candidates(run_cli, tmp_path):
    """kschedoracle: the extender keeping only n1 makes kube nominate n1, evicting low-1 (left
    alone, n0 and its lower-priority victim would win)."""

    def only_n1(request):
        victims = request["NodeNameToMetaVictims"]
        return {"NodeNameToMetaVictims": {n: v for n, v in victims.items() if n == "n1"}}

    with ExtenderServer(preempt=only_n1) as srv:
        ext = {"urlPrefix": srv.url, "preemptVerb": "preempt", "nodeCacheCapable": True}
        data = _schedule(run_cli, _preemption_snapshot(tmp_path), _config(tmp_path, ext)).json()
        [(verb, request)] = [(v, r) for v, r in srv.requests if v == "preempt"][:1]
    assert set(request["NodeNameToMetaVictims"]) == {"n0", "n1"}
    assert request["NodeNameToVictims"] is None
    assert data["preemptions"] == [{"preemptor": "default/high-0", "node": "n1", "victims": ["default/low-1"]}]


PREEMPT_TEXTS = [
    (
        "no-candidate",
        lambda r: {"NodeNameToMetaVictims": {}},
        "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: no candidate node for preemption",
    ),
    (
        "http-500",
        lambda r: (500, b""),
        "0/2 nodes are available: 2 Insufficient cpu. preemption: failed preempt with extender at URL {url}/preempt, code 500",
    ),
    (
        "unknown-uid",
        lambda r: {"NodeNameToMetaVictims": {"n0": {"Pods": [{"UID": "nope"}], "NumPDBViolations": 0}}},
        "0/2 nodes are available: 2 Insufficient cpu. preemption: extender: {url} claims to preempt pod (UID: &{{nope}}) "
        "on node: n0, but the pod is not found on that node",
    ),
    (
        "no-victims",
        lambda r: {"NodeNameToMetaVictims": {"n0": {"Pods": [], "NumPDBViolations": 0}}},
        '0/2 nodes are available: 2 Insufficient cpu. preemption: expected at least one victim pod on node "n0"',
    ),
]


@pytest.mark.parametrize("answer, text", [c[1:] for c in PREEMPT_TEXTS], ids=[c[0] for c in PREEMPT_TEXTS])
def test_preempt_answers_as_kube_words_them(run_cli, tmp_path, answer, text):
    with ExtenderServer(preempt=answer) as srv:
        ext = {"urlPrefix": srv.url, "preemptVerb": "preempt", "nodeCacheCapable": True}
        data = _schedule(run_cli, _preemption_snapshot(tmp_path), _config(tmp_path, ext), "--kube-version", "1.35").json()
    assert data["preemptions"] == []
    assert data["unschedulable"][0]["message"] == text.format(url=srv.url)


def test_preempt_without_node_cache_gets_the_victim_pods(run_cli, tmp_path):
    def echo(request):
        return {
            "NodeNameToMetaVictims": {
                n: {"Pods": [{"UID": p["metadata"]["uid"]} for p in v["Pods"]], "NumPDBViolations": v["NumPDBViolations"]}
                for n, v in request["NodeNameToVictims"].items()
            }
        }

    with ExtenderServer(preempt=echo) as srv:
        ext = {"urlPrefix": srv.url, "preemptVerb": "preempt"}
        data = _schedule(run_cli, _preemption_snapshot(tmp_path), _config(tmp_path, ext)).json()
        [request] = [r for v, r in srv.requests if v == "preempt"][:1]
    assert {n: [p["metadata"]["name"] for p in v["Pods"]] for n, v in request["NodeNameToVictims"].items()} == {
        "n0": ["low-0"],
        "n1": ["low-1"],
    }
    assert data["preemptions"] == [{"preemptor": "default/high-0", "node": "n0", "victims": ["default/low-0"]}]


# --- the queue: a pod an extender rejected is retried on any event --------------------------------


def test_extender_rejection_is_retried_on_any_event(run_cli, tmp_path):
    state = {"open": False}

    def gate(request):
        if state["open"]:
            return {"NodeNames": node_names(request)}
        return {"NodeNames": [], "FailedNodes": {n: "closed" for n in node_names(request)}}

    with ExtenderServer(filter=gate) as srv:
        ext = {"urlPrefix": srv.url, "filterVerb": "filter", "nodeCacheCapable": True}
        scenario = {
            "apiVersion": "kschedctl.io/v1alpha1",
            "kind": "Scenario",
            "metadata": {"name": "s"},
            "objects": [k.node(make_node("n0").capacity(cpu="4", memory="8Gi")), k.pod(make_pod("web-0").req(cpu="1"))],
            "events": [{"at": "30s", "action": "updateNode", "node": "n0", "labels": {"x": "y"}}],
        }
        path = tmp_path / "scenario.yaml"
        path.write_text(yaml.safe_dump(scenario, sort_keys=False))
        srv.answers["filter"] = lambda r: (state.update(open=len(srv.requests) > 1), gate(r))[1]
        out = run_cli("simulate", str(path), "--config", _config(tmp_path, ext), "-o", "json", "--seed", "1")
    assert out.exit_code == 0, out.stderr
    attempts = [e for e in out.json()["events"] if e.get("pod") == "default/web-0" and "attempts" in e]
    assert [(e["event"], e["attempts"]) for e in attempts] == [("FailedScheduling", 1), ("Scheduled", 2)]
    assert attempts[1]["time"] == 30 and attempts[1]["movedBy"] == "NodeUpdateNodeLabel"


# --- configuration and flags -------------------------------------------------------------------


def test_no_extenders_skips_them_with_a_warning(run_cli, tmp_path):
    port = free_port()
    ext = {"urlPrefix": f"http://127.0.0.1:{port}/x", "filterVerb": "filter"}
    out = _schedule(run_cli, _snapshot(tmp_path, make_pod("web-0").req(cpu="1")), _config(tmp_path, ext), "--no-extenders")
    assert [p["pod"] for p in out.json()["placements"]] == ["default/web-0"]
    assert f"warning: --no-extenders: not calling the configuration's 1 extender(s) (http://127.0.0.1:{port}/x)" in out.stderr


@pytest.mark.parametrize(
    "extenders, field, message",
    [
        (
            [{"urlPrefix": "http://a", "prioritizeVerb": "p", "weight": 0}],
            "extenders[0].weight",
            "Invalid value: 0: must have a positive weight applied to it",
        ),
        (
            [{"urlPrefix": "http://a", "bindVerb": "b"}, {"urlPrefix": "http://c", "bindVerb": "d"}],
            "extenders",
            'Invalid value: "found 2 extenders implementing bind": only one extender can implement bind',
        ),
    ],
    ids=["prioritize-weight-0", "two-binders"],
)
def test_invalid_extenders_are_refused_by_schedule(run_cli, tmp_path, extenders, field, message):
    out = run_cli("schedule", _snapshot(tmp_path, make_pod("web-0").req(cpu="1")), "--config", _config(tmp_path, *extenders))
    assert out.exit_code == 2
    assert field in out.stderr and message in out.stderr


def test_same_answers_same_output(run_cli, tmp_path):
    prio = lambda r: [{"Host": n, "Score": 5} for n in node_names(r)]  # noqa: E731 - every node tied
    with ExtenderServer(filter=_drop("n0", "busy"), prioritize=prio) as srv:
        ext = {"urlPrefix": srv.url, "filterVerb": "filter", "prioritizeVerb": "prioritize", "weight": 1, "nodeCacheCapable": True}
        snap = _snapshot(tmp_path, *[make_pod(f"web-{i}").req(cpu="1") for i in range(5)])
        cfg = _config(tmp_path, ext)
        runs = [run_cli("schedule", snap, "--config", cfg, "-o", "json", "--seed", "7").stdout for _ in range(2)]
    assert runs[0] == runs[1]


# --- TLS ---------------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make a certificate")
def test_enable_https_without_a_ca_skips_verification(run_cli, tmp_path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "1",
            "-subj",
            "/CN=extender.test",
        ],
        check=True,
        capture_output=True,
    )
    with ExtenderServer(filter=lambda r: {"NodeNames": node_names(r)}) as srv:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(cert), str(key))
        srv.httpd.socket = context.wrap_socket(srv.httpd.socket, server_side=True)
        url = srv.url.replace("http://", "https://")
        snap = _snapshot(tmp_path, make_pod("web-0").req(cpu="1"))
        ok = _schedule(
            run_cli, snap, _config(tmp_path, {"urlPrefix": url, "filterVerb": "filter", "nodeCacheCapable": True, "enableHTTPS": True})
        )
        verified = _schedule(
            run_cli,
            snap,
            _config(
                tmp_path,
                {
                    "urlPrefix": url,
                    "filterVerb": "filter",
                    "nodeCacheCapable": True,
                    "tlsConfig": {"caFile": str(cert), "serverName": "extender.test"},
                },
            ),
        )
        untrusted = _schedule(run_cli, snap, _config(tmp_path, {"urlPrefix": url, "filterVerb": "filter", "nodeCacheCapable": True}))
    assert [p["pod"] for p in ok.json()["placements"]] == ["default/web-0"]
    assert [p["pod"] for p in verified.json()["placements"]] == ["default/web-0"]
    [u] = untrusted.json()["unschedulable"]
    assert u["message"].startswith(f'Post "{url}/filter": tls: failed to verify certificate: x509: ')


def test_extender_json_is_plain_json(tmp_path):
    """What goes on the wire parses as JSON with Go's field names at every level."""
    from kschedctl.scheduler.extender import ExtenderConfig, HTTPExtender

    sent: list[tuple[str, bytes]] = []

    def post(url, body, timeout, tls):
        sent.append((url, body))
        return 200, json.dumps({"NodeNames": ["n0"]}).encode()

    from kschedctl.framework.types import NodeInfo

    ext = HTTPExtender(ExtenderConfig("http://x/", filter_verb="f", node_cache_capable=True), post)
    pod = make_pod("p").obj()
    kept, failed, unresolvable = ext.filter(pod, [NodeInfo(make_node("n0").obj()), NodeInfo(make_node("n1").obj())])
    assert [n.name for n in kept] == ["n0"] and failed == {} and unresolvable == {}
    [(url, body)] = sent
    assert url == "http://x/f"  # urlPrefix's trailing slash trimmed
    assert json.loads(body)["NodeNames"] == ["n0", "n1"]
