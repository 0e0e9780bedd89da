"""GGUF chat models in-process on llama.cpp, through langchain-community's ``ChatLlamaCpp``.

``ChatLlamaCpp``'s defaults suit none of what this project runs, each measured on SmolLM2:
``rope_freq_base=10000`` overrides the model's own (SmolLM2 uses 100000: nonsense from the first
token), streaming drops the call's stop list, a 512-token context is shorter than the
Chain-of-Query prompt, ``n_batch=8`` makes prompt processing 3-5x slower, sampling is not greedy,
and replies carry no token usage. :func:`load_gguf` sets each from the GGUF's own metadata or to
what a repeatable pipeline needs, and :class:`LlamaCppChatModel` reports usage and serialises
calls (one llama.cpp context is not safe to use from two threads).
"""

from __future__ import annotations

import logging
import os
import threading
import warnings
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

with warnings.catch_warnings():  # its sunset notice: pinned and used for this one integration
    warnings.filterwarnings(
        "ignore", message=".*langchain-community.*", category=DeprecationWarning
    )
    from langchain_community.chat_models import ChatLlamaCpp
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from pydantic import PrivateAttr

from searchain.cache import load_once
from searchain.tools.llms.cpu_buffers import plain_cpu_buffers

MAX_CONTEXT = 8192
"""Context window cap: the model's own length, up to this (a 128k window would allocate its whole
KV cache up front)."""
MAX_TOKENS = 320
"""Default bound on generated tokens per call (each call site may ask for fewer)."""

READER_CONTEXT = 2048
"""Context of the reader's copy of the model: one passage and the reading instructions."""

GREEDY = {"temperature": 0.0, "top_k": 1, "top_p": 1.0, "repeat_penalty": 1.0}
"""Repeatable decoding: llama.cpp samples greedily at temperature 0, with no repeat penalty."""


class LlamaCppChatModel(ChatLlamaCpp):
    """``ChatLlamaCpp`` that reports token usage (and log-probabilities) and is thread-safe."""

    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._lock:
            return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        """Streamed tokens (a chat front-end watching Trace), one call at a time as well."""
        with self._lock:
            yield from super()._stream(messages, stop=stop, run_manager=run_manager, **kwargs)

    def sampling_settings(self, seed: int) -> dict[str, Any]:
        """Per-call settings of a sampled reply (this model is greedy otherwise)."""
        from searchain.tools.llms.generate import SAMPLING_TEMPERATURE

        return {"temperature": SAMPLING_TEMPERATURE, "top_k": 40, "top_p": 0.95, "seed": seed}

    def grammar_settings(self, grammar: str) -> dict[str, Any]:
        """Per-call settings that hold the reply to ``grammar`` (GBNF), parsed once per text."""
        from llama_cpp import LlamaGrammar

        parsed = load_once(
            ("gbnf", grammar), lambda: LlamaGrammar.from_string(grammar, verbose=False)
        )
        return {"grammar": parsed}

    def for_reading(self) -> LlamaCppChatModel:
        """The same GGUF loaded once more with log-probabilities on, for the calibrated reader.

        llama.cpp returns log-probabilities only from a context that keeps every position's
        logits (``logits_all``), a buffer of context × vocabulary floats (400 MB for SmolLM2 at
        ``READER_CONTEXT``): too much to impose on every reasoning call, fine for reading one
        passage.
        """
        if self.logits_all:
            return self
        return load_once(
            ("llamacpp-reader", self.model_path),
            lambda: load_gguf(
                self.model_path, logits_all=True, n_ctx=min(self.n_ctx, READER_CONTEXT)
            ),
        )

    def _create_chat_result(self, response: dict) -> ChatResult:
        result = super()._create_chat_result(response)
        usage = response.get("usage") or {}
        for generation in result.generations:
            message = generation.message
            if isinstance(message, AIMessage) and usage:
                message.usage_metadata = {
                    "input_tokens": int(usage.get("prompt_tokens", 0)),
                    "output_tokens": int(usage.get("completion_tokens", 0)),
                    "total_tokens": int(usage.get("total_tokens", 0)),
                }
            logprobs = (generation.generation_info or {}).get("logprobs")
            if logprobs:
                message.response_metadata["logprobs"] = logprobs
        return result


