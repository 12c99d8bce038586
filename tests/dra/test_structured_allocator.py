"""The structured allocator against upstream's own test table, translated case by case
(staging/src/k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting/
allocator_testing.go, TestAllocator). Each case runs with its features on and each release's
non-gate behaviour (1.35: pools in kube's map order, no rollback fixes; 1.36+: sorted pools,
accounting fixes). Cases not translated are listed in docs/dra.md with the reason."""

from __future__ import annotations

import pytest

from .allocator_cases_1 import CASES as CASES_1
from .allocator_cases_2 import CASES as CASES_2
from .allocator_cases_3 import CASES as CASES_3
from .allocator_cases_4 import CASES as CASES_4
from .allocator_cases_5 import CASES as CASES_5
from .allocator_cases_6 import CASES as CASES_6
from .allocator_cases_7 import CASES as CASES_7
from .allocator_cases_8 import CASES as CASES_8
from .allocator_cases_9 import CASES as CASES_9
from .allocator_cases_10 import CASES as CASES_10
from .allocator_harness import RELEASES, run_case

CASES = [*CASES_1, *CASES_2, *CASES_3, *CASES_4, *CASES_5, *CASES_6, *CASES_8, *CASES_9, *CASES_10, *CASES_7]


@pytest.mark.parametrize("release", list(RELEASES))
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_allocator_table(case, release):
    run_case(case, release)


def test_case_names_are_unique():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names))
