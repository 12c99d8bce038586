"""Checks over the whole tree: no import cycle between kschedctl's modules, ruff clean, and
mypy --strict clean over the plugin API and the plugins (the configuration is pyproject.toml's).

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
                    base = base[:len(base) - node.level + 1]
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


@pytest.mark.parametrize("graph, expected", [
    ({"a": {"b"}, "b": {"a"}, "c": set()}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
], ids=["two-modules", "a-chain", "three-modules-and-a-tail"])
def test_the_cycle_finder_finds_cycles(graph: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert cycles(graph) == expected


def test_the_import_graph_sees_lazy_imports_and_skips_type_checking_ones() -> None:
    graph = import_graph()
    # a lazy import inside a function (explain.py has none at function level any more; the CLI does)
    assert "kschedctl.scheduler.scheduler" in graph["kschedctl.cli.app"]
    # eventhandlers names the Scheduler only for type checking
    assert "kschedctl.scheduler.scheduler" not in graph["kschedctl.scheduler.eventhandlers"]


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
def test_mypy_strict_finds_nothing_in_the_plugin_api_and_the_plugins() -> None:
    _tool("mypy")
    out = _run("mypy")
    assert out.returncode == 0, out.stdout + out.stderr
