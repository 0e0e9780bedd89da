"""SearChain inside other LangChain applications: as an agent's tool, or a step of an LCEL chain.

Both take the caller's own components through a :class:`~searchain.context.Context` (any chat
model object, any retriever or LangChain ``BaseRetriever``, any reader) and build the graph once.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage
from langchain_core.prompt_values import ChatPromptValue, PromptValue
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.tools import BaseTool, StructuredTool

from searchain.context import Context
from searchain.graph.searchain import build_graph
from searchain.provenance import cited_at, provenance_notes, unstated_notes
from searchain.text import clean_text

TOOL_DESCRIPTION = (
    "Answers a complex, multi-step factual question by planning sub-questions, checking each "
    "against retrieved passages, and returning the answer with numbered citations."
)


def format_answer(result: dict[str, Any]) -> str:
    """A run's result as text an LLM can quote: answer, cited content, references.

    A citation whose passage does not state its step is marked ``[n]†`` with a note; what
    searchain wrote rather than the model (a composed content, a fallback answer) says so.
    """
    content, notes = unstated_notes(result)
    lines = [f"Answer: {result.get('answer', '')}", "", content, *notes, *provenance_notes(result)]
    if result.get("references"):
        lines += ["", "References:"]
        lines += [
            f"[{ref.n}] the passage of [{ref.same_as}]"
            if ref.same_as is not None
            else f"[{ref.n}] {ref.title}{cited_at(ref.source)}: {ref.text}"
            for ref in result["references"]
        ]
    return "\n".join(lines).strip()


def to_input(value: Any) -> dict[str, Any]:
    """The graph's input from what an LCEL chain hands over.

    A question string; a ``{"question", "task"}`` dict; a prompt value (a ``ChatPromptTemplate``
    or ``PromptTemplate`` in front); or messages, whose last human message is the question.
    Anything else, or a blank question, fails in one line.
    """
    if isinstance(value, PromptValue):
        value = value.to_messages() if isinstance(value, ChatPromptValue) else value.to_string()
    if isinstance(value, BaseMessage):
        value = [value]
    if isinstance(value, list) and all(isinstance(m, BaseMessage) for m in value):
        human = [m for m in value if m.type == "human"]
        if not human:
            raise ValueError("searchain got messages with no human message: nothing to answer")
        value = human[-1].text
    if isinstance(value, str):
        value = {"question": value}
    if not isinstance(value, dict):
        raise TypeError(
            f"searchain takes a question string, a {{'question', 'task'}} dict, a prompt value "
            f"or messages, not {type(value).__name__}"
        )
    unknown = sorted(set(value) - {"question", "task"})
    if unknown:
        raise ValueError(f"searchain takes the keys question and task, not {', '.join(unknown)}")
    question = value.get("question")
    if not isinstance(question, str) or not question.strip():
        raise ValueError("searchain needs a non-blank 'question'")
    return {"question": clean_text(question), "task": value.get("task")}


def searchain_runnable(context: Context, graph: Any = None) -> Runnable[Any, dict[str, Any]]:
    """An LCEL runnable: a question (see :func:`to_input`) in, the graph's output dict out."""
    graph = graph if graph is not None else build_graph()
    adapter = RunnableLambda(to_input, name="to_searchain_input")
    return (adapter | graph.bind(context=context)).with_config(run_name="searchain")


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
