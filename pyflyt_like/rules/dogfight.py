"""The dogfight's rules over one world of n aircraft: spawn, guns, health, observation, reward.

The one implementation of the scene's rules, used by the PettingZoo scene
(:class:`~pyflyt_like.envs.MAFixedwingDogfightEnv`) and the batched ``Dogfight-v0``
VectorEnv: both call these functions compiled (:mod:`.kernels`), the first once per world
of one, the second inside its fused step over every world. They are plain Python on
arrays and floats with no allocation (loops over the aircraft, the rotation formulas of
:mod:`pyflyt_like.common.rotations`), so numba compiles them as they are.

Arrays of one world: pos (n, 3) base origins, world ENU [m]; quat (n, 4) body-to-world
(x, y, z, w); vel (n, 3) world [m/s]; ang_vel (n, 3) body FLU [rad/s]; team (n,) int 0 or 1;
in_play (n,) bool. For (n, n) arrays, entry [i, j] is about aircraft j as seen by i (the
shooter, for hits). Body frames are FLU (x = the nose).
"""

from __future__ import annotations

import math

from pyflyt_like.common.rotations import quat_to_euler, quat_to_matrix

DAMAGE_REWARD = 100.0  # reward per unit of damage (a kill: ~100)
WIN_REWARD = 100.0  # to each agent of the winning team on the deciding step (losers: -)
CLOSING_WEIGHT = 0.1  # 1/m, dense shaping: engagement cost per metre to an enemy
AIM_WEIGHT = 1.0  # 1/rad, dense shaping: engagement cost per radian off the nose
FAILURE_REWARD = -100.0  # a crash or leaving the dome (PyFlyt's)
TEAMS = 2
UNDECIDED = -1  # no team has won yet
DRAW = -2  # both teams lost their last aircraft on the same step


def spawn_on_circle(uniforms, radius_low, radius_high, height_low, height_high, pos, euler):
    """Spawn poses from (3, n) uniform draws in [0, 1): rows bearing, radius, height.

    Aircraft k starts at bearing ``2 pi u[0, k]`` about the origin, at radius and height
    drawn uniformly in their ranges [m], level, heading outwards (yaw = bearing). Writes
    ``pos`` (n, 3) [m] and ``euler`` (n, 3) [rad].
    """
    for k in range(pos.shape[0]):
        bearing = 2.0 * math.pi * uniforms[0, k]
        radius = radius_low + (radius_high - radius_low) * uniforms[1, k]
        pos[k, 0] = radius * math.cos(bearing)
        pos[k, 1] = radius * math.sin(bearing)
        pos[k, 2] = height_low + (height_high - height_low) * uniforms[2, k]
        euler[k, 0] = 0.0
        euler[k, 1] = 0.0
        euler[k, 2] = bearing


def score_hits(pos, quat, team, in_play, lethal_distance, cos_lethal_sq, physics_steps,
               damage_per_hit, dealt, received, received_total, pair_total, health):
    """Score one control period's guns from the geometry at its end; return how many
    aircraft it destroyed.

    Aircraft i hits enemy j when both are in play, j is closer than ``lethal_distance``
    [m] and within the lethal cone about i's nose (``cos_lethal_sq``: the squared cosine of
    its half-angle); a hit counts ``physics_steps`` times (once per physics step of the
    period). Adds to ``dealt`` and ``received`` (n,) (this agent step's counts),
    ``received_total`` (n,) and ``pair_total`` (n, n) (since the reset, int), then sets
    ``health`` (n,) to ``max(1 - damage_per_hit received_total, 0)`` and takes aircraft at
    health 0 out of ``in_play``. All hits of the period are simultaneous.
    """
    n = pos.shape[0]
    lethal_sq = lethal_distance * lethal_distance
    for i in range(n):
        if not in_play[i]:
            continue
        q = quat[i]
        r = quat_to_matrix(q[0], q[1], q[2], q[3])
        for j in range(n):
            if team[j] == team[i] or not in_play[j]:
                continue
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            dz = pos[j, 2] - pos[i, 2]
            distance_sq = dx * dx + dy * dy + dz * dz
            ahead = r[0] * dx + r[3] * dy + r[6] * dz  # along i's nose (body x in world)
            # angle < lethal  <=>  ahead > 0 and ahead^2 > cos^2 |d|^2
            if ahead > 0.0 and ahead * ahead > cos_lethal_sq * distance_sq \
                    and distance_sq < lethal_sq:
                dealt[i] += physics_steps
                received[j] += physics_steps
                received_total[j] += physics_steps
                pair_total[i, j] += physics_steps
    destroyed = 0
    for j in range(n):
        health[j] = max(1.0 - damage_per_hit * received_total[j], 0.0)
        if in_play[j] and health[j] <= 0.0:
            in_play[j] = False
            destroyed += 1
    return destroyed


