"""How a run looks in the terminal: progress lines on stderr, the answer and tree on stdout."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.tree import Tree

from searchain.cli.common import err, out, print_layout
from searchain.decisions import pending_correction
from searchain.provenance import (
    UNSTATED,
    provenance_notes,
    rounds_without_new_queries,
    unstated_notes,
)
from searchain.text import counted

VERDICTS = {
    "stated": " [green]· states its step[/green]",
    "unstated": " [red]· does not state its step[/red]",
    "unverifiable": " [yellow]· cannot be checked by the lexical rule[/yellow]",
}
"""Each reference's verdict, after its title: does its passage state the step citing it?"""
GUIDED = (
    "guided: a short instruction, not the paper's few-shot prompt, and the reply held to the "
    "Chain-of-Query format by a grammar, as a small local model needs (--chain-prompt paper runs "
    "the paper's prompt unconstrained)"
)
"""What a run on a llama.cpp model says before its first chain (see ``Context.chain_prompt``)."""
SOURCE_STYLE = {
    "llm": "cyan",
    "corrected": "yellow",
    "completed": "green",
    "edited": "magenta",
    None: "dim",
}


def show_progress(event: dict[str, Any]) -> None:
    """One stderr line per progress event of a run."""
    kind = event["event"]
    if kind == "round_started":
        err.print(f"[bold]round {event['round']}[/bold]: the LLM writes a chain of queries…")
        if event["round"] == 1 and event.get("chain_prompt") == "guided":
            err.print(f"  [dim]{GUIDED}[/dim]")
    elif kind == "chain_generated":
        cut = f", {event['dropped']} beyond max_chain_nodes cut" if event.get("dropped") else ""
        err.print(
            f"  chain of {counted(event['nodes'], 'query', 'queries')} ({event['new']} new{cut})"
        )
    elif kind == "node_retrieved":
        found = event.get("where") or event["passage"] or "nothing found"
        conf = event.get("confidence")
        reading = (
            f" → reader {event.get('reader_answer')!r} ({conf:.2f})" if conf is not None else ""
        )
        err.print(
            f"  {escape(event['query'])} [dim]\\[{escape(str(found))}]{escape(reading)}[/dim]"
        )
    elif kind == "node_edited":
        err.print(f"  [magenta]edited[/magenta] {event['before']!r} → {event['after']!r}")
    elif kind == "node_corrected":
        err.print(f"  [yellow]corrected[/yellow] {event['llm']!r} → {event['ir']!r}")
    elif kind == "completion_found_nothing":
        err.print("  [dim]nothing to complete it with: the LLM answers it itself[/dim]")
    elif kind == "node_completed":
        err.print(f"  [green]completed[/green] → {event['ir']!r}")
    elif kind == "node_reused":
        err.print(f"  reused from an earlier question: {escape(event['query'])}")
    elif kind == "correction_rejected":
        err.print(f"  [red]correction rejected[/red] ({event['ir']!r})")
    elif kind == "trace_done":
        err.print(f"  traced, {counted(event['references'], 'reference')}")


def show_result(result: dict[str, Any]) -> None:
    """The answer, the cited content, the references and the Tree-of-Reasoning."""
    out.print(f"[bold]Answer:[/bold] {escape(result.get('answer') or '(none)')}\n")
    content, notes = unstated_notes(result)
    out.print(escape(content))
    for note in notes:
        out.print(f"[red]{escape(note)}[/red]")
    for note in provenance_notes(result):
        out.print(f"[yellow]{escape(note)}[/yellow]")
    out.print()
    for ref in result.get("references", []):
        mark = UNSTATED if ref.support == "unstated" else ""
        verdict = VERDICTS.get(ref.support, "")
        if ref.same_as is not None:
            out.print(f"[bold]\\[{ref.n}]{mark}[/bold] the passage of \\[{ref.same_as}]{verdict}")
            continue
        where = ref.source.cite() if ref.source is not None else ref.id
        out.print(
            f"[bold]\\[{ref.n}]{mark}[/bold] {escape(ref.title)} [dim]({escape(where)})[/dim]"
            f"{verdict}"
        )
        out.print(f"    {escape(ref.text)}")
    if result.get("unresolved_citations"):
        out.print(f"[dim]removed citations to no step: {result['unresolved_citations']}[/dim]")
    show_tree(result)


def show_tree(result: dict[str, Any]) -> None:
    """The Tree-of-Reasoning: every node, its answer, knowledge source, confidence, verdict."""
    why = result.get("stop_reason") or "not finished"  # a run paused for approval has none
    tree = Tree(
        f"[bold]Tree-of-Reasoning[/bold] ({counted(result.get('rounds', 0), 'round')}, {why})"
    )
    branches: dict[int | None, Tree] = {None: tree}
    for node in result.get("nodes", []):
        parent = branches.get(node.parent, tree)
        label = node.source or "not reached"
        if node.reused:
            label = f"reused from an earlier question: {label}"
        conf = f", conf {node.confidence:.2f}" if node.confidence is not None else ""
        if conf and not node.calibrated:
            conf += " uncalibrated"
        answer = node.answer or node.llm_answer or "?"
        verdict = f", {node.support}" if node.support else ""
        branches[node.id] = parent.add(
            f"[{SOURCE_STYLE[node.source]}]{escape(node.query)} → {escape(answer)} "
            f"({label}{conf}{verdict}, node {node.id})[/]"
        )
    chains = [(b.id, list(b.nodes)) for b in result.get("branches", [])]
    rounds = {node.id: node.branch for node in result.get("nodes", [])}
    for line in rounds_without_new_queries(chains, rounds):
        tree.add(f"[dim]{escape(line)}[/dim]")
    print_layout(tree)


def show_pending(pending: dict[str, Any], thread: str) -> None:
    """A correction waiting for a person: the step, both answers, the passage, what to do."""
    request = pending_correction(pending)
    confidence = request.get("confidence")
    sure = f" (confidence {confidence:.2f})" if isinstance(confidence, float) else ""
    out.print(
        f"[yellow]Correction waiting for approval[/yellow] on {escape(request['query'])}\n"
        f"  LLM: {escape(repr(request['model_answer']))} → reader: "
        f"{escape(repr(request['answer']))}{sure}\n"
        f"  passage {escape(request.get('passage', ''))}\n"
        f"Approve or reject it: `searchain resume {thread} --approve` or `--reject`",
    )
