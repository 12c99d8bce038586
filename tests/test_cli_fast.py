"""The command line's fast path (kschedctl/cli/fast.py): the command lines it reads, it reads as
typer does (the same values reach the same body), its table is the typer commands' options,
whatever it cannot read goes to typer, and the real command answers the same either way, byte
for byte, without importing typer."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kschedctl.cli import fast
from kschedctl.testing import make_node

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
PROFILES = ROOT / "profiles"

LIVE_PARAMS = {"live", "context", "kubeconfig", "scheduler_config"}


def _click_command(name: str) -> Any:
    import typer

    from kschedctl.cli.app import build

    return typer.main.get_command(build(name)).commands[name]  # type: ignore[attr-defined]


def _described(param: Any) -> tuple[str, tuple[str, ...], float | None]:
    """(kind, choices, lower bound) of a typer parameter, from the type it declares (typer 0.29
    reads values by the annotation) or from click's type (earlier typer)."""
    from enum import Enum

    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is not None:
        annotation, low, high = descriptor.annotation, param.min, param.max
        info = descriptor.parameter_info
        assert high is None and not getattr(info, "clamp", False) and info.parser is None, param.name
        if param.is_flag:
            return "flag", (), None
        if isinstance(annotation, type) and issubclass(annotation, Enum):
            assert info.case_sensitive, param.name
            return "choice", tuple(m.value for m in annotation), None
        return {str: "str", int: "int", float: "float"}[annotation], (), low
    import click

    kind = param.type
    if param.is_flag:
        return "flag", (), None
    if isinstance(kind, click.Choice):
        assert kind.case_sensitive, param.name
        return "choice", tuple(kind.choices), None
    if isinstance(kind, click.FloatRange):
        assert kind.max is None and not kind.min_open and not kind.clamp
        return "float", (), kind.min
    return {click.INT: "int", click.FLOAT: "float", click.STRING: "str"}[kind], (), None


@pytest.mark.parametrize("name", sorted(fast.NAMES))
def test_the_table_is_the_typer_commands_options(name: str) -> None:
    """Every option typer builds has its twin in the table (same flags, kind, choices, bound),
    the live options excepted, which the fast path leaves to typer."""
    assert set(fast.commands()) == fast.NAMES
    command = fast.commands()[name]
    params = _click_command(name).params
    arguments = [p for p in params if p.param_type_name == "argument"]
    last = command.positional[-1]
    assert [(a.name, a.nargs) for a in arguments] == [(n, -1 if command.many and n == last else 1) for n in command.positional]
    options = [p for p in params if p.param_type_name == "option"]
    assert len(arguments) + len(options) == len(params)
    live = {p.name for p in options} & LIVE_PARAMS
    assert {f for p in options if p.name in live for f in p.opts} == set(command.typer_only)
    seen = set()
    for param in options:
        if param.name in live:
            continue
        twin = next(o for o in command.options if o.name == param.name)
        seen.add(param.name)
        assert set(param.opts) == set(twin.flags) and not param.secondary_opts, param.name
        assert not param.multiple and param.nargs == 1 and param.envvar is None and not param.is_eager, param.name
        assert _described(param) == (twin.kind, twin.choices, twin.min), param.name
    assert seen == {o.name for o in command.options}


