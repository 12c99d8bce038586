"""Names for decoded JSON and YAML, the one place ``Any`` is the honest type.

A manifest, a kubeconfig, a configuration file or an API response is whatever the document
holds until a decoder has checked it field by field; code that walks such raw data says so
with these names instead of a bare ``dict`` (which hides the ``Any``) or a false precise type.
"""

from __future__ import annotations

from typing import Any, TypeAlias

# A decoded JSON/YAML mapping (an object's "raw", a config section, a response body).
JSONObject: TypeAlias = dict[str, Any]
# A decoded JSON/YAML array.
JSONList: TypeAlias = list[Any]
# Any decoded JSON/YAML value: mapping, list, string, number, bool or None.
JSONValue: TypeAlias = Any

__all__ = ["JSONList", "JSONObject", "JSONValue"]
