"""A thread's settings come from its checkpoints alone: what ``searchain resume`` rebuilds.

The CLI kept a copy of some options in a table of its own, rebuilt with their defaults typed
again; a setting it did not copy (``max_chain_nodes`` from the environment, say) was lost on
resume. Now every setting that differs from the default rides in each checkpoint's metadata,
from the run's input on, so even a run killed in its first step leaves them.
"""

from __future__ import annotations

import json

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from searchain.cli.session import SETTINGS_KEY, run_config, thread_context
from searchain.context import Context
from searchain.graph.searchain import build_graph


def test_a_run_killed_in_its_first_step_leaves_every_setting_for_resume(tmp_path):
    graph = build_graph(checkpointer=InMemorySaver())
    context = Context(
        llm=f"scripted:{tmp_path / 'absent.json'}",  # fails inside the first LLM step
        index=str(tmp_path / "index"),
        reader="llm",
        max_chain_nodes=3,  # no flag of the CLI's: the old table lost it
    )
    with pytest.raises(Exception):  # noqa: B017 (whichever failure: a kill stands in for it)
        graph.invoke({"question": "Who painted it?"}, run_config("t", context), context=context)
    again = thread_context(graph, "t")
    assert (again.llm, again.index, again.reader) == (context.llm, context.index, "llm")
    assert again.max_chain_nodes == 3 and again.r_max == Context().r_max


class Snapshot:
    """What ``graph.get_state`` gives: a checkpoint's metadata and values."""

    def __init__(self, metadata: dict, values: dict) -> None:
        self.metadata, self.values = metadata, values


class Graph:
    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot

    def get_state(self, config: dict) -> Snapshot:
        return self.snapshot


def test_a_thread_run_without_the_cli_is_read_from_its_state(tmp_path):
    """A thread run from Python or a server has no CLI metadata: its state's settings serve
    (`tests/integration/test_resume.py` resumes a real one, whose objects are named)."""
    state = {"settings": {"index": str(tmp_path), "r_max": 2}}
    again = thread_context(Graph(Snapshot({"source": "loop"}, state)), "py")
    assert (again.index, again.r_max) == (str(tmp_path), 2)
    cli = {SETTINGS_KEY: json.dumps({"r_max": 4})}
    assert thread_context(Graph(Snapshot(cli, state)), "py").r_max == 4  # the CLI's, when there
    with pytest.raises(ValueError, match="ScriptedChatModel object as 'llm'"):
        thread_context(
            Graph(Snapshot({}, {"settings": {"llm": {"object": "ScriptedChatModel"}}})), "p"
        )


def test_a_setting_the_environment_gave_is_kept_for_a_resume_in_another_shell(monkeypatch):
    monkeypatch.setenv("SEARCHAIN_MAX_CHAIN_NODES", "3")
    graph = build_graph(checkpointer=InMemorySaver())
    context = Context(llm="scripted:/nonexistent.json", reader="llm")
    with pytest.raises(Exception):  # noqa: B017
        graph.invoke({"question": "Who painted it?"}, run_config("t", context), context=context)
    monkeypatch.delenv("SEARCHAIN_MAX_CHAIN_NODES")
    assert thread_context(graph, "t").max_chain_nodes == 3


def test_run_config_carries_the_settings_as_a_string_langgraph_keeps():
    """LangGraph copies only a config's plain metadata (strings, numbers) into checkpoints."""
    context = Context(r_max=2, llm="local")
    config = run_config("t", context)
    assert config["configurable"] == {"thread_id": "t"}
    assert json.loads(config["metadata"][SETTINGS_KEY]) == {"r_max": 2, "llm": "local"}
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    model = Context(llm=FakeListChatModel(responses=["x"]))
    marked = json.loads(run_config("t", model)["metadata"][SETTINGS_KEY])
    assert marked == {"llm": {"object": "FakeListChatModel"}}
