"""SearChain inside other LangChain applications: as an agent's tool, or a step of an LCEL chain.

Both take the caller's own components through a :class:`~searchain.context.Context` (any chat
model object, any retriever or LangChain ``BaseRetriever``, any reader) and build the graph once.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.tools import BaseTool, StructuredTool

from searchain.context import Context
from searchain.graph.searchain import build_graph

TOOL_DESCRIPTION = (
    "Answers a complex, multi-step factual question by planning sub-questions, checking each "
    "against retrieved passages, and returning the answer with numbered citations."
)


def format_answer(result: dict[str, Any]) -> str:
    """A run's result as text an LLM can quote: answer, cited content, references."""
    lines = [f"Answer: {result.get('answer', '')}", "", result.get("final_content", "")]
    if result.get("references"):
        lines += ["", "References:"]
        lines += [f"[{ref.n}] {ref.title}: {ref.text}" for ref in result["references"]]
    return "\n".join(lines).strip()


def searchain_runnable(context: Context, graph: Any = None) -> Runnable[str, dict[str, Any]]:
    """An LCEL runnable: a question string in, the graph's output dict out."""
    graph = graph if graph is not None else build_graph()
    to_input = RunnableLambda(lambda question: {"question": question}, name="to_searchain_input")
    return (to_input | graph.bind(context=context)).with_config(run_name="searchain")


def searchain_tool(
    context: Context,
    *,
    graph: Any = None,
    name: str = "searchain",
    description: str = TOOL_DESCRIPTION,
) -> BaseTool:
    """A tool for another agent: ``question`` in, the cited answer as text out (sync and async)."""
    runnable = searchain_runnable(context, graph)

    def answer(question: str) -> str:
        return format_answer(runnable.invoke(question))

    async def aanswer(question: str) -> str:
        return format_answer(await runnable.ainvoke(question))

    return StructuredTool.from_function(
        func=answer, coroutine=aanswer, name=name, description=description
    )
