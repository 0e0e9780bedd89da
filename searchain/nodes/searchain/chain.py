"""Turn an LLM's Chain-of-Query reply into chain nodes.

Real models, small ones most of all, do not follow the format exactly. The parser therefore reads
the reply as a stream of markers rather than as lines, and it:

* accepts ``[Query 1]``, ``[Query]``, ``[Query #2]``, ``Query 3:`` at a line start, in any case,
  with or without markdown bold or headings around them, numbered, unnumbered or mis-numbered;
* pairs each ``[Answer]`` with the query before it, whatever their numbers say;
* treats a query that gets no answer, or an empty one, as unsolved: there is nothing to verify,
  so retrieval must complete it;
* folds the prompt's own ``[Unsolved Query]`` example lines into the query they repeat;
* ignores prose before the first marker, the prompt's "If you (don't) know the answer" lines and
  its "Instruction: Please Stop your generation." (Fig. 10);
* stops at a new ``[Question]`` once the chain has started (a model continuing the few-shot list),
  unless ``[Final Content]`` follows it at once: Fig. 10's demonstrations restate the question
  there;
* drops ``[n]`` citation markers from queries and answers (only the final content cites);
* keeps ``[Final Content]`` when present and ``None`` when missing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from searchain.text import EDGE_NOISE, normalize_answer

_KINDS = r"unsolved[ _-]?query|sub[ -]?query|query|answer|final[ _-]?content|question|claim"
# Every optional part starts with its own character (``#``, a digit, ``.``, ``*``/``_``) and is
# followed by at most one run of blanks, so a run of blanks can be matched one way only: matching
# is linear in the reply's length whatever it holds (no catastrophic backtracking).
_MARKER = re.compile(
    rf"""
    (?:\*\*|__)?\[\s*(?P<kind>{_KINDS})\s*(?:\#\s*)?(?:(?P<num>\d+)\s*)?(?:\.\s*)?\]
    (?:\*\*|__)?[ \t]*[:：]?
    |
    ^[ \t>#*\-]*(?:\*\*|__)?(?P<bkind>{_KINDS})[ \t]*(?:\#[ \t]*)?(?:(?P<bnum>\d+)[ \t]*)?
    (?:(?:\*\*|__)[ \t]*)?[:：]
    """,
    re.IGNORECASE | re.MULTILINE | re.VERBOSE,
)
_PROMPT_ECHO = re.compile(
    r"^[ \t]*if you (?:don'?t |do not )?know the answer[ \t]*:?[ \t]*$"
    r"|instruction:[ \t]*please stop your generation\.?",
    re.I | re.M,
)
# Starts only where a blank run starts, so a long run is scanned once, not once per blank.
_CITATION = re.compile(r"(?<![ \t])[ \t]*\[\d+\]")
_TRAILING_BULLET = re.compile(r"\n[ \t]*[-*#>]+[ \t]*$")


@dataclass
class ChainNode:
    """One step of a Chain-of-Query as the LLM wrote it."""

    query: str
    """The sub-query, as sent to the retriever."""
    answer: str = ""
    """The LLM's answer to it; empty for an unsolved query."""
    unsolved: bool = False
    """The LLM marked it ``[Unsolved Query]`` or gave no answer: IR must complete it."""


@dataclass
class ParsedChain:
    """What the parser could read from one reply."""

    nodes: list[ChainNode] = field(default_factory=list)
    """The chain's nodes in order."""
    final_content: str | None = None
    """The text after ``[Final Content]``, or ``None`` when the reply has none."""
    dropped: int = 0
    """Nodes beyond ``max_nodes`` that were cut off."""


def _clean(text: str, *, citations: bool = False) -> str:
    text = _PROMPT_ECHO.sub("", text)
    if not citations:  # a query or answer is not cited; only the final content is
        text = _CITATION.sub("", text)
    text = _TRAILING_BULLET.sub("", text)  # the bullet or heading of the next marker's line
    return " ".join(text.split()).strip(EDGE_NOISE)


def _kind(match: re.Match[str]) -> str:
    raw = (match.group("kind") or match.group("bkind")).lower()
    word = re.sub(r"[ _-]", "", raw)
    return {"subquery": "query", "claim": "question"}.get(word, word)


def parse_chain(text: str, *, max_nodes: int = 12) -> ParsedChain:
    """Parse ``text`` into a :class:`ParsedChain`; never raises on malformed input."""
    markers = list(_MARKER.finditer(text))
    nodes: list[ChainNode] = []
    final_content: str | None = None
    answered = False  # whether the last node already got its [Answer]
    for i, match in enumerate(markers):
        end = markers[i + 1].start() if i + 1 < len(markers) else len(text)
        kind = _kind(match)
        body = _clean(text[match.end() : end], citations=kind == "finalcontent")
        if kind == "question":
            restated = i + 1 < len(markers) and _kind(markers[i + 1]) == "finalcontent"
            if (nodes and not restated) or final_content is not None:
                break
            continue
        if final_content is not None:
            break  # the chain is over once the final content has started
        if kind == "finalcontent":
            final_content = body
        elif kind in ("query", "unsolvedquery"):
            unsolved = kind == "unsolvedquery"
            if not body:
                continue
            last = nodes[-1] if nodes else None
            same = last is not None and normalize_answer(last.query) == normalize_answer(body)
            if last is not None and not answered and same:
                last.unsolved = last.unsolved or unsolved  # a repeat of the query just asked
                continue
            nodes.append(ChainNode(query=body, unsolved=unsolved))
            answered = False
        elif kind == "answer" and nodes and not answered:
            nodes[-1].answer = body
            answered = True
    for node in nodes:
        node.unsolved = node.unsolved or not node.answer
    dropped = max(0, len(nodes) - max_nodes)
    return ParsedChain(nodes=nodes[:max_nodes], final_content=final_content, dropped=dropped)
