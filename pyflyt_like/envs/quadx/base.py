"""QuadXBaseEnv: what every QuadX task shares (vehicle, actions, aux state, crash rule)."""

from __future__ import annotations

from typing import Any

from ..base.aviary_env import AviaryEnv
from ..base.vehicle_family import QUADX


class QuadXBaseEnv(AviaryEnv):
    """A QuadX task. Any contact between the drone and a body not declared harmless is a crash.

    Args:
        start_pos: (3,) nominal spawn position [m].
        start_orn: (3,) nominal spawn Euler angles [rad].
        drone_options: extra QuadX options (e.g. ``{"noise": 0.0}``, ``drone_model``).
        **options: the delay and observation options of every task (docs/envs.md).
        Others: see :class:`~pyflyt_like.envs.base.aviary_env.AviaryEnv`.

    The aux state in the observation is the (4,) motor throttles.
    """

    family = QUADX

    def __init__(self, *, start_pos=(0.0, 0.0, 1.0), start_orn=(0.0, 0.0, 0.0),
                 flight_mode: int = 0, angle_representation: str = "quaternion",
                 sparse_reward: bool = False, agent_hz: int = 40,
                 max_duration_seconds: float = 10.0, flight_dome_size: float = 3.0,
                 render_mode: str | None = None, render_resolution: tuple[int, int] | None = None,
                 spawn_jitter: float = 0.1, drone_options: dict[str, Any] | None = None,
                 **options: Any):
        super().__init__(start_pos=start_pos, start_orn=start_orn, flight_mode=flight_mode,
                         angle_representation=angle_representation,
                         sparse_reward=sparse_reward, agent_hz=agent_hz,
                         max_duration_seconds=max_duration_seconds,
                         flight_dome_size=flight_dome_size, render_mode=render_mode,
                         render_resolution=render_resolution, spawn_jitter=spawn_jitter,
                         drone_options=drone_options, **options)
