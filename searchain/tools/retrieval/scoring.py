"""BM25's formula, written once: every scorer of every backend weighs a term by these.

The embedded index's build and update, and the in-memory scorer of a thread's files, compute a
term's idf and a passage's length norm here, in float32, so their scores agree to the bit on
the same passages; Elasticsearch refuses the same parameters before a request. Lucene's idf,
``log(1 + (N - df + 0.5) / (df + 0.5))``, is never negative; a term's weight in a passage is
``idf * tf / (tf + norm)``.
"""

from __future__ import annotations

import math

import numpy as np


def check_bm25_parameters(k1: float, b: float) -> None:
    """Refuse BM25 parameters no index can be scored with, before anything is written.

    NaN or infinite values would give every passage a NaN score (an index that answers
    garbage); k1 is a term-frequency saturation (0-10 covers every published setting) and b a
    length-normalisation weight in [0, 1].
    """
    if not (math.isfinite(k1) and 0.0 <= k1 <= 10.0):
        raise ValueError(f"BM25 k1 must be a number from 0 to 10, got {k1}")
    if not (math.isfinite(b) and 0.0 <= b <= 1.0):
        raise ValueError(f"BM25 b must be a number from 0 to 1, got {b}")


def bm25_idf(df: np.ndarray, n_docs: int) -> np.ndarray:
    """Each term's idf from its document frequency (Lucene's), float32."""
    return np.log1p((n_docs - df + 0.5) / (df + 0.5)).astype(np.float32)


def bm25_norm(lengths: np.ndarray, k1: float, b: float) -> np.ndarray:
    """Each passage's ``k1 * (1 - b + b * dl / avgdl)``, float32, from its length in tokens.

    A build and an update compute it by this one function, over the same lengths in the same
    order, so their scores agree to the bit.
    """
    dl = lengths.astype(np.float32)
    return k1 * ((1 - b) + b * dl / max(float(dl.mean()), 1e-9))
