"""The dataclass code cache (kschedctl/startup.py): kept compiles serve the next process, the
classes they make behave as freshly compiled ones, and a bad or unwritable file changes nothing."""

from __future__ import annotations

import dataclasses
import marshal
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kschedctl import startup


@pytest.fixture
def fresh() -> Iterator[None]:
    """No cache installed before or after the test (the suite's own process has none)."""
    startup.uninstall()
    yield
    startup.uninstall()


def _indexed(entries: dict[str, bytes]) -> bytes:
    """The bytes of an indexed cache file holding ``entries`` (module -> an entry's bytes)."""
    index = {}
    offset = 0
    for module, data in entries.items():
        index[module] = (offset, len(data))
        offset += len(data)
    head = marshal.dumps(index)
    return b"".join([startup.HEADER, len(head).to_bytes(8, "little"), head, *entries.values()])


def define() -> type:
    """A dataclass with the methods dataclasses compiles: __init__, __repr__, __eq__, frozen."""

    @dataclasses.dataclass(frozen=True)
    class Toleration:
        key: str
        operator: str = "Equal"
        seconds: int | None = None
        values: tuple[str, ...] = dataclasses.field(default_factory=tuple)

    return Toleration


def test_a_second_process_reuses_the_first_ones_compiles(tmp_path: Path, fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "dataclass-code.bin"
    first = startup.install(path)
    assert first is not None
    define()
    assert first.compiled >= 4  # __init__, __repr__, __eq__, __setattr__, __delattr__, __hash__
    first.save()
    assert path.read_bytes().startswith(startup.HEADER)
    startup.uninstall()

    second = startup.install(path)
    assert second is not None
    cls = define()
    assert second.compiled == 0
    a, b = cls("gpu", seconds=30), cls("gpu", "Equal", 30)
    assert a == b and hash(a) == hash(b)
    assert a != cls("gpu", "Exists")
    assert repr(a).endswith("Toleration(key='gpu', operator='Equal', seconds=30, values=())")
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.key = "x"


def test_nothing_is_written_when_bytecode_is_not(tmp_path: Path, fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    path = tmp_path / "dataclass-code.bin"
    cache = startup.install(path)
    assert cache is not None
    define()
    cache.save()
    assert not path.exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"not a cache at all", id="foreign"),
        pytest.param(startup.HEADER + b"\x00\x01garbage", id="truncated-marshal"),
        pytest.param(startup.HEADER + (3).to_bytes(8, "little") + marshal.dumps([1, 2, 3]), id="not-a-dict"),
        pytest.param(_indexed({__name__: marshal.dumps({"def f(): pass": "not code"})}), id="not-code"),
        pytest.param(_indexed({__name__: marshal.dumps(["not a dict"])}), id="not-a-module-dict"),
        pytest.param(_indexed({__name__: b"\xff\x00 not marshal"}), id="not-marshal"),
        pytest.param(_indexed({__name__: marshal.dumps({"x = 1": compile("x = 1", "<s>", "exec")})})[:-4], id="cut-short"),
        pytest.param(b"kschedctl-dataclass-code-2\n\x00\x00\r\n" + bytes(8), id="other-magic"),
        pytest.param(b"kschedctl-dataclass-code\n" + startup.HEADER[-4:] + marshal.dumps({}), id="first-format"),
    ],
)
def test_a_bad_file_is_ignored_and_replaced(tmp_path: Path, fresh: None, monkeypatch: pytest.MonkeyPatch, content: bytes) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "dataclass-code.bin"
    path.write_bytes(content)
    cache = startup.install(path)
    assert cache is not None
    cls = define()
    assert cls("a") == cls("a")
    assert cache.compiled >= 4  # nothing served from the file
    cache.save()
    assert startup.read(path) == cache.used
    assert [p.name for p in tmp_path.iterdir()] == ["dataclass-code.bin"]  # no temporary left


