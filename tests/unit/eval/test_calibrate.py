"""Calibration's arithmetic: AUC, the reliability bins, θ for a precision, the file runs read."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from searchain.eval.calibrate import (
    Item,
    Reading,
    above,
    auc,
    calibrate,
    choose_theta,
    items,
    lower_bound,
    reliability,
)
from searchain.tools.readers import calibration
from searchain.types import Passage

ITEM = Item("musique", "q", "a", Passage("p", "t", "a"))


def readings(pairs) -> list[Reading]:
    return [Reading(ITEM, "", confidence, right) for confidence, right in pairs]


scored = st.lists(
    st.tuples(st.floats(-5, 5, allow_nan=False).map(lambda x: round(x, 2)), st.booleans()),
    max_size=60,
)


def test_auc_is_one_when_confidence_separates_and_zero_when_it_inverts():
    assert auc(readings([(0.1, False), (0.2, False), (0.8, True), (0.9, True)]))[0] == 1.0
    assert auc(readings([(0.1, True), (0.2, True), (0.8, False), (0.9, False)]))[0] == 0.0
    assert auc(readings([(0.5, True), (0.5, False)]))[0] == 0.5  # a tie counts half


@given(scored)
def test_auc_is_the_share_of_right_wrong_pairs_ordered_right(pairs):
    right = [c for c, r in pairs if r]
    wrong = [c for c, r in pairs if not r]
    area, se = auc(readings(pairs))
    if not right or not wrong:
        assert (area, se) == (0.5, 0.5)
        return
    wins = sum((a > b) + 0.5 * (a == b) for a in right for b in wrong)
    assert math.isclose(area, wins / (len(right) * len(wrong)), abs_tol=1e-9)
    assert se >= 0


@given(scored)
def test_auc_does_not_change_under_a_monotone_rescaling(pairs):
    rescaled = [(math.exp(c) * 3 + 1, r) for c, r in pairs]
    assert math.isclose(auc(readings(pairs))[0], auc(readings(rescaled))[0], abs_tol=1e-9)


@given(scored)
def test_every_reading_is_in_exactly_one_bin_and_ties_are_never_split(pairs):
    bins = reliability(readings(pairs))
    assert sum(b.total for b in bins) == len(pairs)
    assert sum(b.right for b in bins) == sum(r for _, r in pairs)
    lows = [b.low for b in bins]
    assert lows == sorted(set(lows))


@given(scored, st.floats(0.05, 1))
def test_theta_reaches_the_precision_with_enough_above_and_is_the_smallest(pairs, target):
    theta = choose_theta(readings(pairs), target)
    if theta is None:
        return
    precision, _, count = above(readings(pairs), theta)
    assert lower_bound(precision, count) >= target and precision >= target
    for lower in {c for c, _ in pairs if c < theta}:
        assert lower_bound(*above(readings(pairs), lower)[::2]) < target


def test_a_few_right_readings_are_not_taken_for_a_high_precision():
    assert lower_bound(1.0, 3) < 0.5 < lower_bound(1.0, 10)
    assert choose_theta(readings([(0.9, True)] * 3 + [(0.1, False)] * 10), 0.5) is None


def test_no_signal_writes_no_theta_and_a_run_then_corrects_nothing(tmp_path, monkeypatch):
    flat = readings([(0.5, i % 2 == 0) for i in range(40)])
    result = calibrate(flat, "dpr:/r", 0.8, "test")
    assert result.theta is None and not result.signal
    assert "carries no signal" in result.line("f")
    path = tmp_path / "calibration.json"
    calibration.save(path, result)
    monkeypatch.setenv("SEARCHAIN_CALIBRATION", str(path))
    assert calibration.run_theta("dpr:/r", "auto", None) is None  # corrects nothing
    assert calibration.run_theta("dpr:/r", "auto", 2.0) == 2.0  # a θ given is used


def test_a_calibrated_theta_is_what_the_run_uses_and_says(tmp_path, monkeypatch):
    separated = readings([(i / 40, i >= 20) for i in range(40)])
    result = calibrate(separated, "dpr:/r", 0.8, "test")
    assert result.signal and result.theta is not None and result.precision >= 0.8
    path = tmp_path / "c.json"
    calibration.save(path, result)
    calibration.save(path, calibrate(separated, "extractive:/x", 0.9, "test"))  # kept beside
    monkeypatch.setenv("SEARCHAIN_CALIBRATION", str(path))
    assert calibration.run_theta("dpr:/r", "auto", None) == result.theta
    line = calibration.theta_line("dpr:/r", "auto", None)
    assert line.startswith(f"θ = {result.theta:.4g} for the dpr:/r reader (calibrated")
    assert set(json.loads(path.read_text())["readers"]) == {"dpr:/r", "extractive:/x"}


def test_a_broken_calibration_file_is_one_line_naming_it(tmp_path, monkeypatch):
    path = tmp_path / "c.json"
    path.write_text('{"format": 9, "readers": {}}')
    monkeypatch.setenv("SEARCHAIN_CALIBRATION", str(path))
    with pytest.raises(ValueError, match=rf"calibration file {path} is broken \(format 9"):
        calibration.run_theta("dpr:/r", "auto", None)


def test_the_items_come_from_the_tuning_split_of_each_data_set(shared_data):
    found = items(shared_data, "tune", 5)
    assert [i.dataset for i in found] == ["musique"] * 5 + ["2wikimultihopqa"] * 5 + [
        "hotpotqa"
    ] * 5
    for item in found:  # each gold answer is in its passage: a right reading is possible
        assert item.answer.lower() in item.passage.text.lower() or item.dataset == "musique"
    report = items(shared_data, "report", 5)
    assert not {i.query for i in found} & {i.query for i in report}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("theta", "0.5"),
        ("theta", True),
        ("auc", float("nan")),
        ("auc", None),
        ("total", 2.5),
        ("total", -1),
        ("right", "3"),
        ("reader", "another"),
        ("data", 7),
    ],
)
def test_a_calibration_field_of_the_wrong_type_is_refused_naming_it(
    tmp_path, monkeypatch, field, value
):
    path = tmp_path / "c.json"
    good = calibrate(readings([(i / 40, i >= 20) for i in range(40)]), "dpr:/r", 0.5, "t")
    calibration.save(path, good)
    raw = json.loads(path.read_text())
    raw["readers"]["dpr:/r"][field] = value
    path.write_text(json.dumps(raw))
    monkeypatch.setenv("SEARCHAIN_CALIBRATION", str(path))
    with pytest.raises(ValueError, match=r"is broken \('dpr:/r'"):
        calibration.run_theta("dpr:/r", "auto", None)


def test_an_unknown_or_missing_field_and_a_folder_are_refused(tmp_path, monkeypatch):
    path = tmp_path / "c.json"
    good = calibrate(readings([(i / 40, i >= 20) for i in range(40)]), "dpr:/r", 0.5, "t")
    calibration.save(path, good)
    raw = json.loads(path.read_text())
    raw["readers"]["dpr:/r"]["extra"] = 1
    path.write_text(json.dumps(raw))
    monkeypatch.setenv("SEARCHAIN_CALIBRATION", str(path))
    with pytest.raises(ValueError, match="has fields"):
        calibration.run_theta("dpr:/r", "auto", None)
    monkeypatch.setenv("SEARCHAIN_CALIBRATION", str(tmp_path))  # a folder: never "none"
    with pytest.raises(ValueError, match=f"calibration file {tmp_path} is not a file"):
        calibration.run_theta("dpr:/r", "auto", None)
