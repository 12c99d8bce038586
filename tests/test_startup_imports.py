"""Startup stays cheap (benchmarks/startup.py measures it): `kschedctl --help` loads neither the
framework's API (numpy) nor the configuration code, and kschedctl.framework's public names, now
imported on first use, are exactly the objects of the modules that define them.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import kschedctl.framework as framework

ROOT = Path(__file__).resolve().parent.parent


def _type_checking_imports() -> dict[str, str]:
    """name -> module of the imports under `if TYPE_CHECKING:` in kschedctl/framework/__init__.py."""
    tree = ast.parse((ROOT / "kschedctl" / "framework" / "__init__.py").read_text(encoding="utf-8"))
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom) and stmt.module
                for alias in stmt.names:
                    name = alias.asname or alias.name
                    out[name] = f"{stmt.module}.{name}" if name == "gosemantics" else stmt.module
    return out


def test_lazy_exports_match_the_imports_mypy_sees() -> None:
    assert framework._EXPORTS == _type_checking_imports()
    assert set(framework._EXPORTS) == set(framework.__all__)


@pytest.mark.parametrize("name", sorted(framework.__all__))
def test_every_public_name_is_the_defining_modules_object(name: str) -> None:
    import importlib

    module = importlib.import_module(framework._EXPORTS[name])
    expected = module if name == "gosemantics" else getattr(module, name)
    assert getattr(framework, name) is expected


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        framework.Nope  # noqa: B018


def test_help_imports_neither_numpy_nor_the_configuration() -> None:
    code = ("import sys\nfrom kschedctl.cli.app import main\nsys.argv = ['kschedctl', '--help']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "import json\nsys.stderr.write(json.dumps(sorted(sys.modules)))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(proc.stderr))
    assert "schedule" in proc.stdout
    heavy = {"numpy", "jsonschema", "pluggy", "rich", "pydantic", "tabulate", "kschedctl.config.loader",
             "kschedctl.framework.interface", "kschedctl.scheduler.scheduler", "kschedctl.cli.render"}
    assert heavy & loaded == set()
