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
from pathlib import Path
from typing import Any, Literal

from searchain.errors import SettingError
from searchain.questions.record import Hop, Record
from searchain.types import Passage

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
        raise SettingError(
            "{root} lacks {missing}: point {data} at the shared data directory",
            settings=("data",),
            root=root,
            missing=", ".join(missing),
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


def musique_hops(root: Path, split: Split = "tune") -> list[Hop]:
    """The gold sub-questions of MuSiQue's ``split``, in record and hop order."""
    return [hop for r in records(root, "musique", split) for hop in _hops(r, paragraphs(r))]


def _hops(record: dict[str, Any], paras: list[tuple[str, str]]) -> Iterator[Hop]:
    answers: list[str] = []
    for step in record["question_decomposition"]:
        question = re.sub(
            r"#(\d+)", lambda m, done=answers: done[int(m.group(1)) - 1], step["question"]
        )
        yield Hop(question, step["answer"], paras[step["paragraph_support_idx"]])
        answers.append(step["answer"])


DATASETS = ("musique", "hotpotqa", "2wikimultihopqa", "strategyqa", "fever")
_LABELS = ("SUPPORTS", "REFUTES")


def load_records(root: Path, dataset: str, split: Split = "tune") -> list[Record]:
    """The ``split`` of ``dataset`` as :class:`Record` objects.

    The ``*_200_*`` files split as the data README says (first 100 tune, last 100 report).
    StrategyQA (dev) and FEVER (paper_dev, SUPPORTS/REFUTES claims only, as in the papers) have no
    split of their own; the same rule is applied to their first 200 usable records.
    """
    if dataset not in DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}: choose one of {', '.join(DATASETS)}")
    if dataset in FILES:
        loaded = [_from_paragraph_file(dataset, r) for r in records(root, dataset, "all")]
    elif dataset == "strategyqa":
        rows = json.loads((root / "strategyqa/dev_229.json").read_text(encoding="utf-8"))
        loaded = [
            Record(
                "strategyqa", r["qid"], r["question"], ("yes" if r["answer"] else "no",), "yesno"
            )
            for r in rows
        ]
    else:
        loaded = []
        with (root / "fever/paper_dev_9999.jsonl").open(encoding="utf-8") as lines:
            for line in lines:
                r = json.loads(line)
                if r["label"] in _LABELS:
                    loaded.append(
                        Record("fever", str(r["id"]), r["claim"], (r["label"],), "factcheck")
                    )
                if len(loaded) == 2 * SPLIT_SIZE:
                    break
    loaded = loaded[: 2 * SPLIT_SIZE]
    if split == "tune":
        return loaded[:SPLIT_SIZE]
    if split == "report":
        return loaded[SPLIT_SIZE:]
    return loaded


def _from_paragraph_file(dataset: str, record: dict[str, Any]) -> Record:
    paras = paragraphs(record)
    if dataset == "musique":
        gold = tuple(
            p for p, raw in zip(paras, record["paragraphs"], strict=True) if raw["is_supporting"]
        )
        answers = (record["answer"], *record.get("answer_aliases", []))
        hops = tuple(_hops(record, paras))
        return Record(dataset, record["id"], record["question"], answers, "qa", gold, hops)
    titles = {title for title, _ in record.get("supporting_facts", [])}
    gold = tuple(p for p in paras if p[0] in titles)
    return Record(dataset, record["_id"], record["question"], (record["answer"],), "qa", gold)
