"""Deliberately broken plugins at every extension point, through the CLI: the run goes on.

Whatever an installed plugin does at any extension point — raise an exception, raise a
BaseException of its own (or SystemExit via sys.exit(), or a KeyboardInterrupt subclass),
return the wrong type, take the wrong number of arguments, block past --plugin-timeout, or
print to stdout — `schedule -o json` and `explain -o json` exit 0 with valid JSON on stdout,
the pod (or pod group) it misbehaved for fails with a message naming the plugin and what went
wrong, the other pods are scheduled, and every pending pod is reported exactly once. Missing
optional methods are fine. Each plugin is registered through the `kschedctl_register_plugins`
hook, as an installed package's is, so it runs sandboxed (framework/runtime/sandbox.py).

kube-scheduler has no such test (its plugins are compiled in); the guarantees are kschedctl's
contract for third-party plugins (docs/writing-plugins.md "When things go wrong").
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from kschedctl.framework import (
    ClusterEventWithHint,
    Code,
    PluginSpec,
    Pod,
    QueuedPodInfo,
    Status,
    hookimpl,
)
from kschedctl.plugins import plugin_manager
from kschedctl.testing import make_node, make_pod, make_pod_group

NAME = "Broken"


class Boom(BaseException):
    """A BaseException of the plugin's own (not an Exception)."""


class Interrupt(KeyboardInterrupt):
    """A KeyboardInterrupt-like class the plugin defines (a real Ctrl-C is KeyboardInterrupt itself)."""


# The misbehaviours chosen per pod, by its label "mode"; pods without the label are served normally.
PER_POD_MODES = {
    "raise": "RuntimeError: boom",
    "base": "Boom: boom",
    "exit": "SystemExit: 3",
    "interrupt": "Interrupt",
    "wrong": "returned str from",
}
PRINT = "print"  # prints to stdout, then behaves: the pod is scheduled, -o json stays valid


def misbehave(mode: str) -> Any:
    if mode == "raise":
        raise RuntimeError("boom")
    if mode == "base":
        raise Boom("boom")
    if mode == "exit":
        sys.exit(3)
    if mode == "interrupt":
        raise Interrupt()
    if mode == "block":
        time.sleep(30)
    if mode == "wrong":
        return "not what was asked for"
    raise AssertionError(mode)


# What each method returns when it behaves (Bind skips: DefaultBinder binds).
NORMAL: dict[str, Callable[..., Any]] = {
    "pre_enqueue": lambda pod: None,
    "pre_filter": lambda state, pod, nodes: (None, None),
    "pre_filter_extensions": lambda: None,
    "filter": lambda state, pod, node_info: None,
    "filter_batch": lambda state, pod, node_infos: [None] * len(node_infos),
    "post_filter": lambda state, pod, m: (None, Status(Code.Unschedulable, "broken plugin found nothing")),
    "pre_score": lambda state, pod, nodes: None,
    "score": lambda state, pod, node_info: (10, None),
    "score_extensions": lambda: None,
    "reserve": lambda state, pod, node_name: None,
    "unreserve": lambda state, pod, node_name: None,
    "permit": lambda state, pod, node_name: (None, 0.0),
    "pre_bind_pre_flight": lambda state, pod, node_name: None,
    "pre_bind": lambda state, pod, node_name: None,
    "bind": lambda state, pod, node_name: Status(Code.Skip),
    "post_bind": lambda state, pod, node_name: None,
}


def plugin_class(broken: str, methods: tuple[str, ...], arity: bool = False) -> type:
    """A plugin implementing ``methods`` normally, except ``broken``, which misbehaves for pods
    labelled mode=... (or, with ``arity``, is defined with a wrong signature)."""

    def pod_of(args: tuple) -> Pod | None:
        for a in args:
            if isinstance(a, Pod):
                return a
            if isinstance(a, QueuedPodInfo):
                return a.pod
        return None

    def method(name: str) -> Callable[..., Any]:
        normal = NORMAL[name]

        def call(self: Any, *args: Any) -> Any:
            pod = pod_of(args)
            if pod is not None:
                self.current = pod  # no-argument helpers (score_extensions, ...) act for the last pod seen
            pod = pod or self.current
            mode = pod.labels.get("mode") if pod is not None else None
            if name == broken and mode is not None:
                if mode == PRINT:
                    print("garbage a plugin printed on stdout")
                else:
                    return misbehave(mode)
            return normal(*args)

        return call

    body: dict[str, Any] = {"current": None, "name": lambda self: NAME, "__init__": lambda self, args, handle: None}
    for m in methods:
        body[m] = method(m)
    if arity:
        body[broken] = lambda self: None  # the runtime calls it with the point's arguments: TypeError
    if "score_extensions" in methods:
        inner = body["score_extensions"]
        body["score_extensions"] = lambda self: inner(self) or _Normalizer(self, broken)
    return type(f"Broken_{broken}", (), body)


