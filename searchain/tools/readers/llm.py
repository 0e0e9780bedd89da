"""The ``llm`` reader: the chat model itself copies an answer span from the passage.

For deployments with no reader weights. Its confidence is the probability the model gave the
span's tokens where the model returns log-probabilities (llama.cpp, OpenAI-compatible servers),
else the model's own 0-1 rating; each reading says which (``calibrated``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.constants import TAG_NOSTREAM

from searchain.pool import MAX_CONCURRENCY
from searchain.prompts import feedback_template, render
from searchain.text import normalize_answer
from searchain.tools.llms.generate import reply_text
from searchain.tools.readers.batch import PairReader
from searchain.tools.readers.span import passage_span
from searchain.types import Passage, ReaderAnswer

_LLM_ANSWER = re.compile(r"answer\s*[:：]\s*(?P<answer>[^\n]*)", re.I)

_LLM_CONFIDENCE = re.compile(r"confidence\s*[:：]\s*(?P<conf>[0-9]*\.?[0-9]+)", re.I)

READER_TAG = "searchain:reader"
"""Tag on the chat calls an :class:`LLMReader` makes."""


class LLMReader(PairReader):
    """The chat model itself reads the passage (no reader weights needed).

    Its confidence is calibrated where the model returns token log-probabilities (llama.cpp,
    OpenAI-compatible servers): the probability the model gave the span it copied, the product
    of its tokens' probabilities. θ is then a probability: 0.5 corrects the LLM only when the
    reader was more likely than not to copy exactly that span. Other models rate themselves from
    0 to 1 in the reply (uncalibrated; θ means what the model thinks it means).
    """

    threshold = 0.5

    def __init__(self, llm: BaseChatModel, *, calibrated: bool | None = None) -> None:
        if calibrated is not False and hasattr(llm, "for_reading"):
            llm = llm.for_reading()  # a llama.cpp model: its copy that returns log-probabilities
        self.llm = llm
        self.calibrated = returns_logprobs(llm) if calibrated is None else calibrated

    def read_pairs(self, queries: Sequence[str], passages: Sequence[Passage]) -> list[ReaderAnswer]:
        """One chat call per pair, all sent at once through the model's ``batch``."""
        prompts = [
            [HumanMessage(render(feedback_template("reader"), query=q, reference=shown(p)))]
            for q, p in zip(queries, passages, strict=True)
        ]
        # Tagged so that usage accounting can tell reading apart from reasoning, and kept out of
        # LangGraph's messages stream (a chat front-end shows only the person's reply); a blank
        # line ends the two-line reply (small models otherwise repeat themselves to the limit).
        tags = [READER_TAG, TAG_NOSTREAM]
        config: RunnableConfig = {"tags": tags, "max_concurrency": MAX_CONCURRENCY}
        extra = {"logprobs": True, "top_logprobs": 1} if self.calibrated else {}
        replies = (
            self.llm.batch(prompts, config=config, stop=STOP, max_tokens=MAX_TOKENS, **extra)
            if prompts
            else []
        )
        return [
            self.parse(
                reply_text(r),
                p.as_reference(),
                token_logprobs(r),
                calibrated=self.calibrated,
                query=q,
            )
            for r, p, q in zip(replies, passages, queries, strict=True)
        ]

    @staticmethod
    def parse(
        reply: str,
        passage_text: str,
        logprobs: list[tuple[str, float]] | None = None,
        *,
        calibrated: bool = False,
        query: str = "",
    ) -> ReaderAnswer:
        """Read ``Answer:``/``Confidence:`` lines; a span absent from the passage scores 0.

        A line that is not itself a span of the passage (a sentence restating the ``query``
        around one) is cut to the span it holds (:mod:`searchain.tools.readers.span`).

        A ``calibrated`` reader's confidence is the span's probability from the reply's token
        ``logprobs``; when that cannot be measured (no log-probabilities came back, or their
        tokens do not spell the span) the reading scores 0 and says ``calibrated=False``, rather
        than mixing the self-rating into a probability scale. An uncalibrated reader's
        confidence is the self-rating (``calibrated=False``).
        """
        found = _LLM_ANSWER.search(reply)
        answer = (found.group("answer") if found else reply.strip().split("\n")[0]).strip(" .\"'")
        if normalize_answer(answer) in ("", "none"):
            return ReaderAnswer("", 0.0, calibrated)
        if normalize_answer(answer) not in normalize_answer(passage_text):
            answer = passage_span(answer, query, passage_text)
        if normalize_answer(answer) not in normalize_answer(passage_text):
            return ReaderAnswer(answer, 0.0, calibrated)
        if calibrated:
            probability = span_probability(logprobs, answer) if logprobs else None
            if probability is None:
                return ReaderAnswer(answer, 0.0, calibrated=False)
            return ReaderAnswer(answer, probability)
        conf = _LLM_CONFIDENCE.search(reply)
        rating = min(max(float(conf.group("conf")), 0.0), 1.0) if conf else 0.5
        return ReaderAnswer(answer, rating, calibrated=False)


STOP = ["\n\n"]

MAX_TOKENS = 48
"""The reader's reply is two short lines."""

MAX_PASSAGE_CHARS = 4000
"""The part of a passage an LLM reader is shown (about 1,000 tokens), as DPR reads its first 384
tokens: a very long document would otherwise overflow a local model's context and end the run."""


def shown(passage: Passage) -> str:
    """The passage as the LLM reader sees it: ``title: text``, cut at ``MAX_PASSAGE_CHARS``."""
    return passage.as_reference()[:MAX_PASSAGE_CHARS]


def returns_logprobs(llm: BaseChatModel) -> bool:
    """Whether the chat model returns token log-probabilities when asked (``logprobs=True``)."""
    if type(llm).__name__ == "LlamaCppChatModel":
        return bool(getattr(llm, "logits_all", False))
    return any(c.__name__ in ("ChatOpenAI", "AzureChatOpenAI") for c in type(llm).__mro__)


def token_logprobs(message: Any) -> list[tuple[str, float]] | None:
    """The reply's (token, log-probability) pairs, in OpenAI's chat format, when it has them."""
    content = ((getattr(message, "response_metadata", None) or {}).get("logprobs") or {}).get(
        "content"
    )
    if not content:
        return None
    return [(str(t.get("token", "")), float(t.get("logprob", 0.0))) for t in content]


def span_probability(logprobs: list[tuple[str, float]], span: str) -> float | None:
    """P(span): the product of the probabilities of the tokens that spell ``span``.

    The span is looked for after ``Answer:`` in the reply the tokens spell; ``None`` when it is
    not there.
    """
    text = "".join(token for token, _ in logprobs)
    marker = _LLM_ANSWER.search(text)
    at = text.lower().find(span.lower(), marker.start("answer") if marker else 0)
    if at < 0:
        return None
    total, position = 0.0, 0
    for token, logprob in logprobs:
        if position < at + len(span) and position + len(token) > at:
            total += logprob
        position += len(token)
    return math.exp(total)
