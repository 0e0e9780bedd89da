"""What an index holds of a person's documents, and what an update found: records both sides use.

The documents layer (:mod:`searchain.documents`) walks and reads files into these records; the
engine (:mod:`searchain.tools.retrieval`) stores them in a documents index and compares them on
``update``. Neither imports the other: the engine is handed a walk (:class:`Walk`) that any
object satisfies, :class:`searchain.documents.collection.Documents` among them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from searchain.types import Passage


@dataclass(frozen=True)
class Indexed:
    """A document an index holds: where, which content, how many passages."""

    path: str
    """Relative to the root, as in its passages' sources."""
    sha256: str
    """Its bytes' SHA-256, hex: an update re-reads the file only when this changes."""
    passages: int
    """Its passages, consecutive in the index."""


def content_hash(data: bytes) -> str:
    """A file's SHA-256, hex (how an update tells a changed file from an unchanged one)."""
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Changes:
    """What an update found, in documents."""

    added: int
    """Files new to the index."""
    changed: int
    """Files whose content changed: read again."""
    removed: int
    """Files the index held that are gone, or can no longer be read."""
    kept: int
    """Files unchanged: not read again."""

    @property
    def any(self) -> bool:
        """Whether anything changed."""
        return bool(self.added or self.changed or self.removed)

    def __str__(self) -> str:
        return (
            f"{self.added} added, {self.changed} changed, {self.removed} removed, "
            f"{self.kept} unchanged"
        )


Compared = list[tuple[Indexed, list[Passage] | None]]
"""Each live document in walk order, with its passages if it was read now (new or changed), or
None if the index holds it unchanged."""


@runtime_checkable
class Described(Protocol):
    """Passages that are documents, as a walk reads them.

    A documents index records their settings and which documents it holds, for an update.
    """

    @property
    def indexed(self) -> Sequence[Indexed]:
        """The documents read, in index order (complete once the passages are iterated)."""
        ...

    def settings(self) -> dict[str, Any]:
        """What an update needs to walk and split the same way."""
        ...


class Walk(Described, Protocol):
    """Documents walked again for an update: compared with what the index holds."""

    def __iter__(self) -> Iterator[Passage]: ...

    def compare(
        self, held: dict[str, tuple[str, int]], progress: Callable[[int], None] | None = None
    ) -> tuple[Compared, Changes]:
        """The files against what an index holds (``{path: (sha256, passages)}``)."""
        ...

    def problems(self) -> list[str]:
        """Why each skipped file was skipped, one line each."""
        ...
