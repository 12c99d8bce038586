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
from typing import Any, Literal

import pytest

import kschedctl.framework as framework
from kschedctl.cli.app import COMMANDS, build, command_named

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


def _run_cli(*args: str) -> tuple[str, set[str]]:
    """`kschedctl ARGS` through the command line's main() in a fresh interpreter: its standard
    output, and every module loaded when it ended (stderr's last line, after any warning)."""
    code = (
        "import atexit, json, sys\nfrom kschedctl.cli.app import main\n"
        f"sys.argv = {['kschedctl', *args]!r}\n"
        "atexit.register(lambda: sys.stderr.write(json.dumps(sorted(sys.modules))))\nmain()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return proc.stdout, set(json.loads(proc.stderr.splitlines()[-1]))


def test_help_imports_neither_numpy_nor_the_configuration() -> None:
    stdout, loaded = _run_cli("--help")
    assert "schedule" in stdout
    heavy = {
        "numpy",
        "jsonschema",
        "pluggy",
        "rich",
        "pydantic",
        "tabulate",
        "yaml",
        "kschedctl.config.loader",
        "kschedctl.framework.interface",
        "kschedctl.scheduler.scheduler",
        "kschedctl.output.render",
    }
    assert heavy & loaded == set()


SMALL_SCHEDULE_NEVER_IMPORTS = {
    "pydantic",
    "typer._adapters",
    "kschedctl.cluster.capture",
    "rich",
    "jsonschema",
    "tabulate",
    "http.client",
    "ssl",
    "socket",
    "numpy",
    "yaml",
    "kschedctl.dra.manager",
    "kschedctl.dra.structured",
    "kschedctl.dra.cel",
    # the DRA objects' types and the claim controller, for a snapshot with DRA objects or a pod
    # that names a claim (cluster/loader.py, api/podclaims.py, scheduler/eventhandlers.py)
    "kschedctl.api.resource",
    "kschedctl.api.resourceclaim",
    "kschedctl.api.devicetaintrule",
    "kschedctl.dra.claimcontroller",
    # the pod-group cycle, for the first pod scheduled as a group (scheduler/scheduler.py)
    "kschedctl.scheduler.schedule_one_podgroup",
    "kschedctl.scheduler.placement",
    "importlib.metadata",
    "email",
    "_hashlib",
    # used only on the paths that need them: logging (kschedctl.lazy.quiet_log), pickle (a child
    # admitting a large file, cluster/admission_ahead.py), --live's client (cli/live.py) and
    # explain's recorders (output/render.py)
    "logging",
    "pickle",
    # tempfile, for a file written beside its target (api/outputs.py) or --live's capture
    # (cli/live.py), and importlib.resources with zipfile, for the schemas kept beside the
    # modules (config/schema.py)
    "tempfile",
    "importlib.resources",
    "zipfile",
    "kschedctl.cluster.kubeclient",
    "kschedctl.explain.sampling",
    # the HTTP extenders, for a configuration without any (scheduler/extender.py)
    "kschedctl.scheduler.extender",
    "kschedctl.scheduler.extender_http",
    "kschedctl.scheduler.extender_tls",
    "kschedctl.scheduler.extender_json",
    # the other commands (kschedctl/cli/app.py builds the app of the command named)
    "kschedctl.cli.explain",
    "kschedctl.cli.simulate",
    "kschedctl.cli.validate",
    "kschedctl.cli.capture",
    "kschedctl.cli.plugins",
    "kschedctl.cli.sweep",
    "kschedctl.cli.diff",
    "kschedctl.cli.capacity",
    "kschedctl.cli.watch",
}


def test_small_schedule_imports_neither_pydantic_nor_the_capture_code(tmp_path: Path) -> None:
    """benchmarks/startup.py's 10-node `schedule -o json`: typer's pydantic coercion and --live's
    capture code stay out (kschedctl/cli/coercion.py, kschedctl/cli/live.py), and so does numpy:
    10 nodes are below COLUMNAR_MIN_NODES, so no columnar view and no batch form (kschedctl/lazy.py);
    PyYAML (a JSON snapshot, no --config: kschedctl/api/json_decoding.py), the DRA objects' types,
    the claim controller, the allocator and its CEL (no DRA object, no pod names a claim:
    cluster/loader.py, plugins/dynamic_resources/plugin.py), and importlib.metadata
    with its email parser (framework/runtime/entry_points.py reads the plugin packages' files),
    the HTTP extenders' modules (scheduler/extender.py, for a configuration that has some) and
    socket (their wire, scheduler/extender_http.py, imports it at the first request),
    OpenSSL's hashlib (~4 ms; the GPU-sharing package, when installed, imports it at its first
    tie-break), logging and pickle (a few ms each, for records nobody reads and a child no small
    file forks), --live's client, explain's recorders, and the modules of the nine other commands."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import perf_config
        from startup import STARTUP_CASE
    finally:
        sys.path.pop(0)
    snapshot = perf_config.write(STARTUP_CASE, tmp_path)
    stdout, loaded = _run_cli("schedule", str(snapshot), "-o", "json", "--seed", "1")
    assert len(json.loads(stdout)["placements"]) == 10, stdout[:200]
    # what the interpreter's own start-up imported (a site-packages hook, say) is not the run's
    bare = subprocess.run(
        [sys.executable, "-c", "import json, sys; print(json.dumps(sorted(sys.modules)))"], capture_output=True, text=True, check=True
    )
    assert SMALL_SCHEDULE_NEVER_IMPORTS & loaded - set(json.loads(bare.stdout)) == set()


DRA_TYPES = {"kschedctl.api.resource", "kschedctl.api.resourceclaim", "kschedctl.api.devicetaintrule", "kschedctl.dra.claimcontroller"}


@pytest.mark.parametrize(("scenario", "loads_dra"), [("scenario-drain.yaml", False), ("scenario-dra-new-node.yaml", True)])
def test_a_simulation_imports_the_dra_types_only_with_dra_objects(scenario: str, loads_dra: bool) -> None:
    """A scenario whose objects and events hold no DRA object never imports the DRA objects'
    types or the claim controller (kschedctl/api/objects.py dra_types); one that does, does."""
    stdout, loaded = _run_cli("simulate", str(ROOT / "examples" / scenario), "-o", "json", "--seed", "1")
    assert json.loads(stdout)["events"], stdout[:200]
    assert DRA_TYPES & loaded == (DRA_TYPES if loads_dra else set())


POD_GROUP_CYCLE = {"kschedctl.scheduler.schedule_one_podgroup", "kschedctl.scheduler.placement"}


@pytest.mark.parametrize("grouped", [False, True])
def test_the_pod_group_cycle_is_imported_by_the_first_group_pod(tmp_path: Path, grouped: bool) -> None:
    """At 1.36 with GenericWorkload on, a snapshot whose pods name no pod group never imports
    the pod-group cycle (Scheduler.pod_groups); one with a gang does, and reports it."""
    from kschedctl.testing import GANG_GATES, make_node, make_pod

    items = [make_node("n1").capacity(cpu="8").dict()]
    for i in range(3):
        pod = make_pod(f"p{i}").req(cpu="1").dict()
        if grouped:
            pod["spec"]["schedulingGroup"] = {"podGroupName": "g"}
        items.append(pod)
    if grouped:
        items.append(
            {
                "apiVersion": "scheduling.k8s.io/v1alpha2",
                "kind": "PodGroup",
                "metadata": {"name": "g", "namespace": "default"},
                "spec": {"schedulingPolicy": {"gang": {"minCount": 3}}},
            }
        )
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    stdout, loaded = _run_cli("schedule", str(snapshot), "-o", "json", "--kube-version", "1.36", "--feature-gates", GANG_GATES)
    out = json.loads(stdout)
    assert len(out["placements"]) == 3, stdout[:300]
    assert ("podGroups" in out) is grouped
    assert POD_GROUP_CYCLE & loaded == (POD_GROUP_CYCLE if grouped else set())


@pytest.mark.parametrize("argv", [["--help"], ["--no-such-option"]])
@pytest.mark.parametrize("name", [name for name, _, _ in COMMANDS])
def test_a_command_alone_answers_as_in_the_whole_app(name: str, argv: list[str]) -> None:
    """main() builds the app of the command a run names (kschedctl/cli/app.py): its help, its
    usage errors and its status are the whole app's, word for word."""
    from typer.testing import CliRunner

    runner = CliRunner()
    whole = runner.invoke(build(), [name, *argv])
    alone = runner.invoke(build(name), [name, *argv])
    assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output)
    assert whole.exit_code in (0, 2) and whole.output


