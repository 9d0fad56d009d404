"""QuadX-Pole-Waypoints: fly through a sequence of targets with a pole balanced on the drone."""

from __future__ import annotations

from typing import Any

from pyflyt_like.common.validation import check_bool

from ..targets.waypoint_task import WaypointTask
from .base import QuadXBaseEnv
from .pole import PoleTask
from .waypoints import quadx_targets


class QuadXPoleWaypointsEnv(PoleTask, WaypointTask, QuadXBaseEnv):
    """Reach ``num_targets`` targets in order (+100 each) carrying a pole upright.

    Observation: Dict with "attitude" (attitude vector ⊕ (12,) pole state, as in
    QuadX-Pole-Balance) and "target_deltas" (the remaining targets in the body frame,
    (k, 3), or (k, 4) with yaw targets, as in QuadX-Waypoints; ``padded_target_deltas``
    likewise). Targets are drawn in
    ``[-dome/2, dome/2]^2 x [0.5, dome/2]`` [m].

    Reward: QuadX-Waypoints' (dense: progress and closeness shaping plus +100 per target;
    sparse: the +100s) minus, when dense, ``1 * lean`` [rad] per step. A fallen pole
    (lean > pi/2) sets ``info["pole_fell"]``; by default the episode goes on with the pole
    hanging (and the lean penalty at its largest). A crash or leaving the dome gives -100 and
    ends the episode.

    Args:
        num_targets: targets per episode (default 4).
        use_yaw_targets: also match a heading at each target.
        goal_reach_distance: reach radius [m] (default 0.2).
        goal_reach_angle: heading tolerance [rad] (default 0.1).
        pole_fall_ends_episode: end the episode (with -100) when the pole falls (default
            False).
        **options: see :class:`QuadXBaseEnv` (defaults here: mode -1, dome 10 m, 20 s, 40 Hz).

    Info: ``num_targets_reached``; ``env_complete`` when the last target is reached.
    """

    def __init__(self, *, num_targets: int = 4, use_yaw_targets: bool = False,
                 goal_reach_distance: float = 0.2, goal_reach_angle: float = 0.1,
                 pole_fall_ends_episode: bool = False, flight_mode: int = -1,
                 flight_dome_size: float = 10.0, max_duration_seconds: float = 20.0,
                 agent_hz: int = 40, **options: Any):
        self.pole_fall_ends_episode = check_bool("pole_fall_ends_episode",
                                                 pole_fall_ends_episode)
        self.targets = quadx_targets(num_targets, use_yaw_targets, goal_reach_distance,
                                     goal_reach_angle, flight_dome_size)
        super().__init__(flight_mode=flight_mode, flight_dome_size=flight_dome_size,
                         max_duration_seconds=max_duration_seconds, agent_hz=agent_hz,
                         **options)

    def task_reward(self) -> float:
        self.pole.update()
        reward = super().task_reward()
        if not self.sparse_reward:
            reward -= self.lean_penalty()
        return self.judge_pole(reward)
