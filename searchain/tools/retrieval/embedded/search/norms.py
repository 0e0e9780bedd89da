"""Passages' length norms as small codes into a table of their distinct values, for the kernel.

A posting's score needs its passage's length norm (:mod:`..compact`), read at the passage's
number: one float32 per passage, 84 MB at Wikipedia's 21M, more than this machine's 32 MiB
of last-level cache. The walk reads it at scattered passages, so nearly every posting waited
on memory for it. A norm is a function of the passage's length alone, and passages have a few
hundred lengths (315 at 21M), so each passage's norm is held as the index of its value in a
table of the distinct ones — a byte where there are at most 256, two where at most 65,536 —
and ``table[code[doc]]`` is the very float32 the norm array holds: scores stay exact.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def _distinct(bits: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Each value's code (in order of first appearance), the values, and how many.

    Stops once ``limit`` (at most 65,536) distinct values are met (the count returned is then
    ``limit + 1``): an open-addressing table over the values' bits, one pass.
    """
    size = 1
    while size < 2 * limit + 2:
        size *= 2
    slots = np.full(size, -1, np.int64)
    values = np.empty(limit + 1, np.uint32)
    codes = np.empty(len(bits), np.uint16)  # below limit: 2 bytes a passage while built
    count = 0
    for i in range(len(bits)):
        key = bits[i]
        h = (np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - 30)
        h = np.int64(h) & (size - 1)
        while slots[h] >= 0 and values[slots[h]] != key:
            h = (h + 1) & (size - 1)
        if slots[h] < 0:
            if count == limit:
                return codes, values, count + 1
            slots[h], values[count] = count, key
            count += 1
        codes[i] = slots[h]
    return codes, values, count


def norm_codes(norm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, table)`` with ``table[codes] == norm`` bit for bit (float32 norms).

    ``codes`` is uint8 where at most 256 norms differ, uint16 where at most 65,536; beyond
    that, no table helps, and the codes are the passages' own numbers into ``norm`` itself.
    """
    norm = np.ascontiguousarray(norm, dtype=np.float32)
    codes, values, count = _distinct(norm.view(np.uint32), 65_536)
    if count > 65_536:
        return np.arange(len(norm), dtype=np.uint32), norm
    dtype = np.uint8 if count <= 256 else np.uint16
    return codes.astype(dtype, copy=False), values[:count].view(np.float32).copy()