def test_only_a_command_name_first_builds_one_command() -> None:
    assert command_named(["schedule", "x.yaml"]) == "schedule"
    assert command_named(["--version"]) is None
    assert command_named(["x.yaml", "schedule"]) is None
    assert command_named([]) is None
    assert [c.name for c in build("diff").registered_commands] == ["diff"]
    assert [c.name for c in build().registered_commands] == [name for name, _, _ in COMMANDS]


def _outcome(runtime: Any, value: Any, param: Any, ctx: Any) -> tuple[str, Any]:
    import typer

    try:
        return "ok", runtime.coerce(value, param=param, ctx=ctx)
    except typer.BadParameter as exc:
        return "error", exc.format_message()


SAMPLES = [
    None,
    "x",
    "",
    "json",
    "JSON",
    "table",
    "5",
    "-3",
    "007",
    " 5",
    "1.5",
    "0",
    "-1",
    "1e3",
    "+2",
    True,
    False,
    0,
    10.0,
    ("a", "b"),
    ["a"],
    (),
]


def _all_params() -> list[tuple[str, Any]]:
    import typer.main

    from kschedctl.cli.app import app

    group = typer.main.get_command(app)
    out = [("kschedctl", p) for p in group.params]
    for name, command in sorted(group.commands.items()):
        out += [(name, p) for p in command.params if hasattr(p, "type_descriptor")]
    return out


