"""PyYAML's one costly line at import, made cheap before PyYAML is imported.

``yaml.reader.Reader`` compiles ``NON_PRINTABLE``, a character class of everything YAML may not
contain, when the module is imported. The class is written as its complement's ranges
(``[^\\x09\\x0A\\x0D\\x20-\\x7E\\x85\\xA0-\\uD7FF\\uE000-\\uFFFD\\U00010000-\\U0010ffff]``), and
``re``'s compiler walks every code point of a range below U+FFFF in Python: some 63,000 steps,
~60 M instructions and ~7 ms, every run that reads a YAML file (a configuration always does).
The same set written as the characters it holds (C0 controls but tab, line feed and carriage
return; DEL to U+009F but U+0085; the surrogates; U+FFFE and U+FFFF) compiles in ~1 ms, and
matches exactly the same code points (tests/test_yaml_start.py runs both over all 1,114,112).

``re.compile`` looks a pattern up in the module's cache, keyed by the pattern's type, text and
flags, before compiling it (CPython 3.11 to 3.13 alike). :func:`install` puts the cheap compile
under PyYAML's text there the moment PyYAML is about to be imported (a finder at the head of
``sys.meta_path`` that only watches for ``yaml`` and then leaves), so a run that reads no YAML
pays nothing. Where the cache is not a dict keyed that way (another Python), nothing is put
there and PyYAML compiles its own pattern as before: only the time differs. Only the command
line installs it (``kschedctl.cli``).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

# yaml/reader.py, Reader.NON_PRINTABLE: its text, character for character
YAML_NON_PRINTABLE = "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
# the same set of code points, listed instead of excluded
NON_PRINTABLE_LISTED = "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]"


def seed() -> bool:
    """Puts the listed form's compile in ``re``'s cache under PyYAML's text (True), unless that
    text is there already or the cache is not the dict it is in CPython 3.11 to 3.13 (False)."""
    cache = getattr(re, "_cache", None)
    if not isinstance(cache, dict):
        return False
    key = (str, YAML_NON_PRINTABLE, 0)
    if key in cache:
        return False
    cache[key] = re.compile(NON_PRINTABLE_LISTED)
    return True


class _BeforeYAML:
    """A meta path finder that finds nothing: on the first import of ``yaml`` it seeds the
    cache, takes itself off ``sys.meta_path`` and lets the usual finders find the package."""

    @classmethod
    def find_spec(cls, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None) -> ModuleSpec | None:
        if name == "yaml":
            uninstall()
            seed()
        return None


def install() -> None:
    """Seeds the cache when PyYAML is first imported; nothing when it already is (its pattern
    is compiled: nothing is left to gain)."""
    if "yaml" in sys.modules or _BeforeYAML in sys.meta_path:
        return
    sys.meta_path.insert(0, _BeforeYAML)


def uninstall() -> None:
    """Takes the finder off ``sys.meta_path`` (tests; and the finder itself once it fired)."""
    while _BeforeYAML in sys.meta_path:
        sys.meta_path.remove(_BeforeYAML)
