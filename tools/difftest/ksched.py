"""kschedctl, run in-process through its own command line (the console-script entry point).

The only change made to it is the tie rule: among equal best totals the lowest node name wins,
as in the oracle (which sets kube's tie-break field the same way), so that comparisons can go
on past ties. Nothing else is touched.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import sys
from importlib.metadata import entry_points
from typing import Any

_ALGORITHM_MODULES = ("kschedctl.scheduler.algorithm", "kschedctl.algorithm")
_patched = False
TIE_RULE = "lowest"  # or "kschedctl": its own seeded random choice


def _lowest_name_tie_rule() -> None:
    """SchedulingAlgorithm.select_host_from_table (select_host_from_totals before it) -> the lowest
    name among the best totals."""
    global _patched
    if _patched:
        return
    for name in _ALGORITHM_MODULES:
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        cls = getattr(mod, "SchedulingAlgorithm", None)
        if cls is None:
            continue

        if hasattr(cls, "select_host_from_table"):
            original_table = cls.select_host_from_table

            def select_host_from_table(self, table: Any, _original: Any = original_table) -> str:
                if not len(table):
                    return _original(self, table)
                best = max(table.totals)
                return min(n for n, t in zip(table.names, table.totals) if t == best)

            cls.select_host_from_table = select_host_from_table
            _patched = True
            return
        original = cls.select_host_from_totals

        def select_host_from_totals(self, names: list[str], totals: list[int], _original: Any = original) -> str:
            if not names:
                return _original(self, names, totals)
            best = max(totals)
            return min(n for n, t in zip(names, totals) if t == best)

        cls.select_host_from_totals = select_host_from_totals
        _patched = True
        return
    raise RuntimeError("kschedctl's SchedulingAlgorithm not found: cannot set the tie rule")


def _main() -> Any:
    """The command's typer app when the console script's module (or the app module its entry
    imports) has one, else its main().

    main() is the command as a process: it moves kschedctl's output to a private duplicate of
    file descriptor 1 (runtime/process.py contain()), which escapes redirect_stdout, so the
    first call's result would go to this process's real standard output and never be read.
    The app runs the same command without that process set-up (as tests' run_cli does)."""
    (ep,) = [e for e in entry_points(group="console_scripts") if e.name == "kschedctl"]
    module = importlib.import_module(ep.module)
    app = getattr(module, "app", None)
    if app is None and ep.module == "kschedctl.cli.entry":  # the entry imports the app in main()
        app = getattr(importlib.import_module("kschedctl.cli.app"), "app", None)
    if app is not None:
        return lambda: app(prog_name="kschedctl")
    return ep.load()


def run(args: list[str]) -> tuple[int, str, str]:
    """kschedctl ARGS in this process: (exit code, stdout, stderr)."""
    if TIE_RULE == "lowest":
        _lowest_name_tie_rule()
    main = _main()
    out, err = io.StringIO(), io.StringIO()
    argv = sys.argv
    code = 0
    sys.argv = ["kschedctl", *args]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = argv
    return code, out.getvalue(), err.getvalue()


def run_json(args: list[str]) -> tuple[Any, str]:
    code, out, err = run(args)
    if code != 0:
        return None, f"exit {code}: {err.strip()[-2000:]}"
    return json.loads(out), err
