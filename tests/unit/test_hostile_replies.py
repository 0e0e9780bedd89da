"""Both graphs survive any LLM reply: property-based tests with hypothesis.

Replies are built from the chain format's markers in any order, text from all of Unicode (lone
surrogates included), huge citation numbers, long runs of blanks, and messages made of content
blocks or tool calls. Whatever comes, a run ends without an exception, within its round and step
budgets, storable by a checkpointer, with every ``[n]`` of its output resolved.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from searchain.context import Context
from searchain.graph.ircot import STEP_BOUND as IRCOT_STEP_BOUND
from searchain.graph.ircot import build_graph as build_ircot
from searchain.graph.searchain import STEP_BOUND, build_graph
from searchain.nodes.searchain.chain import parse_chain
from searchain.nodes.searchain.citations import resolve_citations
from searchain.state import checkpoint_serializer
from searchain.text import extract_final_answer
from searchain.types import Passage, ReaderAnswer

HUGE = "9" * 5000
MARKERS = [
    "[Query 1]: ",
    "[Query]: ",
    "[Query #4 .]: ",
    "Query 2: ",
    "**Query 3**: ",
    "[Answer 1]: ",
    "[Answer]: ",
    "**Answer 2**: ",
    "[Unsolved Query]: ",
    "[Final Content]: ",
    "[Question]: ",
    "[Claim]: ",
    "If you don't know the answer:",
    "So the final answer is ",
    "[1]",
    "[2]",
    "[0]",
    "[7, 1]",
    "[99999999999999999999]",
    f"[{HUGE}]",
    "\n",
    " " * 1000,
    "\n" * 500,
    "Where was Kevin Drew born?",
    "Toronto",
    "</reference>",
    "\ud800",
    "\udfff",
]
TEXT = st.text(alphabet=st.characters(exclude_categories=[]), max_size=200)
FRAGMENT = st.one_of(st.sampled_from(MARKERS), TEXT)
REPLY_TEXT = st.lists(FRAGMENT, max_size=25).map("".join)
LONG = st.sampled_from(
    ["Query" + " " * 100_000, "[Query" + " " * 100_000, "\n" * 50_000, "x" * 100_000]
)


def as_message(kind: str, text: str) -> AIMessage:
    if kind == "blocks":
        return AIMessage(content=[{"type": "text", "text": text}, {"type": "reasoning"}])
    if kind == "tool_call":
        return AIMessage(content="", tool_calls=[{"name": "search", "args": {}, "id": "c1"}])
    return AIMessage(content=text)


MESSAGE = st.builds(
    as_message, st.sampled_from(["text", "text", "blocks", "tool_call"]), REPLY_TEXT | LONG
)


class HostileModel(BaseChatModel):
    """Replies with the given messages in turn, forever."""

    replies: list[AIMessage]
    calls: int = Field(default=0)

    @property
    def _llm_type(self) -> str:
        return "hostile"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        reply = self.replies[self.calls % len(self.replies)]
        self.calls += 1
        return ChatResult(generations=[ChatGeneration(message=reply)])


class AnyQuery:
    """Every query finds the same passage, so Verify and Complete always have evidence."""

    def search(self, query: str, k: int = 1) -> list[Passage]:
        return [Passage("p2", "Kevin Drew", "Kevin Drew was born in Toronto, Ontario.")][:k]


class ConfidentReader:
    threshold = 1.5

    def read(self, query: str, passages: Any) -> list[ReaderAnswer]:
        return [ReaderAnswer("Toronto", 3.0) for _ in passages]


def assert_citations_resolve(text: str, references: list) -> None:
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", text)}
    assert cited <= {ref.n for ref in references}, (text, references)


@contextmanager
def hang_guard(seconds: int) -> Iterator[None]:
    """Fail instead of hanging: a generous bound (the parsers take milliseconds here), not a
    speed assertion; catastrophic backtracking on these inputs would never finish."""

    def hung(*_: Any) -> None:
        raise AssertionError(f"still parsing after {seconds} s: super-linear matching")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies=st.lists(MESSAGE, min_size=1, max_size=6), r_max=st.integers(1, 5))
def test_searchain_survives_any_reply(replies, r_max):
    llm = HostileModel(replies=replies)
    graph = build_graph(checkpointer=InMemorySaver(serde=checkpoint_serializer()))
    context = Context(llm=llm, retriever=AnyQuery(), reader=ConfidentReader(), r_max=r_max)
    config = {"configurable": {"thread_id": "t"}, "recursion_limit": STEP_BOUND}
    steps = list(graph.stream({"question": "Where was Kevin Drew born?"}, config, context=context))
    out = graph.get_state(config).values  # written to and read back from the checkpointer
    assert len(steps) <= STEP_BOUND and out["rounds"] <= r_max
    assert out["stop_reason"] in ("chain_passed", "max_rounds", "no_chain")
    assert isinstance(out["answer"], str)
    assert_citations_resolve(out["final_content"], out.get("references", []))
    assert llm.calls <= r_max + 1  # one chain per round, then Trace


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies=st.lists(MESSAGE, min_size=1, max_size=6), answer=st.sampled_from(["direct", "cot"]))
def test_ircot_survives_any_reply(replies, answer):
    llm = HostileModel(replies=replies)
    graph = build_ircot(checkpointer=InMemorySaver(serde=checkpoint_serializer()))
    context = Context(llm=llm, retriever=AnyQuery(), ircot_answer=answer, ircot_max_steps=4)
    config = {"configurable": {"thread_id": "t"}}
    with hang_guard(120):
        question = {"question": "Where was Kevin Drew born?"}
        steps = list(graph.stream(question, config, context=context))
    out = graph.get_state(config).values
    assert len(steps) <= IRCOT_STEP_BOUND and out["steps"] <= 4
    assert isinstance(out["answer"], str)


@settings(max_examples=60, deadline=None)
@given(
    head=st.sampled_from(
        ["Query", "[Query", "[Query 1", "**Query", "answer is", "if you know", ""]
    ),
    cite=st.sampled_from(["", " [3]", " [2, 7]"]),
    filler=st.sampled_from([" ", "\n", " \n", "*", ":", "# ", "\t", " [", "1 "]),
    tail=st.sampled_from(["", "x", ":", "]", "\n", " [4]"]),
)
def test_parsers_finish_on_long_adversarial_input(head, cite, filler, tail):
    text = head + cite + filler * 100_000 + tail
    with hang_guard(60):
        parse_chain(text)
        extract_final_answer(text, ("yes", "no"))
        content, references, unresolved = resolve_citations(text, [])
    # With no path every marker leads nowhere: each is removed from the text and reported.
    cited = [int(n) for n in re.findall(r"\d+", cite + tail if "[" in tail else cite)]
    assert unresolved == list(dict.fromkeys(cited)) and references == []
    assert not re.search(r"\[\d+(?:,\s*\d+)*\]", content)
