"""Multirotor-Hover: hold a point.

The target is fixed at (0, 0, 1) m; each episode starts within 0.3 m of it per axis, with
roll and pitch within 0.1 rad and yaw within pi/4. Reward per step
``exp(-(d / 0.5 m)^2)`` in (0, 1], d the distance to the target, so the maximum return is
the episode's step count. The episode ends (terminated) when d > 1.5 m, the drone is
upside down or below 5 cm.
"""

from __future__ import annotations

import math

import numpy as np

from ..kinematics import Kinematics
from .base import MultirotorTask, row_norms, uniform_in_box, upside_down_or_low

TARGET = (0.0, 0.0, 1.0)  # m
START_OFFSET = 0.3  # m, per axis
START_TILT = 0.1  # rad, roll and pitch
START_YAW = math.pi / 4  # rad
REWARD_WIDTH = 0.5  # m
MAX_DISTANCE = 1.5  # m


def start_attitudes(rng: np.random.Generator, count: int) -> np.ndarray:
    """(count, 3) Euler angles: roll and pitch within START_TILT, yaw within START_YAW."""
    limits = np.array((START_TILT, START_TILT, START_YAW))
    return (2.0 * rng.random((count, 3)) - 1.0) * limits


class HoverTask(MultirotorTask):
    max_duration_seconds = 5.0
    feature_size = 3

    def __init__(self, n_worlds: int, agent_period: float):
        super().__init__(n_worlds, agent_period)
        self.target = np.array(TARGET)
        self.distance = np.zeros(n_worlds)

    def reset(self, mask, rng):
        count = int(mask.sum())
        start = uniform_in_box(rng, self.target - START_OFFSET, self.target + START_OFFSET,
                               count)
        return start, start_attitudes(rng, count)

    def features(self, kinematics: Kinematics, time):
        return np.subtract(self.target, kinematics.pos, out=self.features_buffer)

    def evaluate(self, kinematics: Kinematics, time, rng):
        distance = row_norms(kinematics.pos - self.target)
        self.distance = distance
        reward = np.exp(-np.square(distance / REWARD_WIDTH))
        return reward, (distance > MAX_DISTANCE) | upside_down_or_low(kinematics)

    def info(self):
        return {"distance": self.distance}
