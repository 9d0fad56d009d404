"""Fixedwing-Waypoints: fly an aeroplane through a sequence of targets in order."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pyflyt_like.common.validation import check_positive_float

from ..targets.waypoint_task import WaypointTask
from ..targets.waypoints import WaypointTargets, wrap_angle
from .base import FixedwingBaseEnv

MIN_TARGET_HEIGHT = 10.0  # m
MAX_TARGET_HEIGHT = 40.0  # m
MIN_LEG = 30.0  # m, horizontal distance from one target (or the spawn) to the next
MAX_LEG = 60.0  # m
MAX_CLIMB_SLOPE = 0.2  # height change per metre of leg
TURN_RADIUS = 25.0  # m, of the course's turns (a level turn at 20 m/s and ~0.95 rad of bank)
REACH_MARGIN = 5.0  # m, a target lies at least this far outside the turning circle
ROLL_IN_DISTANCE = 12.0  # m, flown straight while rolling into a turn
FIRST_MAX_TURN = math.pi / 3  # rad, heading change to the first target: it lies ahead
MAX_TURN = math.pi  # rad, heading change from one target to the next
COURSE_RADIUS = 0.8  # the flown course stays within this fraction of the dome, horizontally
CANDIDATES = 512  # draws per target; the first that fits is kept


def one_turn_paths(point: np.ndarray, heading: float, bearing: np.ndarray, leg: np.ndarray):
    """Paths of one turn then a straight line from ``point`` to targets around it.

    The aircraft at ``point`` (2,) [m] flying at ``heading`` [rad] goes ``ROLL_IN_DISTANCE``
    straight, then turns toward the target's side on a circle of ``TURN_RADIUS`` until it
    points at the target, then flies straight to it.

    Args:
        point: (2,) horizontal start [m].
        heading: start heading [rad].
        bearing: (n,) direction of each target from ``point``, relative to ``heading`` [rad],
            in [-pi, pi); positive = to the left (a left turn).
        leg: (n,) horizontal distance of each target [m].

    Returns:
        targets (n, 2) [m]; turn (n,) signed heading change [rad], positive left;
        reachable (n,) True where the target lies ``REACH_MARGIN`` or more outside the
        turning circle; widest (n,) largest distance from the origin along the path [m].
    """
    forward = np.array((math.cos(heading), math.sin(heading)))
    left = np.array((-forward[1], forward[0]))
    side = np.where(bearing >= 0.0, 1.0, -1.0)
    direction = heading + bearing
    targets = point + leg[:, None] * np.stack((np.cos(direction), np.sin(direction)), axis=1)
    roll_in = point + ROLL_IN_DISTANCE * forward
    centres = roll_in + (side * TURN_RADIUS)[:, None] * left
    offset = targets - centres
    along, across = offset @ forward, side * (offset @ left)
    distance = np.hypot(along, across)
    reachable = distance > TURN_RADIUS + REACH_MARGIN
    # Turn until the tangent from the circle runs through the target.
    turn = np.mod(np.arctan2(across, along)
                  + np.arcsin(np.minimum(TURN_RADIUS / np.maximum(distance, 1e-9), 1.0)),
                  2.0 * math.pi)
    # The arc's farthest point from the origin is the circle's outermost point if the arc
    # passes it, else one of its ends; the straight parts are farthest at their ends.
    start = np.arctan2(-side * left[1], -side * left[0])
    outermost = np.arctan2(centres[:, 1], centres[:, 0])
    passes = np.mod(side * (outermost - start), 2.0 * math.pi) <= turn
    end = start + side * turn
    ends = centres + TURN_RADIUS * np.stack((np.cos(end), np.sin(end)), axis=1)
    widest = np.where(passes, np.hypot(centres[:, 0], centres[:, 1]) + TURN_RADIUS,
                      np.maximum(np.hypot(ends[:, 0], ends[:, 1]), math.hypot(*roll_in)))
    widest = np.maximum(widest, np.hypot(targets[:, 0], targets[:, 1]))
    return targets, side * turn, reachable, widest


def turn_back_radius(points: np.ndarray, headings: np.ndarray) -> np.ndarray:
    """(n,) distance from the origin [m] that an about-turn from each point reaches at least.

    The outer edge of the nearer of the two turning circles entered after the roll-in.
    """
    forward = np.stack((np.cos(headings), np.sin(headings)), axis=1)
    left = np.stack((-forward[:, 1], forward[:, 0]), axis=1)
    roll_in = points + ROLL_IN_DISTANCE * forward
    nearer = np.minimum(np.linalg.norm(roll_in + TURN_RADIUS * left, axis=1),
                        np.linalg.norm(roll_in - TURN_RADIUS * left, axis=1))
    return nearer + TURN_RADIUS


class AircraftTargets(WaypointTargets):
    """Targets an aeroplane can fly through in order, inside the dome.

    Each target is drawn from the previous one (the first from the spawn): a horizontal leg
    of ``MIN_LEG``..``MAX_LEG`` m in any direction, climbing or sinking at most
    ``MAX_CLIMB_SLOPE`` per metre, heights clipped to ``[MIN_TARGET_HEIGHT,
    MAX_TARGET_HEIGHT]``. Of ``CANDIDATES`` draws the first is kept that

    - is reached by one turn and a straight line (:func:`one_turn_paths`) with a heading
      change of at most ``FIRST_MAX_TURN`` (first target) or ``MAX_TURN``,
    - keeps that path, and an about-turn after arriving, within ``COURSE_RADIUS`` of the
      dome (horizontally), so the next target is reachable too.

    If none fits, the reachable one that strays least is kept: under 1 course in 1000 at
    the default 100 m dome, but most courses below ~95 m, where the turns no longer fit and
    the course strays outside ``COURSE_RADIUS`` (a smaller dome makes a harder task, not an
    error). The yaw target of a target is the heading of arrival along its path.

    Args:
        course_radius: horizontal radius the course keeps within [m].
        Others: see :class:`~pyflyt_like.envs.targets.waypoints.WaypointTargets`.
    """

    def __init__(self, num_targets: int, use_yaw_targets: bool, goal_reach_distance: float,
                 goal_reach_angle: float, course_radius: float, delta_bound: float):
        super().__init__(num_targets, use_yaw_targets, goal_reach_distance, goal_reach_angle,
                         spread=course_radius, min_height=MIN_TARGET_HEIGHT,
                         max_height=MAX_TARGET_HEIGHT, delta_bound=delta_bound)

    def reset(self, rng: np.random.Generator, position: np.ndarray,
              heading: float = 0.0) -> None:
        """Draw new targets for an aircraft at ``position`` (3,) [m] flying at ``heading`` [rad]."""
        point, height = np.array(position[:2], dtype=np.float64), float(position[2])
        for i in range(self.num_targets):
            bearing = rng.uniform(-math.pi, math.pi, CANDIDATES)
            leg = rng.uniform(MIN_LEG, MAX_LEG, CANDIDATES)
            slope = rng.uniform(-MAX_CLIMB_SLOPE, MAX_CLIMB_SLOPE)
            targets, turn, reachable, widest = one_turn_paths(point, heading, bearing, leg)
            arrival = heading + turn
            stray = np.maximum(widest, turn_back_radius(targets, arrival))
            usable = reachable & (np.abs(turn) <= (FIRST_MAX_TURN if i == 0 else MAX_TURN))
            fits = usable & (stray <= self.spread)
            pick = int(np.argmax(fits)) if fits.any() else int(
                np.argmin(np.where(usable, stray, np.inf)))
            point = targets[pick]
            height = min(max(height + slope * leg[pick], self.min_height), self.max_height)
            heading = float(arrival[pick])
            self.positions[i] = point[0], point[1], height
            self.yaws[i] = wrap_angle(heading)
        self.index = 0
        self.distance = self._distance(np.asarray(position, dtype=np.float64))


class FixedwingWaypointsEnv(WaypointTask, FixedwingBaseEnv):
    """Reach ``num_targets`` targets in order; each gives +100, the last ends the episode.

    Observation: Dict with "attitude" (Box, see docs/envs.md) and "target_deltas" (a stacked
    Sequence of the remaining targets in the body frame, (k, 3), or (k, 4) with yaw targets;
    with ``padded_target_deltas=True`` a fixed-shape Box and a "target_mask", see
    docs/envs.md).
    Targets: see :class:`AircraftTargets`.

    Args:
        num_targets: targets per episode (default 4).
        use_yaw_targets: also match, at each target, the heading of arrival along its path.
        goal_reach_distance: reach radius [m] (default 2).
        goal_reach_angle: heading tolerance [rad] (default 0.1).
        **options: see :class:`FixedwingBaseEnv` (defaults: dome 100 m, 120 s, 30 Hz, mode 0).

    Info: ``num_targets_reached``; ``env_complete`` when the last target is reached.
    When rendering, the targets not yet reached show as orange spheres of the reach radius.
    """

    def __init__(self, *, num_targets: int = 4, use_yaw_targets: bool = False,
                 goal_reach_distance: float = 2.0, goal_reach_angle: float = 0.1,
                 flight_dome_size: float = 100.0, **options: Any):
        flight_dome_size = check_positive_float("flight_dome_size", flight_dome_size)
        self.targets = AircraftTargets(num_targets, use_yaw_targets, goal_reach_distance,
                                       goal_reach_angle,
                                       course_radius=COURSE_RADIUS * flight_dome_size,
                                       delta_bound=2 * flight_dome_size)
        super().__init__(flight_dome_size=flight_dome_size, **options)
