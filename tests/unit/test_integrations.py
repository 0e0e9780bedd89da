"""SearChain as a tool of a real LangChain agent and as a step of an LCEL chain."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableLambda

from searchain.context import Context
from searchain.integrations import searchain_runnable, searchain_tool
from tests.conftest import ScriptedReplies, TableReader, TableRetriever

Q1 = "Where was Kevin Drew born?"
CHAIN = f"[Query 1]: {Q1}\n[Answer 1]: Toronto."
TRACE = "Kevin Drew was born in Toronto [1]. So the final answer is Toronto."


def context(passages) -> Context:
    return Context(
        llm=ScriptedReplies(replies=[CHAIN, TRACE] * 8),
        retriever=TableRetriever({Q1: passages["drew"]}),
        reader=TableReader({"p2": ("Toronto", 3.0)}),
    )


def test_lcel_chain_with_the_callers_components(passages):
    chain = (
        RunnableLambda(str.strip)
        | searchain_runnable(context(passages))
        | RunnableLambda(lambda out: (out["answer"], [r.id for r in out["references"]]))
    )
    assert chain.invoke(f"  {Q1}  ") == ("Toronto", ["p2"])
    assert chain.batch([Q1]) == [("Toronto", ["p2"])]


def test_tool_returns_the_cited_answer_sync_and_async(passages):
    tool = searchain_tool(context(passages))
    assert tool.name == "searchain" and "question" in tool.args
    text = tool.invoke({"question": Q1})
    assert text.startswith("Answer: Toronto")
    assert "[1] Kevin Drew: Kevin Drew was born in Toronto, Ontario." in text
    assert asyncio.run(tool.ainvoke({"question": Q1})).startswith("Answer: Toronto")


class ToolCallingScript(ScriptedReplies):
    """A scripted chat model that accepts tools, as an agent's model must."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ToolCallingScript:
        return self


def test_a_langchain_agent_calls_searchain_as_a_tool(passages):
    from langchain.agents import create_agent

    tool = searchain_tool(context(passages))
    calls = [
        AIMessage("", tool_calls=[{"name": "searchain", "args": {"question": Q1}, "id": "c1"}]),
        AIMessage("Kevin Drew was born in Toronto."),
    ]

    class Agent(ToolCallingScript):  # replies are whole AIMessages, tool calls included
        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            from langchain_core.outputs import ChatGeneration, ChatResult

            self.calls.append(list(messages))
            return ChatResult(generations=[ChatGeneration(message=calls[len(self.calls) - 1])])

    model = Agent(replies=[])
    agent = create_agent(model, tools=[tool])
    out = agent.invoke({"messages": [("user", "Where was Kevin Drew born? Cite it.")]})
    tool_message = out["messages"][2]
    assert tool_message.type == "tool" and tool_message.content.startswith("Answer: Toronto")
    assert out["messages"][-1].content == "Kevin Drew was born in Toronto."
    assert "Answer: Toronto" in model.calls[1][-1].content  # the agent saw the cited answer


def test_the_runnable_takes_prompts_dicts_and_messages(passages):
    import pytest
    from langchain_core.messages import HumanMessage, SystemMessage
    from langchain_core.prompts import ChatPromptTemplate, PromptTemplate

    runnable = searchain_runnable(context(passages))
    chat = ChatPromptTemplate.from_messages([("system", "Be brief."), ("human", "{q}")])
    plain = PromptTemplate.from_template("{q}")
    for chain, value in (
        (chat | runnable, {"q": Q1}),
        (plain | runnable, {"q": Q1}),
        (runnable, {"question": Q1, "task": "qa"}),
        (runnable, [SystemMessage("Be brief."), HumanMessage(Q1)]),
        (runnable, HumanMessage(Q1)),
    ):
        out = chain.invoke(value)
        assert out["answer"] == "Toronto" and out["question"] == Q1
    for bad, message in (
        ({"query": Q1}, "not query"),
        ({"question": "  "}, "non-blank"),
        ([SystemMessage("only system")], "no human message"),
        (42, "not int"),
    ):
        with pytest.raises((ValueError, TypeError), match=message):
            runnable.invoke(bad)
