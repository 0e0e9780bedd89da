"""The five data sets of ../shared/data as one record type, with the tuning/reporting split."""

from __future__ import annotations

import pytest

from searchain.eval.datasets import DATASETS, data_dir, load_records, musique_hops


@pytest.fixture(scope="module")
def root(shared_data):
    return data_dir(shared_data)


@pytest.mark.parametrize("dataset", DATASETS)
def test_splits_are_disjoint_halves_of_two_hundred(root, dataset):
    tune, report = load_records(root, dataset, "tune"), load_records(root, dataset, "report")
    assert len(tune) == len(report) == 100
    assert not {r.id for r in tune} & {r.id for r in report}
    assert all(r.question and r.answers and r.answers[0] for r in tune + report)


def test_tasks_and_labels(root):
    assert {r.task for r in load_records(root, "strategyqa")} == {"yesno"}
    assert {r.answers[0] for r in load_records(root, "strategyqa")} == {"yes", "no"}
    fever = load_records(root, "fever", "all")
    assert {r.task for r in fever} == {"factcheck"}
    assert {r.answers[0] for r in fever} <= {"SUPPORTS", "REFUTES"}


def test_gold_paragraphs_and_hops(root):
    musique = load_records(root, "musique")
    first = musique[0]
    assert first.hops and all("#" not in hop.question for hop in first.hops)
    assert {hop.gold for hop in first.hops} <= set(first.gold_paragraphs)
    assert len(first.answers) >= 1
    assert [h for r in musique for h in r.hops] == musique_hops(root, "tune")
    hotpot = load_records(root, "hotpotqa")
    assert all(len(r.gold_paragraphs) == 2 for r in hotpot)  # two supporting titles each


def test_unknown_dataset(root):
    with pytest.raises(ValueError, match="unknown dataset 'squad': choose one of musique"):
        load_records(root, "squad")
