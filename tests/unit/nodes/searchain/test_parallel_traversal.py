"""Parallel traversal reads a whole chain at once and walks it exactly as the sequential walk does.

Hypothesis draws the LLM's answers for each round (right, wrong or unsolved per node) and the
reader's confidence per passage; the same run with ``parallel_traversal`` on and off must give
the same path, the same feedback to the LLM, the same answer and citations, and the same tree,
except that the parallel walk keeps readings past a correction as unused nodes — and the
same evaluation metrics, since recall and sources count only the passages on the path.
"""

from __future__ import annotations

import threading
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from searchain.context import Context
from searchain.eval.runner import EvalSpec, result_line
from searchain.eval.usage import UsageCounter
from searchain.graph.searchain import build_graph
from searchain.methods import get_method
from searchain.questions.record import Record
from searchain.types import Passage, ReaderAnswer
from tests.conftest import TableRetriever

QUERIES = [
    "Who is the performer of Spirit If... ?",
    "Where was Kevin Drew born?",
    "Where do greyhound buses in Toronto leave from?",
    "Which river flows through Toronto?",
]
PASSAGES = [
    Passage("p1", "Spirit If...", "Spirit If... is the debut album of Kevin Drew."),
    Passage("p2", "Kevin Drew", "Kevin Drew was born in Toronto, Ontario."),
    Passage(
        "p3", "Toronto Coach Terminal", "Greyhound buses leave from the Toronto Coach Terminal."
    ),
    Passage("p4", "Don River", "The Don River flows through Toronto."),
]
SPANS = ["Kevin Drew", "Toronto", "Toronto Coach Terminal", "Don River"]


class RoundsLLM(BaseChatModel):
    """Writes the chain for each round from a table of answers; answers Trace with the path."""

    rounds: list[list[str]]
    """Per round, per query: the answer ("" marks the query unsolved); a shorter list writes a
    shorter chain (a re-planned chain may drop queries the walk had read ahead)."""
    calls: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "rounds"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        last = messages[-1].text
        self.calls.append(last)
        if "Verified reasoning steps" in last:
            text = "It is so [1]. So the final answer is done."
        else:
            chains = sum("Verified reasoning steps" not in c for c in self.calls)
            answers = self.rounds[min(chains - 1, len(self.rounds) - 1)]
            lines = []
            for i, (query, answer) in enumerate(zip(QUERIES, answers, strict=False), 1):
                lines.append(f"[Query {i}]: {query}")
                lines.append(
                    f"[Unsolved Query]: {query}" if not answer else f"[Answer {i}]: {answer}"
                )
                if not answer:
                    break
            lines.append("[Final Content]: So the final answer is done [1].")
            text = "\n".join(lines)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(text))])


class CountingReader:
    """Reads spans from a table; counts calls and pairs; safe across threads."""

    threshold = 1.5

    def __init__(self, confidence: dict[str, float]) -> None:
        self.confidence = confidence
        self.pairs: list[tuple[str, str]] = []
        self._lock = threading.Lock()

    def read(self, query: str, passages: list[Passage]) -> list[ReaderAnswer]:
        with self._lock:
            self.pairs.extend((query, p.id) for p in passages)
        return [ReaderAnswer(SPANS[int(p.id[1:]) - 1], self.confidence[p.id]) for p in passages]


def run(rounds, confidence, found, parallel):
    llm = RoundsLLM(rounds=rounds)
    retriever = TableRetriever(
        {q: p for q, p, f in zip(QUERIES, PASSAGES, found, strict=True) if f}
    )
    reader = CountingReader(confidence)
    ctx = Context(llm=llm, retriever=retriever, reader=reader, parallel_traversal=parallel)
    out = build_graph().invoke({"question": "Where do the buses leave from?"}, context=ctx)
    return out, llm, reader


answer = st.sampled_from(["", "Kevin Drew", "Toronto", "Montreal", "Toronto Coach Terminal"])


@settings(max_examples=60, deadline=None)
@given(
    rounds=st.lists(st.lists(answer, min_size=1, max_size=4), min_size=1, max_size=5),
    confidence=st.fixed_dictionaries({p.id: st.sampled_from([0.5, 3.0]) for p in PASSAGES}),
    found=st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_parallel_walk_equals_the_sequential_walk(rounds, confidence, found):
    seq, seq_llm, seq_reader = run(rounds, confidence, found, parallel=False)
    par, par_llm, par_reader = run(rounds, confidence, found, parallel=True)
    assert par_llm.calls == seq_llm.calls  # the same prompts and feedback, in the same order
    for key in ("answer", "final_content", "references", "rounds", "stop_reason", "branches"):
        assert par[key] == seq[key], key
    assert len(par["nodes"]) == len(seq["nodes"])
    for p, s in zip(par["nodes"], seq["nodes"], strict=True):
        if s.step is not None or s.read:  # what the sequential walk used or read is identical
            assert p == s
        else:  # past a correction: the parallel walk read it, the sequential never got there
            assert (p.query, p.step, p.source, p.answer) == (s.query, None, None, "")
    # Every pair the sequential walk read, the parallel walk read too (and never one twice).
    assert set(seq_reader.pairs) <= set(par_reader.pairs)
    assert len(par_reader.pairs) == len(set(par_reader.pairs))
    # The speed switch changes no figure: every metric (recall included) and every source.
    seq_line, par_line = (scored(out) for out in (seq, par))
    assert par_line["metrics"] == seq_line["metrics"]
    assert par_line["sources"] == seq_line["sources"]
    assert par_line["knowledge_sources"] == seq_line["knowledge_sources"]


RECORD = Record(
    "musique",
    "q1",
    "Where do the buses leave from?",
    ("Toronto Coach Terminal",),
    "qa",
    gold_paragraphs=tuple((p.title, p.text) for p in PASSAGES),
)
SPEC = EvalSpec("musique", "report", "searchain", "rounds", "table", "embedded")


def scored(out: dict[str, Any]) -> dict[str, Any]:
    """The results line ``searchain eval`` writes for this run."""
    return result_line(SPEC, get_method("searchain"), RECORD, out, UsageCounter(), 0.0)


def test_a_chain_is_read_in_one_concurrent_batch():
    """All of a chain's nodes are read before the walk starts, the calls in flight together."""
    barrier = threading.Barrier(3, timeout=60)  # fails (BrokenBarrierError) unless 3 overlap

    class GatedReader(CountingReader):
        def read(self, query, passages):
            barrier.wait()
            return super().read(query, passages)

    rounds = [["Kevin Drew", "Toronto", "Toronto Coach Terminal", "Don River"]]
    llm = RoundsLLM(rounds=rounds)
    retriever = TableRetriever(dict(zip(QUERIES[:3], PASSAGES[:3], strict=True)))
    reader = GatedReader(dict.fromkeys(("p1", "p2", "p3", "p4"), 3.0))
    out = build_graph().invoke(
        {"question": "Where do the buses leave from?"},
        context=Context(llm=llm, retriever=retriever, reader=reader),
    )
    assert sorted(reader.pairs) == sorted(zip(QUERIES[:3], ("p1", "p2", "p3"), strict=True))
    assert [n.step for n in out["nodes"]] == [1, 2, 3, 4]
    assert out["nodes"][3].read and out["nodes"][3].passage is None  # searched, nothing found
