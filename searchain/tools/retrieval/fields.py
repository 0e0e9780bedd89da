"""Fields of the documents search backends return, named as users name them (dotted paths)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def lookup(record: Mapping[str, Any], path: str) -> Any:
    """A field of a document: a flat key, or a dotted path into nested objects; ``None`` if absent.

    Search backends return documents as nested JSON (Elasticsearch's ``_source``, a LangChain
    document's ``metadata``), and users name their fields as dotted paths (``meta.title``).
    """
    if path in record:
        return record[path]
    value: Any = record
    for part in path.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value
