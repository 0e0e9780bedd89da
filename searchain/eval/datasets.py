"""The multi-hop QA data in ``../shared/data``: the pooled corpus and gold sub-questions.

The data directory is ``SEARCHAIN_DATA_DIR`` when set, else ``../shared/data`` relative to the
working directory. Each ``*_200_*`` file's first 100 records are the tuning split, the last 100
the reporting split.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from searchain.tools.base import Passage

Split = Literal["tune", "report", "all"]
SPLIT_SIZE = 100
FILES = {
    "musique": "musique/dev_200_with_paragraphs.jsonl",
    "hotpotqa": "hotpotqa/dev_200_distractor.jsonl",
    "2wikimultihopqa": "2wikimultihopqa/dev_200_with_context.jsonl",
}


def data_dir(path: str | Path | None = None) -> Path:
    """The shared data directory; a clear error when it lacks the expected files."""
    root = Path(path or os.environ.get("SEARCHAIN_DATA_DIR") or "../shared/data")
    missing = [name for name in FILES.values() if not (root / name).is_file()]
    if missing:
        raise ValueError(
            f"{root} lacks {', '.join(missing)}: point SEARCHAIN_DATA_DIR (or --data) at the "
            "shared data directory"
        )
    return root


def records(root: Path, dataset: str, split: Split = "all") -> Iterator[dict[str, Any]]:
    """The raw records of a ``*_200_*`` file, restricted to ``split``."""
    with (root / FILES[dataset]).open(encoding="utf-8") as lines:
        for i, line in enumerate(lines):
            if split == "tune" and i >= SPLIT_SIZE:
                return
            if split == "report" and i < SPLIT_SIZE:
                continue
            yield json.loads(line)


def paragraphs(record: dict[str, Any]) -> list[tuple[str, str]]:
    """A record's paragraphs as ``(title, text)``, whichever data set it comes from."""
    if "paragraphs" in record:  # MuSiQue
        return [(p["title"], p["paragraph_text"]) for p in record["paragraphs"]]
    # HotpotQA sentences carry their own leading spaces; 2WikiMultihopQA's do not.
    joiner = "" if "level" in record else " "
    return [
        (title, joiner.join(sentences).strip()) for title, sentences in record.get("context", [])
    ]


def pooled_corpus(root: Path) -> list[Passage]:
    """Every paragraph of the three ``*_200_*`` files, gold and distractor alike, deduplicated.

    Ids are ``DATASET-RECORD-PARAGRAPH`` of the first occurrence. 7,632 paragraphs give 6,404
    distinct ``(title, text)`` passages (the data README counts 6,405 by gluing 2Wiki sentences
    without spaces, which keeps apart one paragraph that two records split differently).
    """
    seen: dict[tuple[str, str], str] = {}
    for dataset in FILES:
        for i, record in enumerate(records(root, dataset)):
            for k, key in enumerate(paragraphs(record)):
                seen.setdefault(key, f"{dataset}-{i}-{k}")
    return [Passage(pid, title, text) for (title, text), pid in seen.items()]


@dataclass(frozen=True)
class Hop:
    """One gold sub-question of a MuSiQue record, earlier hop answers substituted."""

    question: str
    """The sub-question with ``#1``, ``#2``… replaced by the earlier hops' answers."""
    answer: str
    """The hop's gold answer."""
    gold: tuple[str, str]
    """The supporting paragraph, ``(title, text)``."""


def musique_hops(root: Path, split: Split = "tune") -> list[Hop]:
    """The gold sub-questions of MuSiQue's ``split``, in record and hop order."""
    hops = []
    for record in records(root, "musique", split):
        answers: list[str] = []
        paras = paragraphs(record)
        for step in record["question_decomposition"]:
            question = re.sub(
                r"#(\d+)", lambda m, done=answers: done[int(m.group(1)) - 1], step["question"]
            )
            hops.append(Hop(question, step["answer"], paras[step["paragraph_support_idx"]]))
            answers.append(step["answer"])
    return hops
