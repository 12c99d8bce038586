"""Names for objects that only carry ``metadata.generateName``, as the API server gives them.

The API server's SimpleNameGenerator (apiserver/pkg/storage/names/generate.go) appends five
characters of utilrand's alphabet (k8s.io/apimachinery/pkg/util/rand: consonants and digits,
no vowels, no 0/1/3) to the prefix, truncated so that the name fits 63 characters. Every
upstream scheduler_perf template and many `capacity --pod` templates are written that way.
kschedctl draws the characters from the prefix and its ordinal in the input, not at random,
so that the same input always gives the same names (and --seed runs stay byte-identical).
"""

from __future__ import annotations

import random
from collections.abc import Container

ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
RANDOM_LENGTH = 5
MAX_GENERATED_NAME_LENGTH = 63 - RANDOM_LENGTH


class NameGenerator:
    """Generates names for one input: ``prefix`` + 5 characters, unique per (kind, namespace)."""

    def __init__(self) -> None:
        self._drawn: dict[str, int] = {}

    def generate(self, prefix: str, taken: Container[str] = frozenset()) -> str:
        base = prefix[:MAX_GENERATED_NAME_LENGTH]
        while True:
            ordinal = self._drawn.get(base, 0)
            self._drawn[base] = ordinal + 1
            import hashlib  # OpenSSL's, loaded by the first name that needs it

            digest = hashlib.sha256(f"{base}\x00{ordinal}".encode()).digest()
            rng = random.Random(digest)
            name = base + "".join(rng.choice(ALPHANUMS) for _ in range(RANDOM_LENGTH))
            if name not in taken:
                return name


def hashed_suffix(seed: str) -> str:
    """The five characters a generated name ends in, drawn from ``seed`` (its sha256 digest's
    first bytes, each taken modulo the alphabet): what the DRA claims the scheduler and the
    resourceclaim controller create are named with (api/podclaims.py, the DynamicResources
    plugin's extended-resource claim)."""
    import hashlib  # OpenSSL's, loaded by the first name that needs it

    digest = hashlib.sha256(seed.encode()).digest()
    return "".join(ALPHANUMS[b % len(ALPHANUMS)] for b in digest[:RANDOM_LENGTH])


def needs_generated_name(raw: object) -> str | None:
    """The generateName of an object that has no name (None otherwise)."""
    if not isinstance(raw, dict):
        return None
    md = raw.get("metadata")
    if not isinstance(md, dict) or md.get("name"):
        return None
    prefix = md.get("generateName")
    return prefix if isinstance(prefix, str) and prefix else None
