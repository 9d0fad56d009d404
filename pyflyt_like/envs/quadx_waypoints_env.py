"""QuadX-Waypoints: fly through a sequence of targets in order."""

from __future__ import annotations

from typing import Any

from .quadx_base_env import QuadXBaseEnv
from .waypoint_task import WaypointTask
from .waypoints import WaypointTargets

MIN_TARGET_HEIGHT = 0.5  # m, lowest target


class QuadXWaypointsEnv(WaypointTask, QuadXBaseEnv):
    """Reach ``num_targets`` targets in order; each gives +100, the last ends the episode.

    Observation: Dict with "attitude" (Box, see docs/envs.md) and "target_deltas" (a stacked
    Sequence of the remaining targets in the body frame, (k, 3), or (k, 4) with yaw targets).
    Targets are drawn in ``[-dome/2, dome/2]^2 x [0.5, dome/2]`` [m].

    Args:
        num_targets: targets per episode (default 4).
        use_yaw_targets: also match a heading at each target.
        goal_reach_distance: reach radius [m] (default 0.2).
        goal_reach_angle: heading tolerance [rad] (default 0.1).
        Others: see :class:`QuadXBaseEnv` (defaults here: dome 5 m, 10 s, 30 Hz, mode 0).

    Info: ``num_targets_reached``; ``env_complete`` when the last target is reached.
    """

    def __init__(self, *, num_targets: int = 4, use_yaw_targets: bool = False,
                 goal_reach_distance: float = 0.2, goal_reach_angle: float = 0.1,
                 flight_dome_size: float = 5.0, max_duration_seconds: float = 10.0,
                 agent_hz: int = 30, **options: Any):
        self.targets = WaypointTargets(num_targets, use_yaw_targets, goal_reach_distance,
                                       goal_reach_angle, spread=flight_dome_size / 2,
                                       min_height=MIN_TARGET_HEIGHT,
                                       max_height=flight_dome_size / 2,
                                       delta_bound=2 * flight_dome_size)
        super().__init__(flight_dome_size=flight_dome_size,
                         max_duration_seconds=max_duration_seconds, agent_hz=agent_hz,
                         **options)
