"""Measuring a reader's confidence: how often a reading is right at each confidence, and θ.

The readings are single-hop sub-questions read on their gold passages, from the shared data's
``*_200_*`` files (the first 100 records of each are the tuning split): MuSiQue's decompositions
(earlier hops' answers substituted; its ``SUBJECT >> RELATION`` hops asked as "What is the
RELATION of SUBJECT?"), 2WikiMultihopQA's evidence triples asked so on the subject's paragraph,
and HotpotQA's question on the supporting paragraph that holds the answer (bridge questions;
yes/no and comparisons are left out). A reading is right when its token F1 with the gold answer
is at least 0.5: its span becomes the step's answer when it corrects one.

The paper chose θ = 1.5 by sweeping θ for the best end-to-end F1 on held-out QA. Here θ is the
smallest confidence above which corrections reach a chosen precision (the lower end of its 95%
interval, by default 0.5: more often right than wrong): a reader confident above θ is right that
often, which is what a correction of the LLM needs. Whether the confidence
separates right from wrong at all is its AUC; within twice its standard error of 0.5, the
confidence carries no signal and no θ is written.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from searchain.eval.datasets import Split, musique_hops, paragraphs, records
from searchain.questions.metrics import f1
from searchain.text import normalize_answer
from searchain.tools.readers.batch import read_many
from searchain.tools.readers.calibration import Calibration
from searchain.types import Passage, Reader

RIGHT_F1 = 0.5
"""A reading is right when its token F1 with the gold answer is at least this."""

Z = 1.96
"""θ's precision is the lower end of its 95% Wilson interval: 3 right of the 3 readings above a
θ measures little, and is not taken for a precision of 1."""

DATASETS = ("musique", "2wikimultihopqa", "hotpotqa")


@dataclass(frozen=True)
class Item:
    """One single-hop sub-question, its gold answer and the passage that states it."""

    dataset: str
    """The data set it comes from."""
    query: str
    """The sub-question as the reader is asked it."""
    answer: str
    """The gold answer."""
    passage: Passage
    """The gold passage."""


@dataclass(frozen=True)
class Reading:
    """What the reader answered for an item, its confidence, and whether it was right."""

    item: Item
    """The sub-question read."""
    answer: str
    """The reader's span."""
    confidence: float
    """The reader's confidence, on its own scale."""
    right: bool
    """Token F1 with the gold answer at least :data:`RIGHT_F1`."""


@dataclass(frozen=True)
class Bin:
    """Readings whose confidence lies in ``[low, high]`` (``high`` excluded but in the last)."""

    low: float
    """Lowest confidence in the bin."""
    high: float
    """Where the next bin starts (the highest confidence, for the last)."""
    total: int
    """Readings in the bin."""
    right: int
    """Right readings in the bin."""


def items(root: Path, split: Split, limit: int) -> list[Item]:
    """Up to ``limit`` sub-questions of each data set's ``split``, in the data's order."""
    found: list[Item] = []
    for make in READERS_OF.values():
        found += list(_first(make(root, split), limit))
    return found


def _first(made: Iterator[Item], limit: int) -> Iterator[Item]:
    for count, item in enumerate(made):
        if count >= limit:
            return
        yield item


def musique_items(root: Path, split: Split) -> Iterator[Item]:
    """MuSiQue's gold hops, each on its supporting paragraph, asked as a question."""
    for n, hop in enumerate(musique_hops(root, split)):
        passage = Passage(f"musique-{n}", *hop.gold)
        yield Item("musique", as_question(hop.question), hop.answer, passage)


def as_question(hop: str) -> str:
    """A hop in MuSiQue's ``SUBJECT >> RELATION`` form as "What is the RELATION of SUBJECT?".

    SearChain's sub-queries are the LLM's questions; a reader measured on the knowledge-graph
    notation would be measured on text no run sends it. Other hops are questions already.
    """
    subject, arrow, relation = hop.partition(">>")
    return f"What is the {relation.strip()} of {subject.strip()}?" if arrow else hop


def wiki_items(root: Path, split: Split) -> Iterator[Item]:
    """2WikiMultihopQA's evidence triples asked of the subject's paragraph."""
    for i, record in enumerate(records(root, "2wikimultihopqa", split)):
        by_title = dict(paragraphs(record))
        for k, (subject, relation, value) in enumerate(record.get("evidences", [])):
            if subject in by_title and normalize_answer(value):
                query = f"What is the {relation} of {subject}?"
                passage = Passage(f"2wiki-{i}-{k}", subject, by_title[subject])
                yield Item("2wikimultihopqa", query, value, passage)


def hotpot_items(root: Path, split: Split) -> Iterator[Item]:
    """HotpotQA's bridge questions on the supporting paragraph that holds the answer."""
    for i, record in enumerate(records(root, "hotpotqa", split)):
        if record.get("type") != "bridge" or normalize_answer(record["answer"]) in ("yes", "no"):
            continue
        by_title = dict(paragraphs(record))
        wanted = normalize_answer(record["answer"])
        for title in dict.fromkeys(title for title, _ in record["supporting_facts"]):
            text = by_title.get(title, "")
            if wanted and re.search(rf"\b{re.escape(wanted)}\b", normalize_answer(text)):
                passage = Passage(f"hotpotqa-{i}", title, text)
                yield Item("hotpotqa", record["question"], record["answer"], passage)
                break


