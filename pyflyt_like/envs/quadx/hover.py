"""QuadX-Hover: hold the drone at (0, 0, 1), level."""

from __future__ import annotations

from .base import QuadXBaseEnv
from .hover_reward import hover_reward


class QuadXHoverEnv(QuadXBaseEnv):
    """Hover at (0, 0, 1) [m].

    Dense reward per step: ``1 - |p - (0, 0, 1)| - |(roll, pitch)| - 0.01 r^2`` (r = yaw rate).
    Sparse reward: 1 for a step ending within 0.1 m and 0.1 rad of level hover, else 0.
    A crash or leaving the dome gives -100 and ends the episode.

    Options: see :class:`QuadXBaseEnv` (defaults: mode 0, dome 3 m, 10 s, 40 Hz).
    """

    def task_reward(self) -> float:
        return hover_reward(self.drone.state, self.sparse_reward)
