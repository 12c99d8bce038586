"""Checks over the whole tree: no import cycle between kschedctl's modules, folders as layers
(no module imports a module of a higher layer), ruff clean, and mypy --strict clean over the
plugin API and the plugins (the configuration is pyproject.toml's).

ruff and mypy come with the `test` extra; without them installed, those tests skip. They carry the
`lint` marker and are deselected by default (the suite runs in parallel and they are slow and
single-threaded); `.ci/run` runs them as their own step with `pytest -m lint -n 0`.
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "kschedctl"


# --- import cycles ------------------------------------------------------------------------------


def _modules() -> dict[str, Path]:
    out = {}
    for path in (ROOT / PACKAGE).rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking_only(tree: ast.Module) -> set[int]:
    """The import nodes under `if TYPE_CHECKING:` (never run, so no cycle at run time)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return out


def import_graph() -> dict[str, set[str]]:
    """module -> the kschedctl modules importing it runs first: module-level and lazy
    (function-level) imports alike, the packages an import initialises included, except the
    importer's own ancestors (already initialising when it runs)."""
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_only(tree)
        own = {".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 1)}
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                targets = [(alias.name, None) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = module.split(".") if is_package else module.split(".")[:-1]
                    base = base[: len(base) - node.level + 1]
                    name = ".".join(base + ([node.module] if node.module else []))
                else:
                    name = node.module or ""
                targets = [(name, alias.name) for alias in node.names]
            else:
                continue
            for name, attr in targets:
                if not name.startswith(PACKAGE):
                    continue
                parts = name.split(".")
                deps = [".".join(parts[:i]) for i in range(1, len(parts)) if ".".join(parts[:i]) not in own]
                submodule = attr is not None and f"{name}.{attr}" in modules
                if submodule:
                    deps.append(f"{name}.{attr}")
                if not submodule or name not in own:
                    deps.append(name)
                graph[module].update(d for d in deps if d in modules and d != module)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def test_no_import_cycles() -> None:
    found = cycles(import_graph())
    graph = import_graph()
    described = ["; ".join(f"{a} -> {b}" for a in c for b in sorted(graph[a] & set(c))) for c in found]
    assert not found, "import cycles:\n" + "\n".join(described)


@pytest.mark.parametrize(
    "graph, expected",
    [
        ({"a": {"b"}, "b": {"a"}, "c": set()}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ],
    ids=["two-modules", "a-chain", "three-modules-and-a-tail"],
)
def test_the_cycle_finder_finds_cycles(graph: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert cycles(graph) == expected


def test_the_import_graph_sees_lazy_imports_and_skips_type_checking_ones() -> None:
    graph = import_graph()
    # a lazy import inside a function (explain.py has none at function level any more; the CLI does)
    assert "kschedctl.scheduler.scheduler" in graph["kschedctl.cli.bodies.schedule"]
    # eventhandlers names the Scheduler only for type checking
    assert "kschedctl.scheduler.scheduler" not in graph["kschedctl.scheduler.eventhandlers"]


# --- layers -------------------------------------------------------------------------------------
# Folders are layers (issue 22; kube keeps .import-restrictions files for the same end). Top to
# bottom; a module imports only modules of its own folder, or of a folder further down this list.
# A level may hold several folders (a tuple): within it a folder imports only the folders AFTER it
# in the tuple, so `sweep` may use `whatif` and `explain`, and `whatif` may use `explain`, never the
# other way round. The package root's own modules are placed like folders: `__main__` with the CLI;
# `testing` (the builders tests use) with `cluster`, since it builds what a snapshot holds; and the
# root itself (`kschedctl`, its version), `versions`, `lazy`, `hookspecs`, `regex_start`, `module_start`, `startup` and `yaml_start`, which import nothing of
# kschedctl, are the base under `api`. The schemas (kschedctl/schemas) are data, read by config and
# sweep: no module.
LAYERS: list[tuple[str, ...]] = [
    ("__main__", "cli"),
    ("output",),
    ("sweep", "whatif", "explain"),
    ("app",),
    ("scheduler",),
    ("testing", "cluster"),
    ("config",),
    ("plugins",),
    ("runtime",),
    ("backend",),
    ("preemption",),
    ("framework",),
    ("dra",),
    ("api",),
    ("", "versions", "lazy", "hookspecs", "regex_start", "module_start", "startup", "yaml_start"),  # "": the package kschedctl itself
]


def layer_of(module: str) -> tuple[int, int] | None:
    """(level, place within the level) of a kschedctl module; None: no layer holds it."""
    parts = module.split(".")
    folder = parts[1] if len(parts) > 1 else ""
    for level, folders in enumerate(LAYERS):
        if folder in folders:
            return level, folders.index(folder)
    return None


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a module from a higher layer (or from a folder before it on its level),
    as "importer -> imported", sorted."""
    out = []
    for module in sorted(graph):
        at = layer_of(module)
        for target in sorted(graph[module]):
            to = layer_of(target)
            if at is None or to is None or module.split(".")[:2] == target.split(".")[:2]:
                continue
            if to[0] < at[0] or (to[0] == at[0] and to[1] < at[1]):
                out.append(f"{module} -> {target}")
    return out


def test_every_module_has_a_layer() -> None:
    assert [m for m in sorted(_modules()) if layer_of(m) is None] == []


def test_no_module_imports_a_higher_layer() -> None:
    found = upward_imports(import_graph())
    assert not found, "imports running up the layers (tests/test_tree.py LAYERS):\n" + "\n".join(found)


def test_the_public_api_exports_from_its_layer_or_below() -> None:
    """kschedctl.framework hands its names on by importlib (`_EXPORTS`), which the graph cannot
    see: each module named there must be the framework's or below."""
    import kschedctl.framework as api

    framework = layer_of("kschedctl.framework")
    assert framework is not None
    above = sorted({m for m in api._EXPORTS.values() if (layer_of(m) or (-1, 0))[0] < framework[0]})
    assert above == []


@pytest.mark.parametrize(
    "edge, expected",
    [
        (("kschedctl.api.types", "kschedctl.cli.app"), ["kschedctl.api.types -> kschedctl.cli.app"]),
        (("kschedctl.framework.handle", "kschedctl.runtime.framework"), ["kschedctl.framework.handle -> kschedctl.runtime.framework"]),
        (("kschedctl.explain.verdict", "kschedctl.sweep.cell"), ["kschedctl.explain.verdict -> kschedctl.sweep.cell"]),
        (("kschedctl.versions", "kschedctl.api.types"), ["kschedctl.versions -> kschedctl.api.types"]),
        (("kschedctl.sweep.cell", "kschedctl.explain.verdict"), []),
        (("kschedctl.cli.app", "kschedctl.api.types"), []),
    ],
    ids=[
        "api-up-to-cli",
        "framework-up-to-runtime",
        "explain-back-to-sweep-on-its-level",
        "base-up-to-api",
        "sweep-down-its-level",
        "a-downward-import",
    ],
)
def test_the_layer_check_reports_an_injected_upward_import(edge: tuple[str, str], expected: list[str]) -> None:
    graph = {module: set(targets) for module, targets in import_graph().items()}
    assert upward_imports(graph) == []
    graph[edge[0]].add(edge[1])
    assert upward_imports(graph) == expected


# --- ruff and mypy ------------------------------------------------------------------------------


def _tool(name: str) -> None:
    if importlib.util.find_spec(name) is None:
        pytest.skip(f"{name} is not installed (pip install '.[test]')")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.lint
def test_ruff_finds_nothing() -> None:
    _tool("ruff")
    out = _run("ruff", "check", "--no-cache", "--output-format", "concise", ".")
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.lint
def test_ruff_format_would_change_nothing() -> None:
    _tool("ruff")
    out = _run("ruff", "format", "--check", "--no-cache", ".")
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.lint
def test_mypy_strict_finds_nothing() -> None:
    """Every package, and the plugin packages (pyproject's [tool.mypy] files)."""
    _tool("mypy")
    out = _run("mypy")
    assert out.returncode == 0, out.stdout + out.stderr
