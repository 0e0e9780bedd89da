"""Trace: write the final content from the reasoning path, citing each step's passage."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from searchain.context import Context, context_of
from searchain.events import emit
from searchain.nodes.searchain.citations import compose_content, resolve_citations
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

    With no accepted step there is nothing to cite: the last chain's ``[Final Content]`` (or the
    LLM's last reply) is the result. The LLM writes the final content in a fresh conversation
    (the Chain-of-Query history is not needed); if it cites nothing, the content is rewritten
    from the path so that every step still carries its reference.
    """
    ctx = context_of(runtime, state.settings)
    labels = ctx.task_prompt(state.task).answer_labels
    path = state.path
    stop_reason = state.stop_reason or "chain_passed"
    if not path:
        # Nothing was accepted, so nothing can be cited: the LLM's own final content is the
        # result, its [n] markers removed (and reported) like any that point nowhere.
        last = state.branches[-1].final_content if state.branches else None
        raw = last if last is not None else (state.messages[-1].text if state.messages else "")
        content, _, unresolved = resolve_citations(raw, [])
        answer = extract_final_answer(content, labels)
        emit(runtime, "trace_done", references=0, unresolved=unresolved)
        return {
            "final_content": content,
            "answer": answer,
            "references": [],  # every output field, even with nothing to cite
            "unresolved_citations": unresolved,
            "stop_reason": stop_reason,
            "format_failures": state.format_failures + ([] if answer else ["no_final_answer"]),
        }

    steps = "\n".join(f"[{node.step}] {node.query} {node.answer}" for node in path)
    instruction = f" The answer must be one of: {', '.join(labels)}." if labels else ""
    prompt = render(
        feedback_template("trace"),
        question=state.question,
        steps=steps,
        answer_instruction=instruction,
    )
    llm = resolve_llm(ctx.llm)
    reply = generate(llm, [HumanMessage(prompt)], stop=STOP, max_tokens=MAX_TOKENS)
    content, references, unresolved = resolve_citations(reply, path)
    stated = extract_final_answer(content, labels)
    answer = stated or path[-1].answer.strip(" .")  # the last step's answer, when none is stated
    if not references:
        content, references, _ = resolve_citations(compose_content(path, answer), path)
    emit(runtime, "trace_done", references=len(references), unresolved=unresolved)
    return {
        "final_content": content,
        "answer": answer,
        "references": references,
        "unresolved_citations": unresolved,
        "stop_reason": stop_reason,
        "format_failures": state.format_failures + ([] if stated else ["no_final_answer"]),
    }