def _typer_kwargs(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> dict[str, Any]:
    """The keyword arguments typer hands the body for ``argv`` (the body replaced by a recorder)."""
    from typer.testing import CliRunner

    from kschedctl.cli.app import build

    module, _, function = fast.commands()[argv[0]].body.partition(":")
    got: list[dict[str, Any]] = []
    monkeypatch.setattr(
        sys.modules[module] if module in sys.modules else __import__(module, fromlist=["x"]), function, lambda **kw: got.append(kw)
    )
    result = CliRunner().invoke(build(argv[0]), argv)
    assert result.exit_code == 0 and len(got) == 1, (argv, result.output)
    return got[0]


VALUES: dict[str, list[str]] = {
    "str": ["a.yaml", "-", "", "dir/x y.json", "ns=1", "1.35", "é"],
    "int": ["1", "0", "42", "123456789012345678"],
    "float": ["0", "2.5", "30", "0.1", "2.675", "123456789012345.123456789012345", "0.000000000000001"],
}


def _random_argv(rng: random.Random, command: fast.Command) -> list[str]:
    tokens: list[list[str]] = []
    for opt in rng.sample(command.options, rng.randint(0, len(command.options))):
        flag = rng.choice(opt.flags)
        if opt.kind == "flag":
            tokens.append([flag])
            continue
        value = rng.choice(opt.choices) if opt.kind == "choice" else rng.choice(VALUES[opt.kind])
        if flag.startswith("--") and rng.random() < 0.3:
            tokens.append([f"{flag}={value}"])
        else:
            tokens.append([flag, value])
    count = len(command.positional) - 1 + (rng.randint(1, 3) if command.many else 1)
    positional = [rng.choice(["s1.json", "-", "dir/s2.yaml", "x=y", "ns/pod"]) for _ in range(count)]
    for word in positional:  # anywhere between the options, as click reads them
        tokens.insert(rng.randint(0, len(tokens)), [word])
    return [command.name, *(t for group in tokens for t in group)]


@pytest.mark.parametrize("name", sorted(fast.NAMES))
def test_what_it_reads_typer_reads_alike(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    command = fast.commands()[name]
    rng = random.Random(f"fast-{name}")
    argvs = [[name, *["ns/pod"] * (len(command.positional) - 1), "only.json"]] + [_random_argv(rng, command) for _ in range(60)]
    for argv in argvs:
        call = fast.parse(argv)
        assert call is not None, argv
        assert call.kwargs == _typer_kwargs(monkeypatch, argv), argv


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["diff", "a.json", "b.json"],
        ["--version"],
        ["schedule"],  # no snapshot: typer's (and --live's) message
        ["schedule", "s.json", "--help"],
        ["schedule", "s.json", "-h"],
        ["schedule", "s.json", "--seed", "1", "--seed", "2"],  # repeated
        ["schedule", "s.json", "--sed", "1"],  # a typo
        ["schedule", "s.json", "--seed", "x"],
        ["schedule", "s.json", "--seed", "1.5"],
        # numbers typer reads through pydantic, whose reading is not int()'s or float()'s
        ["schedule", "s.json", "--seed", "1_000"],
        ["schedule", "s.json", "--seed", " 7"],
        ["schedule", "s.json", "--seed", "+3"],
        ["schedule", "s.json", "--seed", "007"],
        ["schedule", "s.json", "--plugin-timeout", "1e2"],
        ["schedule", "s.json", "--plugin-timeout", "inf"],
        ["schedule", "s.json", "--plugin-timeout", ".5"],
        ["schedule", "s.json", "--plugin-timeout", "2."],
        ["schedule", "s.json", "--seed"],  # no value
        ["schedule", "s.json", "--seed", "-1"],  # a value that looks like an option
        ["schedule", "s.json", "--plugin-timeout", "-1"],
        ["schedule", "s.json", "--plugin-timeout=-0.5"],  # below the bound
        ["schedule", "s.json", "-o", "JSON"],  # choices are case-sensitive
        ["schedule", "s.json", "-ojson"],
        ["schedule", "s.json", "-o=json"],
        ["schedule", "s.json", "--debug=1"],
        ["schedule", "--", "s.json"],
        ["schedule", "s.json", "--live"],
        ["schedule", "--context", "kind"],
        ["schedule", "s.json", "--scheduler-config", "configmap/a/b"],
        ["simulate", "a.yaml", "b.yaml"],  # one scenario
        ["simulate", "a.yaml", "-n", "x"],  # schedule's option, not simulate's
        ["explain", "web-1"],  # a pod and no snapshot: typer's (and --live's) message
        ["explain", "web-1", "s.json", "--top", "-1"],
        ["explain", "web-1", "s.json", "--top", "2.5"],
        ["explain", "web-1", "s.json", "--in-run=yes"],
        ["explain", "web-1", "s.json", "--live"],
        ["validate", "c.yaml", "--seed", "1"],
        ["validate", "c.yaml", "-o", "yaml"],
    ],
)
def test_what_it_cannot_read_goes_to_typer(argv: list[str]) -> None:
    assert fast.parse(argv) is None


def test_a_completion_request_or_an_ascii_stderr_goes_to_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["schedule", "s.json"]
    assert fast.parse(argv) is not None
    monkeypatch.setenv("_KSCHEDCTL_COMPLETE", "bash_complete")
    assert fast.parse(argv) is None
    monkeypatch.delenv("_KSCHEDCTL_COMPLETE")
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(io.BytesIO(), encoding="ascii"))
    assert fast.parse(argv) is None
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(io.BytesIO(), encoding="utf-8"))
    assert fast.parse(argv) is not None


def test_invoke_ends_as_typer_ends_a_command(capsys: pytest.CaptureFixture[str]) -> None:
    def raising(exc: BaseException) -> Any:
        def body() -> None:
            raise exc

        return body

    cases: list[tuple[Any, int]] = [
        (lambda: None, 0),
        (raising(SystemExit(3)), 3),
        (raising(KeyboardInterrupt()), 130),
        (raising(EOFError()), 1),
        (raising(BrokenPipeError(32, "Broken pipe")), 1),
    ]
    stdout, stderr = sys.stdout, sys.stderr
    try:
        for body, code in cases:
            with pytest.raises(SystemExit) as ended:
                fast.invoke(body, {})
            assert ended.value.code == code
    finally:
        sys.stdout, sys.stderr = stdout, stderr
    assert capsys.readouterr().err == "\nAborted!\n"
    with pytest.raises(OSError, match="disk"):
        fast.invoke(raising(OSError(28, "disk full")), {})


def _run(argv: list[str], typer_path: bool, stdin: str | None = None) -> tuple[int, str, str]:
    entry = "from kschedctl.cli.app import main" if typer_path else "from kschedctl.cli.entry import main"
    code = f"import sys\n{entry}\nsys.argv = ['kschedctl', *{argv!r}]\nmain()\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, input=stdin, cwd=ROOT)
    return proc.returncode, proc.stdout, proc.stderr


