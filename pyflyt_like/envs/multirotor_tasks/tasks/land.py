"""Multirotor-Land: land softly on a pad from a random start.

The pad is centred at the origin. Starts are uniform in x, y in [-1, 1] m, z in [1, 2] m,
with roll and pitch within 0.1 rad and yaw within pi/4. Touchdown is declared when the
centre of mass descends to 5 cm, before either engine's floor model acts, so the batched
engine and PyBullet agree up to the end of the episode. It is a soft landing on the pad
when the speed is at most 0.5 m/s and the horizontal distance to the pad centre at most
0.2 m.

Reward per step: 10 per metre of progress towards the touchdown point above the pad centre;
at touchdown a bonus of ``10 * max(0, 1 - speed / 1 m/s)`` when on the pad. The episode
ends (terminated) at touchdown, upside down, or outside |x|, |y| <= 3 m, z <= 4 m.
"""

from __future__ import annotations

import numpy as np

from ..kinematics import Kinematics
from .base import MultirotorTask, row_norms, uniform_in_box
from .hover import start_attitudes

TOUCHDOWN_HEIGHT = 0.05  # m, centre of mass
TOUCHDOWN_POINT = (0.0, 0.0, TOUCHDOWN_HEIGHT)  # m
START_LOW, START_HIGH = (-1.0, -1.0, 1.0), (1.0, 1.0, 2.0)  # m
PAD_RADIUS = 0.2  # m
SOFT_SPEED = 0.5  # m/s
BONUS_SPEED = 1.0  # m/s: no bonus at or above this touchdown speed
PROGRESS_GAIN = 10.0  # reward per metre closer
LANDING_BONUS = 10.0
HALF_WIDTH, CEILING = 3.0, 4.0  # m


class LandTask(MultirotorTask):
    max_duration_seconds = 10.0
    feature_size = 3

    def __init__(self, n_worlds: int, agent_period: float):
        super().__init__(n_worlds, agent_period)
        self.point = np.array(TOUCHDOWN_POINT)
        self.distance = np.zeros(n_worlds)
        self.landed = np.zeros(n_worlds, bool)

    def reset(self, mask, rng):
        count = int(mask.sum())
        self.landed[mask] = False
        return uniform_in_box(rng, START_LOW, START_HIGH, count), start_attitudes(rng, count)

    def start(self, kinematics: Kinematics, mask):
        self.distance[mask] = row_norms(kinematics.pos[mask] - self.point)

    def features(self, kinematics: Kinematics, time):
        return np.subtract(self.point, kinematics.pos, out=self.features_buffer)

    def evaluate(self, kinematics: Kinematics, time, rng):
        pos = kinematics.pos
        distance = row_norms(pos - self.point)
        reward = PROGRESS_GAIN * (self.distance - distance)
        self.distance = distance
        touchdown = pos[:, 2] <= TOUCHDOWN_HEIGHT
        on_pad = np.hypot(pos[:, 0], pos[:, 1]) <= PAD_RADIUS
        speed = row_norms(kinematics.vel)
        reward += (touchdown & on_pad) * LANDING_BONUS * np.maximum(0.0,
                                                                    1.0 - speed / BONUS_SPEED)
        self.landed = touchdown & on_pad & (speed <= SOFT_SPEED)
        outside = (np.abs(pos[:, 0]) > HALF_WIDTH) | (np.abs(pos[:, 1]) > HALF_WIDTH) | (
            pos[:, 2] > CEILING)
        return reward, touchdown | outside | (kinematics.rot[:, 2, 2] < 0.0)

    def info(self):
        return {"distance": self.distance, "landed": self.landed}