def engagement_costs(pos, quat, cost):
    """(n, n) dense-shaping cost of i engaging j into ``cost``: ``0.1 d + 1.0 angle``, the
    distance [m] and the angle between i's nose and the line to j [rad] (0 on the
    diagonal)."""
    n = pos.shape[0]
    for i in range(n):
        q = quat[i]
        r = quat_to_matrix(q[0], q[1], q[2], q[3])
        for j in range(n):
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            dz = pos[j, 2] - pos[i, 2]
            distance = math.sqrt(dx * dx + dy * dy + dz * dz)
            cosine = 1.0
            if distance > 0.0:
                cosine = min(max((r[0] * dx + r[3] * dy + r[6] * dz) / distance, -1.0), 1.0)
            cost[i, j] = CLOSING_WEIGHT * distance + AIM_WEIGHT * math.acos(cosine)


def _best_decrease(previous, cost, team, in_play, agent, as_target):
    """Decrease, from ``previous`` to ``cost`` (n, n), of the cheapest engagement between
    ``agent`` and the enemies in play: of ``agent`` engaging them (row) when ``as_target``
    is False, of them engaging ``agent`` (column) when True; 0 without such enemies."""
    best_before = math.inf
    best_after = math.inf
    for j in range(team.shape[0]):
        if team[j] == team[agent] or not in_play[j]:
            continue
        if as_target:
            before, after = previous[j, agent], cost[j, agent]
        else:
            before, after = previous[agent, j], cost[agent, j]
        best_before = min(best_before, before)
        best_after = min(best_after, after)
    if best_before == math.inf:
        return 0.0
    return best_before - best_after


def step_rewards(dealt, received, team, in_play, failed, previous_cost, cost, damage_per_hit,
                 aggressiveness, cooperativeness, sparse, rewards):
    """One agent step's rewards into ``rewards`` (n,); return the winning team (0 or 1),
    :data:`UNDECIDED` while both teams have aircraft in play, or :data:`DRAW` when
    neither has.

    With a = ``aggressiveness`` and c = ``cooperativeness``: ``100 * damage_per_hit *
    (dealt_i - (1 - a) received_i)``, plus c times the same sum over i's teammates; dense
    (``sparse`` False): plus the decrease of i's cheapest engagement of an enemy in play
    (:func:`engagement_costs`, ``previous_cost`` -> ``cost``), minus (1 - a) times the
    decrease of the cheapest enemy's engagement of i; +100 / -100 to the winning / losing
    team on the deciding step. ``failed`` (n,) aircraft (crashed or out of the dome this
    step) get -100 instead. ``in_play`` is after this step's losses.
    """
    n = team.shape[0]
    caution = 1.0 - aggressiveness
    team_total_0 = 0.0
    team_total_1 = 0.0
    for i in range(n):
        own = DAMAGE_REWARD * damage_per_hit * (dealt[i] - caution * received[i])
        rewards[i] = own
        if team[i] == 0:
            team_total_0 += own
        else:
            team_total_1 += own
    standing_0 = False
    standing_1 = False
    for i in range(n):
        team_total = team_total_0 if team[i] == 0 else team_total_1
        rewards[i] += cooperativeness * (team_total - rewards[i])
        if not sparse:
            rewards[i] += _best_decrease(previous_cost, cost, team, in_play, i, False)
            rewards[i] -= caution * _best_decrease(previous_cost, cost, team, in_play, i, True)
        if in_play[i]:
            if team[i] == 0:
                standing_0 = True
            else:
                standing_1 = True
    winner = UNDECIDED
    if standing_0 != standing_1:
        winner = 0 if standing_0 else 1
        for i in range(n):
            rewards[i] += WIN_REWARD if team[i] == winner else -WIN_REWARD
    elif not standing_0:
        winner = DRAW
    for i in range(n):
        if failed[i]:
            rewards[i] = FAILURE_REWARD
    return winner


