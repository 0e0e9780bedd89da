"""EM/F1 agreement with the official HotpotQA and MuSiQue scripts on pairs from the shared data.

Pairs: for every record of the three ``*_200_*`` files, the gold answer against predictions a
system plausibly writes (the answer itself, in capitals, with typographic quotes and dashes,
with a trailing explanation, the supporting titles, the hop answers, yes/no, nothing). The
official functions are transcribed in ``tests/unit/eval/test_metrics.py``; this prints how many
pairs our metrics score differently from them, and how many the previous definitions did.

Run: .venv/bin/python benchmarks/metric_agreement.py [--data DATA_DIR]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout's tests/ doubles

from searchain.eval.datasets import FILES, data_dir, records
from searchain.questions.metrics import exact_match, f1
from searchain.text import normalize_answer
from tests.unit.eval.test_metrics import (
    _official_hotpot_f1,
    _official_musique_f1,
    _official_normalize,
)


def predictions(record: dict, gold: str) -> list[str]:
    curly = gold.replace("'", "\u2019").replace('"', "\u201c").replace("-", "\u2013")
    found = [gold, gold.upper(), curly, f"{gold}, as the passage says", "yes", "no", ""]
    found += [t for t, _ in record.get("supporting_facts", [])][:2]
    found += [h["answer"] for h in record.get("question_decomposition", [])]
    return found


def previous_f1(prediction: str, gold: str) -> float:
    """The metric before this change: extended normalisation, no yes/no rule."""
    p, g = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not p or not g:
        return float(p == g)
    common = sum((Counter(p) & Counter(g)).values())
    if not common:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None, help="data directory (default: ../shared/data)")
    root = data_dir(parser.parse_args().data)
    pairs = now_em = now_f1 = old_em = old_f1 = 0
    for dataset in FILES:
        style = "musique" if dataset == "musique" else "hotpotqa"
        for record in records(root, dataset):
            gold = record["answer"]
            for prediction in predictions(record, gold):
                pairs += 1
                official_em = float(_official_normalize(prediction) == _official_normalize(gold))
                official_f1 = (
                    _official_musique_f1(gold, prediction)
                    if style == "musique"
                    else _official_hotpot_f1(prediction, gold)
                )
                now_em += exact_match(prediction, [gold], style) != official_em
                now_f1 += abs(f1(prediction, [gold], style) - official_f1) > 1e-12
                old = float(normalize_answer(prediction) == normalize_answer(gold))
                old_em += old != official_em
                old_f1 += abs(previous_f1(prediction, gold) - official_f1) > 1e-12
    print(f"{pairs} (prediction, gold) pairs from {', '.join(FILES)}")
    print(f"EM differs from the official script: now {now_em}, before {old_em}")
    print(f"F1 differs from the official script: now {now_f1}, before {old_f1}")


if __name__ == "__main__":
    main()
