"""The kernel's length norms as codes into a table: the very floats, in the narrowest codes."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from searchain.tools.retrieval.embedded.search import exhaustive
from searchain.tools.retrieval.embedded.search.norms import norm_codes
from searchain.tools.retrieval.embedded.search.topk import TopK
from tests.unit.retrieval.test_topk import build, zipf_corpora


@settings(max_examples=200, deadline=None)
@given(arrays(np.float32, st.integers(0, 300), elements=st.floats(width=32, allow_nan=True)))
def test_the_table_gives_back_every_norm_bit_for_bit(norm):
    codes, table = norm_codes(norm)
    distinct = len(np.unique(norm.view(np.uint32)))  # -0.0, 0.0 and NaNs kept apart
    assert codes.dtype == (np.uint8 if distinct <= 256 else np.uint16)
    assert len(table) == distinct
    assert table[codes].tobytes() == norm.tobytes()


@pytest.mark.parametrize(
    ("distinct", "dtype"),
    [(1, np.uint8), (256, np.uint8), (257, np.uint16), (65_536, np.uint16), (65_537, np.uint32)],
)
def test_codes_are_the_narrowest_that_hold_every_distinct_norm(distinct, dtype):
    rng = np.random.default_rng(distinct)
    values = np.arange(1, distinct + 1, dtype=np.float32) / 7
    norm = values[rng.permutation(np.resize(np.arange(distinct), 2 * distinct))]
    codes, table = norm_codes(norm)
    assert codes.dtype == dtype
    assert table[codes].tobytes() == norm.tobytes()
    if dtype == np.uint32:  # past 65,536, the passages' own numbers into the norms
        assert table.tobytes() == norm.tobytes()
    else:
        assert len(table) == distinct


@settings(max_examples=25, deadline=None)
@given(zipf_corpora(), st.lists(st.integers(0, 9), min_size=1, max_size=6, unique=True))
def test_the_kernel_answers_alike_whatever_its_codes_width(docs, terms):
    """Two-byte codes and the passages' own numbers (what other corpora get) search the same."""
    terms = sorted(terms)
    with tempfile.TemporaryDirectory() as tmp:
        postings = build(Path(tmp), docs)
        kernel = TopK(postings, 64, 1)
        assert kernel.arrays.norm_code.dtype == np.uint8
        want = exhaustive.top_k(postings, terms, 3)
        norm = np.asarray(postings.norm, np.float32)
        for codes, table in [
            (kernel.arrays.norm_code.astype(np.uint16), kernel.arrays.norm_table),
            (np.arange(len(norm), dtype=np.uint32), norm),
        ]:
            kernel.arrays = kernel.arrays._replace(norm_code=codes, norm_table=table)
            found, scores = kernel.search(terms, 3)
            assert found.tolist() == want[0].tolist()
            assert scores.tobytes() == want[1].tobytes()
