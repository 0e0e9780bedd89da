"""The one door for LLM calls: every call bounded by its stop sequences and a token limit.

Kept apart from resolving specs (:mod:`searchain.tools.llms.resolve`) so that model classes
(llama.cpp's among them) can use the sampling settings without importing the resolver.
"""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langgraph.constants import TAG_NOSTREAM

from searchain.text import clean_text


def reply_text(message: BaseMessage) -> str:
    """The text of a chat model's reply, whatever its shape, safe to store and show.

    Text content blocks are joined (a reply of tool calls or other blocks alone has none), and
    lone surrogates, which no checkpoint or message accepts, become U+FFFD.
    """
    return clean_text(message.text)


SAMPLING_TEMPERATURE = 0.7
"""Temperature of sampled calls (CoT-SC's and Verify-and-Edit's samples, as in their papers)."""


def generate(
    llm: BaseChatModel,
    messages: Sequence[BaseMessage],
    *,
    stop: list[str],
    max_tokens: int,
    sample: int | None = None,
    stream_as: UUID | None = None,
    grammar: str | None = None,
) -> str:
    """One bounded LLM call: every call site names where the reply ends and how long it may be.

    ``max_tokens`` reaches the provider's API (OpenAI-compatible servers, llama.cpp) so that no
    reply runs on to the model's whole window; ``stop`` ends it at the prompt's next marker.
    Calls are greedy unless ``sample`` is given: then the reply is sampled at
    :data:`SAMPLING_TEMPERATURE`, with ``sample`` as the seed where the model takes one.

    Calls are internal (few-shot prompts, chains): LangGraph's ``messages`` stream never shows
    them to a chat front-end (``nostream``). With ``stream_as`` the call is a person's to see: it
    runs under that run id, and its tokens stream (into the reply whose id names that run).
    With ``grammar`` (GBNF) the reply is held to it token by token, which only a model with
    ``grammar_settings`` (llama.cpp's) can do.
    """
    settings: dict[str, object] = {}
    if sample is not None:
        sampling = getattr(llm, "sampling_settings", None)
        settings = sampling(sample) if sampling else {"temperature": SAMPLING_TEMPERATURE}
    if grammar is not None:
        constrain = getattr(llm, "grammar_settings", None)
        if constrain is None:
            raise ValueError(f"{type(llm).__name__} cannot hold a reply to a grammar")
        settings.update(constrain(grammar))
    config: dict[str, object] = (
        {"run_id": stream_as} if stream_as is not None else {"tags": [TAG_NOSTREAM]}
    )
    reply = llm.invoke(list(messages), config, stop=stop, max_tokens=max_tokens, **settings)  # type: ignore[arg-type]
    return reply_text(reply)
