"""The Navigate task's rules over one world of one drone: the goal, reward, endings and the
LiDAR's sector encoding (plain Python on floats and arrays, compiled as they are for the
batched VectorEnv and its PyBullet twin; :mod:`.multirotor_tasks` branches into them).

**Navigate** (world ENU [m]; docs/vector_tasks.md): the drone starts in the clearing at the
origin of a forest (``worlds.Forest``, a clearing of 2 m), within :data:`START_OFFSET` of
``(0, 0, FLIGHT_HEIGHT)``, level but for small tilts, heading anywhere within pi/4 of +x;
the goal is :data:`GOAL_DISTANCE` away at the same height, on a heading drawn uniformly,
redrawn (up to :data:`GOAL_TRIES` times) while a trunk comes within :data:`GOAL_CLEARANCE`
of it. Reward per agent step: :data:`PROGRESS_GAIN` per metre closer to the goal, plus
:data:`GOAL_BONUS` on arrival (within :data:`GOAL_RADIUS`), minus
:data:`OVERSPEED_COST` per m/s of speed above :data:`CRUISE_SPEED`, minus up to
:data:`CLEARANCE_COST` while a trunk's surface is nearer than :data:`CLEARANCE_MARGIN` to
the drone's centre (linear, the whole cost at contact), minus :data:`FAILURE_PENALTY`
on a failure: a collision (the engine's crash flag: an obstacle or the floor), turning
upside down, or leaving the volume ``|x|, |y| <= HALF_WIDTH``, ``z <= CEILING`` (below the
trees' tops: the way is through the forest, not over it). The episode ends on arrival or a
failure. Every failure costs the same, so that no way out of the forest pays better than
another; past :data:`CRUISE_SPEED` a m/s costs more than the progress it buys, and the
clearance term tells of a trunk before the crash does (why each term is there, from the
policies trained without it: docs/vector_tasks.md, "Navigate").

**Observation.** The goal relative to the drone in its heading frame (x along the heading,
y to its left, z up; with ``observation="sensors"``, which observes no attitude, in the
world frame), then the Multirotor state as the other tasks, then the sectors.

**Sectors.** The LiDAR's ``channels x beams`` ranges (beam ``j`` at azimuth ``-180 + j
360 / beams`` deg in the body frame for a 360-degree ring, counter-clockwise from behind,
:mod:`pyflyt_like.sensors.lidar`) are min-pooled into ``sectors`` equal arcs of beams
(sector ``s`` holds beams ``s B // S`` to ``(s + 1) B // S - 1``, every channel), each
read as its inverse, ``SECTOR_NEAR / range`` capped at 1: 1 is a surface within
:data:`SECTOR_NEAR`, 0.25 one at 2 m, ``SECTOR_NEAR / max_range`` free space as far as the
LiDAR sees. The inverse spreads the ranges that decide a dodge (a trunk at 1 m against one
at 0.5 m: 0.5 against 1) where ``range / max_range`` pressed them together (0.08 against
0.04), as Aerial Gym's inverse-range LiDAR encoding does.
"""

from __future__ import annotations

import math

FLIGHT_HEIGHT = 1.5  # m, of the start and the goal
START_OFFSET = 0.3  # m per horizontal axis
GOAL_DISTANCE = 20.0  # m from the origin
GOAL_RADIUS = 1.0  # m: arrival
GOAL_CLEARANCE = 1.0  # m: no trunk this close to a goal (else it is redrawn)
GOAL_TRIES = 32  # headings tried for a clear goal; the last is kept
SECTOR_NEAR = 0.5  # m: a LiDAR sector reads SECTOR_NEAR / range, 1 this close or closer
PROGRESS_GAIN = 1.0  # reward per metre closer
GOAL_BONUS = 10.0
FAILURE_PENALTY = 10.0  # a collision, upside down or outside
CRUISE_SPEED = 3.0  # m/s: faster costs
OVERSPEED_COST = 0.05  # reward per agent step per m/s above CRUISE_SPEED
CLEARANCE_MARGIN = 0.5  # m from the drone's centre to a trunk's surface: nearer costs
CLEARANCE_COST = 0.2  # reward per agent step at a trunk's surface
HALF_WIDTH = 24.0  # m, inside the default 50 m forest
CEILING = 4.0  # m, the default trees are 6 m tall
START_DRAWS = 6  # uniform draws of a start (the goal's headings are drawn apart)


def place_start(u, pos, euler, start_tilt, start_yaw):
    """The start ``pos`` (3,) [m] and ``euler`` (3,) [rad] from the uniform draws ``u``
    (:data:`START_DRAWS`,): the clearing's centre at :data:`FLIGHT_HEIGHT` within
    :data:`START_OFFSET`, roll and pitch within ``start_tilt``, yaw within ``start_yaw``
    [rad]."""
    pos[0] = (2.0 * u[0] - 1.0) * START_OFFSET
    pos[1] = (2.0 * u[1] - 1.0) * START_OFFSET
    pos[2] = FLIGHT_HEIGHT
    euler[0] = (2.0 * u[2] - 1.0) * start_tilt
    euler[1] = (2.0 * u[3] - 1.0) * start_tilt
    euler[2] = (2.0 * u[4] - 1.0) * start_yaw


def place_goal(u, target):
    """The goal ``target`` (3,) [m] on the heading ``2 pi u`` from a uniform draw ``u``."""
    heading = 2.0 * math.pi * u
    target[0] = GOAL_DISTANCE * math.cos(heading)
    target[1] = GOAL_DISTANCE * math.sin(heading)
    target[2] = FLIGHT_HEIGHT


def score_navigate(pos, vel, upside_down, crashed, distance, previous_distance, clearance):
    """``(reward, terminated, arrived)`` of an agent step ending at ``pos`` (3,) [m] with
    velocity ``vel`` (3,) [m/s], ``distance`` [m] from the goal (``previous_distance`` the
    step before), ``clearance`` [m] from the nearest obstacle's surface (any value from
    :data:`CLEARANCE_MARGIN` on costs nothing), ``crashed`` the engine's collision flag
    (module docstring)."""
    speed = math.sqrt(vel[0] * vel[0] + vel[1] * vel[1] + vel[2] * vel[2])
    reward = (PROGRESS_GAIN * (previous_distance - distance)
              - OVERSPEED_COST * max(0.0, speed - CRUISE_SPEED)
              - CLEARANCE_COST * max(0.0, 1.0 - clearance / CLEARANCE_MARGIN))
    arrived = distance < GOAL_RADIUS
    if arrived:
        reward += GOAL_BONUS
    outside = abs(pos[0]) > HALF_WIDTH or abs(pos[1]) > HALF_WIDTH or pos[2] > CEILING
    failed = crashed or outside or upside_down
    if failed:
        reward -= FAILURE_PENALTY
    return reward, arrived or failed, arrived


def sector_value(nearest):
    """A sector's observation of its nearest range ``nearest`` [m] (> 0): ``SECTOR_NEAR /
    nearest``, at most 1 (module docstring)."""
    return 1.0 if nearest <= SECTOR_NEAR else SECTOR_NEAR / nearest


def sector_range(ranges, beams, sectors, s, max_range):
    """The nearest range [m] of sector ``s`` of ``sectors`` in the flat LiDAR ``ranges``
    (channels * beams,) [m] (module docstring), at most ``max_range``."""
    nearest = max_range
    for c in range(ranges.shape[0] // beams):
        for j in range(s * beams // sectors, (s + 1) * beams // sectors):
            value = ranges[c * beams + j]
            if value < nearest:
                nearest = value
    return nearest
