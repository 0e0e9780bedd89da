"""Posting lists in bit-packed blocks of 128: the compact index's codec, compiled with numba.

A term's postings (passages ascending, each with its term frequency) are cut into blocks of
:data:`BLOCK`; block ``g`` starts at byte ``starts[g]`` of the postings file and holds:

* one byte ``w``: the bits of each ``gap - 1``, where a gap is a passage minus the one before it
  (before a term's first passage: -1; before a later block's first, the previous block's last);
* one byte ``v``: the bits of each ``tf - 1``;
* the ``n`` gaps, ``w`` bits each, little-endian bit order, padded to a byte; then the ``n``
  frequencies the same way, ``v`` bits each (``n`` is 128 but in a term's last block).

Beside it, per block, its last passage (``last``: what a search skips blocks by, without
decoding them) and its highest BM25 score (``peak``: what lets a search pass over a block that
cannot lift a passage into the top k). Scores are not stored: a search computes each one from
the frequency and the passage's length norm, in float32 operation for operation as the build
computes the block peaks (no fused or reordered arithmetic: numba keeps IEEE semantics without
``fastmath``), so scores are exactly BM25's (bm25s's Lucene variant) and the peaks exact bounds.
Common words' gaps are small and most frequencies are 1 or 2, so a posting takes about 1.3
bytes, against the 8 (a float32 score and an int32 passage) of the score matrix before it.
"""

from __future__ import annotations

import numba
import numpy as np

from searchain.tools.retrieval.embedded.postings.compact import BLOCK, HEADER


@numba.njit(cache=True, nogil=True, inline="always")
def _bits(x: int) -> int:
    """Bits needed to write ``x`` (0 for 0)."""
    n = 0
    while x:
        n += 1
        x >>= 1
    return n


@numba.njit(cache=True, nogil=True, inline="always")
def _packed(n: int, width: int) -> int:
    """Bytes that ``n`` values of ``width`` bits take, padded to a byte."""
    return (n * width + 7) >> 3


@numba.njit(cache=True, nogil=True)
def _put(out: np.ndarray, at: int, values: np.ndarray, n: int, width: int) -> int:
    """Pack ``values[:n]`` at ``width`` bits from byte ``at`` (zeroed); the byte after them."""
    for i in range(n):
        bit = i * width
        byte, shift = at + (bit >> 3), bit & 7
        x = np.int64(values[i]) << shift
        for j in range((shift + width + 7) >> 3):
            out[byte + j] |= np.uint8((x >> (8 * j)) & 0xFF)
    return at + _packed(n, width)


@numba.njit(cache=True, nogil=True)
def unpack(words: np.ndarray, at: int, n: int, width: int, out: np.ndarray, base: int) -> int:
    """``n`` values of ``width`` bits from byte ``at``, each plus ``base``, into ``out``.

    ``words`` is the postings' bytes seen as little-endian 64-bit words: a value is one or two
    word loads, a shift and a mask, with no loop over its bytes. Returns the byte after them.
    """
    mask = (np.uint64(1) << np.uint64(width)) - np.uint64(1)
    for i in range(n):
        bit = at * 8 + i * width
        word, shift = bit >> 6, bit & 63
        x = words[word] >> np.uint64(shift)
        if shift + width > 64:
            x |= words[word + 1] << np.uint64(64 - shift)
        out[i] = np.int64(x & mask) + base
    return at + _packed(n, width)


@numba.njit(cache=True, nogil=True)
def decode_docs(
    data: np.ndarray, words: np.ndarray, at: int, n: int, before: int, docs: np.ndarray
) -> int:
    """The passages of the ``n``-posting block at byte ``at`` into ``docs``.

    Returns where the block's frequencies start. ``before`` is the passage before the block's
    first (-1 for a term's first block).
    """
    at = unpack(words, at + HEADER, n, data[at], docs, 1)
    doc = np.int64(before)
    for i in range(n):  # gaps to passages
        doc += docs[i]
        docs[i] = doc
    return at


@numba.njit(cache=True, nogil=True)
def frequency(data: np.ndarray, words: np.ndarray, block: int, tfs: int, i: int) -> int:
    """The ``i``-th frequency of the block at byte ``block``, whose frequencies start at ``tfs``.

    One value read, the others left packed: a probe needs one.
    """
    width = np.int64(data[block + 1])
    bit = tfs * 8 + i * width
    word, shift = bit >> 6, bit & 63
    x = words[word] >> np.uint64(shift)
    if shift + width > 64:
        x |= words[word + 1] << np.uint64(64 - shift)
    return np.int64(x & ((np.uint64(1) << np.uint64(width)) - np.uint64(1))) + 1


