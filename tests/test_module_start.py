"""kschedctl/module_start.py: kschedctl's modules imported from one file of their code. A module
is served only while its source, its directory and its place are what was recorded; a served
module has the usual import's attributes, loader answers and code; the real command answers the
same with it; a bad file or entry is ignored; nothing is written where bytecode would not be,
or by a forked child; only the command line installs it."""

from __future__ import annotations

import importlib
import json
import marshal
import os
import subprocess
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest

import kschedctl
from kschedctl import module_start

ROOT = Path(__file__).resolve().parent.parent
NAME = "kschedctl.module_start_probe"


@pytest.fixture
def area(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory on kschedctl's ``__path__`` holding ``module_start_probe.py`` (a submodule
    of kschedctl as far as the import system is concerned), forgotten after the test."""
    where = tmp_path / "area"
    where.mkdir()
    (where / "module_start_probe.py").write_text("VALUE = 1\n\ndef boom():\n    raise ValueError('from the probe')\n")
    monkeypatch.setattr(kschedctl, "__path__", [*kschedctl.__path__, str(where)])
    yield where
    sys.modules.pop(NAME, None)
    for finder in [f for f in sys.meta_path if isinstance(f, module_start.ModuleCache)]:
        sys.meta_path.remove(finder)


def _cache(tmp_path: Path, write: bool = True) -> module_start.ModuleCache:
    cache = module_start.ModuleCache(tmp_path / "module-code.bin", write=write)
    sys.meta_path.insert(0, cache)
    return cache


def _import_fresh() -> object:
    sys.modules.pop(NAME, None)
    importlib.invalidate_caches()
    return importlib.import_module(NAME)


def _first_run(tmp_path: Path) -> None:
    cache = _cache(tmp_path)
    module = _import_fresh()
    assert not isinstance(module.__spec__.loader, module_start.ServedLoader) and cache.missed == [NAME]  # type: ignore[attr-defined]
    cache.save()
    sys.meta_path.remove(cache)


def test_a_second_process_gets_the_module_from_the_file(tmp_path: Path, area: Path) -> None:
    _first_run(tmp_path)
    usual = _import_fresh()
    usual_attrs = {k: getattr(usual, k) for k in ("__file__", "__cached__", "__package__", "__name__")}
    cache = _cache(tmp_path)
    module = _import_fresh()
    loader = module.__spec__.loader  # type: ignore[attr-defined]
    assert isinstance(loader, module_start.ServedLoader) and cache.missed == []
    assert module.VALUE == 1  # type: ignore[attr-defined]
    assert {k: getattr(module, k) for k in usual_attrs} == usual_attrs
    assert module.__spec__.origin == str(area / "module_start_probe.py")  # type: ignore[attr-defined]
    # the loader answers as the source loader: the file's name, data and source
    assert loader.get_filename(NAME) == str(area / "module_start_probe.py")
    assert loader.get_source(NAME) == (area / "module_start_probe.py").read_text()
    assert loader.get_data(str(area / "module_start_probe.py")) == (area / "module_start_probe.py").read_bytes()
    try:
        module.boom()  # type: ignore[attr-defined]
    except ValueError:
        text = traceback.format_exc()
    assert "raise ValueError('from the probe')" in text and str(area / "module_start_probe.py") in text


def test_an_edited_module_is_imported_the_usual_way_and_recorded_again(tmp_path: Path, area: Path) -> None:
    _first_run(tmp_path)
    (area / "module_start_probe.py").write_text("VALUE = 22\n")
    cache = _cache(tmp_path)
    module = _import_fresh()
    assert module.VALUE == 22 and cache.missed == [NAME]  # type: ignore[attr-defined]
    cache.save()
    sys.meta_path.remove(cache)
    again = _cache(tmp_path)
    module = _import_fresh()
    assert module.VALUE == 22 and again.missed == []  # type: ignore[attr-defined]


def test_same_size_and_a_new_time_is_an_edit(tmp_path: Path, area: Path) -> None:
    _first_run(tmp_path)
    source = area / "module_start_probe.py"
    source.write_text(source.read_text().replace("VALUE = 1", "VALUE = 7"))
    stat = source.stat()
    # two seconds on: the bytecode file the first import may have written keeps whole seconds
    # (and the size, the same here), so the usual import too must see the edit
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    cache = _cache(tmp_path)
    assert _import_fresh().VALUE == 7  # type: ignore[attr-defined]
    assert cache.missed == [NAME]


def test_a_file_added_beside_it_stops_its_directory_being_served(tmp_path: Path, area: Path) -> None:
    """The file finder prefers a package (or an extension module) of the same name: anything
    added to the directory changes its time, and nothing of it is served until recorded again."""
    _first_run(tmp_path)
    (area / "module_start_probe").mkdir()
    (area / "module_start_probe" / "__init__.py").write_text("VALUE = 'the package'\n")
    stat = area.stat()
    os.utime(area, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    _cache(tmp_path)
    assert _import_fresh().VALUE == "the package"  # type: ignore[attr-defined]


def test_another_installation_is_never_served_this_ones_code(tmp_path: Path, area: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _first_run(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    (other / "module_start_probe.py").write_text("VALUE = 'other'\n")
    monkeypatch.setattr(kschedctl, "__path__", [p for p in kschedctl.__path__ if p != str(area)] + [str(other)])
    cache = _cache(tmp_path)
    assert _import_fresh().VALUE == "other"  # type: ignore[attr-defined]
    assert cache.missed == [NAME]


def test_only_kschedctls_submodules_are_looked_up(tmp_path: Path) -> None:
    cache = module_start.ModuleCache(tmp_path / "none.bin", write=True)
    assert cache.find_spec("kschedctl", None) is None and cache.find_spec("json", None) is None
    assert cache.find_spec("json.decoder", ["/usr/lib/python3/json"]) is None
    assert cache.missed == []
    assert cache.find_spec("kschedctl.nothing_here", kschedctl.__path__) is None and cache.missed == ["kschedctl.nothing_here"]


def test_only_what_the_source_loader_imported_is_recorded(tmp_path: Path) -> None:
    import _json
    import json.decoder

    assert module_start.record("json.decoder", json.decoder) is not None
    assert module_start.record("_json", _json) is None  # built in, or an extension module
    assert module_start.record("json.scanner", json.decoder) is None  # not the module's own name


def _file(index: dict[object, object], blobs: bytes) -> bytes:
    head = marshal.dumps(index)
    return module_start.HEADER + len(head).to_bytes(8, "little") + head + blobs


@pytest.mark.parametrize("damage", ["garbage", "header", "truncated", "short index", "huge index", "entries", "code", "not code"])
def test_a_bad_file_or_entry_is_ignored(tmp_path: Path, area: Path, damage: str) -> None:
    """Whatever the file holds, the module is imported: from the file when its own entry is
    whole, else the usual way."""
    _first_run(tmp_path)
    path = tmp_path / "module-code.bin"
    data = path.read_bytes()
    ((meta, code),) = module_start.read(path).values()
    good = (*meta, 0, len(code))
    if damage == "garbage":
        path.write_bytes(b"\x00not a cache at all")
    elif damage == "header":
        path.write_bytes(b"another-cache\n" + data[len(module_start.HEADER) :])
    elif damage == "truncated":
        path.write_bytes(data[:-10])
    elif damage == "short index":
        path.write_bytes(module_start.HEADER + (10**6).to_bytes(8, "little") + b"\x00" * 50)
    elif damage == "huge index":  # never read (nor allocated) past the file's end
        path.write_bytes(module_start.HEADER + (2**63 - 1).to_bytes(8, "little") + b"\x00" * 50)
    elif damage == "entries":  # wrongly shaped entries beside a good one: the good one is still served
        bad = {"kschedctl.bad": ("x", 1), "kschedctl.worse": 3, 5: good, "json.decoder": good, "kschedctl.far": (*meta, 0, 2**62)}
        path.write_bytes(_file({**bad, NAME: good}, code))
    elif damage == "code":
        path.write_bytes(_file({NAME: (*meta, 0, 4)}, b"\xff\xfe\xfd\xfc"))
    else:
        data = marshal.dumps(("not", "code"))
        path.write_bytes(_file({NAME: (*meta, 0, len(data))}, data))
    cache = _cache(tmp_path)
    module = _import_fresh()
    assert module.VALUE == 1  # type: ignore[attr-defined]
    assert isinstance(module.__spec__.loader, module_start.ServedLoader) == (damage == "entries")  # type: ignore[attr-defined]
    assert set(cache.entries) <= {NAME}


def test_a_run_reads_only_the_code_of_what_it_imports(tmp_path: Path, area: Path) -> None:
    """The index is read at start; a module's code only when it is imported."""
    (area / "module_start_other.py").write_text("OTHER = 2\n" + "# padding\n" * 2000)
    _first_run(tmp_path)
    cache = _cache(tmp_path)
    importlib.import_module("kschedctl.module_start_other")
    sys.meta_path.remove(cache)
    cache.save()
    sys.modules.pop("kschedctl.module_start_other", None)
    reads: list[str] = []
    cache = _cache(tmp_path)
    real = cache.store.data
    cache.store.data = lambda name: (reads.append(name), real(name))[1]  # type: ignore[method-assign]
    assert set(cache.entries) == {NAME, "kschedctl.module_start_other"}
    _import_fresh()
    assert reads == [NAME]


