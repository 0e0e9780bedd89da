"""Receive: take this run's question, from ``question`` or from the person's last message."""

from __future__ import annotations

from typing import Any
from uuid import uuid4

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from searchain.channels import Given
from searchain.context import Context, context_of
from searchain.conversation import (
    asked_message,
    earlier_turns,
    new_reply_id,
    refuse_legacy,
    text_of,
)
from searchain.documents.uploads import read_uploads, sent_files
from searchain.errors import SettingError
from searchain.searched import upload_bounds
from searchain.state import State, unreasoned


def unasked(state: Any) -> SettingError:
    """Why a run that was given no question, and whose messages ask none, is refused."""
    last = state.messages[-1] if state.messages else None
    ending = "it has no messages" if last is None else f"its messages end in a {last.type} message"
    return SettingError(
        f"this run asks no question: it was given no `question`, and {ending}, not a human "
        "one; end the messages with the person's question, or pass `question`"
    )


def brought(state: Any) -> list[HumanMessage]:
    """The human messages this run brought: those after the one the thread's last run took.

    A new thread given a whole conversation brings all of it, files of earlier turns included.
    """
    ids = [m.id for m in state.messages]
    start = ids.index(state.asked_id) + 1 if state.asked_id and state.asked_id in ids else 0
    return [m for m in state.messages[start:] if isinstance(m, HumanMessage)]


def receive(state: Any, runtime: Runtime[Context]) -> dict[str, Any]:
    """Set the question, add it to the person's conversation, and open the reply to it.

    A run given ``messages`` ending in a human message the thread has not taken yet asks that
    message; its earlier turns, on a new SearChain thread, become the thread's history. A run
    given ``question`` asks it, and it joins ``messages`` as a human message. A run given
    neither (messages ending in an AI or tool message, or none) is refused in one line, never
    answered with the thread's last question. A pre-release's thread is refused
    (:func:`~searchain.conversation.refuse_legacy`). Files the run's messages send join the
    thread's own corpus (``uploads``), each read and within its bounds, or the run is refused
    whole, in one line.
    """
    refuse_legacy(state)
    searchain = isinstance(state, State)
    messages: list[Any] = []
    update: dict[str, Any] = {"reply_id": new_reply_id(), "progress": []}
    if searchain:
        update["messages_version"] = 1
    else:
        update.update(unreasoned())  # a follow-up question is answered afresh
    asked = asked_message(state)
    if asked is None and not isinstance(state.question, Given):
        raise unasked(state)
    if asked is not None:
        bounds = upload_bounds(context_of(runtime, state.settings))
        files = [f for m in brought(state) for f in sent_files(m.content, bounds.max_bytes)]
        uploads = read_uploads(files, state.uploads, bounds)
        if uploads:
            update.update({"uploads": uploads, "progress": [u.described() for u in uploads]})
        question = text_of(asked)
        if searchain and not state.history and not state.question_asked:
            history = earlier_turns(state.messages[:-1])
            if history:
                update["history"] = history
        if messages:  # the migrated conversation lost the question: ask it again at its end
            messages.append(asked)
    else:
        question = " ".join(state.question.split())
        asked = HumanMessage(question, id=str(uuid4()))
        messages.append(asked)
    if not question:
        raise ValueError(
            "the question is empty: pass a non-blank question, or end messages with a human "
            "message that asks one"
        )
    return {
        **update,
        "question": question,
        "asked_id": asked.id,
        "messages": messages,
    }
