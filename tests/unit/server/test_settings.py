"""The deployment's settings and the caller's: what a run on a shared server may set."""

from __future__ import annotations

import asyncio
from dataclasses import fields
from types import SimpleNamespace

import pytest

from searchain.context import DEPLOYMENT_FIELDS, Context, caller_settings_problem, context_of
from searchain.server.auth import caller_settings, requested_settings
from tests.conftest import require_module


@pytest.mark.parametrize(
    "settings",
    [
        {"llm": "scripted:/etc/passwd"},
        {"llm": "gguf:/any/path.gguf"},
        {"index": "/home/other/index"},
        {"prompts": "keys.toml"},
        {"es_url": "http://127.0.0.1:9"},
        {"reader": "/models/reader"},
        {"ircot_demos": "/etc/hosts"},
        {"auto_cot_demos": "x.json", "r_max": 2},
        {"verifier": "nli:any/model"},
    ],
)
def test_a_deployment_setting_is_refused_naming_it(settings):
    """Issue 30, case 1: any key holder chose the model, the files and the URLs."""
    problem = caller_settings_problem(settings)
    named = next(name for name in settings if name in DEPLOYMENT_FIELDS)
    assert problem is not None and problem.startswith(named) and "\n" not in problem
    assert "the deployment's setting" in problem


def test_the_callers_settings_are_taken_within_their_bounds():
    assert caller_settings_problem({"r_max": 3, "task": "yesno", "verify": False}) is None
    assert "r_max must be between 1 and" in caller_settings_problem({"r_max": 10_000})
    assert "sc_samples must be between" in caller_settings_problem({"sc_samples": 10**6})
    assert caller_settings_problem({"bogus": 1}) == "unknown setting bogus"


def test_every_field_is_one_kind_or_the_other():
    names = {f.name for f in fields(Context)}
    assert names > DEPLOYMENT_FIELDS
    for name in ("llm", "reader", "index", "es_url", "prompts", "retriever"):
        assert name in DEPLOYMENT_FIELDS


def test_settings_come_from_context_and_from_configurable():
    value = {
        "context": {"r_max": 2},
        "config": {"configurable": {"thread_id": "t", "llm": "local?n_ctx=2049"}},
    }
    assert requested_settings(value) == {"r_max": 2, "llm": "local?n_ctx=2049"}
    assert requested_settings({"thread_id": "t"}) == {}


def test_the_servers_handler_refuses_with_a_400():
    langgraph_sdk = require_module("langgraph_sdk", "studio")
    ctx = SimpleNamespace(resource="assistants", action="create")
    with pytest.raises(langgraph_sdk.Auth.exceptions.HTTPException) as caught:
        asyncio.run(caller_settings(ctx, {"context": {"es_url": "http://127.0.0.1:9"}}))
    assert caught.value.status_code == 400 and caught.value.detail.startswith("es_url")
    assert asyncio.run(caller_settings(ctx, {"context": {"r_max": 2}})) is None


def test_on_a_shared_server_a_thread_never_supplies_a_deployment_setting(monkeypatch):
    """A thread's saved settings are its state, which a caller can write (update_state): on a
    shared server the deployment's settings never come from there, nor from a run's context."""
    monkeypatch.setenv("SEARCHAIN_SHARED_SERVER", "1")
    saved = {"llm": "scripted:/etc/passwd", "r_max": 2}
    ctx = context_of(SimpleNamespace(context=Context()), saved)
    assert ctx.llm == "auto" and ctx.r_max == 2
    with pytest.raises(ValueError, match=r"^index: the deployment.s setting"):
        context_of(SimpleNamespace(context=Context(index="/elsewhere")), {})
    monkeypatch.delenv("SEARCHAIN_SHARED_SERVER")
    assert context_of(SimpleNamespace(context=Context()), saved).llm == "scripted:/etc/passwd"


def test_a_caller_may_choose_among_the_models_the_deployment_offers(monkeypatch):
    monkeypatch.setenv("SEARCHAIN_LLM_CHOICES", '{"fast": "local?n_ctx=2048"}')
    assert caller_settings_problem({"llm": "fast"}) is None
    assert caller_settings_problem({"llm": "local?n_ctx=2049"}).startswith("llm: the deployment")
    monkeypatch.setenv("SEARCHAIN_SHARED_SERVER", "1")
    ctx = context_of(SimpleNamespace(context=Context(llm="fast")), {"llm": "fast"})
    assert ctx.llm == "fast"
    from searchain.tools.llms.resolve import chosen

    assert chosen("fast") == "local?n_ctx=2048" and chosen("local") == "local"
    monkeypatch.setenv("SEARCHAIN_LLM_CHOICES", "[1]")
    with pytest.raises(ValueError, match="SEARCHAIN_LLM_CHOICES must be a JSON object"):
        chosen("fast")
