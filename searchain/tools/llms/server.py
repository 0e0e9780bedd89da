"""The OpenAI-compatible server at ``OPENAI_BASE_URL``: what it serves, its failures in one line.

vLLM, Ollama and llama.cpp's server speak OpenAI's API; before any work the server is asked for
its models, and the client's failures (hundreds of lines of traceback) become one line through
:func:`explain`.
"""

from __future__ import annotations

import json
import os
from typing import Any

from searchain.redact import redact_url

OPENAI_EXTRA = "'searchain[openai]'"

NO_KEY = "not-needed"
"""The API key sent to a server at ``OPENAI_BASE_URL`` when ``OPENAI_API_KEY`` is unset."""


def served_model() -> str:
    """The model the OpenAI-compatible server at ``OPENAI_BASE_URL`` serves (its first one)."""
    models = served_models()
    if not models:
        raise ValueError(
            f"the LLM server at {server_url()} lists no models: name one as the LLM openai:MODEL"
        )
    return models[0]


def served_models() -> list[str]:
    """The ids of the models the server at ``OPENAI_BASE_URL`` lists (one line on failure)."""
    try:
        import openai
    except ImportError as exc:
        raise ImportError(
            f"OPENAI_BASE_URL needs the OpenAI client: pip install {OPENAI_EXTRA}"
        ) from exc
    client = openai.OpenAI(
        api_key=os.environ.get("OPENAI_API_KEY") or NO_KEY, max_retries=0, timeout=30
    )
    try:
        return [model.id for model in client.models.list()]
    except openai.NotFoundError:
        raise ValueError(
            f"the LLM server at {server_url()} answered 404 for its model list: point "
            "OPENAI_BASE_URL at its API root (…/v1)"
        ) from None
    except openai.OpenAIError as exc:
        raise ValueError(explain(exc)) from None


def server_url() -> str:
    """``OPENAI_BASE_URL`` (or OpenAI's own), with any credentials in it masked."""
    return redact_url(os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1")


def explain(exc: BaseException) -> str | None:
    """One line for an OpenAI client error (what failed and how to fix it); ``None`` for others."""
    try:
        import openai
    except ImportError:
        return None
    if not isinstance(exc, openai.OpenAIError):
        return None
    where = f"the LLM server at {server_url()}"
    if isinstance(exc, openai.APIConnectionError):
        cause: BaseException = exc
        while cause.__cause__ is not None or cause.__context__ is not None:
            cause = cause.__cause__ or cause.__context__  # type: ignore[assignment]
        fix = (
            "start it, or fix OPENAI_BASE_URL"
            if os.environ.get("OPENAI_BASE_URL")
            else "check the network (behind a proxy: HTTPS_PROXY), or set OPENAI_BASE_URL"
        )
        return f"cannot reach {where} ({type(cause).__name__}: {str(cause).splitlines()[0]}): {fix}"
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return f"{where} refused the API key ({exc.status_code}): set OPENAI_API_KEY"
    if isinstance(exc, openai.NotFoundError):
        model = _requested_model(exc)
        try:
            served = ", ".join(served_models()) or "none"
        except ValueError:
            served = "unknown"
        return (
            f"{where} answered 404 for model {model!r} (it serves: {served}): name a served "
            "model as the LLM openai:MODEL, or point OPENAI_BASE_URL at its API root (…/v1)"
        )
    if isinstance(exc, openai.APIStatusError):
        return f"{where} answered {exc.status_code}: {str(exc.message).splitlines()[0]}"
    return f"{where} failed: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"


def _requested_model(exc: Any) -> str:
    try:
        return str(json.loads(exc.request.content)["model"])
    except (AttributeError, KeyError, TypeError, ValueError):
        return "?"