def test_an_unwritable_place_leaves_the_run_alone(tmp_path: Path, fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("x")
    cache = startup.install(blocked / "dataclass-code.bin")
    assert cache is not None
    assert define()("a").key == "a"
    cache.save()  # mkdir fails under a file: no exception, nothing written
    assert blocked.read_text() == "x"


def test_entries_other_runs_wrote_are_kept(tmp_path: Path, fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "dataclass-code.bin"
    other = {"x = 1": compile("x = 1", "<string>", "exec")}
    startup.write(path, {"other.module": other})
    cache = startup.install(path)
    assert cache is not None
    meanwhile = {"other.module": other, "another": {"y = 2": compile("y = 2", "<string>", "exec")}}
    startup.write(path, meanwhile)  # another run saved
    define()
    cache.save()
    kept = startup.read(path)
    assert kept == {**meanwhile, __name__: cache.used[__name__]}


def test_a_modules_entry_holds_its_classes_as_they_are_now(tmp_path: Path, fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """A save writes each module the run defined dataclasses of as the run found them: the
    texts of a class as an earlier release defined it leave the file."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "dataclass-code.bin"
    stale = "def __create_fn__():\n def __init__(self, gone):\n  self.gone=gone\n return __init__"
    startup.write(path, {__name__: {stale: compile(stale, "<string>", "exec")}})
    cache = startup.install(path)
    assert cache is not None
    define()
    cache.save()
    kept = startup.read(path)
    assert stale not in kept[__name__] and kept[__name__].keys() == cache.used[__name__].keys()


def test_a_run_reads_only_the_code_of_the_modules_it_defines_dataclasses_in(
    tmp_path: Path, fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index is read at start; a module's code when dataclasses first asks for a text of
    that module, so what other commands (or releases) kept costs a run its index entries only."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "dataclass-code.bin"
    first = startup.install(path)
    assert first is not None
    define()
    startup.uninstall()
    others = {f"other{i}": {f"z = {i}": compile(f"z = {i}", "<string>", "exec")} for i in range(50)}
    startup.write(path, {**others, **first.used})
    second = startup.install(path)
    assert second is not None
    reads: list[str] = []
    real = second.file.data
    second.file.data = lambda module: (reads.append(module), real(module))[1]  # type: ignore[method-assign]
    assert set(second.kept) == set(others) | {__name__}
    define()
    define()
    assert second.compiled == 0
    assert reads == [__name__]  # once, however many classes the module defines


def test_the_file_sits_in_the_users_cache_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    found = startup.cache_path()
    assert found is not None
    where = Path(found)
    assert where.parent == tmp_path / "kschedctl"
    assert sys.implementation.cache_tag in where.name
    # a relative XDG_CACHE_HOME is not one (the XDG base directory specification): ~/.cache
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert startup.cache_path() == str(tmp_path / "home" / ".cache" / "kschedctl" / where.name)
    # never inside the installed package: a file pip did not install would outlive an uninstall
    assert Path(startup.__file__).resolve().parent not in Path(startup.cache_path() or tmp_path).parents
    # no home directory to be found (or a relative one): no cache, rather than one in the working directory
    monkeypatch.setenv("HOME", "relative/home")
    assert startup.cache_path() is None


def test_a_run_of_the_command_line_writes_and_reuses_it(tmp_path: Path) -> None:
    """The real command twice: the first writes the file, the second compiles nothing new, and
    both print the same placements; nothing else is written to the cache directory but the
    compiled patterns' file, whose second run too compiles nothing the first kept
    (kschedctl/regex_start.py), and the modules' file, whose second run imports from it every
    submodule the source loader would import (kschedctl/module_start.py: one pair of runs checks
    the three)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    probe = (  # main() ends the process once the exit handlers have run (runtime/process.py)
        "import atexit, sys, dataclasses; from kschedctl.cli.app import main; from kschedctl import module_start, regex_start; "
        "sys.argv = ['kschedctl', 'validate', '--help']\n"
        "atexit.register(lambda: sys.stderr.write(f'{dataclasses.exec.__self__.compiled} {len(regex_start._installed[0][0].new)} '"
        "f'{sum(1 for n in module_start._installed[0].missed if module_start.record(n, sys.modules.get(n)))}'))\n"
        "main()\n"
    )
    outs = [subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True) for _ in range(2)]
    assert outs[0].stdout == outs[1].stdout and "validate" in outs[0].stdout
    (first, first_patterns, first_modules), (second, second_patterns, second_modules) = (
        map(int, o.stderr.strip().splitlines()[-1].split()) for o in outs
    )
    assert first > 0 and second == 0
    assert first_patterns > 10 and second_patterns == 0
    assert first_modules > 10 and second_modules == 0
    tag = sys.implementation.cache_tag
    # beside it only the compiled patterns' and the modules' files
    names = sorted(p.name for p in (tmp_path / "cache" / "kschedctl").iterdir())
    assert names == [f"dataclass-code.{tag}.bin", f"module-code.{tag}.bin", f"regex-code.{tag}.bin"]


def test_the_command_line_installs_it_and_the_library_does_not() -> None:
    probe = (
        "import dataclasses, kschedctl.api.types; a = hasattr(dataclasses, 'exec'); "
        "import kschedctl.cli; print(a, type(dataclasses.exec.__self__).__name__)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "CodeCache"]
