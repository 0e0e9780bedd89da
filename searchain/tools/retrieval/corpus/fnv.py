"""FNV-1a over code points, in compiled code: what the scanners hash words and passage ids with.

The corpus readers hash a record's id to find a repeated one; the build's word scanner hashes
each word to number it. One function for both, below both.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def fnv1a(text: np.ndarray, start: int, stop: int) -> np.uint64:
    """FNV-1a over the code points ``text[start:stop]`` (a word's, a passage id's)."""
    h = np.uint64(14695981039346656037)
    for k in range(start, stop):
        h = (h ^ np.uint64(text[k])) * np.uint64(1099511628211)
    return h
