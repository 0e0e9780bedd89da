"""The small interfaces the graph needs from the outside world, and the passage they share.

Any object with the right method plugs in: the embedded BM25 index, Elasticsearch, a LangChain
retriever, a DPR reader, an NLI verifier, a test double. Keeping them this small is what lets
tests and users swap components without touching the graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class Source:
    """Where in a person's own document a passage was cut from (see :mod:`searchain.documents`).

    Benchmark corpora have none; a passage indexed from a PDF, a web page, Markdown, a Word or a
    text file has one, so a citation names the file and page a person can open.
    """

    path: str
    """The file's path relative to the folder that was indexed (``/`` between folders), or an
    uploaded file's name."""
    page: int | None = None
    """The PDF page the passage is on, from 1; None for other formats."""
    section: str = ""
    """The headings above the passage, outermost first, joined by `` › `` (HTML, Markdown,
    DOCX); empty before the first heading and for PDF and plain text."""
    anchor: str = ""
    """The fragment that opens the section: an HTML ``id``, a Markdown heading's slug as GitHub
    makes it, a DOCX bookmark; empty if it has none."""
    start: int = 0
    """Offset of the passage's first character in the text searchain extracted from the
    document (from its page, for a PDF)."""
    end: int = 0
    """Offset just past the passage's last character, in the same text."""
    sent: bool = False
    """A file sent in a message (a thread's own): ``path`` is its name, and no folder holds it,
    so nothing links to it."""

    @classmethod
    def of(cls, stored: object) -> Source | None:
        """A source from its stored JSON object, or None for anything that is not one.

        Fields another release added are left out; a value of the wrong type (a foreign
        Elasticsearch index's own ``source`` field, a hand-edited result file) makes it none,
        so a passage or page shows its id instead of failing.
        """
        if not isinstance(stored, dict):
            return None
        known = {f.name: f.type for f in fields(cls)}
        values = {k: v for k, v in stored.items() if k in known}
        text = ("path", "section", "anchor")
        if not isinstance(values.get("path"), str) or not all(
            isinstance(values.get(k, ""), str) for k in text
        ):
            return None
        numbers = [values.get("start", 0), values.get("end", 0), values.get("page") or 0]
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
            return None
        if not isinstance(values.get("sent", False), bool):
            return None
        return cls(**values)

    def cite(self) -> str:
        """How a person finds it: ``report.pdf, p. 12`` or ``guide.md § Setup › Server``."""
        if self.page is not None:
            return f"{self.path}, p. {self.page}"
        return f"{self.path} § {self.section}" if self.section else self.path

    def fragment(self) -> str:
        """The URL fragment that opens the file where the passage is (``#page=12``), or ``""``."""
        if self.page is not None:
            return f"#page={self.page}"
        return f"#{self.anchor}" if self.anchor else ""


@dataclass(frozen=True)
class Passage:
    """A retrieved passage."""

    id: str
    """Stable id in the corpus; what a citation resolves to."""
    title: str
    """Title of the source document (may be empty)."""
    text: str
    """The passage text."""
    score: float = 0.0
    """Retrieval score (BM25 or the backend's own); higher is better."""
    source: Source | None = None
    """The file, page and section it was cut from; None for a benchmark corpus's passage."""

    def as_reference(self) -> str:
        """The passage as it is shown to a model: ``title: text``."""
        return f"{self.title}: {self.text}" if self.title else self.text


@dataclass(frozen=True)
class ReaderAnswer:
    """What a reader extracted from one passage for one query."""

    answer: str
    """The answer span (empty when the reader found none)."""
    confidence: float
    """The reader's confidence, on the reader's own scale (see ``Reader.threshold``)."""
    calibrated: bool = True
    """Whether ``confidence`` was measured on that scale (a DPR logit, a span probability).
    ``False`` for an LLM reader's self-rating, or a span probability that could not be measured
    (then ``confidence`` is 0, so it never overrides the LLM)."""


@runtime_checkable
class Retriever(Protocol):
    """Query in, ranked passages out."""

    def search(self, query: str, k: int = 1) -> list[Passage]:
        """Return up to ``k`` passages, best first."""
        ...


@runtime_checkable
class Reader(Protocol):
    """(query, passage) in, answer span and confidence out."""

    threshold: float
    """Default confidence threshold θ on this reader's scale (1.5 for DPR relevance logits)."""

    def read(self, query: str, passages: Sequence[Passage]) -> list[ReaderAnswer]:
        """Read each passage for ``query``; one answer per passage, in order."""
        ...


@runtime_checkable
class Verifier(Protocol):
    """(passage, step) in, whether the passage states the step's answer out."""

    name: str
    """How reports name it (``lexical``, ``nli:MODEL``)."""

    def verdict(
        self,
        passage: Passage,
        query: str,
        answer: str,
        reader_answer: str = "",
        *,
        long_form: bool,
        alpha: float,
    ) -> str:
        """``stated``, ``unstated`` or ``unverifiable`` (see :mod:`searchain.support`)."""
        ...


def is_whole(value: object, least: int) -> bool:
    """Whether ``value`` is a whole number (an int, not a bool) of at least ``least``.

    What a count setting takes: 2.5, 1.0, True, "2" and None are not.
    """
    return isinstance(value, int) and not isinstance(value, bool) and value >= least
