"""The plugin-misbehaviour dimension: a fake plugin package, registered through the
``kschedctl_register_plugins`` hook as an installed package's is, whose methods misbehave.

Each input draws a plugin: a few extension-point methods, each with one way to go wrong (raise,
raise SystemExit or a BaseException of its own, return the wrong type, print to stdout) and the
pods it goes wrong for (decided from the pod's name, so that a second run with the same seed
sees the same behaviour). `schedule` must still keep the contract: exit 0 with valid JSON, every
pending pod once, no over-committed node, the same output twice.
"""

from __future__ import annotations

import contextlib
import json
import random
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

from kfuzz import seeds
from kfuzz.contract import Checker

NAME = "FuzzPlugin"


class OwnBaseException(BaseException):
    """A BaseException a plugin defines."""


# what each method returns when it behaves
_NORMAL: dict[str, Callable[..., Any]] = {
    "pre_enqueue": lambda pod: None,
    "pre_filter": lambda state, pod, nodes: (None, None),
    "filter": lambda state, pod, node_info: None,
    "pre_score": lambda state, pod, nodes: None,
    "score": lambda state, pod, node_info: (10, None),
    "reserve": lambda state, pod, node_name: None,
    "unreserve": lambda state, pod, node_name: None,
    "permit": lambda state, pod, node_name: (None, 0.0),
    "pre_bind": lambda state, pod, node_name: None,
    "post_bind": lambda state, pod, node_name: None,
}
_WAYS = ("raise", "exit", "base", "wrong-type", "wrong-tuple", "print")


def _misbehave(way: str, normal: Any) -> Any:
    if way == "raise":
        raise RuntimeError("fuzz plugin failure")
    if way == "exit":
        sys.exit(4)
    if way == "base":
        raise OwnBaseException("fuzz")
    if way == "wrong-type":
        return "not what was asked for"
    if way == "wrong-tuple":
        return (1, 2, 3)
    print("a plugin printing on stdout")
    return normal


def plugin_class(rng: random.Random) -> tuple[type, str]:
    methods = rng.sample(sorted(_NORMAL), rng.randint(1, 3))
    if "reserve" in methods and "unreserve" not in methods:
        methods.append("unreserve")
    ways = {m: rng.choice(_WAYS) for m in methods}
    salt = rng.randrange(1 << 30)
    share = rng.choice([2, 3, 5])

    def method(name: str) -> Callable[..., Any]:
        def call(self: Any, *args: Any) -> Any:
            normal = _NORMAL[name](*args)
            pod = next((a for a in args if hasattr(a, "meta")), None)
            if pod is not None and zlib.crc32(f"{salt}:{name}:{pod.name}".encode()) % share == 0:
                return _misbehave(ways[name], normal)
            return normal

        return call

    body: dict[str, Any] = {"name": lambda self: NAME, "__init__": lambda self, args, handle: None}
    for m in methods:
        body[m] = method(m)
    return type("FuzzPlugin", (), body), ", ".join(f"{m}:{w}" for m, w in ways.items())


@contextlib.contextmanager
def registered(cls: type) -> Iterator[None]:
    """The plugin registered through the hook for the duration (the registry rebuilt around it)."""
    from kschedctl.framework import PluginSpec, hookimpl
    from kschedctl.plugins import plugin_manager

    class Hooks:
        KSCHEDCTL_PLUGIN_API = 1

        @hookimpl
        def kschedctl_register_plugins(self) -> list[Any]:
            return [PluginSpec(NAME, cls, cls, source="kfuzz-plugin-package", version="0.0.1")]

    real, cached = plugin_manager.get_plugin_manager, plugin_manager._DEFAULT

    def with_hooks() -> Any:
        pm, packages, errors = real()
        pm.register(Hooks(), name="kschedctl:kfuzz")
        return pm, packages, errors

    plugin_manager.get_plugin_manager = with_hooks
    plugin_manager._DEFAULT = None
    try:
        yield
    finally:
        plugin_manager.get_plugin_manager = real
        plugin_manager._DEFAULT = cached


def plugin_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    cls, description = plugin_class(rng)
    snap = workdir / "seed.yaml"
    snap.write_text(yaml.safe_dump(seeds.snapshot(), sort_keys=False))
    cfg = workdir / "plugin-config.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "profiles": [{"schedulerName": "default-scheduler", "plugins": {"multiPoint": {"enabled": [{"name": NAME}]}}}],
            }
        )
    )
    args = ["schedule", str(snap), "--config", str(cfg), "-o", "json", "--seed", "9"]
    with registered(cls):
        run = checker.run(args)
        if checker.basic(run, "schedule", str(snap), plugin_output=True):
            if run.exit_code != 0:
                checker.fail("plugin-isolation", "a misbehaving plugin failed the run", run)
            else:
                checker.schedule_invariants(run, str(snap), lambda: checker.run(args))
    return f"plugin {description}"


# --- the process-level dimension: `python -m kschedctl` with an installed package ----------------

