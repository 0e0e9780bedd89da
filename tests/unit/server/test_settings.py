"""The deployment's settings and the caller's: one strict type, parsed from every carrier."""

from __future__ import annotations

import asyncio
from dataclasses import fields
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from searchain.context import Context, context_of, use_run_policy
from searchain.server.policy import DEPLOYMENT_FIELDS, shared_run_policy
from searchain.server.settings import (
    CALLER_FIELDS,
    CallerSettings,
    carriers,
    deployment,
    parse_request,
)
from tests.conftest import require_module


def problem(settings: object, where: str = "context") -> str | None:
    """The one line that refuses ``settings``, or None."""
    try:
        CallerSettings.parse(settings, where)
    except ValueError as exc:
        return str(exc)
    return None


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
    refused = problem(settings)
    named = next(name for name in settings if name in DEPLOYMENT_FIELDS)
    assert refused is not None and refused.startswith(named) and "\n" not in refused
    assert "the deployment's setting" in refused


def test_the_callers_settings_are_taken_within_their_bounds():
    assert problem({"r_max": 3, "task": "yesno", "verify": False}) is None
    assert "r_max must be between 1 and" in problem({"r_max": 10_000})
    assert "sc_samples must be between" in problem({"sc_samples": 10**6})
    assert problem({"bogus": 1}) == "context: unknown setting bogus"
    assert problem({"task": "poetry"}).startswith("unknown task 'poetry': choose one of")


@pytest.mark.parametrize(
    ("settings", "line"),
    [
        ({"verify": "false"}, "verify must be true or false, got 'false' (str)"),
        (
            {"approve_corrections": "no"},
            "approve_corrections must be true or false, got 'no' (str)",
        ),
        ({"max_chain_nodes": 2.5}, "max_chain_nodes must be a whole number, got 2.5 (float)"),
        ({"r_max": True}, "r_max must be a whole number, got True (bool)"),
        ({"r_max": "3"}, "r_max must be a whole number, got '3' (str)"),
        ({"theta": "1.5"}, "theta must be a number or null, got '1.5' (str)"),
        ({"alpha": None}, "alpha must be a number, got None (NoneType)"),
        ({"task": 1}, "task must be a string, got 1 (int)"),
        ({"ircot_answer": "poem"}, "ircot_answer must be direct or cot, got 'poem' (str)"),
    ],
)
def test_a_value_of_another_type_is_refused_not_coerced(settings, line):
    """Issue 40, case 4: `"false"` left verification on, `"no"` turned approval on, and 2.5
    was accepted and killed the run with a TypeError. The same for the Python API's Context."""
    assert problem(settings) == line
    with pytest.raises(ValueError) as caught:
        Context(**settings)
    assert str(caught.value) == line


def test_whole_numbers_are_numbers_and_numbers_keep_their_type():
    assert problem({"theta": 2, "alpha": 0, "dedup_threshold": 1}) is None
    assert Context(theta=2).theta == 2
    assert problem({"theta": None}) is None


