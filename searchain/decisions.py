"""A person's decision on a correction awaiting approval: the request they see, the reply read.

The request is LangChain's human-in-the-loop shape (what Agent Chat UI, Agent Inbox and
``HumanInTheLoopMiddleware`` share); a reply is read from a closed list of forms, and anything
else is refused with the forms it may take.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from searchain.chat_markdown import quoted
from searchain.text import clean_text

ACTION = "correct_step"
"""The name of the action a correction asks a person to review."""
DecisionKind = Literal["approve", "reject", "edit"]


@dataclass(frozen=True)
class Decision:
    """A person's decision on a correction awaiting approval."""

    kind: DecisionKind
    """``approve`` the reader's answer, ``reject`` it (the model's stands), or ``edit`` it."""
    text: str = ""
    """The person's answer (``edit``), or their reason (``reject``, optional)."""


def correction_request(
    query: str, model_answer: str, answer: str, confidence: float | None, title: str, text: str
) -> dict[str, Any]:
    """The interrupt of a correction awaiting approval, in LangChain's human-in-the-loop shape.

    One action request (``correct_step``: its ``args`` are what a person reads and may edit,
    ``answer`` the one that matters), approvable, editable or rejectable: the shape Agent Chat
    UI, Agent Inbox and LangChain's ``HumanInTheLoopMiddleware`` share.
    """
    sure = f" (confidence {confidence:.2f})" if confidence is not None else ""
    description = (
        f"The passage *{title}* answers **{query}** with **{answer}**{sure}, where the model "
        f"said **{model_answer or '(nothing)'}**.\n\n> {quoted(text, 600)}\n\n"
        "Approve to use the passage's answer, edit it to give your own, or reject it to keep "
        "the model's."
    )
    return {
        "action_requests": [
            {
                "name": ACTION,
                "args": {
                    "query": query,
                    "answer": answer,
                    "model_answer": model_answer,
                    "confidence": confidence,
                    "passage": f"{title}: {quoted(text, 600)}",
                },
                "description": description,
            }
        ],
        "review_configs": [
            {"action_name": ACTION, "allowed_decisions": ["approve", "edit", "reject"]}
        ],
    }


def pending_correction(value: Any) -> dict[str, Any]:
    """The ``args`` of a correction interrupt, today's or a legacy one's, in today's names.

    ``query``, ``answer`` (the reader's), ``model_answer``, ``confidence`` and ``passage``; an
    interrupt checkpointed before it took LangChain's shape names them otherwise.
    """
    if isinstance(value, dict) and value.get("action_requests"):
        return dict(value["action_requests"][0]["args"])
    value = value if isinstance(value, dict) else {}
    passage = value.get("passage") or {}
    return {
        "query": value.get("query", ""),
        "answer": value.get("reader_answer", ""),
        "model_answer": value.get("llm_answer", ""),
        "confidence": value.get("confidence"),
        "passage": f"{passage.get('title', '')}: {passage.get('text', '')}",
    }


DECISION_FORMS = (
    '{"decisions": [{"type": "approve"}]}, {"type": "reject", "message": TEXT} or {"type": '
    '"edit", "edited_action": {"args": {"answer": TEXT}}} (alone or as the one item of '
    '"decisions"), or true/false, "approve"/"reject", {"approve": true/false}'
)
"""What a resume value may be: said whole whenever one is refused."""
_YES = frozenset({"approve", "approved", "yes", "y", "true"})
_NO = frozenset({"reject", "rejected", "no", "n", "false"})
_DECISION_KEYS = {
    "approve": frozenset({"type"}),
    "reject": frozenset({"type", "message"}),
    "edit": frozenset({"type", "edited_action"}),
}


def _refused(value: Any, why: str = "is no decision") -> ValueError:
    shown = repr(value)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return ValueError(f"{shown} {why}: a decision is {DECISION_FORMS}")


def _typed(value: dict[str, Any]) -> Decision:
    kind = value.get("type")
    if not isinstance(kind, str) or kind not in _DECISION_KEYS:
        raise _refused(value)
    unknown = sorted(str(key) for key in set(value) - _DECISION_KEYS[kind])
    if unknown:
        raise _refused(value, f"has fields a {kind} decision does not take ({', '.join(unknown)})")
    if kind == "approve":
        return Decision("approve")
    if kind == "reject":
        message = value.get("message") or ""
        if not isinstance(message, str):
            raise _refused(value, "gives a message that is not text")
        return Decision("reject", clean_text(message).strip())
    action = value.get("edited_action")
    if not isinstance(action, dict) or not set(action) <= {"name", "args"}:
        raise _refused(value, 'has an edited_action that is not {"name", "args"}')
    if action.get("name", "correct_step") != "correct_step":
        raise _refused(value, "edits an action that was not offered (correct_step)")
    args = action.get("args")
    answer = args.get("answer") if isinstance(args, dict) else None
    if not isinstance(answer, str) or not clean_text(answer).strip():
        raise _refused(value, "is an edit that gives no answer")
    return Decision("edit", clean_text(answer).strip())


def refused_request(request: dict[str, Any], why: str) -> dict[str, Any]:
    """The same request again, saying first why the last resume value was refused."""
    actions = [
        {**action, "description": f"Refused: {why}\n\n{action.get('description', '')}"}
        for action in request.get("action_requests", [])
    ]
    return {**request, "action_requests": actions, "refused": why}


def read_decision(value: Any) -> Decision:
    """A resume value as a decision, read strictly: what is not one of the forms is refused.

    LangChain's ``{"decisions": [{"type": "approve" | "reject" | "edit", ...}]}`` (what Agent
    Chat UI sends; one decision, for the one action offered), one such decision, or the older
    forms ``True``/``False``, ``"approve"``/``"reject"`` (and yes/no), ``{"approve": bool}``.
    Anything else (``{"type": "Approve"}``, an empty list, ``None``, an ``edited_action`` that
    is not an object) is a one-line ``ValueError`` naming the forms; nothing is guessed, and
    the thread still awaits the decision.
    """
    if isinstance(value, dict) and "decisions" in value:
        decisions = value["decisions"]
        if set(value) != {"decisions"} or not isinstance(decisions, list) or len(decisions) != 1:
            raise _refused(value, "is not one decision in a list")
        value = decisions[0]
        if not isinstance(value, dict):
            raise _refused(value)
        return _typed(value)
    if isinstance(value, dict) and "type" in value:
        return _typed(value)
    if isinstance(value, dict) and set(value) == {"approve"}:
        value = value["approve"]
        if not isinstance(value, bool):
            raise _refused(value, 'is no "approve" value (true or false)')
    if isinstance(value, bool):
        return Decision("approve" if value else "reject")
    if isinstance(value, str) and value.strip().lower() in _YES | _NO:
        return Decision("approve" if value.strip().lower() in _YES else "reject")
    raise _refused(value)