def trained_context(path: str) -> int:
    """The context length the GGUF model was trained with, read without loading its weights."""
    import ctypes

    import llama_cpp

    logging.getLogger("llama-cpp-python").setLevel(logging.ERROR)  # as Llama(verbose=False)
    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    model = llama_cpp.llama_model_load_from_file(path.encode(), params)
    if model is None:
        raise ValueError(f"cannot read {path!r} as a GGUF model")
    try:
        buffer = ctypes.create_string_buffer(256)
        value = {}
        for key in ("general.architecture", "context_length"):
            name = key if key.startswith("general") else f"{value['general.architecture']}.{key}"
            found = llama_cpp.llama_model_meta_val_str(model, name.encode(), buffer, len(buffer))
            value[key] = buffer.value.decode() if found >= 0 else ""
        return int(value["context_length"] or MAX_CONTEXT)
    finally:
        llama_cpp.llama_model_free(model)


PROMPT_CACHE_BYTES = 1 << 30
"""RAM for evaluated prompt states of a local model (a few of them)."""


def prompt_cache(capacity: int) -> Any:
    """llama.cpp's RAM cache of prompt states, bounded by the bytes its states really hold.

    ``LlamaRAMCache`` counts a state's llama.cpp bytes but not the copy of the logits each state
    carries (context × vocabulary floats for the reader's copy: 400 MB a state for SmolLM2), so
    its bound let a process grow past 8 GiB over a few dozen prompts (issue 42, case 7).
    """
    from llama_cpp import LlamaRAMCache

    class BoundedRAMCache(LlamaRAMCache):
        @property
        def cache_size(self) -> int:
            return sum(
                state.llama_state_size + state.scores.nbytes + state.input_ids.nbytes
                for state in self.cache_state.values()
            )

    return BoundedRAMCache(capacity_bytes=capacity)


def load_gguf(path: str, **settings: Any) -> LlamaCppChatModel:
    """Load a GGUF chat model with settings from its metadata; ``settings`` override any field.

    The context window is the model's trained length (capped at ``MAX_CONTEXT``); RoPE base and
    scale are 0, which llama.cpp reads as "the model's own"; decoding is greedy; every core
    computes (llama-cpp-python's default uses half of them).
    """
    if not Path(path).is_file():
        raise ValueError(f"no GGUF file at {path!r}: give the LLM gguf:PATH of a .gguf file")
    trained = trained_context(path)
    defaults: dict[str, Any] = {
        "n_ctx": min(trained, MAX_CONTEXT),
        "rope_freq_base": 0.0,
        "rope_freq_scale": 0.0,
        "n_batch": 512,
        "n_threads": len(os.sched_getaffinity(0)),
        "max_tokens": MAX_TOKENS,
        "streaming": False,
        "seed": 0,
        "verbose": False,
        **GREEDY,
    }
    try:
        with plain_cpu_buffers():
            model = LlamaCppChatModel(model_path=path, **{**defaults, **settings})
    except ValueError as exc:  # ChatLlamaCpp wraps llama.cpp's failure in a long message
        raise ValueError(f"cannot load GGUF model {path!r}: {str(exc).splitlines()[0]}") from None
    # Methods alternate prompts (a reasoning prompt, then a reading prompt, then reasoning
    # again): llama.cpp keeps only the last one's evaluated tokens, so each switch would
    # evaluate the shared demonstrations again. A RAM cache of recent states resumes from the
    # longest cached prefix instead.
    model.client.set_cache(prompt_cache(PROMPT_CACHE_BYTES))
    # Freed before the interpreter tears its modules down (llama-cpp-python's own __del__ then
    # fails with a traceback on every exit), or as soon as the model is let go (a finalizer, not
    # atexit.register, which would keep it alive for the process's life).
    weakref.finalize(model, model.client.close)
    return model