@pytest.mark.parametrize(("command", "param"), _all_params(), ids=lambda v: getattr(v, "name", v))
def test_plain_coercion_agrees_with_typers(command: str, param: Any) -> None:
    """Every value the plain path answers gets typer's own (pydantic) answer, error or not."""
    from typer._coercion import build_runtime_param

    from kschedctl.cli.coercion import PlainRuntimeParam

    ctx = None
    typer_runtime = build_runtime_param(param.type_descriptor)
    plain = PlainRuntimeParam(param)
    multi = param.multiple or param.nargs == -1
    for value in [param.default, *SAMPLES]:
        if multi != isinstance(value, (list, tuple)) and value is not None:
            continue
        expected = _outcome(typer_runtime, value, param, ctx)
        got = _outcome(plain, value, param, ctx)
        assert got == expected and type(got[1]) is type(expected[1]), (command, param.name, value)


@pytest.mark.parametrize("preset,expected", [(None, "1"), ("3", "3")], ids=["unset-becomes-1", "user-value-kept"])
def test_numpy_is_imported_with_one_openblas_thread_unless_the_user_chose(preset: str | None, expected: str) -> None:
    """kschedctl/lazy.py: the first use of numpy sets OPENBLAS_NUM_THREADS=1 where it is unset
    (no BLAS routine is used; a pool of threads spinning at import costs CPU on small machines)."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if preset is not None:
        env["OPENBLAS_NUM_THREADS"] = preset
    code = (
        "import os, sys\nfrom kschedctl.lazy import numpy as np\nassert 'numpy' not in sys.modules\n"
        "np.zeros(1)\nprint(os.environ['OPENBLAS_NUM_THREADS'])"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert proc.stdout.strip() == expected


def test_a_valid_scenario_and_sweep_matrix_are_read_without_jsonschema(tmp_path: Path) -> None:
    """`simulate` and `sweep` check their file against the shipped schema with the quick check
    (config/fastschema.py); jsonschema (with attrs and referencing, tens of ms to import, and
    more to check the schema itself, which tests/config/test_validation.py does for every
    shipped schema) is loaded only for a file the quick check finds fault with. A broken
    scenario still gets jsonschema's error."""
    examples = ROOT / "examples"
    broken = tmp_path / "broken.yaml"
    broken.write_text("apiVersion: kschedctl.io/v1alpha1\nkind: Scenario\nmetadata: {name: x}\nevents: 3\n")
    code = (
        "import sys, json\n"
        "from kschedctl.cluster.scenario import load_scenario\n"
        "from kschedctl.sweep.matrix import load_matrix\n"
        "from kschedctl.plugins.plugin_manager import default_registry\n"
        f"scenario = load_scenario({str(examples / 'scenario-drain.yaml')!r})\n"
        f"matrix = load_matrix({str(examples / 'sweep-weights.yaml')!r}, default_registry().registry)\n"
        "before = 'jsonschema' in sys.modules\n"
        "try:\n"
        f"    load_scenario({str(broken)!r})\n"
        "    said = None\n"
        "except Exception as exc:\n"
        "    said = str(exc)\n"
        "print(json.dumps([len(scenario.events), before, 'jsonschema' in sys.modules, said]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    events, before, after, said = json.loads(proc.stdout)
    assert events > 0
    assert before is False and after is True
    assert said is not None and "events" in said


@pytest.mark.parametrize("level", ["debug", "info"])
def test_quiet_log_reaches_a_logger_once_logging_is_configured(level: Literal["debug", "info"], caplog: pytest.LogCaptureFixture) -> None:
    """kschedctl.lazy.quiet_log skips a record only while logging is not loaded (no handler or
    level can have been set); a program that configures logging gets every record, with the
    exception it was logged in."""
    import logging

    from kschedctl.lazy import quiet_log

    caplog.set_level(logging.DEBUG, logger="kschedctl.runtime.framework")
    try:
        raise ValueError("boom")
    except ValueError:
        quiet_log("kschedctl.runtime.framework", level, "plugin %s raised in %s", "P", "Filter", exc_info=True)
    [record] = caplog.records
    assert (record.levelname, record.getMessage()) == (level.upper(), "plugin P raised in Filter")
    assert record.exc_info is not None and record.exc_info[0] is ValueError
