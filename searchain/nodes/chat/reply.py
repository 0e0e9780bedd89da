"""Reply: an IRCoT or baseline answer joins the person's conversation."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from searchain.chat_markdown import reasoning_markdown
from searchain.state import ReasoningState


def reply(state: ReasoningState) -> dict[str, Any]:
    """The answer, its reasoning and the paragraphs retrieved, as the question's AI message."""
    content = reasoning_markdown(vars(state))
    return {"messages": [AIMessage(content, id=state.reply_id or None)]}
