"""IRCoT's demonstrations (built from the tuning split) and its sentence splitter."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from searchain.eval.datasets import FILES, load_records
from searchain.eval.demos import build_demos
from searchain.prompts.ircot import load_demos
from searchain.text import split_sentences


@pytest.mark.parametrize("dataset", sorted(FILES))
def test_shipped_demonstrations_are_rebuilt_from_the_tuning_split(dataset, shared_data):
    root = shared_data
    built = build_demos(root, dataset)
    shipped = resources.files("searchain").joinpath(f"data/ircot_demos/{dataset}.json")
    assert json.loads(shipped.read_text(encoding="utf-8")) == built
    tune = {r.id: r for r in load_records(root, dataset, "tune")}
    reported = {r.id for r in load_records(root, dataset, "report")}
    for demo in built:
        assert demo["id"] in tune and demo["id"] not in reported
        gold = set(tune[demo["id"]].gold_paragraphs)
        shown = {(p["title"], p["text"]) for p in demo["paragraphs"]}
        assert gold <= shown and len(shown - gold) >= 1  # gold plus distractors
        assert demo["cot"] and all(s.endswith(".") for s in demo["cot"])
    assert len(load_demos(dataset, leave_out="")) == len(built)


def test_unknown_or_malformed_demonstrations_are_one_clear_error(tmp_path):
    with pytest.raises(
        ValueError, match=r"neither musique, hotpotqa, 2wikimultihopqa, paper-.* nor a file"
    ):
        load_demos("trivia", leave_out="")
    bad = tmp_path / "demos.json"
    bad.write_text('[{"question": "q"}]', encoding="utf-8")
    with pytest.raises(ValueError, match="must be a JSON list of objects with question"):
        load_demos(str(bad), leave_out="")


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        (
            "He moved to St. Louis in 1904. He died there.",
            ["He moved to St. Louis in 1904.", "He died there."],
        ),
        ("J. R. R. Tolkien wrote it. It sold!", ["J. R. R. Tolkien wrote it.", "It sold!"]),
        ("The U.S. Army won. Why? Nobody knows.", ["The U.S. Army won.", "Why?", "Nobody knows."]),
        (
            "Dr. Who met Mr. Smith, e.g. in Jan. 1990. Done.",
            ["Dr. Who met Mr. Smith, e.g. in Jan. 1990.", "Done."],
        ),
        ("It cost 3.5 dollars. Fine.", ["It cost 3.5 dollars.", "Fine."]),
        ('He said "Go." She went.', ['He said "Go."', "She went."]),
        ("So the answer is: Rush.", ["So the answer is: Rush."]),
        ("no final point", ["no final point"]),
        ("   ", []),
    ],
)
def test_sentences_are_not_cut_at_abbreviations(text, sentences):
    assert split_sentences(text) == sentences
