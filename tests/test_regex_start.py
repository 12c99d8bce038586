"""The compiled-pattern cache (kschedctl/regex_start.py): kept compiles serve the next process as
look-ups in re's own cache, the pattern objects they make are the ones re compiles (same code),
and a bad or unwritable file changes nothing."""

from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from kschedctl import regex_start

_serial = iter(range(1 << 30))


def unique() -> str:
    """A token no pattern compiled before in this process holds (re's cache would answer it)."""
    return f"u{os.getpid()}n{next(_serial)}"


pytestmark = pytest.mark.skipif(not regex_start.supported(), reason="re is not CPython 3.11-3.13's")


@pytest.fixture
def fresh() -> Iterator[None]:
    """No cache installed before or after the test (the suite's own process has none)."""
    regex_start.uninstall()
    yield
    regex_start.uninstall()


def patterns(tag: str) -> list[tuple[str | bytes, int]]:
    """Patterns no other code compiles (``tag`` in each), with groups, names, inline and given
    flags, and a bytes one."""
    return [
        (rf"(?P<key>[a-z0-9]([-a-z0-9]*[a-z0-9])?)={tag}(\d+)", 0),
        (rf"(?x) ^ {tag} \s* (?P<n> [0-9]+ ) $", 0),
        (rf"{tag}[a-f]+", re.IGNORECASE),
        (tag.encode() + rb"(\x00|\xff)+", 0),
    ]