class _Normalizer:
    """The ScoreExtensions of a broken Score plugin (normalize_score may be the broken method)."""

    def __init__(self, plugin: Any, broken: str) -> None:
        self.plugin, self.broken = plugin, broken

    def normalize_score(self, state: Any, pod: Pod, scores: list) -> Any:
        mode = pod.labels.get("mode")
        if self.broken == "normalize_score" and mode not in (None, PRINT):
            return misbehave(mode)
        if self.broken == "normalize_score" and mode == PRINT:
            print("garbage a plugin printed on stdout")
        for s in scores:
            s.score = 50
        return None


# point id -> (broken method, the methods the plugin has, the point its config names, outcome for
# the misbehaving pods: "error" (unschedulable with error: true), "skipped" (gated by PreEnqueue),
# "message" (unschedulable, the plugin named in the message), "placed" (the failure is harmless))
POINTS = {
    "preEnqueue": ("pre_enqueue", ("pre_enqueue",), "skipped"),
    "preFilter": ("pre_filter", ("pre_filter",), "error"),
    "preFilterExtensions-unused": ("pre_filter_extensions", ("pre_filter", "pre_filter_extensions"), "placed"),
    "filter": ("filter", ("filter",), "error"),
    "filter_batch": ("filter_batch", ("filter", "filter_batch"), "placed"),
    "postFilter": ("post_filter", ("post_filter",), "message"),
    "preScore": ("pre_score", ("pre_score",), "error"),
    "score": ("score", ("score",), "error"),
    "score_extensions": ("score_extensions", ("score", "score_extensions"), "error"),
    "normalize_score": ("normalize_score", ("score", "score_extensions"), "error"),
    "reserve": ("reserve", ("reserve", "unreserve"), "error"),
    "unreserve": ("unreserve", ("reserve", "unreserve", "permit"), "placed"),
    "permit": ("permit", ("permit",), "error"),
    "preBindPreFlight": ("pre_bind_pre_flight", ("pre_bind", "pre_bind_pre_flight"), "error"),
    "preBind": ("pre_bind", ("pre_bind",), "error"),
    "bind": ("bind", ("bind",), "error"),
    "postBind": ("post_bind", ("post_bind",), "placed"),
}


def config(tmp_path: Path, methods: tuple[str, ...]) -> str:
    """The default profile plus Broken at every point it implements (first at bind)."""
    plugins: dict[str, Any] = {"multiPoint": {"enabled": [{"name": NAME}]}}
    if "bind" in methods:
        plugins["bind"] = {"disabled": [{"name": "*"}], "enabled": [{"name": NAME}, {"name": "DefaultBinder"}]}
    path = tmp_path / "broken.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "profiles": [{"schedulerName": "default-scheduler", "plugins": plugins}],
            }
        )
    )
    return str(path)


@pytest.fixture
def register(monkeypatch: pytest.MonkeyPatch) -> Callable[[type], None]:
    """Register a plugin class through the hook, as an installed package's module would."""

    def install(cls: type) -> None:
        class Hooks:
            KSCHEDCTL_PLUGIN_API = 1

            @hookimpl
            def kschedctl_register_plugins(self) -> list[PluginSpec]:
                return [PluginSpec(NAME, cls, cls, source="broken-test-package", version="0.0.1")]

        real = plugin_manager.get_plugin_manager

        def with_hooks():
            pm, packages, errors = real()
            pm.register(Hooks(), name="kschedctl:broken")
            return pm, packages, errors

        monkeypatch.setattr(plugin_manager, "get_plugin_manager", with_hooks)
        monkeypatch.setattr(plugin_manager, "_DEFAULT", None)

    return install


def snapshot(write_snapshot: Callable[..., str], modes: list[str], big: bool = False) -> str:
    """Two nodes; two well-behaved pods and one pod per mode (too big to fit when ``big``)."""
    pods = [make_pod(f"ok-{i}").req(cpu="100m") for i in range(2)]
    for mode in modes:
        pods.append(make_pod(f"pod-{mode}").label("mode", mode).req(cpu="100" if big else "100m"))
    return write_snapshot(make_node("n1").capacity(cpu="4", memory="8Gi"), make_node("n2").capacity(cpu="4", memory="8Gi"), *pods)


