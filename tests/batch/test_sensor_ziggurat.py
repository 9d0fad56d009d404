"""The sensors' ziggurat (pyflyt_like.batch.world_random.fill_ziggurat_normals): standard
normals in the short calls the sensor stage makes (6 entries, odd counts, the second pass
for the entries outside their layer's rectangle), a fixed use of the stream, and the same
draws whichever of its two entry points fills them."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pyflyt_like.batch.world_random import (
    fill_ziggurat_normals,
    next_uniform,
    next_ziggurat_normals,
    world_streams,
)


@njit(cache=False)
def _calls_of_six(streams, out):
    """Fill ``out`` (n, 6) row by row, one call of 6 per row, the worlds in turn."""
    for k in range(out.shape[0]):
        fill_ziggurat_normals(streams, k % streams.shape[0], out[k], 6)


@njit(cache=False)
def _fill(streams, w, out, count):
    fill_ziggurat_normals(streams, w, out, count)


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def test_calls_of_six_draw_standard_normals():
    """1.2 million draws in calls of 6, as the IMU's white noise: moments and the
    distribution function at a few points, the tail beyond R = 3.65 included (its draws
    go through the second pass)."""
    streams = world_streams(np.random.default_rng(4), 64)
    out = np.zeros((200_000, 6))
    _calls_of_six(streams, out)
    draws = out.ravel()
    assert abs(draws.mean()) < 0.005 and abs(draws.std() - 1.0) < 0.005
    for x in (-3.8, -2.0, -0.5, 0.0, 0.3, 1.0, 2.5, 3.7):
        p = _phi(x)
        assert abs((draws < x).mean() - p) < 4.0 * math.sqrt(p * (1 - p) / draws.size) + 1e-5
    # entries of one call are independent: the two halves of a stream draw included
    assert abs(np.corrcoef(out[:, 0], out[:, 1])[0, 1]) < 0.01
    assert abs(np.corrcoef(out[:, 0] ** 2, out[:, 1] ** 2)[0, 1]) < 0.01


def test_a_count_fills_what_the_whole_array_call_fills():
    """fill_ziggurat_normals(out, count) draws what next_ziggurat_normals(out[:count])
    draws from the same stream, bit for bit, for odd counts and with the second pass."""
    seeds = world_streams(np.random.default_rng(5), 1)
    for count in (1, 2, 3, 6, 9, 12, 24):
        streams_a, streams_b = seeds.copy(), seeds.copy()
        for _ in range(300):  # enough calls for some entries outside their rectangle
            a, b = np.zeros(24), np.full(count, np.nan)
            _fill(streams_a, 0, a, count)
            next_ziggurat_normals(streams_b, 0, b)
            np.testing.assert_array_equal(a[:count], b)
            assert not a[count:].any()  # nothing written beyond count
            np.testing.assert_array_equal(streams_a, streams_b)


def test_the_stream_moves_one_draw_per_two_entries_when_all_are_inside():
    """Entries inside their rectangles (98.7 %) take 32 bits each: a call of 6 moves the
    stream by 3 draws, of 9 by 5; a call with an entry outside takes more."""
    streams = world_streams(np.random.default_rng(6), 1)
    moved = {6: set(), 9: set()}
    for count in moved:
        for _ in range(400):
            probe = streams.copy()
            _fill(streams, 0, np.zeros(count), count)
            draws = 0
            while probe[0] != streams[0]:
                next_uniform(probe, 0)
                draws += 1
                assert draws < 100
            moved[count].add(draws)
    assert min(moved[6]) == 3 and max(moved[6]) > 3
    assert min(moved[9]) == 5 and max(moved[9]) > 5
