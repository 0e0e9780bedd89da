"""The cache hint: compiled for any array and integer index, it changes nothing a loop computes."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from searchain.tools.retrieval.embedded.analysis.prefetch import prefetch


@numba.njit(cache=False)
def _gather(table: np.ndarray, keys: np.ndarray, ahead: int) -> np.ndarray:
    out = np.empty(len(keys), table.dtype)
    for i in range(len(keys)):
        if i + ahead < len(keys):
            prefetch(table, keys[i + ahead])
        out[i] = table[keys[i]]
    return out


@settings(max_examples=60, deadline=None)
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint64, np.float32])
@given(
    size=st.integers(1, 300),
    keys=st.lists(st.integers(0, 10**6), max_size=200),
    ahead=st.integers(1, 20),
)
def test_a_loop_with_hints_gathers_what_it_gathers_without(dtype, size, keys, ahead):
    table = np.arange(size).astype(dtype)
    index = np.asarray(keys, np.int64) % size
    assert np.array_equal(_gather(table, index, ahead), table[index])


@numba.njit(cache=False)
def _hint_past(table: np.ndarray, at: int) -> int:
    prefetch(table, at)  # a hint, never a read: no fault at any address
    return len(table)


def test_a_hint_past_the_end_of_an_array_reads_nothing():
    assert _hint_past(np.zeros(4, np.int32), 1 << 40) == 4
    assert _hint_past(np.zeros(4, np.uint8)[2:], -1) == 2


def test_a_hint_for_what_is_not_an_array_is_refused_when_compiled():
    @numba.njit(cache=False)
    def hint_scalar(x: int) -> None:
        prefetch(x, 0)

    with pytest.raises(numba.core.errors.TypingError):
        hint_scalar(3)