def accounted(data: dict, pods: list[str]) -> dict[str, tuple[str, dict]]:
    """Every pending pod exactly once across placements, unschedulable and skipped."""
    seen: dict[str, tuple[str, dict]] = {}
    for kind in ("placements", "unschedulable", "skipped"):
        for entry in data[kind]:
            assert entry["pod"] not in seen, f"{entry['pod']} reported twice"
            seen[entry["pod"]] = (kind, entry)
    assert sorted(seen) == sorted(f"default/{p}" for p in pods)
    assert data["summary"]["pending"] == len(pods)
    return seen


def assert_names_plugin(text: str, detail: str) -> None:
    assert f'"{NAME}"' in text and detail in text, text
    assert "Traceback" not in text and "\n" not in text


@pytest.mark.parametrize("point", sorted(POINTS))
def test_every_misbehaviour_at_every_point(point, register, run_cli, write_snapshot, tmp_path, request):
    broken, methods, outcome = POINTS[point]
    if broken.endswith("_batch"):  # a batch form is called only where the snapshot has a columnar view
        request.getfixturevalue("columnar_view")
    register(plugin_class(broken, methods))
    modes = [*PER_POD_MODES, PRINT]
    out = run_cli(
        "schedule",
        snapshot(write_snapshot, modes, big=outcome == "message"),
        "-o",
        "json",
        "--seed",
        "1",
        "--config",
        config(tmp_path, methods),
    )
    assert out.exit_code == 0, out.stderr
    seen = accounted(out.json(), ["ok-0", "ok-1"] + [f"pod-{m}" for m in modes])  # stdout is valid JSON
    for ok in ("ok-0", "ok-1"):
        assert seen[f"default/{ok}"][0] == "placements"
    if outcome != "message":
        assert seen[f"default/pod-{PRINT}"][0] == "placements"
    if any(p in broken for p in ("print",)) or outcome == "placed":
        assert all(seen[f"default/pod-{m}"][0] == "placements" for m in PER_POD_MODES)
        return
    for mode, detail in PER_POD_MODES.items():
        kind, entry = seen[f"default/pod-{mode}"]
        if outcome == "skipped":
            assert kind == "skipped"
            assert_names_plugin(entry["reason"], detail)
        else:
            assert kind == "unschedulable"
            assert_names_plugin(entry["message"], detail)
            assert entry.get("error") is (True if outcome == "error" else None)
    if broken in ("pre_enqueue", "filter", "post_filter"):
        assert "garbage a plugin printed on stdout" in out.stderr


@pytest.mark.parametrize("point", ["preFilter", "filter", "preScore", "score", "normalize_score", "postFilter"])
def test_explain_with_a_misbehaving_plugin(point, register, run_cli, write_snapshot, tmp_path):
    broken, methods, outcome = POINTS[point]
    register(plugin_class(broken, methods))
    snap = snapshot(write_snapshot, ["exit", PRINT], big=outcome == "message")
    cfg = config(tmp_path, methods)
    out = run_cli("explain", "default/pod-exit", snap, "-o", "json", "--config", cfg)
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert data["node"] is None
    assert_names_plugin(data["message"], "SystemExit: 3")
    ok = run_cli("explain", f"default/pod-{PRINT}", snap, "-o", "json", "--config", cfg)
    assert ok.exit_code == 0 and (ok.json()["node"] is not None) is (outcome != "message")
    assert "garbage a plugin printed on stdout" in ok.stderr


@pytest.mark.parametrize("point", ["preFilter", "filter", "score", "reserve", "permit", "bind"])
def test_a_plugin_that_blocks_is_cut_off(point, register, run_cli, write_snapshot, tmp_path):
    """The blocking call fails after --plugin-timeout; the plugin is not called again in the run
    (so a hung plugin costs one time limit, not one per node and pod)."""
    broken, methods, _ = POINTS[point]
    register(plugin_class(broken, methods))
    start = time.monotonic()
    out = run_cli(
        "schedule",
        snapshot(write_snapshot, ["block"]),
        "-o",
        "json",
        "--seed",
        "1",
        "--plugin-timeout",
        "0.2",
        "--config",
        config(tmp_path, methods),
    )
    assert time.monotonic() - start < 10
    assert out.exit_code == 0, out.stderr
    seen = accounted(out.json(), ["ok-0", "ok-1", "pod-block"])
    kind, entry = seen["default/pod-block"]
    assert kind == "unschedulable" and entry["error"] is True
    assert_names_plugin(entry["message"], "did not return within 200ms")


