"""IRCoT's published demonstrations (appendix G, Listings 1-4) as shipped sets ``paper-*``."""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

import pytest

from searchain.eval.datasets import pooled_corpus
from searchain.eval.paper_demos import LISTINGS, listing, paper_demos
from searchain.prompts.ircot import build_prompt, load_demos
from tests.conftest import ROOT, require

COUNTS = {"hotpotqa": 20, "2wikimultihopqa": 20, "musique": 20, "iirc": 19}
"""Demonstrations per listing (Listing 4's last question has no answer on the page)."""


@pytest.fixture(scope="module")
def paper() -> str:
    root = Path(os.environ.get("SEARCHAIN_PAPER_DIR") or ROOT.parent / "shared" / "paper")
    path = root / "ircot-appendix-prompts.txt"
    require(path.is_file(), f"the paper's text is not at {path}: set SEARCHAIN_PAPER_DIR")
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def corpus(shared_data):
    return pooled_corpus(shared_data)


@pytest.mark.parametrize("dataset", sorted(LISTINGS))
def test_shipped_sets_are_rebuilt_from_the_paper_and_the_shared_corpus(dataset, paper, corpus):
    built = paper_demos(paper, dataset, corpus)
    shipped = resources.files("searchain").joinpath(f"data/ircot_demos/paper-{dataset}.json")
    assert json.loads(shipped.read_text(encoding="utf-8")) == built
    assert len(built) == COUNTS[dataset]
    for demo in built:
        assert demo["answer"] and demo["cot"] and demo["question"].endswith("?")
        assert [p["title"] for p in demo["paragraphs"]] == demo["found"]
        said = f"{demo['question']} {' '.join(demo['cot'])} {demo['answer']}"
        assert all(p["title"] in said for p in demo["paragraphs"])
    assert len(load_demos(f"paper-{dataset}", leave_out="")) == len(built)


def test_the_listings_are_read_as_printed_with_the_text_layers_faults_repaired(paper):
    hotpot = listing(paper, "hotpotqa")
    assert hotpot[0] == (
        "Jeremy Theobald and Christopher Nolan share what profession?",
        "Jeremy Theobald is an actor and producer. Christopher Nolan is a director, producer, "
        "and screenwriter. Therefore, they both share the profession of being a producer. "
        "So the answer is: producer.",
    )
    # "O:" read for "Q:", a question and its answer on one line, mojibake, a page break mid-answer
    assert hotpot[5][0] == "Who was born first? Jan de Bont or Raoul Walsh?"
    assert hotpot[7][1].startswith('The debut album of the band "Hot Heat"')
    assert "Lee–Enfield" in hotpot[11][1]
    two = listing(paper, "2wikimultihopqa")
    assert two[11][1].endswith("not located in the same country. So the answer is: no.")
    assert "Ögedei" in two[7][0]
    iirc = listing(paper, "iirc")
    assert "1864 − 1811 = 53 years" in iirc[1][1]


def test_a_demonstration_names_only_whole_titles(paper, corpus):
    """No page for a common word ("year"), nor for part of a longer name ("James Paris Lee")."""
    demos = {d["answer"]: d for d in paper_demos(paper, "hotpotqa", corpus)}
    assert demos["SMLE"]["found"] == []  # "James Paris Lee" names no "Paris"
    assert demos["after 685"]["found"] == []  # "died after 685": no page "Year"
    assert demos["Germany"]["found"] == ["Germany"]


def test_paper_demonstrations_without_paragraphs_show_closed_book():
    demo = next(d for d in load_demos("paper-iirc", leave_out=""))
    prompt = build_prompt(style="cot", question="Q?", paragraphs=[], demos=[demo])
    assert f"Q: {demo.question}\nA: {' '.join(demo.cot)} So the answer is: {demo.answer}." in prompt
    assert "Wikipedia Title:" not in prompt
