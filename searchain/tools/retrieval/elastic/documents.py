"""A documents index on Elasticsearch: what each passage stores beyond its text."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import asdict
from typing import Any

from searchain.indexed import Indexed
from searchain.types import Passage

SOURCE_FIELD = "source"
"""Where a documents index keeps each passage's file, page and section (stored, not searched)."""
DOCUMENT_FIELD, DOCUMENT_HASH_FIELD = "document", "document_sha256"
"""A documents index's passages' file (relative path) and its content hash, as keywords."""


def document_actions(
    index: str, documents: Iterable[tuple[Indexed, list[Passage]]]
) -> Iterator[dict[str, Any]]:
    """Bulk actions for documents' passages.

    Each carries its source, and its document's path and content hash (what an update compares
    and deletes by).
    """
    for record, passages in documents:
        for p in passages:
            body: dict[str, Any] = {"title": p.title, "text": p.text}
            body[SOURCE_FIELD] = asdict(p.source) if p.source is not None else None
            body[DOCUMENT_FIELD], body[DOCUMENT_HASH_FIELD] = record.path, record.sha256
            yield {"_index": index, "_id": p.id, "_source": body}
