"""The block codec: what is packed decodes back, in numba and in NumPy, whatever the values."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from searchain.tools.retrieval.embedded.postings.codec import check_blocks, unpack_all
from searchain.tools.retrieval.embedded.postings.compact import BLOCK, CompactPostings
from searchain.tools.retrieval.embedded.postings.writer import PostingsWriter


@st.composite
def postings(draw: st.DrawFn) -> tuple[list[list[int]], list[list[int]], int]:
    """Terms' ascending passages (gaps of up to 25 bits) and frequencies (up to 31 bits)."""
    n_terms = draw(st.integers(1, 6))
    lists, freqs = [], []
    top = 0
    for _ in range(n_terms):
        size = draw(st.sampled_from([0, 1, 2, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 5]))
        width = draw(st.integers(0, 25))
        seed = draw(st.integers(0, 2**32 - 1))
        rng = np.random.default_rng(seed)
        gaps = rng.integers(1, 2**width + 1, size, dtype=np.int64)
        docs = np.cumsum(gaps) - 1
        docs = docs[docs < 2**26]  # every passage has a norm: 256 MiB at most
        tf_width = draw(st.sampled_from([0, 1, 4, 16, 31]))
        tfs = rng.integers(1, 2**tf_width + 1, len(docs), dtype=np.int64)
        lists.append(docs.tolist())
        freqs.append(tfs.tolist())
        top = max(top, int(docs[-1]) + 1 if len(docs) else 0)
    return lists, freqs, top


def write(directory: Path, lists: list[list[int]], freqs: list[list[int]], n_docs: int) -> None:
    df = np.array([len(d) for d in lists], np.int64)
    writer = PostingsWriter(
        directory, df, np.full(len(lists), 1.5, np.float32), np.full(n_docs, 1.2, np.float32)
    )
    docs = np.array([d for docs in lists for d in docs], np.int64)
    tfs = np.array([f for tf in freqs for f in tf], np.int64)
    writer.add_all(docs.astype(np.int32), tfs.astype(np.uint32))
    writer.close()


@settings(max_examples=60, deadline=None)
@given(postings(), st.data())
def test_what_is_packed_decodes_back_in_numba_and_in_numpy(case, data):
    lists, freqs, n_docs = case
    with tempfile.TemporaryDirectory() as tmp:
        write(Path(tmp), lists, freqs, max(n_docs, 1))
        p = CompactPostings.load(Path(tmp))
        docs, tfs = unpack_all(p.indptr, p.blocks, p.block_starts, p.data, p.words)
        assert docs.tolist() == [d for ds in lists for d in ds]
        assert tfs.tolist() == [f for fs in freqs for f in fs]
        for t, (want_docs, want_tfs) in enumerate(zip(lists, freqs, strict=True)):
            got_docs, got_tfs = p.term(t)
            assert got_docs.tolist() == want_docs
            assert got_tfs.tolist() == [float(np.float32(f)) for f in want_tfs]
            # Some of its blocks alone (what a probe reads): those blocks' postings.
            n_blocks = int(p.blocks[t + 1] - p.blocks[t])
            picked = data.draw(st.lists(st.booleans(), min_size=n_blocks, max_size=n_blocks))
            chosen = np.flatnonzero(np.array(picked, bool))
            some_docs, some_tfs = p.term(t, chosen)
            at = [i for b in chosen for i in range(BLOCK * b, min(BLOCK * (b + 1), len(want_docs)))]
            assert some_docs.tolist() == [want_docs[i] for i in at]
            assert some_tfs.tolist() == [float(np.float32(want_tfs[i])) for i in at]
            if want_docs:
                g = slice(int(p.blocks[t]), int(p.blocks[t + 1]))
                ends = want_docs[BLOCK - 1 :: BLOCK][: len(p.block_last[g]) - 1]
                assert p.block_last[g].tolist() == [*ends, want_docs[-1]]
        tables = (p.indptr, p.blocks, p.block_starts, p.block_last, p.data, p.words)
        checked = check_blocks(*tables, max(n_docs, 1))
        assert checked == -1


def test_a_block_that_does_not_decode_to_its_tables_is_found(tmp_path):
    write(tmp_path, [list(range(0, 600, 2)), [5]], [[1] * 300, [2]], 600)
    p = CompactPostings.load(tmp_path, mmap=False)
    args = (p.indptr, p.blocks, p.block_starts, p.block_last, p.data, p.words)
    assert check_blocks(*args, 600) == -1
    assert check_blocks(*args, 598) == 2  # a passage past the index's last
    last = p.block_last.copy()
    last[1] += 1  # a block whose last passage is not the recorded one
    assert check_blocks(p.indptr, p.blocks, p.block_starts, last, p.data, p.words, 600) == 1
    data = p.data.copy()
    data[int(p.block_starts[3])] = 40  # a bit width no block has
    words = data[: len(data) // 8 * 8].view("<u8")
    assert check_blocks(p.indptr, p.blocks, p.block_starts, p.block_last, data, words, 600) == 3
