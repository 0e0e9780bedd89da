"""``ChatOpenAI`` for OpenAI-compatible servers (vLLM, Ollama, llama.cpp's server).

langchain-openai sends the token bound as ``max_completion_tokens`` only (OpenAI's current name);
servers that know just ``max_tokens`` ignore it and generate to their own limit. This model sends
both names, so every call stays bounded whichever the server reads.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import LanguageModelInput
from langchain_openai import ChatOpenAI

from searchain.tools.llms.server import served_models, server_url


class ServerChatOpenAI(ChatOpenAI):
    """``ChatOpenAI`` whose requests carry the token bound as ``max_tokens`` too."""

    def _get_request_payload(
        self, input_: LanguageModelInput, *, stop: list[str] | None = None, **kwargs: Any
    ) -> dict:
        payload = super()._get_request_payload(input_, stop=stop, **kwargs)
        if "max_completion_tokens" in payload:
            payload["max_tokens"] = payload["max_completion_tokens"]
        return payload

    def load(self) -> None:
        """Check, before any work, that the server answers and serves this model."""
        served = served_models()
        if self.model_name not in served:
            raise ValueError(
                f"the LLM server at {server_url()} does not serve {self.model_name!r} (it "
                f"serves: {', '.join(served) or 'nothing'}): name one with --llm openai:MODEL"
            )
