"""bound_entry: the machine code of a compiled function for given argument types, called
without numba's per-call typing, computes what the dispatcher computes."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from pyflyt_like.compiled.jit import bound_entry

Pair = namedtuple("Pair", ["a", "b"])


@njit(cache=False)
def _scaled_sum(pair, scale, flag, out):
    for i in range(out.shape[0]):
        out[i] = scale * (pair.a[i] + pair.b[i])
    return flag and out.sum() > 0.0


def test_the_bound_entry_computes_what_the_dispatcher_computes():
    pair = Pair(np.arange(4.0), np.ones(4))
    by_dispatcher, by_entry = np.zeros(4), np.zeros(4)
    entry = bound_entry(_scaled_sum, pair, 2.0, True, by_entry)
    assert _scaled_sum(pair, 2.0, True, by_dispatcher) is True
    assert entry(pair, 2.0, True, by_entry) is True
    np.testing.assert_array_equal(by_entry, by_dispatcher)
    np.testing.assert_array_equal(by_entry, 2.0 * (np.arange(4.0) + 1.0))
    assert entry(pair, -1.0, True, by_entry) is False  # other values of the same types
    np.testing.assert_array_equal(by_entry, -(np.arange(4.0) + 1.0))
    assert len(_scaled_sum.signatures) == 1  # one machine code served both
