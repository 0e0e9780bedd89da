"""BLAKE2b's 8-byte digest of many short byte strings, in compiled code: the vocabulary's hashes.

The mapped vocabulary (:mod:`.vocabulary`) is a table of terms sorted by their 64-bit BLAKE2b
digest, which a search computes with :mod:`hashlib` for its few query terms. A build hashes every
term of the corpus: with :mod:`hashlib`, a Python call a term, 1.1 s for 1.75M terms (the 1M
benchmark's), all of it holding the GIL while the postings are written beside it; here 0.5 s,
holding none. This is the same function (RFC 7693: 12 rounds, no key, an 8-byte digest), one
compiled call for them all; a test holds it to :mod:`hashlib` on random strings of every
length. Builds only (numba).
"""

from __future__ import annotations

import numba
import numpy as np

_IV = np.array(
    [
        0x6A09E667F3BCC908,
        0xBB67AE8584CAA73B,
        0x3C6EF372FE94F82B,
        0xA54FF53A5F1D36F1,
        0x510E527FADE682D1,
        0x9B05688C2B3E6C1F,
        0x1F83D9ABFB41BD6B,
        0x5BE0CD19137E2179,
    ],
    np.uint64,
)
_SIGMA = np.array(
    [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
        [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
        [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
        [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
        [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
        [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
        [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
        [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
        [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
    ],
    np.int64,
)
_BLOCK = 128
_DIGEST = 8
_PARAMETERS = 0x01010000 | _DIGEST
"""The parameter block's first word: fanout 1, depth 1, no key, an 8-byte digest."""


@numba.njit(cache=True, nogil=True, inline="always")
def _rotr(x: np.uint64, n: int) -> np.uint64:
    return (x >> np.uint64(n)) | (x << np.uint64(64 - n))


@numba.njit(cache=True, nogil=True, inline="always")
def _mix(
    a: np.uint64, b: np.uint64, c: np.uint64, d: np.uint64, x: np.uint64, y: np.uint64
) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """RFC 7693's G: two message words mixed into four words of the state (kept in registers)."""
    a = a + b + x
    d = _rotr(d ^ a, 32)
    c = c + d
    b = _rotr(b ^ c, 24)
    a = a + b + y
    d = _rotr(d ^ a, 16)
    c = c + d
    b = _rotr(b ^ c, 63)
    return a, b, c, d


@numba.njit(cache=True, nogil=True)
def _compress(h: np.ndarray, m: np.ndarray, counted: int, last: bool) -> None:
    """Fold one 128-byte block (``m``, 16 little-endian words) into the state ``h``."""
    v0, v1, v2, v3, v4, v5, v6, v7 = h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
    v8, v9, v10, v11 = _IV[0], _IV[1], _IV[2], _IV[3]
    v12, v13, v14, v15 = _IV[4] ^ np.uint64(counted), _IV[5], _IV[6], _IV[7]
    if last:
        v14 = ~v14
    for r in range(12):
        s = _SIGMA[r % 10]
        v0, v4, v8, v12 = _mix(v0, v4, v8, v12, m[s[0]], m[s[1]])
        v1, v5, v9, v13 = _mix(v1, v5, v9, v13, m[s[2]], m[s[3]])
        v2, v6, v10, v14 = _mix(v2, v6, v10, v14, m[s[4]], m[s[5]])
        v3, v7, v11, v15 = _mix(v3, v7, v11, v15, m[s[6]], m[s[7]])
        v0, v5, v10, v15 = _mix(v0, v5, v10, v15, m[s[8]], m[s[9]])
        v1, v6, v11, v12 = _mix(v1, v6, v11, v12, m[s[10]], m[s[11]])
        v2, v7, v8, v13 = _mix(v2, v7, v8, v13, m[s[12]], m[s[13]])
        v3, v4, v9, v14 = _mix(v3, v4, v9, v14, m[s[14]], m[s[15]])
    h[0] ^= v0 ^ v8
    h[1] ^= v1 ^ v9
    h[2] ^= v2 ^ v10
    h[3] ^= v3 ^ v11
    h[4] ^= v4 ^ v12
    h[5] ^= v5 ^ v13
    h[6] ^= v6 ^ v14
    h[7] ^= v7 ^ v15


@numba.njit(cache=True, nogil=True)
def digests(data: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Each string's digest, a little-endian uint64; string ``i``: ``data[ends[i]:ends[i + 1]]``.

    The same number as ``int.from_bytes(blake2b(s, digest_size=8).digest(), "little")``.
    """
    out = np.empty(len(ends) - 1, np.uint64)
    h = np.empty(8, np.uint64)
    block = np.zeros(_BLOCK, np.uint8)
    m = block.view(np.uint64)
    for i in range(len(ends) - 1):
        start, size = np.int64(ends[i]), np.int64(ends[i + 1]) - np.int64(ends[i])
        h[:] = _IV
        h[0] ^= np.uint64(_PARAMETERS)
        done = 0
        while True:  # every block but the last, then the last, zero-padded (an empty string: one)
            take = min(_BLOCK, size - done)
            block[:take] = data[start + done : start + done + take]
            block[take:] = 0
            done += take
            last = done == size
            _compress(h, m, done, last)
            if last:
                break
        out[i] = h[0]
    return out
