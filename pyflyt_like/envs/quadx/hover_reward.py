"""The hover reward QuadX-Hover, QuadX-Pole-Balance and MAQuadXHover share.

Kept apart from the task modules so the multi-agent scene (imported with
``pyflyt_like.envs``) does not load a single-agent task to reach it.
"""

from __future__ import annotations

import numpy as np

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
