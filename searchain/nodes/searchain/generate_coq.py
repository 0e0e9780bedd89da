"""GenerateCoQ: the LLM plans (or re-plans) a whole Chain-of-Query."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from langgraph.runtime import Runtime

from searchain.channels import RESTART
from searchain.context import Context, context_of, thread_settings
from searchain.conversation import as_llm_messages, model_turn, progress, prompt_turn
from searchain.events import emit
from searchain.nodes.searchain.chain import ParsedChain, parse_chain
from searchain.nodes.searchain.dedup import find_duplicate
from searchain.prompts import GuidedPrompt, feedback_template, render
from searchain.state import Branch, State, TreeNode, Turn, untraced
from searchain.text import counted
from searchain.tools.llms.generate import generate
from searchain.tools.llms.resolve import resolve_llm

MAX_TOKENS = 400
"""Bound on one chain's reply: a dozen query/answer pairs and the final content fit."""


def generate_coq(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ask the LLM for a chain and add it to the Tree-of-Reasoning as a new branch.

    The first round sends the task's Chain-of-Query prompt (after the thread's earlier questions,
    if any); later rounds continue the same conversation after the feedback Verify or Complete
    appended. Once ``r_max`` chains have been generated the node stops reasoning instead of
    calling the LLM again. On a thread whose last question is finished, this starts a new turn:
    the finished one moves to ``history`` and the per-question state starts afresh.
    """
    ctx = context_of(runtime, state.settings)
    state, reset = _new_turn(state) if state.stop_reason else (state, {})
    if state.rounds >= ctx.r_max:
        return {
            "stop_reason": "max_rounds",
            **progress(state, f"The {ctx.r_max}-round budget is spent."),
        }
    llm = resolve_llm(ctx.llm)
    guided = ctx.guided_prompt(state.task, llm)
    new_turns = [] if state.llm_messages else [prompt_turn(_first_prompt(state, ctx, guided))]
    emit(
        runtime,
        "round_started",
        round=state.rounds + 1,
        chain_prompt="guided" if guided else "paper",
    )
    # The task's stops: where a model starts inventing the next few-shot example (stopping there
    # saves most of a small model's generation time) or obeys the figures' stop instruction.
    stop = list(ctx.task_prompt(state.task).stop)
    turns = as_llm_messages([*state.llm_messages, *new_turns])
    grammar = guided.grammar if guided else None
    reply = generate(llm, turns, stop=stop, max_tokens=MAX_TOKENS, grammar=grammar)
    parsed = parse_chain(reply, max_nodes=ctx.max_chain_nodes)
    nodes, chain = _grown(state, parsed, ctx.dedup_threshold if ctx.semantic_dedup else None)
    new = len(nodes) - len(state.nodes)
    emit(
        runtime,
        "chain_generated",
        round=state.rounds + 1,
        nodes=len(chain),
        new=new,
        dropped=parsed.dropped,  # nodes beyond max_chain_nodes
    )
    planned = _planned(state.rounds, len(chain), new)
    if guided and new_turns:  # the first round says how the chain was asked for
        planned += " (guided prompt: a short instruction and the reply held to the chain format)"
    root = state.path[-1].id if state.path else None
    return {
        **reset,
        **progress(state, planned),
        "llm_messages": [*reset.get("llm_messages", []), *new_turns, model_turn(reply)],
        "question_asked": state.question,
        "nodes": nodes,
        "branches": [
            *state.branches,
            Branch(len(state.branches), root, chain, parsed.final_content),
        ],
        "rounds": state.rounds + 1,
        "cursor": 0,
        "settings": thread_settings(ctx),
        "stop_reason": "" if chain else "no_chain",
        "format_failures": [*state.format_failures, *_format_failures(parsed)],
    }


def _new_turn(state: State) -> tuple[State, dict[str, Any]]:
    """A finished question moved to ``history``: the fresh per-question state, and its writes.

    The writes clear the LLM's conversation (:data:`.channels.RESTART`) and every per-question
    field; the state returned is what this round then reads (the new question, no nodes, round 0).
    """
    finished = Turn(state.question_asked, state.answer, state.path)
    reset = {"history": [finished], **untraced(), "rounds": 0, "llm_messages": [RESTART]}
    fresh = State(
        question=state.question,
        task=state.task,
        history=[*state.history, finished],
        reply_id=state.reply_id,
        messages_version=state.messages_version,
    )
    return fresh, reset


def _grown(
    state: State, parsed: ParsedChain, threshold: float | None
) -> tuple[list[TreeNode], list[int]]:
    """The tree's nodes with ``parsed``'s new ones added, and the chain's node ids in order.

    A query already in the tree is that node (``threshold``: semantic dedup's, or text alone); a
    new one that repeats a verified step of an earlier question takes its reading (reused).
    """
    branch_id = len(state.branches)
    known = [(node.id, node.query) for node in state.nodes if node.step is not None]
    past = [step for turn in state.history for step in turn.steps if reusable(step)]
    earlier = [(-1 - i, step.query) for i, step in enumerate(past)]
    nodes = list(state.nodes)
    chain: list[int] = []
    parent = state.path[-1].id if state.path else None
    for item in parsed.nodes:
        node_id = find_duplicate(item.query, known, threshold=threshold)
        if node_id is None:
            node = TreeNode(
                id=len(nodes),
                branch=branch_id,
                parent=parent,
                query=item.query,
                llm_answer=item.answer,
                unsolved=item.unsolved,
            )
            match = find_duplicate(item.query, earlier, threshold=threshold)
            if match is not None:  # verified (or the person's) in an earlier question: reuse
                node = _reused(node, past[-1 - match])
            nodes.append(node)
            node_id = node.id
            known.append((node_id, item.query))
        chain.append(node_id)
        parent = node_id
    return nodes, chain


def _reused(node: TreeNode, old: TreeNode) -> TreeNode:
    """``node`` taking ``old``'s reading and answer, as an earlier question checked them."""
    return replace(
        node,
        **old.reading(),
        source=old.source,
        answer=old.answer,
        support=old.support,
        reused=True,
    )


def _format_failures(parsed: ParsedChain) -> list[str]:
    """How this reply missed the chain format: no chain, or a chain with no final content."""
    if not parsed.nodes:
        return ["no_chain"]
    if parsed.final_content is None and not any(item.unsolved for item in parsed.nodes):
        return ["no_final_content"]
    return []


def _planned(rounds: int, chained: int, new: int) -> str:
    """The progress line of round ``rounds + 1``: the sub-questions planned, and how many new."""
    if not chained:
        return f"Round {rounds + 1}: the model wrote no chain of sub-questions searchain could read"
    return f"Round {rounds + 1}: the model planned {counted(chained, 'sub-question')}" + (
        f", {new} new" if rounds and new != chained else ""
    )


def _first_prompt(state: State, ctx: Context, guided: GuidedPrompt | None = None) -> str:
    """The round-one prompt (the guided one where given); rejects input no prompt makes sense of."""
    question = " ".join(state.question.split())
    if not question:
        raise ValueError("the question is empty: pass a non-blank question")
    prompt = (guided or ctx.task_prompt(state.task)).prompt(question)
    if not state.history:
        return prompt
    turns = "\n".join(f"[Question]: {t.question}\n[Answer]: {t.answer}" for t in state.history)
    steps = [step for turn in state.history for step in turn.steps]
    groups: dict[str, list[str]] = {"facts": [], "given": [], "unchecked": []}
    for step in steps:
        if verified(step):
            groups["facts"].append(f"- {step.query} {step.answer}")
        elif step.source == "edited":
            groups["given"].append(f"- {step.query} {step.answer} (the person's answer)")
        elif step.rejected:
            groups["given"].append(
                f"- {step.query} {step.answer} (the model's answer, which the person kept over "
                f"the passage's {step.rejected})"
            )
        else:
            groups["unchecked"].append(f"- {step.query} {step.answer}")
    shown = {name: "\n".join(lines) or "(none)" for name, lines in groups.items()}
    return render(feedback_template("history"), turns=turns, **shown) + prompt


def verified(step: TreeNode) -> bool:
    """Whether an earlier step's answer was checked: its passage states it (or entails it)."""
    return step.support == "stated"


def reusable(step: TreeNode) -> bool:
    """Whether a later question may take an earlier step as it was, without searching.

    Only a verified step, or the person's own answer: an unchecked, unstated or unverifiable
    step is searched again, however its query repeats.
    """
    return verified(step) or step.source == "edited"
