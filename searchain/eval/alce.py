"""ALCE's citation recall and precision (Gao et al., EMNLP 2023), judged by an NLI model.

As ALCE's ``compute_autoais``: the final content is cut into sentences; a sentence's citation
recall is 1 when the passages it cites, joined, entail it (with its citations removed), and 0
when it cites nothing; a citation is precise when its sentence is entailed and the citation
either entails the sentence alone or is needed (the other citations without it do not). Recall
is averaged over sentences, precision over citations, per question (a question with no
citation has precision 0, as in ALCE). Premises are formatted as ALCE formats documents.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from searchain.state import Reference
from searchain.text import split_sentences
from searchain.tools.verifiers.nli import premise
from searchain.types import Passage

_MARK = re.compile(r"\[(\d+)\]")


def alce_scores(
    content: str, references: Sequence[Reference], entails: Callable[[list[tuple[str, str]]], Any]
) -> dict[str, float]:
    """``{"recall", "precision"}`` of one final content citing ``references`` (numbered ``n``)."""
    by_n = {ref.n: ref for ref in references}
    memo: dict[tuple[tuple[int, ...], str], bool] = {}

    def entailed(cited: Sequence[int], sentence: str) -> bool:
        key = (tuple(cited), sentence)
        if key not in memo:
            joined = "\n".join(
                premise(Passage(by_n[n].id, by_n[n].title, by_n[n].text)) for n in cited
            )
            memo[key] = bool(entails([(joined, sentence)])[0])
        return memo[key]

    sentences = split_sentences(content)
    supported = precise = citations = 0
    for sentence in sentences:
        cited = list(dict.fromkeys(int(n) for n in _MARK.findall(sentence) if int(n) in by_n))
        target = " ".join(_MARK.sub("", sentence).split())
        joint = bool(cited) and entailed(cited, target)
        citations += len(cited)
        supported += joint
        if joint and len(cited) > 1:
            for n in cited:
                rest = [m for m in cited if m != n]
                precise += entailed([n], target) or not entailed(rest, target)
        else:
            precise += joint
    return {
        "recall": supported / len(sentences) if sentences else 0.0,
        "precision": precise / citations if citations else 0.0,
    }