@numba.njit(cache=True, nogil=True)
def decode_block(
    data: np.ndarray,
    words: np.ndarray,
    at: int,
    n: int,
    before: int,
    docs: np.ndarray,
    tfs: np.ndarray,
) -> None:
    """The ``n`` postings of the block at byte ``at`` into ``docs``/``tfs``.

    ``before`` is the passage before the block's first (-1 for a term's first block).
    """
    unpack(words, decode_docs(data, words, at, n, before, docs), n, data[at + 1], tfs, 1)


@numba.njit(cache=True, nogil=True)
def pack_terms(
    indptr: np.ndarray, docs: np.ndarray, tfs: np.ndarray, idf: np.ndarray, norm: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Encode consecutive terms' postings: ``(data, sizes, last, peak)``.

    Term ``j``'s postings are ``docs``/``tfs[indptr[j]:indptr[j + 1]]`` (passages ascending,
    ``indptr`` from 0), weighted by ``idf[j]``; ``norm`` is every passage's length norm.
    ``data`` is their blocks end to end, ``sizes`` each block's bytes, ``last`` and ``peak``
    each block's last passage and highest score.
    """
    n_terms = len(indptr) - 1
    n_blocks = 0
    for j in range(n_terms):
        n_blocks += (indptr[j + 1] - indptr[j] + BLOCK - 1) // BLOCK
    data = np.zeros(n_blocks * HEADER + len(docs) * 8 + 8, np.uint8)
    sizes = np.empty(n_blocks, np.int64)
    last = np.empty(n_blocks, np.int32)
    peak = np.empty(n_blocks, np.float32)
    gaps = np.empty(BLOCK, np.int64)
    counts = np.empty(BLOCK, np.int64)
    at = 0
    g = 0
    for j in range(n_terms):
        weight = idf[j]
        before = np.int64(-1)
        for start in range(indptr[j], indptr[j + 1], BLOCK):
            n = min(BLOCK, indptr[j + 1] - start)
            widest, most = 0, 0
            best = np.float32(0.0)
            for i in range(n):
                doc = np.int64(docs[start + i])
                gaps[i] = doc - before - 1
                before = doc
                counts[i] = np.int64(tfs[start + i]) - 1
                widest |= gaps[i]
                most |= counts[i]
                tf = np.float32(tfs[start + i])
                best = max(best, weight * tf / (norm[doc] + tf))
            w, v = _bits(widest), _bits(most)
            first = at
            data[at], data[at + 1] = w, v
            at = _put(data, at + HEADER, gaps, n, w)
            at = _put(data, at, counts, n, v)
            sizes[g], last[g], peak[g] = at - first, before, best
            g += 1
    return data[:at], sizes, last, peak


@numba.njit(cache=True, nogil=True, parallel=True)
def unpack_all(
    indptr: np.ndarray, blocks: np.ndarray, starts: np.ndarray, data: np.ndarray, words: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Every posting, term after term: ``(docs, tfs)`` in ``indptr``'s order.

    An update's read of the whole index, and a reference scorer's.
    """
    docs = np.empty(indptr[-1], np.int32)
    tfs = np.empty(indptr[-1], np.uint32)
    for t in numba.prange(len(indptr) - 1):
        before = -1
        for g in range(blocks[t], blocks[t + 1]):
            at = indptr[t] + (g - blocks[t]) * BLOCK
            n = min(BLOCK, indptr[t + 1] - at)
            decode_block(data, words, starts[g], n, before, docs[at : at + n], tfs[at : at + n])
            before = docs[at + n - 1]
    return docs, tfs


@numba.njit(cache=True, nogil=True, parallel=True)
def check_blocks(
    indptr: np.ndarray,
    blocks: np.ndarray,
    starts: np.ndarray,
    last: np.ndarray,
    data: np.ndarray,
    words: np.ndarray,
    n_docs: int,
) -> int:
    """The first block that does not decode to what its tables say (-1: none).

    Each block must fit its bytes, end on its recorded last passage, and keep its term's
    passages below ``n_docs``; a block read past the data counts as bad.
    """
    bad = np.full(len(indptr) - 1, -1, np.int64)
    for t in numba.prange(len(indptr) - 1):
        docs = np.empty(BLOCK, np.int64)
        tfs = np.empty(BLOCK, np.float32)
        before = -1
        for g in range(blocks[t], blocks[t + 1]):
            n = min(BLOCK, indptr[t + 1] - indptr[t] - (g - blocks[t]) * BLOCK)
            at = starts[g]
            if at + 1 >= len(data) or data[at] > 32 or data[at + 1] > 32:
                bad[t] = g
                break
            if at + HEADER + _packed(n, data[at]) + _packed(n, data[at + 1]) != starts[g + 1]:
                bad[t] = g
                break
            decode_block(data, words, at, n, before, docs, tfs)
            before = docs[n - 1]
            if before != last[g] or before >= n_docs:
                bad[t] = g
                break
    for t in range(len(bad)):
        if bad[t] >= 0:
            return bad[t]
    return -1
