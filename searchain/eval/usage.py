"""Count what a run costs in LLM calls, words and tokens (the paper's efficiency analysis).

A LangChain callback handler sees every chat call a graph makes, whichever node makes it and
whichever model serves it, so the methods are measured alike without touching their code.
Calls an :class:`~searchain.tools.readers.LLMReader` makes are tagged and counted apart.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.outputs import LLMResult

from searchain.tools.readers.llm import READER_TAG


@dataclass
class Usage:
    """Totals for one role (reasoning LLM or LLM reader)."""

    calls: int = 0
    """Chat calls made."""
    words_in: int = 0
    """Whitespace-separated words of every message sent (the paper counts words)."""
    words_out: int = 0
    """Words of every reply."""
    tokens_in: int | None = None
    """Prompt tokens, when the model reports usage (``None`` when it never does)."""
    tokens_out: int | None = None
    """Completion tokens, when the model reports usage."""


class UsageCounter(BaseCallbackHandler):
    """Totals per role over every chat call of one run; safe across the graph's threads."""

    def __init__(self) -> None:
        self.llm = Usage()
        self.reader = Usage()
        self._role: dict[UUID, Usage] = {}
        self._lock = threading.Lock()

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        """Count the call and the words sent."""
        usage = self.reader if READER_TAG in (tags or ()) else self.llm
        words = sum(len(m.text.split()) for batch in messages for m in batch)
        with self._lock:
            self._role[run_id] = usage
            usage.calls += 1
            usage.words_in += words

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        """Count the words (and, where reported, tokens) of the reply."""
        with self._lock:
            usage = self._role.pop(run_id, self.llm)
            for generations in response.generations:
                for generation in generations:
                    usage.words_out += len(generation.text.split())
                    meta = getattr(getattr(generation, "message", None), "usage_metadata", None)
                    if meta:
                        usage.tokens_in = (usage.tokens_in or 0) + meta.get("input_tokens", 0)
                        usage.tokens_out = (usage.tokens_out or 0) + meta.get("output_tokens", 0)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Forget a failed call's role (its words in are kept: they were sent)."""
        with self._lock:
            self._role.pop(run_id, None)

    def totals(self) -> dict[str, dict[str, int | None]]:
        """``{"llm": {...}, "reader": {...}}`` as plain dicts, for a results line."""
        with self._lock:
            return {"llm": asdict(self.llm), "reader": asdict(self.reader)}
