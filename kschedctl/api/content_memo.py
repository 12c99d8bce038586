"""Results of pure functions of JSON-shaped documents, kept by the document's content.

A snapshot of a real cluster repeats itself: a Deployment's thousand replicas carry the same
affinity and the same container resources, and the validation (ValidatePodCreate) and
decoding of each such subdocument cost more than the rest of the pod. A function that depends
only on its document and path (and raises on bad input) is asked once per distinct content.

The content is named by ``repr``: for what JSON and YAML decode to (dict, list, str, int,
float, bool, None, and YAML's dates), it tells every type and value apart (1, 1.0, True and
"1" differ; so do NaN and None). With orjson installed (extra "fast") most documents are named
by their JSON text instead, five times faster to make: the same distinctions hold for a text
without ``null`` (None, NaN and infinities all print as null) made without help (a date, a
subclass, a non-string key or an integer past 64 bits makes orjson refuse, and ``repr`` names
the document). A text (bytes) never equals a repr (str). An exception is never kept: bad input
fails every time.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

try:
    import orjson

    _dumps: Any = orjson.dumps
    _EXACT = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS
except ImportError:  # pragma: no cover - the "fast" extra is not installed
    _dumps = None
    _EXACT = 0

T = TypeVar("T")

# Entries per memo; a memo that fills is emptied (inputs with this many distinct documents
# gain little from it).
LIMIT = 4096

_MISSING = object()


def by_content(kept: dict[Hashable, Any], fn: Callable[..., T], doc: Any, where: str, *args: Hashable) -> T:
    """``fn(doc, where, *args)``, or what it returned before for an equal ``doc`` at the same
    ``where`` with the same ``args``. Only a dict document is kept (other values go straight
    to ``fn``, which words their type error). What is returned is shared: it must not be
    mutated."""
    if type(doc) is not dict:
        return fn(doc, where, *args)
    key = (where, content_key(doc), args)
    found = kept.get(key, _MISSING)
    if found is not _MISSING:
        value: T = found
        return value
    value = fn(doc, where, *args)
    remember(kept, key, value)
    return value


def remember(kept: dict[Any, Any], key: Hashable, value: Any) -> None:
    """``kept[key] = value`` in a memo bounded as this module's are (LIMIT entries, emptied
    when full)."""
    if len(kept) >= LIMIT:
        kept.clear()
    kept[key] = value


def replica_spec(spec: dict[str, Any]) -> dict[str, Any] | None:
    """A pod's spec as the replicas of its template share it, to key what is read from it:
    without nodeName (each replica's own node); None when it has volumes or resourceClaims,
    which are the pod's own (its Volume objects and claim entries; their admission reads the
    pod's name). Pod.from_dict and admit_pod key their memos by it."""
    if "volumes" in spec or "resourceClaims" in spec:
        return None
    if "nodeName" not in spec:
        return spec
    return {k: v for k, v in spec.items() if k != "nodeName"}


def _refuse(value: Any) -> Any:
    """orjson's ``default``: no help, so that anything it does not print itself is refused."""
    raise TypeError


def content_key(doc: Any) -> bytes | str:
    """A name for the content of a decoded document: equal for equal documents, different
    for different ones (the module's docstring says how)."""
    if _dumps is not None:
        try:
            text: bytes = _dumps(doc, default=_refuse, option=_EXACT)
        except TypeError:  # orjson.JSONEncodeError is one
            return repr(doc)
        if b"null" not in text:
            return text
    return repr(doc)
