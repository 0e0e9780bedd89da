"""The person's conversation (the ``messages`` chat front-ends read) and the LLM's own, kept apart.

A chat front-end (Agent Chat UI, LangGraph Studio's chat view, anything on ``useStream``) shows a
thread's ``messages``: here each question is a human message and each answer one AI message in
Markdown — the answer, the final content with its ``[n]`` citations, the references with their
verdicts, and a note for whatever searchain wrote rather than the model. While a run goes on,
that AI message shows its progress, and it is replaced by the answer at the end. The LLM's
conversation (few-shot prompt, chains, feedback) lives in ``llm_messages``, as plain
``{"by", "text"}`` turns that neither LangGraph nor a front-end takes for messages. The reply's
Markdown is :mod:`searchain.chat_markdown`'s.

Threads checkpointed by a pre-release before this split kept the LLM's conversation in
``messages``: a run on one is refused where it enters the graph, before any node writes
(:func:`refuse_legacy`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID, uuid4

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.utils.utils import LC_ID_PREFIX

from searchain.state import Turn
from searchain.text import clean_text


def new_reply_id() -> str:
    """An id for the AI message that will answer a question.

    Shaped as LangChain names a streamed reply (``lc_run--<run id>``), so the answer's tokens,
    streamed by a model call run under :func:`run_id_of` this id, land in the same message.
    """
    return f"{LC_ID_PREFIX}-{uuid4()}"


def run_id_of(reply_id: str) -> UUID:
    """The model-call run id whose streamed tokens carry ``reply_id`` (see :func:`new_reply_id`)."""
    return UUID(reply_id.removeprefix(f"{LC_ID_PREFIX}-"))


def text_of(message: BaseMessage) -> str:
    """A message's text, whether its content is a string or content blocks."""
    return clean_text(message.text).strip()


def prompt_turn(text: str) -> dict[str, str]:
    """A turn of the LLM conversation that searchain wrote (a prompt, feedback)."""
    return {"by": "searchain", "text": text}


def model_turn(text: str) -> dict[str, str]:
    """A turn of the LLM conversation that the model wrote (a chain)."""
    return {"by": "llm", "text": text}


def as_llm_messages(turns: Sequence[dict[str, str]]) -> list[BaseMessage]:
    """The LLM conversation as the chat messages a model takes."""
    return [AIMessage(t["text"]) if t["by"] == "llm" else HumanMessage(t["text"]) for t in turns]


def refuse_legacy(state: Any) -> None:
    """Refuse a thread checkpointed by a pre-release before ``messages`` was the person's.

    Such a SearChain state asked a question (``question_asked``) and never set
    ``messages_version``: its ``messages`` hold the LLM's conversation, which this release would
    misread. The first public release is the floor; the nodes a run enters by (receive, edit, a
    resumed verify) call this before they write anything (LangGraph has checkpointed the run's
    input by then; the thread's earlier checkpoints are kept as they were).
    """
    if getattr(state, "messages_version", 1) == 0 and state.question_asked:
        raise ValueError(
            "this thread was checkpointed by a pre-release of searchain, whose messages held the "
            "model's conversation; this release does not run it: start a new thread"
        )


def asked_message(state: Any) -> HumanMessage | None:
    """The human message that asks this run's question, when the run was given ``messages``.

    It is the last message, and not the one an earlier run took (``asked_id``).
    """
    if not state.messages or not isinstance(state.messages[-1], HumanMessage):
        return None
    last = state.messages[-1]
    return None if last.id == state.asked_id else last


def earlier_turns(messages: Sequence[BaseMessage]) -> list[Turn]:
    """The question/answer pairs of a conversation a caller sent (a stateless chat's history)."""
    turns, question = [], ""
    for message in messages:
        if isinstance(message, HumanMessage):
            question = text_of(message)
        elif isinstance(message, AIMessage) and question and text_of(message):
            turns.append(Turn(question, text_of(message), []))
            question = ""
    return turns


def progress(state: Any, line: str) -> dict[str, Any]:
    """The writes that add ``line`` to the current question's progress, shown in its reply."""
    if not state.reply_id:
        return {}
    lines = [*state.progress, line]
    content = "_Working on it…_\n\n" + "\n".join(f"- {item}" for item in lines)
    return {"progress": lines, "messages": [AIMessage(content, id=state.reply_id)]}
