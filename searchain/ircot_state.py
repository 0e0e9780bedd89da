"""IRCoT's state: the question, the paragraphs collected so far, and the chain of thought."""

from __future__ import annotations

from dataclasses import dataclass, field

from searchain.state import InputState, ThreadSettings
from searchain.tools.base import Passage


@dataclass(kw_only=True)
class IRCoTOutput(InputState):
    """What an IRCoT run returns."""

    answer: str = ""
    """The answer of the answer step."""
    cot: list[str] = field(default_factory=list)
    """The chain of thought, one sentence per reasoning step."""
    paragraphs: list[Passage] = field(default_factory=list)
    """Every paragraph retrieved, in order of first retrieval, at most ``ircot_max_paragraphs``."""
    steps: int = 0
    """Reasoning steps taken (bounded by ``ircot_max_steps``)."""
    queries: list[str] = field(default_factory=list)
    """The retrieval queries: the question, then each new reasoning sentence."""


@dataclass(kw_only=True)
class IRCoTState(IRCoTOutput, ThreadSettings):
    """IRCoT's working state (no more than its output)."""
