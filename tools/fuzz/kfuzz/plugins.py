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
    from kschedctl.framework.runtime import plugin_manager

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
    cfg.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "plugins": {"multiPoint": {"enabled": [{"name": NAME}]}}}],
    }))
    args = ["schedule", str(snap), "--config", str(cfg), "-o", "json", "--seed", "9"]
    with registered(cls):
        run = checker.run(args)
        if checker.basic(run, "schedule", str(snap), plugin_output=True):
            if run.exit_code != 0:
                checker.fail("plugin-isolation", "a misbehaving plugin failed the run", run)
            else:
                checker.schedule_invariants(run, str(snap), lambda: checker.run(args))
    return f"plugin {description}"
