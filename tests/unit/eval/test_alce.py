"""ALCE's citation recall and precision: searchain's figures against a transcription of ALCE.

``alce_loop`` below is ALCE's ``compute_autoais`` (eval.py, ``citation=True``) for one item,
kept in ALCE's own shape and names, with NLTK's real ``sent_tokenize`` reading a ``punkt_tab``
directory written from the English model searchain uses. The NLI model is a stub we control.
"""

from __future__ import annotations

import copy
import re

import nltk
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from searchain.eval.alce import alce_scores, sentences
from searchain.types import Passage

DOCS = [Passage(f"p{n}", f"T{n}", text) for n, text in [(1, "A."), (2, "B."), (3, "C."), (4, "D.")]]


@pytest.fixture(scope="module", autouse=True)
def punkt_tab(tmp_path_factory):
    """NLTK's ``punkt_tab/english`` written from the model searchain loads, for NLTK to find."""
    from punkt.data import load_module

    english = load_module("english")
    root = tmp_path_factory.mktemp("nltk_data")
    lang = root / "tokenizers" / "punkt_tab" / "english"
    lang.mkdir(parents=True)
    (lang / "abbrev_types.txt").write_text("\n".join(sorted(english.ABBREV_TYPES)) + "\n")
    (lang / "sent_starters.txt").write_text("\n".join(sorted(english.SENT_STARTERS)) + "\n")
    (lang / "collocations.tab").write_text(
        "".join(f"{a}\t{b}\n" for a, b in sorted(english.COLLOCATIONS))
    )
    (lang / "ortho_context.tab").write_text(
        "".join(f"{w}\t{f}\n" for w, f in sorted(english.ORTHO_CONTEXT.items()))
    )
    nltk.data.path.insert(0, str(root))
    yield
    nltk.data.path.remove(str(root))


def remove_citations(sent):
    return re.sub(r"\[\d+", "", re.sub(r" \[\d+", "", sent)).replace(" |", "").replace("]", "")


def alce_loop(item, run_nli, at_most_citations=3):
    """ALCE's per-item loop: ``(entail / len(sents), precision)``, or ``None`` when skipped."""

    def _format_document(doc):
        return "Title: %s\n%s" % (doc["title"], doc["text"])  # noqa: UP031 (ALCE's own)

    sents = nltk.sent_tokenize(item["output"])
    if len(sents) == 0:
        return None
    target_sents = [remove_citations(sent).strip() for sent in sents]
    entail = 0
    entail_prec = 0
    total_citations = 0
    for sent_id, sent in enumerate(sents):
        target_sent = target_sents[sent_id]
        flag = -1
        ref = [int(r[1:]) - 1 for r in re.findall(r"\[\d+", sent)]
        if len(ref) == 0:  # noqa: SIM114 (ALCE's own shape)
            flag = 0
        elif any([ref_id >= len(item["docs"]) for ref_id in ref]):
            flag = 0
        else:
            if at_most_citations is not None:
                ref = ref[:at_most_citations]
            total_citations += len(ref)
            passage = "\n".join([_format_document(item["docs"][psgs_id]) for psgs_id in ref])
            references = [passage]
        if flag == -1:
            flag = 0
            for reference in references:
                flag = run_nli(reference, target_sent)
                if flag == 1:
                    break
        entail += flag
        if flag and len(ref) > 1:
            for psgs_id in ref:
                passage = _format_document(item["docs"][psgs_id])
                nli_result = run_nli(passage, target_sent)
                if not nli_result:
                    subset_exclude = copy.deepcopy(ref)
                    subset_exclude.remove(psgs_id)
                    passage = "\n".join(
                        [_format_document(item["docs"][pid]) for pid in subset_exclude]
                    )
                    nli_result = run_nli(passage, target_sent)
                    if nli_result:
                        flag = 0
                    else:
                        entail_prec += 1
                else:
                    entail_prec += 1
        elif flag:
            entail_prec += flag
    return {
        "recall": entail / len(sents),
        "precision": entail_prec / total_citations if total_citations > 0 else 0,
    }