_PROCESS_PLUGIN = """
import os, signal, sys, threading, time, zlib
from kschedctl.framework import Code, PluginSpec, Status, hookimpl
KSCHEDCTL_PLUGIN_API = 1
WAYS = os.environ["KFUZZ_WAYS"].split(",")
SALT, SHARE = int(os.environ["KFUZZ_SALT"]), int(os.environ["KFUZZ_SHARE"])


def act(way, pod, node_info):
    if way == "write1":
        os.write(1, b"fd 1 from a plugin\\n")
    elif way == "dunder":
        print("sys.__stdout__ from a plugin", file=sys.__stdout__, flush=True)
    elif way == "thread-print":
        threading.Thread(target=lambda: [print("thread output", flush=True) for _ in range(5)]).start()
    elif way == "linger":
        threading.Thread(target=time.sleep, args=(30,)).start()
    elif way == "fork":
        os.fork()
    elif way == "exit0":
        os._exit(0)
    elif way == "chdir":
        os.chdir("/")
    elif way == "allocatable" and node_info is not None:
        node_info.allocatable.milli_cpu = 10 ** 9
        node_info.allocatable.memory = 10 ** 15
    elif way == "labels":
        pod.labels["kfuzz"] = "changed"
    elif way == "reasons":
        return Status(Code.Unschedulable, 7)
    elif way == "catch-all":
        while True:
            try:
                time.sleep(0.02)
            except BaseException:
                pass
    elif way == "sigalrm-ignored":
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        time.sleep(30)
    elif way == "base":
        raise KeyboardInterrupt.__new__(type("Own", (BaseException,), {}))
    return None


class P:
    def __init__(self, args, handle):
        pass

    def name(self):
        return "KfuzzProcess"

    def _maybe(self, point, pod, node_info=None):
        if zlib.crc32(f"{SALT}:{point}:{pod.name}".encode()) % SHARE == 0:
            return act(WAYS[zlib.crc32(f"{SALT}:{pod.name}".encode()) % len(WAYS)], pod, node_info)
        return None

    def filter(self, state, pod, node_info):
        return self._maybe("filter", pod, node_info)

    def score(self, state, pod, node_info):
        out = self._maybe("score", pod, node_info)
        return out if out is not None else (10, None)

    def reserve(self, state, pod, node_name):
        return self._maybe("reserve", pod)

    def unreserve(self, state, pod, node_name):
        return None


@hookimpl
def kschedctl_register_plugins():
    return [PluginSpec("KfuzzProcess", P, P)]
"""
_PROCESS_WAYS = (
    "write1",
    "dunder",
    "thread-print",
    "linger",
    "fork",
    "exit0",
    "chdir",
    "allocatable",
    "labels",
    "reasons",
    "base",
    "catch-all",
    "sigalrm-ignored",
)
_UNSTOPPABLE = ("catch-all", "sigalrm-ignored")
END_LINE = 'error: plugin "KfuzzProcess" did not return within'


def _install(workdir: Path) -> Path:
    site = workdir / "site"
    info = site / "kfuzz_process-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kfuzz-process\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[kschedctl]\nkfuzz-process = kfuzz_process\n")
    (site / "kfuzz_process.py").write_text(_PROCESS_PLUGIN)
    return site


def plugin_process_dimension(rng: random.Random, workdir: Path, checker: Checker) -> str:
    """A package misbehaving at the process level (fd 1, threads, fork, os._exit, chdir, changed
    arguments, BaseException loops, SIGALRM ignored) through `python -m kschedctl`: stdout is
    one JSON document with every pending pod once and no node over-committed, exit 0; or, for a
    plugin that will not stop, exit 2 with the one error line naming it and nothing on stdout."""
    import os
    import subprocess
    import time

    from kfuzz.contract import Run

    ways = rng.sample(_PROCESS_WAYS, rng.randint(1, 3))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[3]), str(_install(workdir))]),
        "KFUZZ_WAYS": ",".join(ways),
        "KFUZZ_SALT": str(rng.randrange(1 << 30)),
        "KFUZZ_SHARE": str(rng.choice([2, 3, 5])),
    }
    snap = workdir / "seed.yaml"
    snap.write_text(yaml.safe_dump(seeds.snapshot(), sort_keys=False))
    cfg = workdir / "plugin-process-config.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "profiles": [{"schedulerName": "default-scheduler", "plugins": {"multiPoint": {"enabled": [{"name": "KfuzzProcess"}]}}}],
            }
        )
    )
    out = workdir / "written.yaml"
    args = [
        "schedule",
        str(snap),
        "--config",
        str(cfg),
        "-o",
        "json",
        "--seed",
        "9",
        "--plugin-timeout",
        "0.3",
        "--write-snapshot",
        "written.yaml",
    ]
    if out.exists():
        out.unlink()
    start = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "kschedctl", *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=workdir,
            timeout=checker.timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        checker.fail("hang", f"no result after {checker.timeout} s", Run(args, -1, "", ""))
        return f"plugin-process {','.join(ways)}"
    run = Run(args, proc.returncode, proc.stdout, proc.stderr)
    wall = time.monotonic() - start
    if proc.returncode == 2 and END_LINE in proc.stderr:
        if not any(w in _UNSTOPPABLE for w in ways):
            checker.fail("process-plugin", "the run was ended but no way of the plugin resists the timeout", run)
        if proc.stdout:
            checker.fail("process-plugin", "the run was ended and still printed a result", run)
        if wall > 8:
            checker.fail("process-plugin", f"ending the run took {wall:.1f} s", run)
        return f"plugin-process {','.join(ways)} (ended)"
    if proc.returncode != 0:
        checker.fail("exit-code", f"exited {proc.returncode}", run)
        return f"plugin-process {','.join(ways)}"
    if "Traceback" in proc.stderr or "internal error" in proc.stderr:
        checker.fail("traceback", "a traceback or internal error on stderr", run)
    try:
        json.loads(proc.stdout)
    except ValueError as exc:
        checker.fail("json-stdout", f"stdout is not one JSON document: {exc}", run)
        return f"plugin-process {','.join(ways)}"
    if not out.is_file():
        checker.fail("process-plugin", "--write-snapshot written.yaml is not in the working directory", run)
    checker.schedule_invariants(run, str(snap), lambda: run, check_fit=True)
    return f"plugin-process {','.join(ways)}"
