"""``simulated`` LLM and reader: IR-side evaluation of SearChain with no capable model at hand.

Neither a capable LLM nor reader weights run on these machines. These stand-ins answer MuSiQue
questions from their gold decompositions so that what retrieval and the Verify/Complete logic do
can be measured with real BM25 over real paragraphs. They are clearly simulations, and every
output made with them must say so.

SimulatedLLM writes a Chain-of-Query with the gold sub-questions, substituting its own earlier
answers (so a wrong early answer changes later queries, as with a real LLM). Per (question, hop)
it is fixed by a seeded draw whether the hop is marked ``[Unsolved Query]`` (probability ``u``) or
answered wrongly (probability ``p``, with a plausible entity: the title of another paragraph of the
record); otherwise it gives the gold answer. It takes any answer offered by a feedback message.
Where the prompt offers no ``[Unsolved Query]`` (SearChain without IR), a hop it does not know is
guessed instead: a plausible wrong entity, as for a wrong answer.

SimulatedReader returns a hop's gold answer with confidence 3.0 (above DPR's θ = 1.5) when the
passage is that hop's gold paragraph and the query asks that hop; otherwise the passage's first
words with confidence 0.5.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from searchain.questions.record import Record
from searchain.text import normalize_answer
from searchain.types import Passage, ReaderAnswer

# The question asked: the figures' slot, in their first line (the demonstrations come after it).
_QUESTION = re.compile(
    r'complex (?:question )?\[Question\]\s*:\s*"(?P<q>[^\n]*?)"(?: and|\s*$)', re.M
)
_TRACE_QUESTION = re.compile(r'final content for \[Question\]: "(?P<q>[^\n]*)" using')
_REF = re.compile(r"#(\d+)")
_OFFER = re.compile(
    r'the answer for "(?P<query>.*?)" should be <answer>(?P<answer>.*?)</answer>', re.S
)


def _draw(*parts: object) -> float:
    """A reproducible uniform draw in [0, 1) from its arguments."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass(frozen=True)
class _Hop:
    template: str
    answer: str
    gold: tuple[str, str]
    pattern: re.Pattern[str]


def _hops(record: Record, raw: dict[str, Any]) -> list[_Hop]:
    hops = []
    for step, hop in zip(raw["question_decomposition"], record.hops, strict=True):
        template = step["question"]
        parts = [normalize_answer(part) for part in re.split(r"#\d+", template)]
        pattern = re.compile(".+".join(map(re.escape, parts)))
        hops.append(_Hop(template, hop.answer, hop.gold, pattern))
    return hops


def _step_answer(step: str, hop: _Hop | None, earlier: list[str]) -> str:
    """The answer part of a Trace step line "QUERY ANSWER".

    The query of a hop is its gold template with the earlier steps' answers substituted (as the
    chain asked it), which tells where the answer starts; a step that asks no known hop, or
    whose query does not match, falls back to its last word.
    """
    words = step.split()
    split = len(words) - 1
    refs = [int(k) for k in _REF.findall(hop.template)] if hop else []
    if hop is not None and all(k <= len(earlier) for k in refs):
        asked = normalize_answer(_REF.sub(lambda m: earlier[int(m.group(1)) - 1], hop.template))
        prefixes = range(len(words) - 1, 0, -1)  # longest first: "…X ?" keeps its "?"
        split = next((i for i in prefixes if normalize_answer(" ".join(words[:i])) == asked), split)
    return " ".join(words[split:]).rstrip(".")


