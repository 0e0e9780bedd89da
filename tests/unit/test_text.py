from __future__ import annotations

import pytest

from searchain.support import is_consistent
from searchain.text import contains_answer, normalize_answer, rouge_l


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("The Beatles", "beatles"),
        ("  An   apple, a pear. ", "apple pear"),
        ("U.S.A.", "usa"),
        ("“Quoted” — dash", "quoted dash"),
        ("Theatre", "theatre"),  # 'the' only as a word
        ("", ""),
    ],
)
def test_normalize_answer_is_squad_normalisation(raw, normalized):
    assert normalize_answer(raw) == normalized


def test_contains_answer_matches_on_word_bounds():
    assert contains_answer("The performer is Kevin Drew.", "kevin drew")
    assert contains_answer("It was 1844.", "1844")
    assert not contains_answer("It was 18445.", "1844")
    assert not contains_answer("Toronto", "")  # an empty span vouches for nothing
    assert not contains_answer("Montreal.", "Toronto")


def test_rouge_l_bounds():
    assert rouge_l("a b c", "a b c") == pytest.approx(1.0)
    assert rouge_l("", "a b c") == 0.0
    assert (
        0
        < rouge_l("Kevin Drew was born in Toronto", "Kevin Drew was born in Toronto, Ontario.")
        < 1
    )


def test_is_consistent_switches_on_long_form():
    passage = "Kevin Drew was born in Toronto, Ontario."
    assert is_consistent("Toronto.", "Toronto", passage, long_form=False, alpha=0.35)
    assert not is_consistent("Montreal.", "Toronto", passage, long_form=False, alpha=0.35)
    assert is_consistent("Kevin Drew was born in Toronto.", "", passage, long_form=True, alpha=0.35)
    assert not is_consistent("Bananas are yellow.", "Toronto", passage, long_form=True, alpha=0.35)


def test_a_byte_size_keeps_a_whole_part_in_its_unit():
    """A bound of 8 KiB read "over the 0 MiB bound"."""
    from searchain.text import byte_size

    assert [byte_size(n) for n in (0, 900, 8192, 15000, 3 << 20, 5 << 30)] == [
        "0 B", "900 B", "8 KiB", "14.6 KiB", "3 MiB", "5 GiB",
    ]  # fmt: skip
