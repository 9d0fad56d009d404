"""RocketBaseEnv: what every rocket task shares (vehicle, actions, aux state, flight box)."""

from __future__ import annotations

from typing import Any

from pyflyt_like.common.validation import check_positive_float

from ..base.aviary_env import AviaryEnv
from ..base.vehicle_family import ROCKET


class RocketBaseEnv(AviaryEnv):
    """A task flown by the 549 kg rocket stage (``drone_type="rocket"``, flight mode 0 only).

    The flight volume is a box rather than AviaryEnv's dome: ``|x|, |y| <= max_displacement``
    and ``z <= ceiling``; leaving it ends the episode with ``info["out_of_bounds"]``.

    Action (7,): finlets x, y, yaw in [-1, 1]; ignition in [0, 1] (> 0.5 lights the booster);
    throttle in [0, 1]; gimbal 1 and 2 in [-1, 1] of the gimbal range.

    Aux state in the observation (9,): fin deflections (4) [rad], booster ignition (0 or 1),
    fuel ratio (0..1), booster throttle (0..1), gimbal angles (2) [rad].

    Args:
        start_pos: (3,) nominal spawn position [m].
        start_orn: (3,) nominal spawn Euler angles [rad].
        ceiling: highest allowed altitude [m] (default 500).
        max_displacement: largest allowed |x| and |y| [m] (default 200).
        drone_options: extra Rocket options (e.g. ``drone_model``, camera options).
        **options: the delay and observation options of every task (docs/envs.md).
        Others: see :class:`~pyflyt_like.envs.base.aviary_env.AviaryEnv`. ``flight_mode`` must be 0.
    """

    family = ROCKET

    def __init__(self, *, start_pos, start_orn=(0.0, 0.0, 0.0), flight_mode: int = 0,
                 angle_representation: str = "quaternion", sparse_reward: bool = False,
                 agent_hz: int = 40, max_duration_seconds: float = 30.0,
                 ceiling: float = 500.0, max_displacement: float = 200.0,
                 render_mode: str | None = None, render_resolution: tuple[int, int] | None = None,
                 spawn_jitter: float = 0.0, drone_options: dict[str, Any] | None = None,
                 **options: Any):
        self.ceiling = check_positive_float("ceiling", ceiling)
        self.max_displacement = check_positive_float("max_displacement", max_displacement)
        # AviaryEnv bounds each observed position coordinate by twice the dome size, so the
        # larger box dimension stands in for it.
        super().__init__(start_pos=start_pos, start_orn=start_orn, flight_mode=flight_mode,
                         angle_representation=angle_representation,
                         sparse_reward=sparse_reward, agent_hz=agent_hz,
                         max_duration_seconds=max_duration_seconds,
                         flight_dome_size=max(self.ceiling, self.max_displacement),
                         render_mode=render_mode, render_resolution=render_resolution,
                         spawn_jitter=spawn_jitter, drone_options=drone_options,
                         **options)

    def out_of_bounds(self) -> bool:
        """True above the ceiling or beyond ``max_displacement`` in x or y."""
        x, y, z = self.drone.state[3]
        limit = self.max_displacement
        return z > self.ceiling or abs(x) > limit or abs(y) > limit
