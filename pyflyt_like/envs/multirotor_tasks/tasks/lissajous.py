"""Lissajous reference trajectories, one per world, drawn at random per episode.

p(t) = c + (a_x sin(w t + f_x), a_y sin(2 w t + f_y), a_z sin(w t + f_z)): a figure-eight
in x-y (frequency ratio 1:2) with a gentle height wave, about c = (0, 0, 1) m.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ..threads import over_worlds

CENTRE = (0.0, 0.0, 1.0)  # m
AMPLITUDE_LOW, AMPLITUDE_HIGH = (0.5, 0.25, 0.0), (1.0, 0.5, 0.2)  # m per axis
PERIOD_LOW, PERIOD_HIGH = 6.0, 10.0  # s, of the x motion
FREQUENCY_RATIOS = (1.0, 2.0, 1.0)


class Lissajous:
    """Per-world parameters of W Lissajous curves; :meth:`draw` renews the masked ones."""

    def __init__(self, n_worlds: int):
        self.amplitude = np.zeros((n_worlds, 3))
        self.omega = np.zeros((n_worlds, 3))  # rad/s per axis
        self.phase = np.zeros((n_worlds, 3))
        self.centre = np.array(CENTRE)

    def draw(self, rng: np.random.Generator, mask: np.ndarray) -> None:
        count = int(mask.sum())
        low, high = np.asarray(AMPLITUDE_LOW), np.asarray(AMPLITUDE_HIGH)
        self.amplitude[mask] = low + rng.random((count, 3)) * (high - low)
        period = PERIOD_LOW + rng.random(count) * (PERIOD_HIGH - PERIOD_LOW)
        self.omega[mask] = (2 * math.pi / period)[:, None] * np.asarray(FREQUENCY_RATIOS)
        self.phase[mask] = rng.random((count, 3)) * 2 * math.pi

    def positions(self, time: np.ndarray, rows=slice(None),
                  out: np.ndarray | None = None) -> np.ndarray:
        """(m, k, 3) reference positions [m] of the worlds ``rows`` (all, or an index or
        mask selecting m of them) at times (m, k) [s], written into ``out`` if given."""
        if out is None:
            out = np.empty((*time.shape, 3))
        over_worlds(_points, _blocks_of_points, len(time), time, self.amplitude[rows],
                    self.omega[rows], self.phase[rows], self.centre, out)
        return out


@njit(cache=True, parallel=True, error_model="numpy")
def _blocks_of_points(blocks, time, amplitude, omega, phase, centre, out):
    # compiled: numpy's version made (m, k, 3) temporaries, five times slower at 16 384
    n = time.shape[0]
    for block in prange(blocks):
        _points(block * n // blocks, (block + 1) * n // blocks, time, amplitude, omega, phase,
                centre, out)


@njit(cache=True, error_model="numpy")
def _points(first, last, time, amplitude, omega, phase, centre, out):
    for w in range(first, last):
        for point in range(time.shape[1]):
            t = time[w, point]
            for axis in range(3):
                out[w, point, axis] = centre[axis] + amplitude[w, axis] * math.sin(
                    omega[w, axis] * t + phase[w, axis])
