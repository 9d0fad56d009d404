"""Multirotor-Track: follow a randomised figure-eight (see :mod:`.lissajous`).

The observation holds the reference at the current time and the next 4 points, 0.1 s
apart, each relative to the drone (world frame), so 15 numbers. Each episode starts within
0.1 m of the reference's first point, level, yaw within pi/4. Reward per step
``exp(-(e / 0.3 m)^2)`` in (0, 1], e the distance to the current reference point. The episode
ends (terminated) when e > 1 m, the drone is upside down or below 5 cm.
"""

from __future__ import annotations

import numpy as np

from ..kinematics import Kinematics
from .base import MultirotorTask, row_norms, upside_down_or_low
from .hover import start_attitudes
from .lissajous import Lissajous

REFERENCE_POINTS = 5
REFERENCE_SPACING = 0.1  # s
START_OFFSET = 0.1  # m, per axis
REWARD_WIDTH = 0.3  # m
MAX_ERROR = 1.0  # m


class TrackTask(MultirotorTask):
    max_duration_seconds = 10.0
    feature_size = 3 * REFERENCE_POINTS

    def __init__(self, n_worlds: int, agent_period: float):
        super().__init__(n_worlds, agent_period)
        self.reference = Lissajous(n_worlds)
        self.error = np.zeros(n_worlds)
        self._offsets = np.arange(REFERENCE_POINTS) * REFERENCE_SPACING
        self._times = np.zeros((n_worlds, REFERENCE_POINTS))
        self._points = self.features_buffer.reshape(n_worlds, REFERENCE_POINTS, 3)  # a view
        self._now = np.zeros((n_worlds, 1, 3))

    def reset(self, mask, rng):
        count = int(mask.sum())
        self.reference.draw(rng, mask)
        first = self.reference.positions(np.zeros((count, 1)), mask)[:, 0]
        start = first + (2.0 * rng.random((count, 3)) - 1.0) * START_OFFSET
        attitude = start_attitudes(rng, count)
        attitude[:, :2] = 0.0
        return start, attitude

    def features(self, kinematics: Kinematics, time):
        np.add(time[:, None], self._offsets, out=self._times)
        self.reference.positions(self._times, out=self._points)
        self._points -= kinematics.pos[:, None, :]
        return self.features_buffer

    def evaluate(self, kinematics: Kinematics, time, rng):
        now = self.reference.positions(time[:, None], out=self._now)[:, 0]
        error = row_norms(kinematics.pos - now)
        self.error = error
        reward = np.exp(-np.square(error / REWARD_WIDTH))
        return reward, (error > MAX_ERROR) | upside_down_or_low(kinematics)

    def info(self):
        return {"tracking_error": self.error}
