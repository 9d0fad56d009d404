"""QuadX-Waypoints: fly through a sequence of targets in order."""

from __future__ import annotations

from typing import Any

from pyflyt_like.common.validation import check_positive_float

from ..targets.waypoint_task import WaypointTask
from ..targets.waypoints import WaypointTargets
from .base import QuadXBaseEnv

MIN_TARGET_HEIGHT = 0.5  # m, lowest target


def quadx_targets(num_targets: int, use_yaw_targets: bool, goal_reach_distance: float,
                  goal_reach_angle: float, flight_dome_size: float) -> WaypointTargets:
    """The targets of the QuadX waypoint tasks: drawn in ``[-d/2, d/2]^2 x [0.5, d/2]`` [m],
    d = ``flight_dome_size`` [m], which must exceed 1 m to leave room above 0.5 m."""
    dome = check_positive_float("flight_dome_size", flight_dome_size)
    if dome / 2 <= MIN_TARGET_HEIGHT:
        raise ValueError(f"flight_dome_size must be > {2 * MIN_TARGET_HEIGHT} m (targets lie "
                         f"between {MIN_TARGET_HEIGHT} m and half the dome high), got "
                         f"{flight_dome_size!r}")
    return WaypointTargets(num_targets, use_yaw_targets, goal_reach_distance, goal_reach_angle,
                           spread=dome / 2, min_height=MIN_TARGET_HEIGHT, max_height=dome / 2,
                           delta_bound=2 * dome)


class QuadXWaypointsEnv(WaypointTask, QuadXBaseEnv):
    """Reach ``num_targets`` targets in order; each gives +100, the last ends the episode.

    Observation: Dict with "attitude" (Box, see docs/envs.md) and "target_deltas" (a stacked
    Sequence of the remaining targets in the body frame, (k, 3), or (k, 4) with yaw targets;
    with ``padded_target_deltas=True`` a fixed-shape Box and a "target_mask", see
    docs/envs.md).
    Targets are drawn in ``[-dome/2, dome/2]^2 x [0.5, dome/2]`` [m].

    Args:
        num_targets: targets per episode (default 4).
        use_yaw_targets: also match a heading at each target.
        goal_reach_distance: reach radius [m] (default 0.2).
        goal_reach_angle: heading tolerance [rad] (default 0.1).
        **options: see :class:`QuadXBaseEnv` (defaults here: dome 5 m, 10 s, 30 Hz, mode 0).

    Info: ``num_targets_reached``; ``env_complete`` when the last target is reached.
    """

    def __init__(self, *, num_targets: int = 4, use_yaw_targets: bool = False,
                 goal_reach_distance: float = 0.2, goal_reach_angle: float = 0.1,
                 flight_dome_size: float = 5.0, max_duration_seconds: float = 10.0,
                 agent_hz: int = 30, **options: Any):
        self.targets = quadx_targets(num_targets, use_yaw_targets, goal_reach_distance,
                                     goal_reach_angle, flight_dome_size)
        super().__init__(flight_dome_size=flight_dome_size,
                         max_duration_seconds=max_duration_seconds, agent_hz=agent_hz,
                         **options)