class SimulatedLLM(BaseChatModel):
    """The ``simulated`` chat model (see the module docstring)."""

    p: float = 0.0
    """Probability that a hop is answered wrongly."""
    u: float = 0.0
    """Probability that a hop is marked ``[Unsolved Query]``."""
    seed: int = 0
    """Seed of the per-(question, hop) draws."""
    _records: dict[str, tuple[Record, list[_Hop], list[str]]] = PrivateAttr(default_factory=dict)

    @classmethod
    def for_records(
        cls, records: Sequence[tuple[Record, dict[str, Any]]], **kwargs: Any
    ) -> SimulatedLLM:
        """A model that knows these MuSiQue records (``(Record, raw json)`` pairs)."""
        model = cls(**kwargs)
        for record, raw in records:
            distractors = [p["title"] for p in raw["paragraphs"] if not p["is_supporting"]]
            model._records[normalize_answer(record.question)] = (
                record,
                _hops(record, raw),
                distractors,
            )
        return model

    @property
    def _llm_type(self) -> str:
        return "simulated"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        # Prompts show text as data (angle brackets as ‹ ›); the simulated model reads them back
        # as written, as a real model would understand them ("#1 >> sibling" hops).
        texts = [m.text.replace("\u2039", "<").replace("\u203a", ">") for m in messages]
        first = texts[0]
        if "Write the final content" in first:
            return self._reply(self._trace(first))
        found = _QUESTION.search(first)
        entry = self._records.get(normalize_answer(found.group("q"))) if found else None
        if entry is None:
            return self._reply("I do not know this question.")
        offers = {
            normalize_answer(m.group("query")): m.group("answer")
            for text in texts
            for m in _OFFER.finditer(text)
        }
        can_defer = "[Unsolved Query]" in first
        return self._reply(self._chain(*entry, offers, can_defer))

    def _chain(
        self,
        record: Record,
        hops: list[_Hop],
        distractors: list[str],
        offers: dict[str, str],
        can_defer: bool = True,
    ) -> str:
        answers: list[str] = []
        lines = []
        for i, hop in enumerate(hops, 1):
            query = re.sub(r"#(\d+)", lambda m: answers[int(m.group(1)) - 1], hop.template)
            offered = offers.get(normalize_answer(query))
            unknown = offered is None and _draw(self.seed, record.id, i, "u") < self.u
            if unknown and can_defer:
                lines.append(f"[Unsolved Query]: {query}")
                return "\n".join(lines)
            if offered is not None:
                answer = offered
            elif (unknown or _draw(self.seed, record.id, i, "p") < self.p) and distractors:
                answer = distractors[
                    int(_draw(self.seed, record.id, i, "which") * len(distractors))
                ]
            else:
                answer = hop.answer
            answers.append(answer)
            lines += [f"[Query {i}]: {query}", f"[Answer {i}]: {answer}"]
        lines.append(f"[Final Content]: So the final answer is {answers[-1]}.")
        return "\n".join(lines)

    def _trace(self, prompt: str) -> str:
        """Cite every step and answer with the last step's answer."""
        found = _TRACE_QUESTION.search(prompt)
        entry = self._records.get(normalize_answer(found.group("q"))) if found else None
        hops = entry[1] if entry else []
        answers: list[str] = []
        for n, rest in re.findall(r"^\[(\d+)\] (.*)$", prompt, re.M):
            hop = hops[int(n) - 1] if int(n) <= len(hops) else None
            answers.append(_step_answer(rest, hop, answers))
        if not answers:
            return "So the final answer is unknown."
        cited = " ".join(f"{answer} [{n}]." for n, answer in enumerate(answers, 1))
        return f"{cited} So the final answer is {answers[-1]}."

    @staticmethod
    def _reply(text: str) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(text))])


class SimulatedReader:
    """The ``simulated`` reader (see the module docstring)."""

    threshold = 1.5

    def __init__(self, records: Sequence[tuple[Record, dict[str, Any]]]) -> None:
        self._by_gold: dict[tuple[str, str], list[_Hop]] = {}
        for record, raw in records:
            for hop in _hops(record, raw):
                self._by_gold.setdefault(hop.gold, []).append(hop)

    def read(self, query: str, passages: Sequence[Passage]) -> list[ReaderAnswer]:
        """Gold answer when the passage is the asked hop's gold paragraph, else a weak span."""
        asked = normalize_answer(query)
        answers = []
        for passage in passages:
            hops = self._by_gold.get((passage.title, passage.text), [])
            match = next((h for h in hops if h.pattern.fullmatch(asked)), None)
            if match is not None:
                answers.append(ReaderAnswer(match.answer, 3.0))
            else:
                answers.append(ReaderAnswer(" ".join(passage.text.split()[:3]), 0.5))
        return answers
