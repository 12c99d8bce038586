"""Tables and lines fitted to the terminal (kschedctl/output/layout.py)."""

from __future__ import annotations

import pytest

from kschedctl.output.layout import Column, abbreviations, fit_table, terminal_width, wrap_cell, wrap_line


@pytest.mark.parametrize(
    "names, expected",
    [
        (["NodeResourcesFit", "TaintToleration"], {"NodeResourcesFit": "NRF", "TaintToleration": "TT"}),
        (["NodeAffinity", "NodeAffinity2"], {"NodeAffinity": "NA", "NodeAffinity2": "NA2"}),
        (["ImageLocality", "InterPodAffinity"], {"ImageLocality": "IL", "InterPodAffinity": "IPA"}),
        (["http://10.0.0.5:8888/scheduler", "http://b/x"], {"http://10.0.0.5:8888/scheduler": "E1", "http://b/x": "E2"}),
        (["NRF", "NodeResourcesFit"], {"NRF": "NRF", "NodeResourcesFit": "NRF2"}),
    ],
    ids=["plugins", "numbered", "acronyms", "extender-urls", "collision"],
)
def test_abbreviations(names, expected):
    assert abbreviations(names) == expected


@pytest.mark.parametrize(
    "text, width, lines",
    [
        ("Insufficient cpu, Insufficient memory", 20, ["Insufficient cpu,", "Insufficient memory"]),
        ("PreFilter,Filter,PostFilter", 12, ["PreFilter,", "Filter,", "PostFilter"]),
        ("abcdefghij klm", 4, ["abcd", "efgh", "ij", "klm"]),
        ("short", 20, ["short"]),
        ("", 5, [""]),
    ],
    ids=["at-spaces", "at-commas", "long-word-cut", "fits", "empty"],
)
def test_wrap_cell(text, width, lines):
    assert wrap_cell(text, width).split("\n") == lines


def test_wrap_line_indents_continuations():
    text = "shop/web: 0/3 nodes are available: 3 Insufficient cpu."
    assert wrap_line(text, None) == text
    assert wrap_line(text, 30).split("\n") == ["shop/web: 0/3 nodes are", "  available: 3 Insufficient", "  cpu."]


ROWS = [
    ["ip-10-0-1-11.eu-west-1.compute.internal", "Unschedulable: NodeResourcesFit: Insufficient cpu", "", 7],
    ["ip-10-0-1-12.eu-west-1.compute.internal", "fits", "100x3", 405],
]
COLUMNS = [Column("NODE", common_suffix=True), Column("FILTER", wrap=True), Column("TaintToleration", abbreviate=True), Column("TOTAL")]


def test_a_table_that_fits_is_tabulate_s():
    table = fit_table(COLUMNS, ROWS, 500)
    assert table.legend == []
    assert table.text.splitlines()[0].split() == ["NODE", "FILTER", "TaintToleration", "TOTAL"]


@pytest.mark.parametrize("width", [60, 70, 80], ids=["60", "70", "80"])
def test_a_narrow_table_drops_the_shared_domain_abbreviates_and_wraps(width):
    table = fit_table(COLUMNS, ROWS, width)
    assert all(len(line) <= width for line in table.text.splitlines())
    assert "node names end in .eu-west-1.compute.internal" in table.legend
    assert "ip-10-0-1-11  " in table.text
    words = " ".join(table.text.split())
    assert all(w in words for w in ("Unschedulable:", "NodeResourcesFit:", "Insufficient", "cpu"))


def test_numbers_stay_right_aligned_after_fitting():
    table = fit_table(COLUMNS, ROWS, 60)
    lines = table.text.splitlines()
    assert lines[0].rstrip().endswith("TOTAL")
    assert any(line.endswith("  405") for line in lines)


def test_terminal_width_prefers_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "123")
    assert terminal_width() == 123
    monkeypatch.setenv("COLUMNS", "junk")
    assert terminal_width() is None  # and pytest's stdout is not a terminal
