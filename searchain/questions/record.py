"""What a question of a data set is, whichever data set: the record every run and check reads.

Loading one from ``../shared/data`` is :mod:`searchain.eval.datasets`' job.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Hop:
    """One gold sub-question of a MuSiQue record, earlier hop answers substituted."""

    question: str
    """The sub-question with ``#1``, ``#2``… replaced by the earlier hops' answers."""
    answer: str
    """The hop's gold answer."""
    gold: tuple[str, str]
    """The supporting paragraph, ``(title, text)``."""


@dataclass(frozen=True)
class Record:
    """One evaluation question, whichever data set it comes from."""

    dataset: str
    """Data set name (musique, hotpotqa, 2wikimultihopqa, strategyqa, fever)."""
    id: str
    """The data set's own id."""
    question: str
    """The question, or the claim for fact checking."""
    answers: tuple[str, ...]
    """The gold answer first, then its aliases (a label for yes/no and fact checking)."""
    task: str
    """Prompt family: qa, yesno or factcheck."""
    gold_paragraphs: tuple[tuple[str, str], ...] = ()
    """Supporting paragraphs as ``(title, text)``, where the data has them."""
    hops: tuple[Hop, ...] = ()
    """Gold sub-questions (MuSiQue), earlier answers substituted."""
