"""The extras a deployment's settings need: scripts/server.sh installs exactly these."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from searchain.server.extras import BASE, KNOWN, deployment_extras
from tests.conftest import ROOT


@pytest.mark.parametrize(
    ("env", "needed"),
    [
        ({"SEARCHAIN_LLM": "scripted:x.json", "SEARCHAIN_READER": "llm"}, set()),
        ({}, {"local"}),  # auto, with no OpenAI: SmolLM2 plans and reads
        ({"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"}, {"openai"}),
        ({"SEARCHAIN_LLM": "openai:gpt-4o-mini", "OPENAI_API_KEY": "sk"}, {"openai"}),
        ({"SEARCHAIN_LLM": "gguf:/m.gguf?n_ctx=4096"}, {"local"}),
        ({"SEARCHAIN_LLM": "openai:m", "SEARCHAIN_READER": "llm:local"}, {"openai", "local"}),
        ({"SEARCHAIN_LLM": "openai:m", "SEARCHAIN_READER": "dpr"}, {"openai", "models"}),
        (
            {"SEARCHAIN_LLM": "openai:m", "SEARCHAIN_READER": "dpr-int8"},
            {"openai", "models", "onnx"},
        ),
        ({"SEARCHAIN_LLM": "scripted:x", "SEARCHAIN_VERIFIER": "nli:/m"}, {"models"}),
        (
            {"SEARCHAIN_LLM": "scripted:x", "SEARCHAIN_RETRIEVER": "elasticsearch"},
            {"elasticsearch"},
        ),
        ({"SEARCHAIN_LLM": "scripted:x", "SEARCHAIN_SEMANTIC_DEDUP": "true"}, {"semantic"}),
        (
            {"SEARCHAIN_LLM": "scripted:x", "SEARCHAIN_LLM_CHOICES": json.dumps({"a": "local"})},
            {"local"},
        ),
        ({"SEARCHAIN_LLM": "scripted:x", "SERVER_EXTRAS": "eval, models"}, {"eval", "models"}),
    ],
)
def test_each_setting_brings_the_extra_it_runs_on(env, needed):
    assert set(deployment_extras(env)) == set(BASE) | needed


def test_an_unknown_extra_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError, match=r"SERVER_EXTRAS names torch: the extras are "):
        deployment_extras({"SERVER_EXTRAS": "torch"})


@given(
    st.dictionaries(
        st.sampled_from(
            [
                "SEARCHAIN_LLM",
                "SEARCHAIN_READER",
                "SEARCHAIN_VERIFIER",
                "OPENAI_BASE_URL",
                "SEARCHAIN_RETRIEVER",
                "SEARCHAIN_LLM_CHOICES",
                "SEARCHAIN_SEMANTIC_DEDUP",
            ]
        ),
        st.text(max_size=30),
    )
)
def test_any_settings_give_the_base_and_known_extras_only(env):
    extras = deployment_extras(env)
    assert set(BASE) <= set(extras) <= KNOWN and extras == sorted(set(extras))


def test_it_runs_with_nothing_but_the_standard_library():
    """server.sh runs it before the server's environment exists, with the bare interpreter."""
    done = subprocess.run(
        [sys.executable, "-S", "-m", "searchain.server.extras"],
        env={"PYTHONPATH": str(ROOT), "PATH": os.environ["PATH"], "OPENAI_BASE_URL": "http://x"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == "documents,openai,postgres,server\n"