def test_nothing_is_written_when_not_writing_or_in_a_forked_child(tmp_path: Path, area: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = _cache(tmp_path, write=False)
    _import_fresh()
    cache.save()
    sys.meta_path.remove(cache)
    child = _cache(tmp_path)
    _import_fresh()
    monkeypatch.setattr(os, "getpid", lambda: child.pid + 1)
    child.save()
    assert not (tmp_path / "module-code.bin").exists()


def test_the_real_command_answers_the_same_from_the_file(tmp_path: Path) -> None:
    """The command twice: the first imports every kschedctl module the usual way and writes the
    file, the second takes all of them from it; the same placements, byte for byte."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    probe = (
        "import atexit, json, sys\nfrom kschedctl.cli.entry import main\nfrom kschedctl import module_start\n"
        "sys.argv = ['kschedctl', 'schedule', 'examples/cluster.yaml', '-o', 'json', '--seed', '1']\n"
        "cache = module_start._installed[0]\n"
        "atexit.register(lambda: sys.stderr.write(json.dumps([sum(1 for n in cache.missed if module_start.record(n, sys.modules.get(n))), "
        "sum(1 for m in list(sys.modules.values()) if isinstance(getattr(getattr(m, '__spec__', None), 'loader', None), "
        "module_start.ServedLoader))])))\n"
        "main()\n"
    )
    runs = [subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=ROOT) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr[-400:]
    assert runs[0].stdout == runs[1].stdout and json.loads(runs[0].stdout)["placements"]
    (missed_first, served_first), (missed_second, served_second) = (json.loads(r.stderr.splitlines()[-1]) for r in runs)
    assert missed_first > 150 and served_first == 0
    assert missed_second == 0 and served_second == missed_first


def test_nothing_is_written_under_pythondontwritebytecode(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", XDG_CACHE_HOME=str(tmp_path / "cache"))
    probe = "import sys\nfrom kschedctl.cli.entry import main\nsys.argv = ['kschedctl', 'validate', 'profiles/default.yaml']\nmain()\n"
    subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    assert not (tmp_path / "cache" / "kschedctl" / f"module-code.{sys.implementation.cache_tag}.bin").exists()


def test_the_command_line_installs_it_and_the_library_does_not() -> None:
    probe = (
        "import sys, kschedctl.scheduler.scheduler\n"
        "before = [type(f).__name__ for f in sys.meta_path]\n"
        "import kschedctl.cli\n"
        "print(before.count('ModuleCache'), [type(f).__name__ for f in sys.meta_path].count('ModuleCache'))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["0", "1"]