@pytest.mark.parametrize("point", ["preEnqueue", "preFilter", "filter", "score", "reserve", "permit", "bind", "postBind"])
def test_wrong_arity(point, register, run_cli, write_snapshot, tmp_path):
    broken, methods, outcome = POINTS[point]
    register(plugin_class(broken, methods, arity=True))
    out = run_cli("schedule", snapshot(write_snapshot, []), "-o", "json", "--seed", "1", "--config", config(tmp_path, methods))
    assert out.exit_code == 0, out.stderr
    seen = accounted(out.json(), ["ok-0", "ok-1"])
    for kind, entry in seen.values():
        if outcome == "placed":
            assert kind == "placements"
            continue
        text = entry["reason"] if kind == "skipped" else entry["message"]
        assert_names_plugin(text, "TypeError")


@pytest.mark.parametrize(
    "methods",
    [
        ("score",),  # a Score plugin without score_extensions: no NormalizeScore
        ("pre_filter",),  # a PreFilter plugin without pre_filter_extensions
        ("reserve",),  # a Reserve plugin without unreserve
        ("pre_bind",),  # a PreBind plugin without pre_bind_pre_flight
    ],
    ids=["score", "preFilter", "reserve", "preBind"],
)
def test_optional_methods_are_optional(methods, register, run_cli, write_snapshot, tmp_path):
    register(plugin_class("", methods))
    out = run_cli("schedule", snapshot(write_snapshot, [PRINT]), "-o", "json", "--seed", "1", "--config", config(tmp_path, methods))
    assert out.exit_code == 0, out.stderr
    assert {kind for kind, _ in accounted(out.json(), ["ok-0", "ok-1", f"pod-{PRINT}"]).values()} == {"placements"}


# --- plugin-wide failures: QueueSort, EventsToRegister, name() ---------------------------------


class BadSort:
    def __init__(self, args: Any, handle: Any) -> None:
        pass

    def name(self) -> str:
        return NAME

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        raise Boom("cannot compare")


class BadEvents:
    def __init__(self, args: Any, handle: Any) -> None:
        pass

    def name(self) -> str:
        raise SystemExit("no name")

    def filter(self, state: Any, pod: Pod, node_info: Any) -> None:
        print("garbage a plugin printed on stdout")
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return "Node/Add"  # type: ignore[return-value]


def test_queue_sort_failure_warns_once_and_orders_by_priority(register, run_cli, write_snapshot, tmp_path):
    """A QueueSort plugin orders every pod: its failure cannot fail one. kschedctl warns once and
    orders by priority, then queue time (PrioritySort's rule), for the rest of the run."""
    register(BadSort)
    path = tmp_path / "sort.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "profiles": [
                    {
                        "schedulerName": "default-scheduler",
                        "plugins": {"queueSort": {"disabled": [{"name": "*"}], "enabled": [{"name": NAME}]}},
                    }
                ],
            }
        )
    )
    snap = write_snapshot(
        make_node("n1").capacity(cpu="1", memory="8Gi"), make_pod("low").req(cpu="600m"), make_pod("high").priority(100).req(cpu="600m")
    )
    out = run_cli("schedule", snap, "-o", "json", "--seed", "1", "--config", str(path))
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert [p["pod"] for p in data["placements"]] == ["default/high"]  # priority first
    assert [u["pod"] for u in data["unschedulable"]] == ["default/low"]
    warnings = [line for line in out.stderr.splitlines() if "QueueSort" in line]
    assert warnings == [
        'warning: QueueSort plugin "Broken" raised Boom: cannot compare in Less; pods are ordered by '
        "priority, then queue time, for the rest of the run"
    ]


def test_events_to_register_and_name_failures_are_warnings(register, run_cli, write_snapshot, tmp_path):
    register(BadEvents)
    out = run_cli("schedule", snapshot(write_snapshot, []), "-o", "json", "--seed", "1", "--config", config(tmp_path, ("filter",)))
    assert out.exit_code == 0, out.stderr
    assert {kind for kind, _ in accounted(out.json(), ["ok-0", "ok-1"]).values()} == {"placements"}
    assert 'warning: plugin "Broken": name() failed (SystemExit: no name); using its registered name' in out.stderr
    assert (
        'warning: plugin "Broken": EventsToRegister failed (returned str, expected a list of '
        "ClusterEventWithHint); its pods are retried on every cluster event"
    ) in out.stderr


# --- the pod-group placement points (TopologyAwareWorkloadScheduling, 1.37) --------------------

PLACEMENT_GATES = "GenericWorkload=true,GangScheduling=true,TopologyAwareWorkloadScheduling=true"
ZONE = "topology.kubernetes.io/zone"


