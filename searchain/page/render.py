"""A run's Tree-of-Reasoning as one self-contained HTML page (no network, no scripts fetched).

The page takes results in their JSON form (:func:`searchain.output.result_to_json`), so the
same page is written for a run just finished (``ask --html``), for every question of a thread
read back from its checkpoints (``show --html``) and for an evaluation's result lines
(``report``). Per question: the answer with clickable ``[n]`` citations, the references with
their verdicts, and the tree, each node with its query, the LLM's and the reader's answers, the
confidence against θ, where its knowledge came from (colour *and* label), its verdict, why it
was accepted, and its passage on expand. Native ``<details>`` and links: keyboard-navigable
without a script; the small inline script only opens a step a link points at.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from searchain.files import write_atomic
from searchain.provenance import provenance_notes, rounds_without_new_queries
from searchain.text import counted
from searchain.types import Source

SOURCE_LABELS = {
    "llm": "LLM",
    "corrected": "corrected by IR",
    "completed": "completed by IR",
    "edited": "edited by a person",
    None: "not reached",
}
"""How each knowledge source is named on the page (its colour comes from the stylesheet)."""
_CITATION = re.compile(r"\[(\d+)\]")


def _asset(name: str) -> str:
    return resources.files("searchain.page").joinpath(name).read_text(encoding="utf-8")


def render_page(
    results: Sequence[dict[str, Any]],
    *,
    title: str = "",
    banner: Sequence[str] = (),
    documents: Path | None = None,
    thread: str = "",
) -> str:
    """The HTML page of ``results`` (JSON-form results, one per question, in order).

    ``thread`` is the thread the results belong to: the page names it, and each step's
    ``searchain edit THREAD NODE`` line carries it (an evaluation's page has none).

    ``banner`` lines head the page (an evaluation's run, gold answer and scores, and whether a
    simulated model took part), so a page read on its own still says what it is. ``documents``
    is the folder a documents index was built from: a reference to one of its files links to
    the file, at its page or section (``file:///…/report.pdf#page=12``).
    """
    if not results:
        raise ValueError("no question to show: the page needs at least one answered question")
    title = title or f"searchain: {results[0].get('question', '')}"
    several = len(results) > 1
    if documents is not None:
        results = [_linked(result, documents) for result in results]
    body = "\n".join(_question(i, r, several, thread) for i, r in enumerate(results, 1))
    named = [f"Thread {thread}: searchain show {thread} prints it again"] if thread else []
    lines = "".join(f"<p>{_e(line)}</p>\n" for line in [*banner, *named])
    top = (
        f'<section class="banner" aria-label="about this page">\n{lines}</section>\n'
        if lines
        else ""
    )
    return (
        f"{OPENING}"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(title)}</title>\n<style>\n{_asset('page.css')}</style>\n</head>\n<body>\n"
        '<a class="skip" href="#main">Skip to the answer</a>\n'
        "<header><p>searchain · Search-in-the-Chain · Tree-of-Reasoning</p></header>\n"
        f'{top}<main id="main">\n{_heading(1, title if several else "", results, several)}'
        f"{body}\n</main>\n<script>\n{_asset('page.js')}{CLOSING}"
    )


GENERATOR = '<meta name="generator" content="searchain">'
"""The page's mark, in its opening lines."""
OPENING = f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n{GENERATOR}\n'
"""How every page begins, byte for byte."""
CLOSING = "</script>\n</body>\n</html>\n"
"""How every page ends."""


def is_page(path: Path) -> bool:
    """Whether the file at ``path`` is a page searchain wrote (and so may be written over).

    It must open with the page's own first lines and end as a page ends: a notes file that
    quotes the mark, or searchain's own source, is no page.
    """
    try:
        with path.open("rb") as handle:
            head = handle.read(len(OPENING.encode()))
            handle.seek(max(0, os.fstat(handle.fileno()).st_size - len(CLOSING)))
            tail = handle.read()
    except OSError:
        return False
    return head == OPENING.encode() and tail == CLOSING.encode()


def write_page(
    path: Path,
    results: Sequence[dict[str, Any]],
    *,
    title: str = "",
    banner: Sequence[str] = (),
    documents: Path | None = None,
    thread: str = "",
) -> Path:
    """Write the page to ``path`` whole or not at all (a temporary file renamed into place)."""
    page = render_page(results, title=title, banner=banner, documents=documents, thread=thread)
    return write_atomic(path, page)


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _heading(level: int, text: str, results: Sequence[dict[str, Any]], several: bool) -> str:
    if not several:
        return ""
    shown = counted(len(results), "question")
    return f"<h{level}>{_e(text)}</h{level}>\n<p>{shown} in this thread.</p>\n"


def _question(i: int, result: dict[str, Any], several: bool, thread: str) -> str:
    q = f"q{i}"
    top = 2 if several else 1
    sub = top + 1
    nodes = {node["id"]: node for node in result.get("nodes", [])}
    references = result.get("references", [])
    unstated = {ref["n"] for ref in references if ref.get("support") == "unstated"}
    content = _e(result.get("final_content", ""))
    content = _CITATION.sub(lambda m: _cite(q, int(m.group(1)), unstated), content)
    notes = [
        f'<p class="note">† passage [{ref["n"]}] does not state: '
        f"{_e(nodes.get(ref['node'], {}).get('answer', ''))}</p>"
        for ref in references
        if ref["n"] in unstated
    ]
    parts = [
        f'<article id="{q}" aria-labelledby="{q}-title">',
        f'<h{top} id="{q}-title">{_e(result.get("question", ""))}</h{top}>',
        f"<h{sub}>Answer</h{sub}>",
        f'<p class="answer"><strong>{_e(result.get("answer") or "(none)")}</strong></p>',
        f'<p class="content">{content}</p>',
        *notes,
        *(f'<p class="note provenance">{_e(note)}</p>' for note in provenance_notes(result)),
        f"<h{sub}>References</h{sub}>",
        _references(q, references) if references else "<p>No passage is cited.</p>",
        f"<h{sub}>Tree-of-Reasoning</h{sub}>",
        _summary(result),
        _legend(),
        _tree(q, result, references, thread),
        "</article>",
    ]
    return "\n".join(parts)


def _cite(q: str, n: int, unstated: set[int]) -> str:
    mark = "†" if n in unstated else ""
    label = f"citation {n}" + (", its passage does not state this step" if mark else "")
    return f'<a class="cite" href="#{q}-ref-{n}" aria-label="{label}">[{n}]{mark}</a>'


def _linked(result: dict[str, Any], documents: Path) -> dict[str, Any]:
    """``result`` with each source (of a reference, of a step's passage) given its ``href``."""

    def link(item: dict[str, Any]) -> dict[str, Any]:
        stored = item.get("source")
        source = Source.of(stored)
        if source is None or source.sent:  # a file sent in the chat is in no folder
            return item
        href = (documents / source.path).absolute().as_uri() + source.fragment()
        return {**item, "source": {**stored, "href": href}}

    nodes = [
        {**node, "passage": link(node["passage"])} if node.get("passage") else node
        for node in result.get("nodes", [])
    ]
    return {**result, "references": [link(r) for r in result.get("references", [])], "nodes": nodes}


def _where(item: dict[str, Any]) -> str:
    """A reference's or passage's file and page (a link where its folder is known), else its id."""
    stored = item.get("source")
    source = Source.of(stored)
    if source is None:
        return _e(item["id"])
    cite = _e(source.cite())
    href = stored.get("href") if isinstance(stored, dict) else None
    return f'<a href="{_e(href)}">{cite}</a>' if isinstance(href, str) else cite


def _references(q: str, references: list[dict[str, Any]]) -> str:
    items = []
    for ref in references:
        verdict = _verdict(ref.get("support"))
        step = f'<a href="#{q}-node-{ref["node"]}">step {ref["n"]} in the tree</a>'
        same = ref.get("same_as")
        if isinstance(same, int):  # the passage is quoted once, at its first reference
            items.append(
                f'<li id="{q}-ref-{ref["n"]}" value="{ref["n"]}">the passage of '
                f'<a href="#{q}-ref-{same}">[{same}]</a> {verdict} {step}</li>'
            )
            continue
        items.append(
            f'<li id="{q}-ref-{ref["n"]}" value="{ref["n"]}"><strong>{_e(ref["title"])}</strong> '
            f'<span class="meta">({_where(ref)})</span> {verdict} {step}'
            f"<blockquote>{_e(ref['text'])}</blockquote></li>"
        )
    return '<ol class="refs">\n' + "\n".join(items) + "\n</ol>"


def _verdict(support: str | None) -> str:
    if support == "stated":
        return '<span class="badge stated">passage states it</span>'
    if support == "unstated":
        return '<span class="badge unstated">passage does not state it</span>'
    if support == "unverifiable":
        return '<span class="badge unverifiable">the lexical rule cannot check it</span>'
    return ""


def _summary(result: dict[str, Any]) -> str:
    rounds = result.get("rounds", 0)
    reason = {
        "chain_passed": "the whole chain passed verification",
        "max_rounds": "the round budget ran out",
        "no_chain": "the LLM wrote no chain of queries",
    }.get(result.get("stop_reason", ""), result.get("stop_reason", ""))
    failures = result.get("format_failures", [])
    unread = f" Replies the parser could not read: {_e(', '.join(failures))}." if failures else ""
    return (
        f"<p>{counted(rounds, 'round')}; reasoning ended because {_e(reason)}.{unread} "
        "Each round's chain is a branch; a new branch starts under the step IR corrected or "
        "completed. Open a step for its reading, its passage and why it was accepted.</p>"
    )


def _legend() -> str:
    items = "".join(
        f'<li><span class="badge src-{source or "none"}">{label}</span></li>'
        for source, label in SOURCE_LABELS.items()
    )
    return f'<ul class="legend" aria-label="Where knowledge came from">{items}</ul>'


def _tree(q: str, result: dict[str, Any], references: list[dict[str, Any]], thread: str) -> str:
    nodes = result.get("nodes", [])
    if not nodes:
        return "<p>No chain of queries was read from the LLM's reply.</p>"
    children: dict[int | None, list[dict[str, Any]]] = {}
    for node in nodes:
        children.setdefault(node["parent"], []).append(node)
    cited = {ref["node"]: ref["n"] for ref in references}

    def branch(parent: int | None, depth: int) -> str:
        items = []
        for node in children.get(parent, []):
            inner = branch(node["id"], depth + 1) if depth < len(nodes) else ""
            shown = _node(q, node, cited.get(node["id"]), parent, nodes, thread)
            items.append(shown + inner + "</li>")
        return f"<ul>{''.join(items)}</ul>" if items else ""

    chains = [(b["id"], list(b["nodes"])) for b in result.get("tree", [])]
    rounds = {node["id"]: node["branch"] for node in nodes}
    unseen = "".join(
        f'<p class="note">{_e(line)}</p>' for line in rounds_without_new_queries(chains, rounds)
    )
    return '<div class="tree">' + branch(None, 0) + "</div>" + unseen


def _node(
    q: str,
    node: dict[str, Any],
    n: int | None,
    parent: int | None,
    nodes: list[dict[str, Any]],
    thread: str,
) -> str:
    source = node.get("source")
    starts = parent is None or nodes[parent]["branch"] != node["branch"]
    answer = node.get("answer") or node.get("llm_answer") or "(unsolved)"
    round_note = (
        f'<span class="round">Round {node["branch"] + 1}'
        + (", re-planned from the step above" if parent is not None else "")
        + "</span>"
        if starts
        else ""
    )
    label = SOURCE_LABELS.get(source, source)
    badges = f'<span class="badge src-{source or "none"}">{label}</span>'
    if node.get("support"):
        badges += " " + _verdict(node["support"])
    step = f"Step {node['step']}: " if node.get("step") else ""
    passage = node.get("passage")
    rows = [
        ("LLM's answer", _e(node.get("llm_answer") or "(marked unsolved)")),
        ("Reader's answer", _reading(node)),
        ("Knowledge", _e(SOURCE_LABELS.get(source, source))),
        ("Node", _node_id(node["id"], thread)),
        ("Why", _e(why(node))),
    ]
    if n is not None:
        rows.append(("Cited as", f'<a href="#{q}-ref-{n}">[{n}]</a>'))
    body = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows)
    if passage:
        body += (
            f'<dt>Passage</dt><dd class="passage"><strong>{_e(passage["title"])}</strong> '
            f'<span class="meta">({_where(passage)})</span>'
            f"<blockquote>{_e(passage['text'])}</blockquote></dd>"
        )
    css = f"node-{source or 'none'}" + (" branch-start" if starts else "")
    return (
        f'<li class="{css}">{round_note}<details id="{q}-node-{node["id"]}"><summary>{step}'
        f'<span class="query">{_e(node["query"])}</span> → {_e(answer)} {badges}</summary>'
        f"<dl>{body}</dl></details>"
    )


def _node_id(node: int, thread: str) -> str:
    """The node's number, with the command that corrects it where the thread is known."""
    if not thread:
        return str(node)
    return f"{node} (<code>searchain edit {_e(thread)} {node} --answer TEXT</code> corrects it)"


def _reading(node: dict[str, Any]) -> str:
    if not node.get("passage_id"):
        return "no passage found" if node.get("source") else "not read"
    confidence = node.get("confidence")
    if confidence is None:
        return _e(node.get("reader_answer") or "(none)")
    theta = node.get("theta")
    against = ""
    if theta is not None:
        against = f" {'>' if confidence > theta else '≤'} θ {theta:.2f}"
    calibrated = "" if node.get("calibrated", True) else ", uncalibrated"
    answer = node.get("reader_answer") or "(no span)"
    return f"{_e(answer)} (confidence {confidence:.2f}{against}{calibrated})"


def why(node: dict[str, Any]) -> str:
    """Why a node is on the reasoning path as it is (or why it is not), in one sentence."""
    source = node.get("source")
    confidence, theta = node.get("confidence"), node.get("theta")
    if source is None:
        return "Not reached: the chain was re-planned before this step."
    if node.get("reused"):
        return "Reused from an earlier question of this thread, as it was accepted there."
    if source == "corrected":
        return (
            "Corrected by IR: the reader was confident and its answer, from the passage, is not "
            "the LLM's, so the reader's answer replaced it and the LLM re-planned from here."
        )
    if source == "completed":
        return (
            "Completed by IR: the LLM marked the query unsolved, so the reader's answer from the "
            "passage filled it in and the LLM re-planned from here."
        )
    if source == "edited":
        return "Edited by a person, whose answer replaced it; the LLM re-planned from here."
    if node.get("rejected"):
        return f"Kept as the LLM answered: a person rejected the reader's {node['rejected']!r}."
    if not node.get("passage_id"):
        return "Kept as the LLM answered: retrieval found no passage to check it against."
    if confidence is not None and theta is not None and confidence <= theta:
        return "Kept as the LLM answered: the reader was not confident enough to override it."
    return "Kept as the LLM answered: the reader agreed, or had no evidence against it."
