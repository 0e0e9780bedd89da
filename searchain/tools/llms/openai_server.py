"""``ChatOpenAI`` that checks its API before any work; for OpenAI-compatible servers, more.

langchain-openai sends the token bound as ``max_completion_tokens`` only (OpenAI's current name);
servers that know just ``max_tokens`` ignore it and generate to their own limit. This model sends
both names, so every call stays bounded whichever the server reads.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import LanguageModelInput
from langchain_openai import ChatOpenAI

from searchain.tools.llms.server import served_models, server_url


class CheckedChatOpenAI(ChatOpenAI):
    """``ChatOpenAI`` that checks, before any work, that its API answers and serves its model.

    Without the check an unreachable API or a refused key is found at the first call, after a
    thread was created (and then listed as interrupted).
    """

    def load(self) -> None:
        """One request for the model list: reachable, the key accepted, the model served."""
        served = served_models()
        if self.model_name not in served:
            raise ValueError(
                f"the LLM server at {server_url()} does not serve {self.model_name!r} (it "
                f"serves: {', '.join(served) or 'nothing'}): name one as the LLM openai:MODEL"
            )


class ServerChatOpenAI(CheckedChatOpenAI):
    """``ChatOpenAI`` for a server at ``OPENAI_BASE_URL``: the token bound as ``max_tokens`` too."""

    def _get_request_payload(
        self, input_: LanguageModelInput, *, stop: list[str] | None = None, **kwargs: Any
    ) -> dict:
        payload = super()._get_request_payload(input_, stop=stop, **kwargs)
        if "max_completion_tokens" in payload:
            payload["max_tokens"] = payload["max_completion_tokens"]
        return payload
