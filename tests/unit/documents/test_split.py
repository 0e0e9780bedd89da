"""Passages of about 100 words that never cross a section, each traced back to its text."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from searchain.documents.extracted import Extracted, Section
from searchain.documents.split import check_size, split, windows


@given(count=st.integers(1, 2000), words=st.integers(1, 300), data=st.data())
def test_windows_cover_every_word_within_the_size_and_overlap(count, words, data):
    overlap = data.draw(st.integers(0, words - 1))
    spans = windows(count, words, overlap)
    assert spans[0][0] == 0 and spans[-1][1] == count
    assert all(0 < stop - first <= words for first, stop in spans)
    for (a, b), (c, _) in itertools.pairwise(spans):
        assert a < c <= b  # no gap, always moving on
        assert b - c >= overlap - 1  # the overlap asked for, up to rounding
    if count > words:  # the fewest windows: one fewer could not cover the words
        n = len(spans)
        assert (n - 1) * words - (n - 2) * overlap < count


@given(
    st.lists(
        st.text(st.sampled_from("ab é\n\t.-"), min_size=0, max_size=400), min_size=1, max_size=5
    ),
    st.integers(1, 30),
    st.integers(0, 29),
)
def test_each_passage_is_its_sections_words_at_its_offsets(texts, words, overlap):
    overlap = min(overlap, words - 1)
    starts, sections, at = [], [], 0
    for i, text in enumerate(texts):
        sections.append(Section(text, at, page=i + 1))
        starts.append(at)
        at += len(text) + 2
    whole = "\n\n".join(texts)
    passages = list(split(Extracted("T", sections), "dir/doc.pdf", words, overlap))
    for passage in passages:
        source = passage.source
        assert source is not None and source.path == "dir/doc.pdf"
        assert passage.text == " ".join(whole[source.start : source.end].split())
        assert len(passage.text.split()) <= words
        section = texts[source.page - 1]
        start = starts[source.page - 1]
        assert start <= source.start < source.end <= start + len(section)  # never crosses
    assert [p.id for p in passages] == [f"dir/doc.pdf#{i}" for i in range(1, len(passages) + 1)]
    assert sum(len(t.split()) for t in texts) <= sum(len(p.text.split()) for p in passages)


def test_a_long_section_splits_evenly_not_into_a_stub():
    words = [f"w{i}" for i in range(230)]
    passages = list(split(Extracted("T", [Section(" ".join(words))]), "a.txt"))
    assert [len(p.text.split()) for p in passages] == [77, 77, 77]
    assert passages[0].text.split()[0] == "w0" and passages[-1].text.split()[-1] == "w229"


@pytest.mark.parametrize(("words", "overlap"), [(0, 0), (10, 10), (10, -1), (1, 1)])
def test_a_size_no_passage_can_have_is_refused(words, overlap):
    with pytest.raises(ValueError, match=r"passage size|overlap"):
        check_size(words, overlap)