def test_a_second_process_gets_the_first_ones_patterns_as_lookups(tmp_path: Path, fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "regex-code.bin"
    wanted = patterns(unique())
    first = regex_start.install(path)
    assert first is not None
    made = [re.compile(p, f) for p, f in wanted]
    assert set(first.new) == {(type(p), p, int(f)) for p, f in wanted}
    first.save()
    assert path.read_bytes().startswith(regex_start.HEADER)
    regex_start.uninstall()

    re.purge()
    second = regex_start.install(path)
    assert second is not None
    for p, f in wanted:  # in re's cache before anyone compiles them
        assert (type(p), p, int(f)) in re._cache  # type: ignore[attr-defined]
    again = [re.compile(p, f) for p, f in wanted]
    assert second.new == {}
    regex_start.uninstall()
    # the same objects re makes: Pattern equality compares pattern, flags and the matcher's code
    for (p, f), kept, compiled in zip(wanted, again, made):
        assert kept == compiled == re._compiler.compile(p, f)  # type: ignore[attr-defined]
        assert kept.groupindex == compiled.groupindex and kept.groups == compiled.groups
    tag = wanted[0][0]
    assert isinstance(tag, str)
    sample = tag.split("=")[1].split("(")[0]
    m = again[0].fullmatch(f"gpu-a={sample}42")
    assert m is not None and m.group("key") == "gpu-a" and m.group(3) == "42"
    assert again[2].fullmatch(sample.upper() + "ABC") is not None


def test_compiles_in_several_threads_are_each_kept_under_their_own_key(tmp_path: Path, fresh: None) -> None:
    """Each thread's compile is recorded with the arguments of its own _sre.compile call."""
    cache = regex_start.install(tmp_path / "regex-code.bin")
    assert cache is not None
    wanted = [(f"(?P<g>{unique()})+x", flags) for flags in (0, re.IGNORECASE, re.MULTILINE, re.ASCII) for _ in range(5)]
    threads = [threading.Thread(target=re.compile, args=w) for w in wanted]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    regex_start.uninstall()
    assert set(cache.new) == {(str, p, int(f)) for p, f in wanted}
    for (_kind, p, f), (_, flags, *args) in cache.new.items():
        assert flags == f
        assert regex_start._sre.compile(p, *args) == re._compiler.compile(p, f)  # type: ignore[attr-defined]


def test_nothing_is_written_when_bytecode_is_not(tmp_path: Path, fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    path = tmp_path / "regex-code.bin"
    cache = regex_start.install(path)
    assert cache is not None
    re.compile(f"never-written-{unique()}")
    cache.save()
    assert not path.exists()


def test_debug_compiles_are_not_kept(tmp_path: Path, fresh: None) -> None:
    cache = regex_start.install(tmp_path / "regex-code.bin")
    assert cache is not None
    re.compile(f"debug-{unique()}", re.DEBUG)  # prints its code (captured); re never caches it
    assert cache.new == {}


def _good_entry(tmp_path: Path, fresh: None) -> tuple[regex_start.Key, regex_start.Entry]:
    cache = regex_start.install(tmp_path / "probe.bin")
    assert cache is not None
    re.compile(f"good-{unique()}(a|b)")
    regex_start.uninstall()
    [(key, entry)] = cache.new.items()
    return key, entry


@pytest.mark.parametrize("damage", ["garbage", "truncated", "not-a-list", "wrong-shape", "bad-code", "odd-code-bytes", "code-as-a-list"])
def test_a_bad_file_or_entry_is_ignored(tmp_path: Path, fresh: None, damage: str) -> None:
    key, good = _good_entry(tmp_path, fresh)
    pattern, flags, final, code, groups, groupindex, indexgroup = good
    bad_code = (f"bad-{unique()}", 0, final, [1, 2, 3], 0, {}, ())
    stored = regex_start._stored(good)
    odd = (bad_code[0], 0, final, b"\x01\x02\x03", 0, {}, ())  # not whole 32-bit words
    body = {
        "garbage": b"not marshal at all",
        "truncated": marshal.dumps([stored])[:-3],
        "not-a-list": marshal.dumps({"a": 1}),
        "wrong-shape": marshal.dumps([(pattern, flags), stored]),
        "bad-code": marshal.dumps([regex_start._stored(bad_code), stored]),
        "odd-code-bytes": marshal.dumps([odd, stored]),
        "code-as-a-list": marshal.dumps([bad_code, stored]),  # the first format's entry
    }[damage]
    path = tmp_path / "regex-code.bin"
    path.write_bytes(regex_start.HEADER + body)
    re.purge()
    cache = regex_start.install(path)
    assert cache is not None
    seeded = key in re._cache  # type: ignore[attr-defined]
    assert seeded == (damage not in ("garbage", "truncated", "not-a-list"))  # the good entry beside a bad one still serves
    assert (str, bad_code[0], 0) not in re._cache  # type: ignore[attr-defined]
    assert re.compile(pattern).fullmatch(pattern.split("(")[0] + "a") is not None


def test_the_file_holds_each_matchers_code_as_words(tmp_path: Path, fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The code is written as one string of 32-bit words and read back as the same ints the
    compiler handed _sre (so a kept pattern equals a fresh compile, tested above)."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "regex-code.bin"
    cache = regex_start.install(path)
    assert cache is not None
    re.compile(f"words-{unique()}(x|y)+")
    regex_start.uninstall()
    cache.save()
    [(key, entry)] = cache.new.items()
    [raw] = marshal.loads(path.read_bytes()[len(regex_start.HEADER) :])
    assert type(raw[3]) is bytes and len(raw[3]) == 4 * len(entry[3])
    assert regex_start.read(path) == {key: entry}


def test_an_unwritable_place_leaves_the_run_alone(tmp_path: Path, fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cache = regex_start.install(blocker / "sub" / "regex-code.bin")  # a directory under a file
    assert cache is not None
    re.compile(f"unwritable-{unique()}")
    cache.save()  # no exception
    assert blocker.read_text() == "x"


def test_the_command_line_installs_it_and_the_library_does_not() -> None:
    probe = (
        "import re, kschedctl.api.types; a = hasattr(re._compiler.compile, '__wrapped__'); "
        "import kschedctl.cli; print(a, hasattr(re._compiler.compile, '__wrapped__'))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]


# The real command run twice, its patterns kept by the first and compiled by neither second:
# tests/test_startup.py's test_a_run_of_the_command_line_writes_and_reuses_it, for both caches.
