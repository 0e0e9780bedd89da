"""``--reader auto``: DPR where the models extra and its weights are here, else the LLM reads."""

from __future__ import annotations

import importlib.util
import shutil

import pytest

from searchain.tools.readers.auto import auto_reader
from searchain.tools.readers.llm import LLMReader
from searchain.tools.readers.models import DEFAULT_DPR, MODELS_HINT, DPRReaderModel
from searchain.tools.readers.resolve import resolve_reader
from tests.conftest import require_module
from tests.tiny_models import make_dpr_reader

SCRIPTED = '{"chains": ["[Query 1]: q\\n[Answer 1]: a"]}'


def without(monkeypatch, *names):
    """``importlib.util.find_spec`` as on a machine where ``names`` are not installed."""
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name in names else real(name, *a)
    )


def test_without_the_models_extra_the_llm_reads_and_the_line_says_how_to_get_dpr(
    monkeypatch, tmp_path
):
    without(monkeypatch, "torch", "transformers")  # as the floors' environment has neither
    chosen = auto_reader()
    assert chosen.spec == "llm"
    assert chosen.line().startswith("reader: llm (auto: torch and transformers not installed")
    assert "pip install 'searchain[models]'" in chosen.line()
    script = tmp_path / "s.json"
    script.write_text(SCRIPTED)
    assert isinstance(resolve_reader("auto", f"scripted:{script}"), LLMReader)


@pytest.fixture
def hub_cache(tmp_path, monkeypatch):
    """An empty Hugging Face cache, the only one the process sees."""
    require_module("huggingface_hub", "models")
    from huggingface_hub import constants

    cache = tmp_path / "hub"
    cache.mkdir()
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return cache


def test_without_the_weights_the_llm_reads_and_nothing_is_fetched(hub_cache, connections):
    require_module("torch", "models")
    chosen = auto_reader()
    assert chosen.spec == "llm"
    assert f"the DPR weights {DEFAULT_DPR} are not on this machine" in chosen.line()
    assert connections == []  # deciding asks no network


def test_with_the_extra_and_the_weights_in_the_cache_dpr_reads(hub_cache, tmp_path):
    require_module("torch", "models")
    saved = make_dpr_reader(tmp_path / "dpr")
    repo = hub_cache / f"models--{DEFAULT_DPR.replace('/', '--')}"
    shutil.copytree(saved, repo / "snapshots" / "0")  # the cache's layout: a revision, a ref
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0")
    chosen = auto_reader()
    assert chosen.spec == "dpr", chosen.line()
    reader = resolve_reader("auto")
    assert isinstance(reader, DPRReaderModel) and reader.threshold == 1.5


def test_a_missing_extra_names_the_llm_reader_as_a_way_out():
    line = MODELS_HINT.format(kind="DPR")
    assert "pip install 'searchain[models]'" in line and "the reader llm" in line