SCALARS = st.one_of(
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.none(),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
PLAIN = [
    f for f in fields(Context) if f.name in CALLER_FIELDS and f.name not in ("task", "ircot_answer")
]


@given(st.sampled_from(PLAIN), SCALARS)
def test_a_caller_field_takes_its_own_type_only(field, value):
    """Whatever JSON value a caller sends, a field is refused in one line naming it, or holds a
    value of exactly its declared kind: never coerced, never a TypeError later."""
    refused = problem({field.name: value})
    if refused is not None:
        assert refused.startswith(f"{field.name} must be") and "\n" not in refused
        return
    default = field.default
    if isinstance(default, bool):
        assert type(value) is bool
    elif isinstance(default, int):
        assert type(value) is int
    elif isinstance(default, float) or default is None:
        assert type(value) in (int, float) or (default is None and value is None)
    else:
        assert type(value) is str


def test_every_field_is_one_kind_or_the_other():
    names = {f.name for f in fields(Context)}
    assert names == CALLER_FIELDS | DEPLOYMENT_FIELDS and not CALLER_FIELDS & DEPLOYMENT_FIELDS
    for name in ("llm", "reader", "index", "es_url", "prompts", "retriever"):
        assert name in DEPLOYMENT_FIELDS


def test_every_carrier_of_a_request_is_read():
    """Issue 40, case 1: a v2 command's `params` were never read; the same for a thread state's
    saved settings and an assistant's body."""
    value = {
        "context": {"r_max": 2},
        "config": {"configurable": {"thread_id": "t", "checkpoint_ns": "", "alpha": 0.5}},
        "params": {"context": {"prompts": "/dev/zero"}, "config": {"configurable": {"x": 1}}},
        "values": [{"settings": {"theta": 1.0}}, {"question": "q"}],
        "command": {"resume": True, "update": [["settings", {"verify": False}], ["x", 1]]},
    }
    assert list(carriers(value)) == [
        ("context", {"r_max": 2}),
        ("config.configurable", {"alpha": 0.5}),
        ("params.context", {"prompts": "/dev/zero"}),
        ("params.config.configurable", {"x": 1}),
        ("values.settings", {"theta": 1.0}),
        ("command.update.settings", {"verify": False}),
    ]
    with pytest.raises(ValueError, match=r"^prompts: the deployment's setting"):
        parse_request(value)
    del value["params"]
    assert parse_request(value) == {"r_max": 2, "alpha": 0.5, "theta": 1.0, "verify": False}
    with pytest.raises(ValueError, match=r"^llm: the deployment's setting"):
        parse_request({"command": {"update": {"settings": {"llm": "gguf:/x"}}}})
    assert parse_request({"thread_id": "t", "limit": 10}) == {}


@pytest.mark.parametrize(
    ("value", "line"),
    [
        ({"context": "r_max=2"}, "context must be an object of settings, got str"),
        ({"config": ["x"]}, "config must be an object of settings, got list"),
        ({"config": {"configurable": 3}}, "config.configurable must be an object of settings"),
        ({"values": {"settings": "x"}}, "values.settings must be an object of settings"),
        ({"config": {"configurable": {"user": "bob"}}}, "config.configurable: unknown setting"),
    ],
)
def test_a_carrier_of_another_shape_is_refused(value, line):
    with pytest.raises(ValueError) as caught:
        parse_request(value)
    assert str(caught.value).startswith(line)


def test_a_context_opens_no_file_when_it_is_built(tmp_path):
    """Issue 40, case 1: building a run's Context read the file `prompts` named (the server's
    key file, /dev/zero, a FIFO) in the server's event loop; now the file is read on first use."""
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in ("/dev/zero", str(fifo), str(tmp_path / "missing.toml")):
        ctx = Context(prompts=path, task="mine")  # returns at once: nothing is opened
        assert ctx.prompts == path
    with pytest.raises(ValueError, match="does not exist"):
        Context(prompts=str(tmp_path / "missing.toml")).task_prompt()


def test_the_deployments_prompt_file_is_read_at_start(monkeypatch, tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('[medical]\ntemplate = "Plan: {question}"\n', encoding="utf-8")
    monkeypatch.setenv("SEARCHAIN_PROMPTS", str(path))
    deployment.cache_clear()
    try:
        assert "medical" in deployment().tasks
        assert problem({"task": "medical"}) is None
        path.unlink()  # read once: the running deployment keeps what it started with
        assert problem({"task": "medical"}) is None
    finally:
        deployment.cache_clear()


def test_the_servers_handler_refuses_with_a_400():
    langgraph_sdk = require_module("langgraph_sdk", "studio")
    from searchain.server.auth import caller_settings

    ctx = SimpleNamespace(resource="assistants", action="create")
    with pytest.raises(langgraph_sdk.Auth.exceptions.HTTPException) as caught:
        asyncio.run(caller_settings(ctx, {"context": {"es_url": "http://127.0.0.1:9"}}))
    assert caught.value.status_code == 400 and caught.value.detail.startswith("es_url")
    with pytest.raises(langgraph_sdk.Auth.exceptions.HTTPException) as caught:
        asyncio.run(caller_settings(ctx, {"context": {"verify": "false"}}))
    assert caught.value.status_code == 400 and caught.value.detail.startswith("verify must be")
    assert asyncio.run(caller_settings(ctx, {"context": {"r_max": 2}})) is None


def test_a_runs_configurable_keeps_only_its_settings(monkeypatch):
    """The server reads an empty context from `configurable`: LangGraph's own keys there (a
    RemoteGraph's parent thread) would reach the Context as unknown fields."""
    require_module("langgraph_sdk", "studio")
    from searchain.server.auth import caller_settings

    monkeypatch.setenv("SEARCHAIN_RUNS_PER_USER", "0")  # no ledger for this unit test
    ctx = SimpleNamespace(
        resource="threads", action="create_run", user=SimpleNamespace(identity="u")
    )
    value = {"config": {"configurable": {"thread_id": "parent", "r_max": 2}, "tags": ["a"]}}
    asyncio.run(caller_settings(ctx, value))
    assert value["config"] == {"configurable": {"r_max": 2}, "tags": ["a"]}


@pytest.fixture
def shared_server():
    """The team server's policy installed, as importing its graphs does; removed after."""
    use_run_policy(shared_run_policy)
    yield
    use_run_policy(None)


def test_a_served_graph_runs_under_the_shared_servers_policy():
    """Whatever the server hands out (a run's graph or a state's), its runs refuse the
    deployment's settings from the caller and drop them from the thread's state."""
    from searchain.server.graphs import searchain

    async def handed_out() -> None:
        async with searchain({"configurable": {}}, SimpleNamespace(access_context="state")):
            pass

    saved = {"index": "/elsewhere", "r_max": 2}
    assert context_of(SimpleNamespace(context=Context()), saved).index == "/elsewhere"
    asyncio.run(handed_out())
    assert context_of(SimpleNamespace(context=Context()), saved).index == Context().index
    with pytest.raises(ValueError, match=r"^es_url: the deployment.s setting"):
        context_of(SimpleNamespace(context=Context(es_url="http://elsewhere")), {})


def test_on_a_shared_server_a_thread_never_supplies_a_deployment_setting(shared_server):
    """A thread's saved settings are its state, which a caller can write (update_state): on a
    shared server the deployment's settings never come from there, nor from a run's context."""
    saved = {"llm": "scripted:/etc/passwd", "r_max": 2}
    ctx = context_of(SimpleNamespace(context=Context()), saved)
    assert ctx.llm == "auto" and ctx.r_max == 2
    with pytest.raises(ValueError, match=r"^index: the deployment.s setting"):
        context_of(SimpleNamespace(context=Context(index="/elsewhere")), {})
    use_run_policy(None)  # a single user's graph: the thread's own settings
    assert context_of(SimpleNamespace(context=Context()), saved).llm == "scripted:/etc/passwd"


def test_a_caller_may_choose_among_the_models_the_deployment_offers(monkeypatch, shared_server):
    monkeypatch.setenv("SEARCHAIN_LLM_CHOICES", '{"fast": "local?n_ctx=2048"}')
    assert problem({"llm": "fast"}) is None
    assert problem({"llm": "local?n_ctx=2049"}).startswith("llm: the deployment")
    ctx = context_of(SimpleNamespace(context=Context(llm="fast")), {"llm": "fast"})
    assert ctx.llm == "fast"
    from searchain.tools.llms.resolve import chosen

    assert chosen("fast") == "local?n_ctx=2048" and chosen("local") == "local"
    monkeypatch.setenv("SEARCHAIN_LLM_CHOICES", "[1]")
    with pytest.raises(ValueError, match="SEARCHAIN_LLM_CHOICES must be a JSON object"):
        chosen("fast")
