"""Trace: write the final content from the reasoning path, citing each step's passage."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import Runtime

from searchain.chat_markdown import answer_markdown
from searchain.context import Context, context_of
from searchain.conversation import run_id_of
from searchain.events import emit
from searchain.nodes.searchain.citations import (
    cite_model_content,
    compose_content,
    resolve_citations,
)
from searchain.prompts import feedback_template, render
from searchain.state import State
from searchain.text import extract_final_answer
from searchain.tools.llms.generate import generate
from searchain.tools.llms.resolve import resolve_llm

STOP = ["\n\n", "\n["]
"""The final content is one paragraph; without a stop small models repeat its last line."""
MAX_TOKENS = 256


def trace(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Produce ``final_content`` with resolved ``[n]`` references and the short ``answer``.

    With no accepted step there is nothing to cite: the model's last reply (its last chain's
    ``[Final Content]``, else the reply itself) is the result — never a prompt of ours. The LLM
    writes the final content in a fresh conversation (the Chain-of-Query history is not
    needed); if it cites nothing, searchain composes one from the path so that every step still
    carries its reference, and says so (``content_source`` ``composed``, its citations
    ``inserted``). The model's own words stay in ``model_content``, which answer metrics read.
    """
    ctx = context_of(runtime, state.settings)
    labels = ctx.task_prompt(state.task).answer_labels
    path = state.path
    stop_reason = state.stop_reason or "chain_passed"
    if not path:
        # Nothing was accepted, so nothing can be cited: the model's own final content is the
        # result, its [n] markers removed (and reported) like any that point nowhere.
        reply = last_reply(state)
        content, _, unresolved = resolve_citations(reply, [])
        answer = extract_final_answer(content, labels)
        emit(runtime, "trace_done", references=0, unresolved=unresolved)
        return said(
            state,
            {
                "final_content": content,
                "content_source": "model" if content else "",
                "model_content": content,
                "trace_reply": reply,
                "answer": answer,
                "answer_source": "model" if answer else "",
                "references": [],  # every output field, even with nothing to cite
                "unresolved_citations": unresolved,
                "stop_reason": stop_reason,
                "format_failures": state.format_failures + ([] if answer else ["no_final_answer"]),
            },
        )

    steps = "\n".join(f"[{node.step}] {node.query} {node.answer}" for node in path)
    instruction = f" The answer must be one of: {', '.join(labels)}." if labels else ""
    prompt = render(
        feedback_template("trace"),
        question=state.question,
        steps=steps,
        answer_instruction=instruction,
    )
    llm = resolve_llm(ctx.llm)
    # The person sees the answer's tokens as they come, in the reply (not a prompt of ours).
    shown = run_id_of(state.reply_id) if state.reply_id else None
    reply = generate(llm, [HumanMessage(prompt)], stop=STOP, max_tokens=MAX_TOKENS, stream_as=shown)
    written, references, unresolved = resolve_citations(reply, path)
    stated = extract_final_answer(written, labels)
    # The last step's answer, when the model stated none: shown, but not the model's answer.
    answer = stated or path[-1].answer.strip(" .")
    content, source = written, "model"
    if not references and (own := cite_model_content(written, path)):
        # The model's words, cited by searchain where they state a step's answer.
        content, cited, _ = resolve_citations(own, path)
        references = [replace(ref, inserted=True) for ref in cited]
    if not references:
        content, cited, _ = resolve_citations(compose_content(path, answer), path)
        references = [replace(ref, inserted=True) for ref in cited]
        source = "composed"
    emit(runtime, "trace_done", references=len(references), unresolved=unresolved)
    return said(
        state,
        {
            "final_content": content,
            "content_source": source,
            "model_content": written,
            "trace_reply": reply,
            "answer": answer,
            "answer_source": "model" if stated else "path" if answer else "",
            "references": references,
            "unresolved_citations": unresolved,
            "stop_reason": stop_reason,
            "format_failures": state.format_failures + ([] if stated else ["no_final_answer"]),
        },
    )


def said(state: State, traced: dict[str, Any]) -> dict[str, Any]:
    """``traced`` with the answer as the question's reply in the person's conversation.

    The reply replaces the progress message (same id).
    """
    reply = AIMessage(answer_markdown({**vars(state), **traced}), id=state.reply_id or None)
    return {**traced, "messages": [reply]}


def last_reply(state: State) -> str:
    """The model's last words: its last chain's ``[Final Content]``, else its last reply."""
    if state.branches and state.branches[-1].final_content is not None:
        return state.branches[-1].final_content
    replies = [t["text"] for t in state.llm_messages if t["by"] == "llm"]
    return replies[-1] if replies else ""