def stub_nli(premise: str, claim: str) -> int:
    """Entailed when the documents hold every capital letter the claim names."""
    held = {line[0] for line in premise.splitlines() if not line.startswith("Title:")}
    wanted = set(re.findall(r"\b([A-D])\b", claim))
    return int(bool(wanted) and wanted <= held)


def entails(pairs):
    return [stub_nli(premise, claim) for premise, claim in pairs]


def item(output: str) -> dict:
    return {"output": output, "docs": [{"title": d.title, "text": d.text} for d in DOCS]}


@pytest.mark.parametrize(
    ("output", "recall", "precision"),
    [
        ("It is A [1].", 1.0, 1.0),
        ("It is A [1]. Y is so.", 0.5, 1.0),  # a sentence citing nothing scores 0
        ("A and B [1][2].", 1.0, 1.0),  # both needed
        ("It is A [1][2].", 1.0, 0.5),  # [2] over-cites
        # ALCE judges the first 3 citations only: [4] is never read, so D is not entailed.
        ("A and D [1][2][3][4].", 0.0, 0.0),
        # A citation of a document that does not exist scores its sentence 0, whatever else
        # it cites (Trace removes such a marker: scored before, as written).
        ("It is A [1][7].", 0.0, 0.0),
        ("It is A [1][7]. It is B [2].", 0.5, 1.0),
        ("It is A [1, 2].", 1.0, 1.0),  # ALCE reads "[1, 2]" as [1] only
        ("Nothing cited.", 0.0, 0.0),
    ],
)
def test_the_issues_cases_as_alce_scores_them(output, recall, precision):
    expected = {"recall": recall, "precision": precision}
    assert alce_loop(item(output), stub_nli) == expected
    assert alce_scores(output, DOCS, entails) == expected


def test_an_output_with_no_sentence_is_skipped_not_averaged_in_as_zero():
    assert alce_loop(item(""), stub_nli) is None
    assert alce_scores("", DOCS, entails) is None
    assert alce_scores("   \n ", DOCS, entails) is None


def test_a_step_with_no_passage_is_a_document_that_does_not_exist():
    docs = [DOCS[0], None, DOCS[2]]
    assert alce_scores("It is A [1][2].", docs, entails) == {"recall": 0.0, "precision": 0.0}
    assert alce_scores("It is C [3].", docs, entails) == {"recall": 1.0, "precision": 1.0}


def test_sentences_are_nltks_sent_tokenize():
    text = "Mr. Drew was born in Toronto [1]. He met Dr. Smith in the U.S. in 1999. It rained."
    assert sentences(text) == nltk.sent_tokenize(text)
    assert len(sentences(text)) == 3


words = st.sampled_from(["It", "is", "A", "B", "C", "D", "and", "Mr.", "so", "U.S.", "e.g."])
marks = st.sampled_from(["[1]", "[2]", "[3]", "[4]", "[0]", "[9]", "[1, 2]", "[2][3]", ""])
sentence = st.tuples(st.lists(words, min_size=1, max_size=6), marks, st.sampled_from([".", "!"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(sentence, max_size=5), st.sampled_from([None, 1, 3]))
def test_searchain_scores_every_output_as_alces_loop_does(parts, at_most):
    output = " ".join(f"{' '.join(w)} {m}{end}" for w, m, end in parts)
    assert alce_scores(output, DOCS, entails, at_most_citations=at_most) == alce_loop(
        item(output), stub_nli, at_most
    )


def test_each_premise_and_claim_is_judged_once():
    calls = []

    def counting(pairs):
        calls.extend(pairs)
        return entails(pairs)

    alce_scores("It is A [1]. It is A [1].", DOCS, counting)
    assert calls == [("Title: T1\nA.", "It is A.")]