def _bad_config(tmp_path: Path) -> str:
    path = tmp_path / "bad.yaml"
    path.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nparallelism: -1\n")
    return str(path)


@pytest.mark.parametrize(
    "argv",
    [
        ["schedule", "examples/cluster.yaml", "-o", "json", "--seed", "1"],
        ["schedule", "examples/cluster.yaml", "--config", "profiles/bin-packing.yaml", "--seed", "3", "-n", "batch"],
        ["schedule", "examples/cluster.yaml", "--fail-on-unschedulable", "-o", "wide"],  # exit 3
        ["schedule", "examples/no-such-file.yaml"],  # exit 2, one line
        ["schedule", "examples/cluster.yaml", "--kube-version", "1.20"],  # exit 2
        ["explain", "batch/analytics-big", "examples/cluster.yaml", "-o", "json", "--seed", "1"],
        ["explain", "web-1", "examples/cluster.yaml", "-n", "default", "--top", "1", "--all-filters"],
        ["explain", "nope", "examples/cluster.yaml"],  # exit 2: no such pod, with suggestions
        ["simulate", "examples/scenario-drain.yaml", "-o", "yaml", "--seed", "2"],
        ["validate", "profiles/default.yaml", "profiles/two-profiles.yaml"],
        ["validate", "BAD", "-o", "json"],  # exit 1
        ["validate", "-"],  # standard input
    ],
)
def test_the_real_command_answers_the_same_without_typer(tmp_path: Path, argv: list[str]) -> None:
    argv = [_bad_config(tmp_path) if a == "BAD" else a for a in argv]
    assert fast.parse(argv) is not None
    stdin = (PROFILES / "default.yaml").read_text() if argv[-1] == "-" else None
    fast_run = _run(argv, typer_path=False, stdin=stdin)
    typer_run = _run(argv, typer_path=True, stdin=stdin)
    assert fast_run == typer_run
    assert fast_run[0] in (0, 1, 2, 3) and (fast_run[1] or fast_run[2])


def test_the_fast_path_imports_no_typer() -> None:
    code = (
        "import atexit, json, sys\nfrom kschedctl.cli.entry import main\n"
        "sys.argv = ['kschedctl', 'schedule', 'examples/cluster.yaml', '-o', 'json', '--seed', '1']\n"
        "atexit.register(lambda: sys.stderr.write(json.dumps(sorted(sys.modules))))\nmain()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert json.loads(proc.stdout)["placements"]
    loaded = set(json.loads(proc.stderr))
    assert {m for m in loaded if m.split(".")[0] in ("typer", "click") or m == "kschedctl.cli.app"} == set()
    assert "kschedctl.cli.schedule" not in loaded and "kschedctl.cli.bodies.schedule" in loaded
    # nor pathlib, which imports urllib.parse and ipaddress (~4 ms), for the files of a run
    # (counting only what the interpreter's own start-up did not import: a site hook may)
    bare = subprocess.run(
        [sys.executable, "-c", "import json, sys; print(json.dumps(sorted(sys.modules)))"], capture_output=True, text=True, check=True
    )
    assert {"pathlib", "urllib.parse", "ipaddress"} & loaded - set(json.loads(bare.stdout)) == set()


def test_debug_prints_the_traceback_and_a_plain_run_never_imports_it(tmp_path: Path) -> None:
    """Bad input is one `error:` line and exit 2; with --debug the traceback comes first
    (cli/guard.py imports traceback only to print one). A run that prints none never imports
    traceback on the fast path (`python -m kschedctl`)."""
    bad = tmp_path / "bad.json"
    bad.write_text('{"apiVersion": "v1", "kind": "List", "items": [1]}')
    plain = subprocess.run([sys.executable, "-m", "kschedctl", "schedule", str(bad)], capture_output=True, text=True)
    debug = subprocess.run([sys.executable, "-m", "kschedctl", "schedule", str(bad), "--debug"], capture_output=True, text=True)
    assert plain.returncode == debug.returncode == 2
    assert plain.stderr.startswith("error: ") and "Traceback (most recent call last)" not in plain.stderr
    assert "Traceback (most recent call last)" in debug.stderr
    assert debug.stderr.splitlines()[-1] == plain.stderr.splitlines()[-1]
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [make_node("n1").capacity(cpu="2").dict()]}))
    code = (
        "import atexit, json, sys\nsys.argv = ['kschedctl', 'schedule', sys.argv[1], '-o', 'json']\n"
        "atexit.register(lambda: sys.stderr.write(json.dumps('traceback' in sys.modules)))\n"
        "from kschedctl.cli.entry import main\nmain()\n"
    )
    bare = subprocess.run([sys.executable, "-c", "import sys; print('traceback' in sys.modules)"], capture_output=True, text=True)
    run = subprocess.run([sys.executable, "-c", code, str(good)], capture_output=True, text=True, check=True)
    assert json.loads(run.stdout)["summary"]["scheduled"] == 0
    assert run.stderr.splitlines()[-1] == "false" or bare.stdout.strip() == "True"
