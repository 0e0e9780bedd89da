"""The small interfaces the graph needs from the outside world, and the passage they share.

Any object with the right method plugs in: the embedded BM25 index, Elasticsearch, a LangChain
retriever, a DPR reader, an NLI verifier, a test double. Keeping them this small is what lets
tests and users swap components without touching the graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


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
