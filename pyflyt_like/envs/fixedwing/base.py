"""FixedwingBaseEnv: what every fixed-wing task shares (vehicle, actions, aux state, crash rule)."""

from __future__ import annotations

from typing import Any

from ..base.aviary_env import AviaryEnv
from ..base.vehicle_family import FIXEDWING


class FixedwingBaseEnv(AviaryEnv):
    """A fixed-wing task. Any contact between the aircraft and any body is a crash.

    The aircraft spawns with its model's starting velocity along its nose (fixedwing: 20 m/s),
    so with the default ``start_orn`` it flies level along +x from (0, 0, 10) m.

    Args:
        start_pos: (3,) nominal spawn position [m].
        start_orn: (3,) nominal spawn Euler angles [rad].
        flight_mode: -1 (surfaces, thrust), 0 (roll, pitch, yaw commands, thrust) or
            1 (attitude hold: roll, pitch, yaw rate, throttle).
        drone_options: extra Fixedwing options, e.g. ``{"drone_model": "acrowing"}``.
        **options: the delay and observation options of every task (docs/envs.md).
        Others: see :class:`~pyflyt_like.envs.base.aviary_env.AviaryEnv`.

    The aux state in the observation is (6,): the five surface deflections [rad] (bounded by
    the model's deflection limits) and the motor throttle [0, 1].
    """

    family = FIXEDWING

    def __init__(self, *, start_pos=(0.0, 0.0, 10.0), start_orn=(0.0, 0.0, 0.0),
                 flight_mode: int = 0, angle_representation: str = "quaternion",
                 sparse_reward: bool = False, agent_hz: int = 30,
                 max_duration_seconds: float = 120.0, flight_dome_size: float = 100.0,
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
