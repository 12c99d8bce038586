"""kschedctl/runtime/entry_points.py lists a group's entry points exactly as
importlib.metadata.entry_points(group=...) does (Python's importlib/metadata: FastPath, Lookup,
Prepared.normalize, Sectioned, Pair, EntryPoint.load), without importing it: on this
environment's real sys.path, and on made-up layouts (shadowed and differently spelled
distributions, comments and odd spacing in entry_points.txt, egg-info directories, metadata it
does not read itself, a zip file on sys.path, a malformed pair).
"""

from __future__ import annotations

import importlib.metadata
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from kschedctl.runtime import entry_points as fast


@pytest.fixture(autouse=True)
def path_finder_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the standard path finder answers distribution queries, as in a plain run. A library
    the test process imported may have changed that: the importlib_metadata backport (imported
    by dask) adds its own finder to sys.meta_path and deletes the path finder's; the reader then
    leaves the question to importlib.metadata (test_a_foreign_distribution_finder_is_left_to_importlib)."""
    from importlib.machinery import PathFinder

    monkeypatch.setattr(sys, "meta_path", [f for f in sys.meta_path if f is PathFinder or not hasattr(f, "find_distributions")])
    if not hasattr(PathFinder, "find_distributions"):
        monkeypatch.setattr(
            PathFinder, "find_distributions", staticmethod(importlib.metadata.MetadataPathFinder.find_distributions), raising=False
        )


def _view(eps: Any) -> list[tuple[str, str, str, str, str]]:
    return [(ep.name, ep.value, ep.group, ep.dist.name, ep.dist.version) for ep in eps]


def _both(group: str) -> tuple[list, list]:
    return _view(fast.entry_points(group)), _view(importlib.metadata.entry_points(group=group))


@pytest.mark.parametrize("group", ["kschedctl", "console_scripts", "pytest11", "no-such-group"])
def test_this_environment_reads_the_same(group: str) -> None:
    found = fast._scan(group)  # the reader itself, no fallback
    assert _view(found) == _view(importlib.metadata.entry_points(group=group))


def _dist(root: Path, dirname: str, entry_points: str | None, metadata: str | None = None, metadata_file: str = "METADATA") -> None:
    d = root / dirname
    d.mkdir(parents=True)
    stem = dirname.rsplit(".", 1)[0]
    name, _, version = stem.partition("-")
    (d / metadata_file).write_text(
        metadata
        if metadata is not None
        else f"Metadata-Version: 2.1\nName: {name}\nVersion: {version or '0'}\n\nA description: with a colon\n"
    )
    if entry_points is not None:
        (d / "entry_points.txt").write_text(entry_points)


LAYOUTS: dict[str, Any] = {
    "shadowed-and-spelled-differently": lambda a, b: (
        _dist(a, "Foo_Bar-1.0.dist-info", "[kschedctl]\nfoo = foo_mod\n"),
        _dist(b, "foo.bar-2.0.dist-info", "[kschedctl]\nfoo = foo_mod_two\n"),
        _dist(b, "other-1.0.dist-info", "[kschedctl]\nother = other_mod:Hooks\n"),
    ),
    "comments-spacing-sections": lambda a, b: (
        _dist(
            a,
            "spaced-3.1.dist-info",
            "ignored = before any section\n\n# a comment\n[console_scripts]\n"
            "x = y:z\n[kschedctl]\n  # indented comment\n   alpha=  alpha_mod : Obj.attr  \nbeta = beta_mod [extra]\n"
            "[kschedctl]\ngamma = gamma_mod\n[ kschedctl ]\nnot = this_one\n",
        ),
    ),
    "egg-info-and-no-entry-points": lambda a, b: (
        _dist(a, "eggy-0.5.egg-info", "[kschedctl]\neggy = eggy_mod\n", metadata_file="PKG-INFO"),
        _dist(a, "plain-1.0.dist-info", None),
        _dist(b, "empty-1.0.dist-info", ""),
    ),
    "metadata-it-leaves-to-importlib": lambda a, b: (
        _dist(
            a,
            "folded-1.0.dist-info",
            "[kschedctl]\nfolded = folded_mod\n",
            metadata="Metadata-Version: 2.1\nName: folded\nSummary: one\n  two\nVersion: 1.0\n",
        ),
        _dist(b, "nameless-4.0.dist-info", "[kschedctl]\nnameless = nameless_mod\n", metadata="Metadata-Version: 2.1\nVersion: 4.0\n"),
    ),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_made_up_layouts_read_the_same(layout: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    LAYOUTS[layout](a, b)
    monkeypatch.setattr(sys, "path", [str(a), str(tmp_path / "missing"), str(b)])
    for group in ("kschedctl", "console_scripts"):
        scanned = _view(fast._scan(group))
        assert scanned == _view(importlib.metadata.entry_points(group=group))
    assert fast._scan("kschedctl")  # something was found: the comparison is not between two empty lists


def test_a_zip_file_on_sys_path_is_left_to_importlib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("zipped-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: zipped\nVersion: 1.0\n")
        zf.writestr("zipped-1.0.dist-info/entry_points.txt", "[kschedctl]\nzipped = zipped_mod\n")
    monkeypatch.setattr(sys, "path", [str(archive)])
    with pytest.raises(fast._Unsupported):
        fast._scan("kschedctl")
    got, want = _both("kschedctl")
    assert got == want == [("zipped", "zipped_mod", "kschedctl", "zipped", "1.0")]


def test_a_pair_without_equals_fails_as_importlib_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _dist(tmp_path, "broken-1.0.dist-info", "[kschedctl]\nno equals sign here\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    with pytest.raises(Exception) as ours:
        fast.entry_points("kschedctl")
    with pytest.raises(Exception) as theirs:
        importlib.metadata.entry_points(group="kschedctl")
    assert type(ours.value) is type(theirs.value)


def test_load_resolves_module_and_attributes_as_importlib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ep_target_mod.py").write_text("class Obj:\n    class attr:\n        pass\n")
    _dist(tmp_path, "target-1.0.dist-info", "[kschedctl]\nmod = ep_target_mod\nattr = ep_target_mod : Obj.attr [x]\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    ours = {ep.name: ep.load() for ep in fast._scan("kschedctl")}
    theirs = {ep.name: ep.load() for ep in importlib.metadata.entry_points(group="kschedctl")}
    assert ours == theirs and ours["attr"].__qualname__ == "Obj.attr"


def test_a_foreign_distribution_finder_is_left_to_importlib(monkeypatch: pytest.MonkeyPatch) -> None:
    class Finder:
        def find_spec(self, *args: Any) -> None:
            return None

        def find_distributions(self, *args: Any) -> list:
            return []

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder()])
    with pytest.raises(fast._Unsupported):
        fast._scan("kschedctl")
    got, want = _both("kschedctl")
    assert got == want


def test_a_path_finder_without_distributions_is_left_to_importlib(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib.machinery import PathFinder

    monkeypatch.delattr(PathFinder, "find_distributions")
    with pytest.raises(fast._Unsupported):
        fast._scan("kschedctl")
    assert _both("kschedctl")[0] == _both("kschedctl")[1]
