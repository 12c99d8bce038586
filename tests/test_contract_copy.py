"""The repository's copy of the user-facing contract (docs/contract.md) stays in step with the
project's shared contract document, where a checkout has it beside the repository (../shared/)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "contract.md"


def test_the_repository_carries_the_contract_and_the_readme_points_at_it() -> None:
    text = (ROOT / "docs" / "contract.md").read_text(encoding="utf-8")
    assert text.startswith("# kschedctl: the user-facing contract")
    assert "(docs/contract.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_copy_equals_the_shared_contract_where_it_is_beside_the_checkout() -> None:
    if not SHARED.is_file():
        pytest.skip("no ../shared/contract.md beside this checkout (a tarball or a user's clone)")
    assert (ROOT / "docs" / "contract.md").read_text(encoding="utf-8") == SHARED.read_text(encoding="utf-8")
