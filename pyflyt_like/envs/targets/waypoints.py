"""WaypointTargets: a sequence of targets to reach in order, with the reward shaping they share.

Used by QuadX-Waypoints, QuadX-Pole-Waypoints and Fixedwing-Waypoints.
"""

from __future__ import annotations

import math

import numpy as np

from pyflyt_like.common.angles import wrap_angle
from pyflyt_like.common.validation import check_bool, check_positive_float, check_positive_int

TARGET_BONUS = 100.0  # reward for each target reached
PROGRESS_GAIN = 3.0  # dense reward per metre of progress toward the current target
CLOSENESS_GAIN = 0.1  # dense reward gain of 1 / distance [m]


def body_frame_deltas(points: np.ndarray, headings: np.ndarray | None, position: np.ndarray,
                      rotation: np.ndarray, yaw: float, bounds: np.ndarray) -> np.ndarray:
    """New (k, 3) array of ``points`` (k, 3) relative to a vehicle, in its body frame [m];
    with ``headings`` (k,) [rad], a 4th column of heading minus ``yaw`` wrapped to
    [-pi, pi). Clipped to ``[-bounds, bounds]`` (one bound per column).

    Args:
        position: (3,) vehicle position [m].
        rotation: (3, 3) body-to-ground rotation matrix.
        yaw: vehicle heading [rad].
    """
    out = np.empty((points.shape[0], 3 if headings is None else 4))
    out[:, :3] = (points - position) @ rotation
    if headings is not None:
        out[:, 3] = wrap_angle(headings - yaw)
    return np.clip(out, -bounds, bounds, out=out)


class WaypointTargets:
    """Targets drawn per episode in ``[-spread, spread]^2 x [min_height, max_height]`` [m].

    Args:
        num_targets: targets per episode.
        use_yaw_targets: each target also has a heading to match within ``goal_reach_angle``.
        goal_reach_distance: a target counts as reached within this distance [m].
        goal_reach_angle: heading tolerance with yaw targets [rad].
        spread: half-width of the horizontal area targets are drawn in [m].
        min_height, max_height: height range of targets [m].
        delta_bound: bound of each entry of a target delta in the observation space [m].
    """

    def __init__(self, num_targets: int, use_yaw_targets: bool, goal_reach_distance: float,
                 goal_reach_angle: float, spread: float, min_height: float, max_height: float,
                 delta_bound: float):
        self.num_targets = check_positive_int("num_targets", num_targets)
        self.use_yaw_targets = check_bool("use_yaw_targets", use_yaw_targets)
        self.goal_reach_distance = check_positive_float("goal_reach_distance",
                                                        goal_reach_distance)
        self.goal_reach_angle = check_positive_float("goal_reach_angle", goal_reach_angle)
        self.spread = check_positive_float("spread", spread)
        if not 0 <= min_height < max_height:
            raise ValueError(f"need 0 <= min_height < max_height, got {min_height}, "
                             f"{max_height}")
        self.min_height, self.max_height = float(min_height), float(max_height)
        width = 4 if self.use_yaw_targets else 3
        bounds = np.full(width, check_positive_float("delta_bound", delta_bound))
        if self.use_yaw_targets:
            bounds[3] = math.pi
        self.delta_bounds = bounds  # (3 or 4,) bound of each column of a target delta
        self.positions = np.zeros((self.num_targets, 3))
        self.yaws = np.zeros(self.num_targets)
        self.index = 0
        self.distance = 0.0

    # ----------------------------------------------------------------- episode
    def reset(self, rng: np.random.Generator, position: np.ndarray,
              heading: float = 0.0) -> None:
        """Draw new targets and start measuring from ``position`` (3,) [m].

        ``heading`` [rad], the vehicle's yaw, is for samplers that place targets relative to
        the way the vehicle points (unused here).
        """
        self.positions[:, :2] = rng.uniform(-self.spread, self.spread, (self.num_targets, 2))
        self.positions[:, 2] = rng.uniform(self.min_height, self.max_height, self.num_targets)
        self.yaws[:] = rng.uniform(-math.pi, math.pi, self.num_targets)
        self.index = 0
        self.distance = self._distance(position)

    @property
    def all_reached(self) -> bool:
        """True once every target has been reached."""
        return self.index >= self.num_targets

    @property
    def current(self) -> np.ndarray:
        """(3,) position of the target being flown to [m] (the last one once all are done)."""
        return self.positions[min(self.index, self.num_targets - 1)]

    def _distance(self, position: np.ndarray) -> float:
        delta = self.current - position
        return math.sqrt(float(delta @ delta))

    def _yaw_error(self, yaw: float) -> float:
        return wrap_angle(self.yaws[min(self.index, self.num_targets - 1)] - yaw)

    # ----------------------------------------------------------------- per step
    def update(self, position: np.ndarray, yaw: float, sparse: bool) -> tuple[float, bool]:
        """Advance after an env step; return (reward, reached a target this step).

        Dense reward: ``3 * progress [m] + 0.1 / max(distance, goal_reach_distance)``, plus
        100 on reaching a target; sparse reward: only the 100. Progress is signed (moving
        away costs), which makes it a potential-based shaping term.
        """
        distance = self._distance(position)
        reward = 0.0
        if not sparse:
            reward = (PROGRESS_GAIN * (self.distance - distance)
                      + CLOSENESS_GAIN / max(distance, self.goal_reach_distance))
        reached = distance < self.goal_reach_distance and (
            not self.use_yaw_targets or abs(self._yaw_error(yaw)) < self.goal_reach_angle)
        if reached:
            reward += TARGET_BONUS
            self.index += 1
            distance = self._distance(position)
        self.distance = distance
        return reward, reached

    def deltas(self, position: np.ndarray, rotation: np.ndarray, yaw: float) -> np.ndarray:
        """(remaining, 3 or 4) targets relative to the drone in its body frame [m] (+ yaw error).

        Args:
            position: (3,) drone position [m].
            rotation: (3, 3) body-to-ground rotation matrix.
            yaw: drone heading [rad].
        """
        headings = self.yaws[self.index:] if self.use_yaw_targets else None
        return body_frame_deltas(self.positions[self.index:], headings, position, rotation, yaw,
                                 self.delta_bounds)
