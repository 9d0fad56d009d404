"""QuadX-Pole-Balance: hover at (0, 0, 1) with a pole balanced upright on the drone."""

from __future__ import annotations

from typing import Any

from pyflyt_like.common.validation import check_bool

from .base import QuadXBaseEnv
from .hover_reward import hover_reward
from .pole import PoleTask

SPARSE_LEAN_TOLERANCE = 0.1  # rad, sparse reward: pole upright enough


class QuadXPoleBalanceEnv(PoleTask, QuadXBaseEnv):
    """Hover at (0, 0, 1) [m] while keeping a 0.5 m, 5 g pole upright on the drone.

    Observation: Box = attitude vector ⊕ (12,) pole state: the pole's bottom and top ends
    relative to the drone's centre of mass in its body frame [m], then their velocities
    relative to the drone's, in the body frame [m/s] (see :meth:`Pole.update`).

    Dense reward per step: QuadX-Hover's ``1 - |p - (0, 0, 1)| - |(roll, pitch)| - 0.01 r^2``
    minus ``1 * lean`` [rad]. Sparse: 1 for a step ending within QuadX-Hover's tolerances
    with the pole within 0.1 rad of vertical, else 0.
    A fallen pole (lean > pi/2) sets ``info["pole_fell"]`` and, by default, ends the episode
    with -100; a crash or leaving the dome gives -100 and ends it too.

    Args:
        pole_fall_ends_episode: end the episode (with -100) when the pole falls (default
            True); if False the episode goes on with the pole hanging.
        **options: see :class:`QuadXBaseEnv` (defaults here: mode -1, dome 3 m, 20 s, 40 Hz).
    """

    def __init__(self, *, pole_fall_ends_episode: bool = True, flight_mode: int = -1,
                 flight_dome_size: float = 3.0, max_duration_seconds: float = 20.0,
                 agent_hz: int = 40, **options: Any):
        self.pole_fall_ends_episode = check_bool("pole_fall_ends_episode",
                                                 pole_fall_ends_episode)
        super().__init__(flight_mode=flight_mode, flight_dome_size=flight_dome_size,
                         max_duration_seconds=max_duration_seconds, agent_hz=agent_hz,
                         **options)

    def task_reward(self) -> float:
        self.pole.update()
        state = self.drone.state
        if self.sparse_reward:
            reward = hover_reward(state, True) if self.pole.lean < SPARSE_LEAN_TOLERANCE else 0.0
        else:
            reward = hover_reward(state, False) - self.lean_penalty()
        return self.judge_pole(reward)
