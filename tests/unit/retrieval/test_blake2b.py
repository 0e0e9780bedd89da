"""The compiled BLAKE2b digests the vocabulary is written with are hashlib's, for any string."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from searchain.tools.retrieval.blake2b import digests
from searchain.tools.retrieval.vocabulary import Terms, term_hash, term_hashes


def _laid_end_to_end(strings: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    ends = np.zeros(len(strings) + 1, np.int64)
    np.cumsum([len(s) for s in strings], out=ends[1:])
    return np.frombuffer(b"".join(strings), np.uint8), ends


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=400), max_size=20))
def test_each_strings_digest_is_hashlibs(strings):
    data, ends = _laid_end_to_end(strings)
    assert digests(data, ends).tolist() == term_hashes(strings).tolist()


def test_the_block_boundaries_and_the_empty_string_are_hashlibs():
    strings = [bytes(range(n % 256)) * (n // 256 + 1) for n in (0, 1, 111, 112, 127, 128, 129)]
    strings += [b"\xff" * n for n in (255, 256, 257, 384, 1000)]
    data, ends = _laid_end_to_end(strings)
    assert digests(data, ends).tolist() == term_hashes(strings).tolist()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(), max_size=20))
def test_terms_hash_as_a_search_hashes_them(terms):
    """What a build writes is what a query's terms are looked up by, whatever the offsets' type."""
    packed = Terms.of(terms)
    for ends in (packed.ends, packed.ends.astype(np.uint64), packed.ends.astype(np.uint32)):
        assert digests(packed.data, ends).tolist() == [term_hash(t) for t in terms]
