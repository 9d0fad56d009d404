"""Multirotor-Reach: fly to random targets, a new one on each arrival.

Targets and starts are uniform in the box x, y in [-1, 1] m, z in [0.5, 1.5] m. A target
is reached within 0.1 m; the next is drawn at once. Reward per step: 10 per metre of
progress towards the current target (negative when moving away) plus 10 per target
reached. The episode ends (terminated) when the drone leaves the box grown by 1 m, is
upside down or below 5 cm.
"""

from __future__ import annotations

import numpy as np

from ..kinematics import Kinematics
from .base import MultirotorTask, row_norms, uniform_in_box, upside_down_or_low
from .hover import start_attitudes

BOX_LOW, BOX_HIGH = (-1.0, -1.0, 0.5), (1.0, 1.0, 1.5)  # m
ARRIVAL_RADIUS = 0.1  # m
PROGRESS_GAIN = 10.0  # reward per metre closer
ARRIVAL_BONUS = 10.0  # reward per target reached
BOUNDS_MARGIN = 1.0  # m beyond the box before the episode fails


class ReachTask(MultirotorTask):
    max_duration_seconds = 10.0
    feature_size = 3

    def __init__(self, n_worlds: int, agent_period: float):
        super().__init__(n_worlds, agent_period)
        self.target = np.zeros((n_worlds, 3))
        self.distance = np.zeros(n_worlds)
        self.reached = np.zeros(n_worlds, np.int64)
        self._low = np.asarray(BOX_LOW) - BOUNDS_MARGIN
        self._high = np.asarray(BOX_HIGH) + BOUNDS_MARGIN

    def reset(self, mask, rng):
        count = int(mask.sum())
        self.target[mask] = uniform_in_box(rng, BOX_LOW, BOX_HIGH, count)
        self.reached[mask] = 0
        return uniform_in_box(rng, BOX_LOW, BOX_HIGH, count), start_attitudes(rng, count)

    def start(self, kinematics: Kinematics, mask):
        self.distance[mask] = row_norms(self.target[mask] - kinematics.pos[mask])

    def features(self, kinematics: Kinematics, time):
        return np.subtract(self.target, kinematics.pos, out=self.features_buffer)

    def evaluate(self, kinematics: Kinematics, time, rng):
        pos = kinematics.pos
        distance = row_norms(self.target - pos)
        reward = PROGRESS_GAIN * (self.distance - distance)
        arrived = distance < ARRIVAL_RADIUS
        if arrived.any():
            reward += ARRIVAL_BONUS * arrived
            self.reached += arrived
            self.target[arrived] = uniform_in_box(rng, BOX_LOW, BOX_HIGH, int(arrived.sum()))
            distance[arrived] = row_norms(self.target[arrived] - pos[arrived])
        self.distance = distance
        outside = ((pos < self._low) | (pos > self._high)).any(axis=1)
        return reward, outside | upside_down_or_low(kinematics)

    def info(self):
        return {"distance": self.distance, "targets_reached": self.reached}
