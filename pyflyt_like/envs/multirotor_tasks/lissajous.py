"""Lissajous reference trajectories, one per world, drawn at random per episode.

p(t) = c + (a_x sin(w t + f_x), a_y sin(2 w t + f_y), a_z sin(w t + f_z)): a figure-eight
in x-y (frequency ratio 1:2) with a gentle height wave, about c = (0, 0, 1) m.
"""

from __future__ import annotations

import math

import numpy as np

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

    def positions(self, time: np.ndarray, rows=slice(None)) -> np.ndarray:
        """(m, k, 3) reference positions [m] of the worlds ``rows`` (all, or an index or
        mask selecting m of them) at times (m, k) [s]."""
        angle = time[:, :, None] * self.omega[rows, None, :] + self.phase[rows, None, :]
        return self.centre + self.amplitude[rows, None, :] * np.sin(angle)