def out_of_dome(pos, dome_size, in_play, lost):
    """Mark in ``lost`` (n,) the aircraft in play outside the sphere of radius ``dome_size``
    [m] about the origin."""
    dome_sq = dome_size * dome_size
    for k in range(pos.shape[0]):
        p = pos[k]
        lost[k] = in_play[k] and p[0] * p[0] + p[1] * p[1] + p[2] * p[2] > dome_sq


def observe(pos, quat, vel, ang_vel, aux, actions, health, in_play, team, use_quaternion,
            low, high, out):
    """Every aircraft's observation into ``out`` (n, size), clipped to [low, high] (size,).

    Row i: i's attitude vector — body rates (3) [rad/s], attitude (quaternion x y z w, or
    roll pitch yaw [rad] when ``use_quaternion`` is False), body velocity (3) [m/s],
    position (3) [m], previous normalised action ``actions[i]`` (k), aux state ``aux[i]``
    (surface deflections [rad], throttle) — its health, then for each other aircraft j in
    index order: j's position and velocity relative to i in i's body frame [m, m/s], j's
    attitude in i's body frame (quaternion conj(q_i) q_j, or its Euler angles), j's health,
    and 1 if j is a teammate else 0. The block of an aircraft out of play is zeros but for
    the ally flag.
    """
    n = pos.shape[0]
    for i in range(n):
        row = out[i]
        q = quat[i]
        r = quat_to_matrix(q[0], q[1], q[2], q[3])
        k = 0
        for a in range(3):
            row[k + a] = ang_vel[i, a]
        k = 3
        if use_quaternion:
            for a in range(4):
                row[k + a] = q[a]
            k += 4
        else:
            row[k], row[k + 1], row[k + 2] = quat_to_euler(q[0], q[1], q[2], q[3])
            k += 3
        v = vel[i]
        for a in range(3):  # R^T v: body velocity
            row[k + a] = r[a] * v[0] + r[3 + a] * v[1] + r[6 + a] * v[2]
        k += 3
        for a in range(3):
            row[k + a] = pos[i, a]
        k += 3
        for a in range(actions.shape[1]):
            row[k + a] = actions[i, a]
        k += actions.shape[1]
        for a in range(aux.shape[1]):
            row[k + a] = aux[i, a]
        k += aux.shape[1]
        row[k] = health[i]
        k += 1
        for j in range(n):
            if j == i:
                continue
            ally = 1.0 if team[j] == team[i] else 0.0
            block = 3 + 3 + (4 if use_quaternion else 3) + 1
            if not in_play[j]:
                for a in range(block):
                    row[k + a] = 0.0
                row[k + block] = ally
                k += block + 1
                continue
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            dz = pos[j, 2] - pos[i, 2]
            for a in range(3):
                row[k + a] = r[a] * dx + r[3 + a] * dy + r[6 + a] * dz
            k += 3
            dx = vel[j, 0] - vel[i, 0]
            dy = vel[j, 1] - vel[i, 1]
            dz = vel[j, 2] - vel[i, 2]
            for a in range(3):
                row[k + a] = r[a] * dx + r[3 + a] * dy + r[6 + a] * dz
            k += 3
            # conj(q_i) * q_j, Hamilton product with (x, y, z, w) order
            x1, y1, z1, w1 = -q[0], -q[1], -q[2], q[3]
            x2, y2, z2, w2 = quat[j, 0], quat[j, 1], quat[j, 2], quat[j, 3]
            rx = w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2
            ry = w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2
            rz = w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2
            rw = w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2
            if use_quaternion:
                row[k], row[k + 1], row[k + 2], row[k + 3] = rx, ry, rz, rw
                k += 4
            else:
                row[k], row[k + 1], row[k + 2] = quat_to_euler(rx, ry, rz, rw)
                k += 3
            row[k] = health[j]
            row[k + 1] = ally
            k += 2
        for a in range(row.shape[0]):
            row[a] = min(max(row[a], low[a]), high[a])
