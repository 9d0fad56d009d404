"""QuadX-Hover: hold the drone at (0, 0, 1), level."""

from __future__ import annotations

import numpy as np

from .quadx_base_env import QuadXBaseEnv

HOVER_POINT = np.array([0.0, 0.0, 1.0])  # m
SPARSE_POSITION_TOLERANCE = 0.1  # m, sparse reward: close enough to the hover point
SPARSE_TILT_TOLERANCE = 0.1  # rad, sparse reward: level enough


def hover_reward(state: np.ndarray, sparse: bool) -> float:
    """QuadX-Hover's reward for a drone in ``state`` ((4, 3), the drone state layout).

    Dense: ``1 - |p - (0, 0, 1)| - |(roll, pitch)| - 0.01 r^2`` (r = yaw rate [rad/s]).
    Sparse: 1 within 0.1 m of the hover point and 0.1 rad of level, else 0.
    """
    distance = float(np.linalg.norm(state[3] - HOVER_POINT))
    tilt = float(np.hypot(state[1, 0], state[1, 1]))
    if sparse:
        return float(distance < SPARSE_POSITION_TOLERANCE and tilt < SPARSE_TILT_TOLERANCE)
    return 1.0 - distance - tilt - 0.01 * float(state[0, 2]) ** 2


class QuadXHoverEnv(QuadXBaseEnv):
    """Hover at (0, 0, 1) [m].

    Dense reward per step: ``1 - |p - (0, 0, 1)| - |(roll, pitch)| - 0.01 r^2`` (r = yaw rate).
    Sparse reward: 1 for a step ending within 0.1 m and 0.1 rad of level hover, else 0.
    A crash or leaving the dome gives -100 and ends the episode.

    Options: see :class:`QuadXBaseEnv` (defaults: mode 0, dome 3 m, 10 s, 40 Hz).
    """

    def task_reward(self) -> float:
        return hover_reward(self.drone.state, self.sparse_reward)