def placement_plugin(broken: str) -> type:
    """PlacementGenerate, PlacementScore (with NormalizePlacementScore) and PlacementFeasible,
    misbehaving at ``broken`` for the pod groups named g-<mode>."""

    def mode_of(group: Any) -> str | None:
        mode = group.name.split("/")[-1].removeprefix("g-")
        return None if mode == "ok" else mode

    def act(method: str, group: Any, normal: Any) -> Any:
        mode = mode_of(group)
        if method != broken or mode is None:
            return normal
        if mode == PRINT:
            print("garbage a plugin printed on stdout")
            return normal
        return misbehave(mode)

    class PlacementBroken:
        def __init__(self, args: Any, handle: Any) -> None:
            pass

        def name(self) -> str:
            return NAME

        def placement_generate(self, group: Any, parent: Any) -> Any:
            return act("placement_generate", group, [parent])

        def placement_score(self, group: Any, assignment: Any) -> Any:
            return act("placement_score", group, (len(assignment.assignments), None))

        def normalize_placement_score(self, group: Any, scores: list) -> Any:
            return act("normalize_placement_score", group, None)

        def placement_feasible(self, group: Any, scheduled: int, remaining: int) -> Any:
            return act("placement_feasible", group, None)

    return PlacementBroken


def group_snapshot(write_snapshot: Callable[..., str], modes: list[str]) -> tuple[str, list[str]]:
    """Two zones of two nodes; per mode a group g-<mode> of two pods (minCount 2, spread by zone:
    two feasible placements), the group g-ok, and two pods of no group."""
    nodes = [make_node(f"n{i}").capacity(cpu="4", memory="8Gi").label(ZONE, f"z{i % 2}") for i in range(4)]
    objs: list[Any] = []
    pods = ["free-0", "free-1"]
    for mode in [*modes, "ok"]:
        objs.append(make_pod_group(f"g-{mode}", min_count=2, topology_key=ZONE))
        for i in range(2):
            objs.append(make_pod(f"{mode}-{i}").req(cpu="100m").pod_group(f"g-{mode}"))
            pods.append(f"{mode}-{i}")
    objs += [make_pod("free-0").req(cpu="100m"), make_pod("free-1").req(cpu="100m")]
    return write_snapshot(*nodes, *objs), pods


@pytest.mark.parametrize("broken", ["placement_generate", "placement_score", "normalize_placement_score", "placement_feasible"])
def test_every_misbehaviour_at_the_placement_points(broken, register, run_cli, write_snapshot, tmp_path):
    register(placement_plugin(broken))
    path = tmp_path / "groups.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "profiles": [{"schedulerName": "default-scheduler", "plugins": {"multiPoint": {"enabled": [{"name": NAME}]}}}],
            }
        )
    )
    snap, pods = group_snapshot(write_snapshot, [*PER_POD_MODES, PRINT])
    out = run_cli("schedule", snap, "-o", "json", "--seed", "1", "--feature-gates", PLACEMENT_GATES, "--config", str(path))
    assert out.exit_code == 0, out.stderr
    seen = accounted(out.json(), pods)
    for ok in ("free-0", "free-1", "ok-0", "ok-1", f"{PRINT}-0", f"{PRINT}-1"):
        assert seen[f"default/{ok}"][0] == "placements", seen[f"default/{ok}"]
    for mode, detail in PER_POD_MODES.items():
        for i in range(2):
            kind, entry = seen[f"default/{mode}-{i}"]
            assert kind == "unschedulable", entry
            assert_names_plugin(entry["message"], detail)
    groups = {g["podGroup"]: g for g in out.json()["podGroups"]}
    assert groups["default/g-ok"]["status"] == "Scheduled"
    assert groups["default/g-raise"]["status"] == "SchedulerError"


@pytest.mark.parametrize("broken", ["placement_generate", "placement_score", "placement_feasible"])
def test_explain_pod_group_with_a_misbehaving_placement_plugin(broken, register, run_cli, write_snapshot, tmp_path):
    register(placement_plugin(broken))
    path = tmp_path / "groups.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "profiles": [{"schedulerName": "default-scheduler", "plugins": {"multiPoint": {"enabled": [{"name": NAME}]}}}],
            }
        )
    )
    snap, _ = group_snapshot(write_snapshot, ["exit"])
    out = run_cli("explain", "podgroup/default/g-exit", snap, "-o", "json", "--feature-gates", PLACEMENT_GATES, "--config", str(path))
    assert out.exit_code == 0, out.stderr
    data = out.json()
    assert data["status"] == "Error"
    assert_names_plugin(data["message"], "SystemExit: 3")
