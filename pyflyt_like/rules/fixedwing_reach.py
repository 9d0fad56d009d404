"""Fixedwing-Reach's rules over one world of one aircraft: spawn, targets, actions,
reward, endings, observation.

The one implementation of the task, used by the batched ``Fixedwing-Reach-v0`` VectorEnv
(compiled into its fused step, :mod:`pyflyt_like.envs.fixedwing.kernels`) and by its
PyBullet twin (the same compiled functions called with one world). Plain Python on arrays
and floats with no allocation (the rotation formulas of :mod:`pyflyt_like.common.rotations`),
so numba compiles them as they are.

The task: targets uniform in the box x, y in [-150, 150] m, z in [30, 80] m; a target is
reached within :data:`ARRIVAL_RADIUS` = 10 m of the aircraft's base origin and the next is
drawn at once. Why 10 m: the aircraft fly at 14-20 m/s and turn with radii of 20-60 m
(acrowing at 14 m/s and its 0.7 rad bank limit: 24 m), so a target must be met on a pass,
not hovered over; 10 m is a few wingspans, crossed in well under a second, yet small
against the 300 m box. The aircraft spawns at the box centre, 55 m up, level, at a heading
drawn uniformly, with its model's starting velocity along the nose.

Frames: world ENU [m], body FLU (x = the nose); quaternions (x, y, z, w) body to world.
"""

from __future__ import annotations

import math

from pyflyt_like.common.rotations import quat_to_matrix

BOX_HALF_WIDTH = 150.0  # m, targets within x, y in [-150, 150]
TARGET_Z_LOW = 30.0  # m, lowest target
TARGET_Z_HIGH = 80.0  # m, highest target
SPAWN_Z = 55.0  # m, the box's middle height
ARRIVAL_RADIUS = 10.0  # m (see the module docstring)
PROGRESS_GAIN = 0.1  # reward per metre closer to the target (negative moving away)
ARRIVAL_BONUS = 10.0  # reward per target reached
FAILURE_REWARD = -10.0  # added on the step of a crash or of leaving the flight volume
BOUNDS_MARGIN = 100.0  # m beyond the box's sides (and above its top) before leaving it
# m: below it the aircraft has crashed. Above either engine's floor contact (the PyBullet
# mesh touches the plane with the base origin ~0.1 m up, the batched floor holds the base
# origin at 0), so both engines end the episode on the same step.
MIN_ALTITUDE = 2.0

NONE, CRASH, OUT_OF_BOUNDS = 0, 1, 2  # endings of a step


def place_target(u0, u1, u2, target):
    """A target from three uniform draws in [0, 1) into ``target`` (3,) [m]."""
    target[0] = BOX_HALF_WIDTH * (2.0 * u0 - 1.0)
    target[1] = BOX_HALF_WIDTH * (2.0 * u1 - 1.0)
    target[2] = TARGET_Z_LOW + (TARGET_Z_HIGH - TARGET_Z_LOW) * u2


def spawn_pose(u, pos, euler):
    """The spawn from one uniform draw in [0, 1): ``pos`` (1, 3) the box centre at
    :data:`SPAWN_Z` [m], ``euler`` (1, 3) level at heading ``2 pi u - pi`` [rad]."""
    pos[0, 0] = 0.0
    pos[0, 1] = 0.0
    pos[0, 2] = SPAWN_Z
    euler[0, 0] = 0.0
    euler[0, 1] = 0.0
    euler[0, 2] = 2.0 * math.pi * u - math.pi


def target_distance(pos, target):
    """Distance [m] from ``pos`` (3,) to ``target`` (3,)."""
    dx = target[0] - pos[0]
    dy = target[1] - pos[1]
    dz = target[2] - pos[2]
    return math.sqrt(dx * dx + dy * dy + dz * dz)


def score_step(pos, target, previous_distance, touched, finite):
    """One agent step's (reward, arrived, ending, distance [m]) for the aircraft at ``pos``
    (3,) [m] chasing ``target`` (3,), ``previous_distance`` [m] away at the last step.

    Reward: :data:`PROGRESS_GAIN` per metre of progress, plus :data:`ARRIVAL_BONUS` when
    the target is within :data:`ARRIVAL_RADIUS` (``arrived``: the caller draws the next),
    plus :data:`FAILURE_REWARD` on an ending. Endings: :data:`CRASH` when ``touched`` (a
    contact in this step), below :data:`MIN_ALTITUDE` or not ``finite`` (then the reward is
    :data:`FAILURE_REWARD` alone and ``distance`` is ``previous_distance``);
    :data:`OUT_OF_BOUNDS` outside the box grown by :data:`BOUNDS_MARGIN` at its sides and
    top; else :data:`NONE`.
    """
    if not finite:
        return FAILURE_REWARD, False, CRASH, previous_distance
    distance = target_distance(pos, target)
    reward = PROGRESS_GAIN * (previous_distance - distance)
    arrived = distance < ARRIVAL_RADIUS
    if arrived:
        reward += ARRIVAL_BONUS
    ending = NONE
    limit = BOX_HALF_WIDTH + BOUNDS_MARGIN
    if touched or pos[2] < MIN_ALTITUDE:
        ending = CRASH
    elif abs(pos[0]) > limit or abs(pos[1]) > limit or pos[2] > TARGET_Z_HIGH + BOUNDS_MARGIN:
        ending = OUT_OF_BOUNDS
    if ending != NONE:
        reward += FAILURE_REWARD
    return reward, arrived, ending, distance


def observe(pos, quat, vel, ang_vel, aux, target, distance, last_action, noise, noise_std,
            low, high, out):
    """The observation into ``out`` (size,), plus ``noise_std`` times ``noise`` (size,)
    standard normal draws, clipped to [low, high] (size,).

    Layout: target position relative to the aircraft in its body frame (3) [m], distance to
    it (1) [m], body rates (3) [rad/s], attitude quaternion (4) (x, y, z, w), body velocity
    (3) [m/s], position (3) [m], airspeed (1) [m/s] (the speed: the task has no wind),
    previous normalised action ``last_action`` (k), aux state ``aux`` (surface deflections
    [rad], throttle). ``pos``, ``vel`` (3,) world; ``quat`` (4,); ``ang_vel`` (3,) body.
    """
    r = quat_to_matrix(quat[0], quat[1], quat[2], quat[3])
    dx = target[0] - pos[0]
    dy = target[1] - pos[1]
    dz = target[2] - pos[2]
    for a in range(3):  # R^T d: the target in the body frame
        out[a] = r[a] * dx + r[3 + a] * dy + r[6 + a] * dz
    out[3] = distance
    for a in range(3):
        out[4 + a] = ang_vel[a]
    for a in range(4):
        out[7 + a] = quat[a]
    for a in range(3):
        out[11 + a] = r[a] * vel[0] + r[3 + a] * vel[1] + r[6 + a] * vel[2]
    for a in range(3):
        out[14 + a] = pos[a]
    out[17] = math.sqrt(vel[0] * vel[0] + vel[1] * vel[1] + vel[2] * vel[2])
    k = 18
    for a in range(last_action.shape[0]):
        out[k + a] = last_action[a]
    k += last_action.shape[0]
    for a in range(aux.shape[0]):
        out[k + a] = aux[a]
    for a in range(out.shape[0]):
        value = out[a] + noise_std * noise[a] if noise_std > 0.0 else out[a]
        out[a] = min(max(value, low[a]), high[a])
