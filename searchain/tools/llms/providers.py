"""LangChain provider models (``provider:model``), OpenAI-compatible servers above all.

vLLM, Ollama and llama.cpp's server speak OpenAI's API at ``OPENAI_BASE_URL``. What they need
beyond LangChain's defaults: sampling settings the OpenAI API does not name (``repeat_penalty``,
``top_k``) travel in the request body, a server that needs no key gets a placeholder one, and the
token bound is sent under both names (:mod:`searchain.tools.llms.openai_server`). What the server
serves, and its errors in one line: :mod:`searchain.tools.llms.server`.
"""

from __future__ import annotations

import os
from typing import Any

from langchain_core.language_models import BaseChatModel

from searchain.tools.llms.server import NO_KEY, OPENAI_EXTRA

OPENAI_PARAMS = frozenset(
    {
        "temperature",
        "top_p",
        "seed",
        "presence_penalty",
        "frequency_penalty",
        "max_tokens",
        "timeout",
        "max_retries",
        "logprobs",
        "top_logprobs",
    }
)
"""Settings ``ChatOpenAI`` takes itself; any other goes into the request body as is."""


def init_provider_model(spec: str, settings: dict[str, Any]) -> BaseChatModel:
    """Build ``provider:model`` with greedy decoding unless ``settings`` say otherwise."""
    from langchain.chat_models import init_chat_model

    provider = spec.split(":", 1)[0]
    kwargs: dict[str, Any] = {"temperature": 0, **settings}
    if provider == "openai":
        extra = {k: v for k, v in kwargs.items() if k not in OPENAI_PARAMS}
        kwargs = {k: v for k, v in kwargs.items() if k in OPENAI_PARAMS}
        if extra:
            kwargs["extra_body"] = extra
        server = bool(os.environ.get("OPENAI_BASE_URL"))
        if server and not os.environ.get("OPENAI_API_KEY"):
            kwargs["api_key"] = NO_KEY
        try:
            from searchain.tools.llms.openai_server import CheckedChatOpenAI, ServerChatOpenAI
        except ImportError as exc:
            raise ImportError(
                f"LLM {spec!r} needs its LangChain integration: pip install {OPENAI_EXTRA}"
            ) from exc
        model = ServerChatOpenAI if server else CheckedChatOpenAI
        try:
            return model(model=spec.split(":", 1)[1], **kwargs)
        except Exception as exc:  # no key (OpenAIError), a bad setting (pydantic's): one line
            reason = " ".join(str(exc).split())
            raise ValueError(f"cannot build LLM {spec!r}: {reason}") from None
    try:
        return init_chat_model(spec, **kwargs)
    except ImportError as exc:
        package = OPENAI_EXTRA if provider == "openai" else f"langchain-{provider}"
        raise ImportError(
            f"LLM {spec!r} needs its LangChain integration: pip install {package}"
        ) from exc
    except ValueError as exc:  # LangChain's message spans paragraphs; keep its first two
        reason = " ".join(" ".join(str(exc).split("\n\n")[:2]).split())
        raise ValueError(f"cannot build LLM {spec!r}: {reason}") from None