READERS_OF: dict[str, Callable[[Path, Split], Iterator[Item]]] = {
    "musique": musique_items,
    "2wikimultihopqa": wiki_items,
    "hotpotqa": hotpot_items,
}
"""Each data set's sub-questions, in the order the command reads them."""


def read_items(
    reader: Reader, batch: Sequence[Item], on_read: Callable[[int], None] | None = None
) -> list[Reading]:
    """Read every item on its gold passage, a chunk at a time (``on_read`` after each)."""
    readings: list[Reading] = []
    for start in range(0, len(batch), CHUNK):
        chunk = batch[start : start + CHUNK]
        answers = read_many(reader, [i.query for i in chunk], [i.passage for i in chunk])
        for item, answer in zip(chunk, answers, strict=True):
            right = f1(answer.answer, [item.answer]) >= RIGHT_F1
            readings.append(Reading(item, answer.answer, answer.confidence, right))
        if on_read:
            on_read(len(chunk))
    return readings


CHUNK = 8
"""Items read in one batch (progress is reported after each)."""


def auc(readings: Sequence[Reading]) -> tuple[float, float]:
    """The ROC AUC of confidence for right readings (ties count half), and its standard error.

    ``(0.5, 0.5)`` where there are no right readings or no wrong ones: nothing to separate.
    """
    right = [r.confidence for r in readings if r.right]
    wrong = [r.confidence for r in readings if not r.right]
    if not right or not wrong:
        return 0.5, 0.5
    ranks = _ranks([r.confidence for r in readings])
    rank_sum = sum(rank for rank, r in zip(ranks, readings, strict=True) if r.right)
    n1, n2 = len(right), len(wrong)
    area = (rank_sum - n1 * (n1 + 1) / 2) / (n1 * n2)
    q1, q2 = area / (2 - area), 2 * area * area / (1 + area)
    variance = (area * (1 - area) + (n1 - 1) * (q1 - area**2) + (n2 - 1) * (q2 - area**2)) / (
        n1 * n2
    )
    return area, math.sqrt(max(variance, 0.0))


def _ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, tied values sharing their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for k in range(start, end + 1):
            ranks[order[k]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def reliability(readings: Sequence[Reading], bins: int = 10) -> list[Bin]:
    """Readings in up to ``bins`` bins of equal count by confidence (ties never split)."""
    values = sorted(r.confidence for r in readings)
    if not values:
        return []
    edges = sorted({values[min(len(values) - 1, len(values) * k // bins)] for k in range(bins)})
    found = []
    for k, low in enumerate(edges):
        high = edges[k + 1] if k + 1 < len(edges) else values[-1]
        last = k + 1 == len(edges)
        inside = [r for r in readings if low <= r.confidence and (r.confidence < high or last)]
        found.append(Bin(low, high, len(inside), sum(r.right for r in inside)))
    return found


def above(readings: Sequence[Reading], theta: float) -> tuple[float, float, int]:
    """Precision and recall of the readings confident above ``theta``, and how many there are.

    As Verify decides: a reading corrects the LLM when its confidence is *above* θ.
    """
    chosen = [r for r in readings if r.confidence > theta]
    right = sum(r.right for r in readings)
    hits = sum(r.right for r in chosen)
    return (hits / len(chosen) if chosen else 0.0), (hits / right if right else 0.0), len(chosen)


def lower_bound(precision: float, count: int) -> float:
    """The lower end of the 95% Wilson interval of a share ``precision`` of ``count``."""
    if count == 0:
        return 0.0
    centre = precision + Z * Z / (2 * count)
    spread = Z * math.sqrt(precision * (1 - precision) / count + Z * Z / (4 * count * count))
    return (centre - spread) / (1 + Z * Z / count)


def choose_theta(readings: Sequence[Reading], target: float) -> float | None:
    """The smallest θ whose corrections reach ``target`` precision (its interval's lower end)."""
    candidates = sorted({r.confidence for r in readings})
    below_first = [candidates[0] - 1.0] if candidates else []  # every reading above it
    for theta in below_first + candidates:
        precision, _, count = above(readings, theta)
        if lower_bound(precision, count) >= target:
            return theta
    return None


def calibrate(readings: Sequence[Reading], reader: str, target: float, data: str) -> Calibration:
    """The calibration these readings give: AUC, θ for ``target`` precision, what θ reaches."""
    area, se = auc(readings)
    no_signal = area - 2 * se <= 0.5
    theta = None if no_signal else choose_theta(readings, target)
    precision, recall, _ = above(readings, theta) if theta is not None else (0.0, 0.0, 0)
    return Calibration(
        reader=reader,
        theta=theta,
        target=target,
        precision=precision,
        recall=recall,
        auc=area,
        auc_se=se,
        right=sum(r.right for r in readings),
        total=len(readings),
        data=data,
    )
