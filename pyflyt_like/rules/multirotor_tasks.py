"""The Multirotor tasks' rules over one world of one drone: starts, targets, the action's
setpoint, reward, endings and observation of Hover, Reach, Track, Land and Navigate.

The one implementation of the tasks, used by the batched ``Multirotor-*-v0`` VectorEnvs
(compiled into their fused step, :mod:`pyflyt_like.envs.multirotor_tasks.kernels`) and by
their PyBullet twins (the same compiled functions called with one world). Plain Python on
arrays and floats with no allocation, so numba compiles them as they are. A task is an int
(:data:`HOVER`, :data:`REACH`, :data:`TRACK`, :data:`LAND`, :data:`NAVIGATE`) and every
function branches on it: the tasks share their layout, so one compiled step serves all.

The tasks (world ENU [m], the drone's centre of mass; ``time`` [s] since the start):

- **Hover**: hold (0, 0, 1). Starts within 0.3 m per axis, roll and pitch within 0.1 rad,
  yaw within pi/4. Reward ``exp(-(d / 0.5 m)^2)``, d the distance to the target. Ends when
  d > 1.5 m, upside down or below 5 cm. 5 s.
- **Reach**: targets and starts uniform in x, y in [-1, 1], z in [0.5, 1.5]; a target is
  reached within 0.1 m and the next drawn at once. Reward: 10 per metre of progress plus
  10 per target. Ends outside the box grown by 1 m, upside down or below 5 cm. 10 s.
- **Track**: a figure-eight per episode, ``c + (a_x sin(w t + f_x), a_y sin(2 w t + f_y),
  a_z sin(w t + f_z))`` about c = (0, 0, 1) with a in [0.5, 1] x [0.25, 0.5] x [0, 0.2],
  the x period in [6, 10] s and phases in [0, 2 pi). The features are the reference now
  and 0.1, ..., 0.4 s ahead, relative to the drone. Starts within 0.1 m of the first point,
  level, yaw within pi/4. Reward ``exp(-(e / 0.3 m)^2)``, e the distance to the reference
  now. Ends when e > 1 m, upside down or below 5 cm. 10 s.
- **Land**: a pad at the origin; starts in x, y in [-1, 1], z in [1, 2], tilts as Hover.
  Touchdown when the centre of mass is at or below 5 cm (before either engine's floor
  acts, so both agree to the end); a soft landing is a touchdown on the pad (offset r
  from its centre, horizontally, <= 0.2 m) at a speed v < 0.3 m/s. Reward per step: 10 per
  metre of progress towards (0, 0, 0.05), minus 1 per m/s of speed above the approach
  envelope ``1/s * d + 0.1 m/s`` (d the distance to that point); plus at a soft landing
  ``50 (1 - 0.5 r / 0.2 m) (1 - 0.5 v / 0.3 m/s)``, at any other touchdown on the pad
  ``10 max(0, 1 - v / 1 m/s)``. Ends at touchdown, upside down, or outside |x|, |y| <= 3 m,
  z <= 4 m. 10 s.

- **Navigate**: through a forest to a goal 20 m away on a LiDAR
  (:mod:`.navigate`: its start, goal, reward and endings, and the LiDAR's sectors, which
  close its observation: :func:`put_sectors`).

Every task's feature vector is its targets relative to the drone (world frame): 3 numbers,
15 for Track. A step whose physics diverged scores :data:`FAILURE_REWARD`.
"""

from __future__ import annotations

import math

from pyflyt_like.common import sensor_readings as readings
from pyflyt_like.common.rotations import quat_to_matrix

from .navigate import place_goal, place_start, score_navigate, sector_range, sector_value

HOVER, REACH, TRACK, LAND, NAVIGATE = 0, 1, 2, 3, 4
TASK_NAMES = ("Hover", "Reach", "Track", "Land", "Navigate")  # by task number
DURATIONS = (5.0, 10.0, 10.0, 10.0, 20.0)  # s, the default episode length by task
FEATURE_SIZES = (3, 3, 15, 3, 3)  # by task (Navigate's LiDAR sectors come last)
START_DRAWS = 11  # uniform draws a start consumes (Track's; the others use fewer)
FAILURE_REWARD = 0.0  # a diverged step: nothing earned (the lowest reward, or a standstill)

MIN_ALTITUDE = 0.05  # m: a flying task ends below this centre-of-mass height (a crash)
START_TILT = 0.1  # rad, roll and pitch at the start (Hover, Reach, Land)
START_YAW = math.pi / 4  # rad, the start's heading range

HOVER_TARGET_Z = 1.0  # m, the target (0, 0, 1)
HOVER_START_OFFSET = 0.3  # m, per axis
HOVER_REWARD_WIDTH = 0.5  # m
HOVER_MAX_DISTANCE = 1.5  # m

REACH_LOW, REACH_HIGH = (-1.0, -1.0, 0.5), (1.0, 1.0, 1.5)  # m, targets and starts
ARRIVAL_RADIUS = 0.1  # m
PROGRESS_GAIN = 10.0  # reward per metre closer (Reach, Land)
ARRIVAL_BONUS = 10.0  # reward per target reached
BOUNDS_MARGIN = 1.0  # m beyond the box before a Reach episode fails

TRACK_CENTRE_Z = 1.0  # m, the curve's centre (0, 0, 1)
AMPLITUDE_LOW, AMPLITUDE_HIGH = (0.5, 0.25, 0.0), (1.0, 0.5, 0.2)  # m per axis
PERIOD_LOW, PERIOD_HIGH = 6.0, 10.0  # s, of the x motion
FREQUENCY_RATIOS = (1.0, 2.0, 1.0)
REFERENCE_POINTS = 5
REFERENCE_SPACING = 0.1  # s
TRACK_START_OFFSET = 0.1  # m, per axis
TRACK_REWARD_WIDTH = 0.3  # m
TRACK_MAX_ERROR = 1.0  # m

TOUCHDOWN_HEIGHT = 0.05  # m, centre of mass
LAND_LOW, LAND_HIGH = (-1.0, -1.0, 1.0), (1.0, 1.0, 2.0)  # m, starts
PAD_RADIUS = 0.2  # m, horizontal: a touchdown within it is on the pad
SOFT_SPEED = 0.3  # m/s: a soft landing is on the pad below this speed
# The approach envelope: speed allowed at distance d to the touchdown point,
# APPROACH_RATE * d + APPROACH_FLOOR; the excess costs OVERSPEED_COST per m/s per step.
APPROACH_RATE = 1.0  # 1/s
APPROACH_FLOOR = 0.1  # m/s
OVERSPEED_COST = 1.0  # reward per m/s over the envelope, per agent step
SOFT_LANDING_BONUS = 50.0  # a soft landing at the pad's centre
CENTRE_WEIGHT = 0.5  # share of the soft-landing bonus lost linearly out to the pad's edge
SPEED_WEIGHT = 0.5  # share of the soft-landing bonus lost linearly up to SOFT_SPEED
BONUS_SPEED = 1.0  # m/s: an on-pad touchdown at or above this speed earns nothing
LANDING_BONUS = 10.0  # an on-pad touchdown that is not soft: this times (1 - v / BONUS_SPEED)
LAND_HALF_WIDTH, LAND_CEILING = 3.0, 4.0  # m


def _in_box(u0, u1, u2, low, high, out):
    """``out`` (3,) uniform in the box [low, high] from three uniform draws in [0, 1)."""
    out[0] = low[0] + u0 * (high[0] - low[0])
    out[1] = low[1] + u1 * (high[1] - low[1])
    out[2] = low[2] + u2 * (high[2] - low[2])


def _tilted(u0, u1, u2, euler):
    """Roll and pitch within :data:`START_TILT`, yaw within :data:`START_YAW` into
    ``euler`` (3,) [rad], from three uniform draws."""
    euler[0] = (2.0 * u0 - 1.0) * START_TILT
    euler[1] = (2.0 * u1 - 1.0) * START_TILT
    euler[2] = (2.0 * u2 - 1.0) * START_YAW


def place_reach_target(u0, u1, u2, target):
    """A Reach target from three uniform draws into ``target`` (3,) [m]."""
    _in_box(u0, u1, u2, REACH_LOW, REACH_HIGH, target)


def reference_point(curve, time, axis):
    """Track's reference coordinate ``axis`` [m] at ``time`` [s] of ``curve`` (9,):
    amplitudes (3) [m], angular frequencies (3) [rad/s], phases (3) [rad]."""
    centre = TRACK_CENTRE_Z if axis == 2 else 0.0
    return centre + curve[axis] * math.sin(curve[3 + axis] * time + curve[6 + axis])


def start_episode(task, u, target, curve, pos, euler):
    """A new episode of ``task`` from the uniform draws ``u`` (:data:`START_DRAWS`,): its
    ``target`` (3,) [m] (Hover's point, Reach's first target, Land's touchdown point),
    Track's ``curve`` (9,), and the start ``pos`` (3,) [m] and ``euler`` (3,) [rad]."""
    if task == HOVER:
        target[0], target[1], target[2] = 0.0, 0.0, HOVER_TARGET_Z
        for a in range(3):
            pos[a] = target[a] + (2.0 * u[a] - 1.0) * HOVER_START_OFFSET
        _tilted(u[3], u[4], u[5], euler)
    elif task == REACH:
        place_reach_target(u[0], u[1], u[2], target)
        _in_box(u[3], u[4], u[5], REACH_LOW, REACH_HIGH, pos)
        _tilted(u[6], u[7], u[8], euler)
    elif task == TRACK:
        period = PERIOD_LOW + u[3] * (PERIOD_HIGH - PERIOD_LOW)
        for a in range(3):
            curve[a] = AMPLITUDE_LOW[a] + u[a] * (AMPLITUDE_HIGH[a] - AMPLITUDE_LOW[a])
            curve[3 + a] = 2.0 * math.pi / period * FREQUENCY_RATIOS[a]
            curve[6 + a] = 2.0 * math.pi * u[4 + a]
        for a in range(3):
            target[a] = reference_point(curve, 0.0, a)
            pos[a] = target[a] + (2.0 * u[7 + a] - 1.0) * TRACK_START_OFFSET
        euler[0], euler[1] = 0.0, 0.0
        euler[2] = (2.0 * u[10] - 1.0) * START_YAW
    elif task == NAVIGATE:  # the goal's first heading; the caller redraws a blocked one
        place_start(u, pos, euler, START_TILT, START_YAW)
        place_goal(u[5], target)
    elif task == LAND:
        target[0], target[1], target[2] = 0.0, 0.0, TOUCHDOWN_HEIGHT
        _in_box(u[0], u[1], u[2], LAND_LOW, LAND_HIGH, pos)
        _tilted(u[3], u[4], u[5], euler)
    else:  # a task number without its start: marked for check_task, not flown as another's
        target[0] = math.nan


def check_task(task):
    """Refuse a task number whose rules are missing: ``start_episode`` and ``score_step``
    each need a branch for it (their final ``else`` marks a number without one with NaN).
    Plain Python, run once when a task is built on either engine; the compiled rules do
    not raise (a raise in the fused step costs every step about 5 %).

    Raises:
        ValueError: naming the task number and the function without its branch.
    """
    target, curve, pos, euler = [0.0] * 3, [0.0] * 9, [0.0] * 3, [0.0] * 3
    start_episode(task, [0.5] * START_DRAWS, target, curve, pos, euler)
    if math.isnan(target[0]):
        raise ValueError(f"task number {task} has no branch in start_episode "
                         "(pyflyt_like/rules/multirotor_tasks.py)")
    distance = score_step(task, pos, 1.0, [0.0] * 3, target, curve, 0.0, 0.0, False,
                          math.inf)[2]
    if math.isnan(distance):
        raise ValueError(f"task number {task} has no branch in score_step "
                         "(pyflyt_like/rules/multirotor_tasks.py)")


def distance_to(pos, target):
    """Distance [m] from ``pos`` (3,) to ``target`` (3,)."""
    dx = target[0] - pos[0]
    dy = target[1] - pos[1]
    dz = target[2] - pos[2]
    return math.sqrt(dx * dx + dy * dy + dz * dz)


def task_distance(task, pos, target, curve, time):
    """What ``task`` measures at ``time`` [s] [m]: Track's error to the reference now, the
    others' distance to ``target``."""
    if task == TRACK:
        for a in range(3):
            target[a] = reference_point(curve, time, a)
    return distance_to(pos, target)


def score_step(task, pos, up_z, vel, target, curve, time, previous_distance, crashed,
               clearance):
    """One agent step's ``(reward, terminated, distance, arrived, landed)`` for the drone
    at ``pos`` (3,) [m] with velocity ``vel`` (3,) [m/s] and body z axis's world z
    component ``up_z`` (negative: upside down), at ``time`` [s] since the start;
    ``previous_distance`` [m] is the last step's ``distance``; ``crashed`` the engine's
    collision flag (Navigate ends on it; the others end on their own rules);
    ``clearance`` [m] the distance to the nearest obstacle (Navigate's alone).

    ``arrived``: Reach's target is reached (the caller draws the next with
    :func:`place_reach_target`; ``distance`` is to the reached one). ``landed``: Land's
    soft landing on the pad. See the module docstring for each task's reward and endings.
    """
    distance = task_distance(task, pos, target, curve, time)
    upside_down = up_z < 0.0
    low = pos[2] < MIN_ALTITUDE
    arrived = landed = False
    if task == HOVER:
        reward = math.exp(-(distance / HOVER_REWARD_WIDTH) ** 2)
        terminated = distance > HOVER_MAX_DISTANCE or upside_down or low
    elif task == TRACK:
        reward = math.exp(-(distance / TRACK_REWARD_WIDTH) ** 2)
        terminated = distance > TRACK_MAX_ERROR or upside_down or low
    elif task == REACH:
        reward = PROGRESS_GAIN * (previous_distance - distance)
        arrived = distance < ARRIVAL_RADIUS
        if arrived:
            reward += ARRIVAL_BONUS
        outside = False
        for a in range(3):
            if (pos[a] < REACH_LOW[a] - BOUNDS_MARGIN
                    or pos[a] > REACH_HIGH[a] + BOUNDS_MARGIN):
                outside = True
        terminated = outside or upside_down or low
    elif task == NAVIGATE:
        reward, terminated, arrived = score_navigate(pos, vel, upside_down, crashed, distance,
                                                     previous_distance, clearance)
    elif task == LAND:
        speed = math.sqrt(vel[0] * vel[0] + vel[1] * vel[1] + vel[2] * vel[2])
        # Progress alone pays for a dive (a crash keeps it all); past the envelope a m/s
        # costs more than the progress it buys (0.2 per step at 50 Hz), so the approach
        # slows with the distance and arrives near APPROACH_FLOOR, below SOFT_SPEED.
        allowed = APPROACH_RATE * distance + APPROACH_FLOOR
        reward = (PROGRESS_GAIN * (previous_distance - distance)
                  - OVERSPEED_COST * max(0.0, speed - allowed))
        touchdown = pos[2] <= TOUCHDOWN_HEIGHT
        offset = math.hypot(pos[0] - target[0], pos[1] - target[1])
        if touchdown and offset <= PAD_RADIUS:
            landed = speed < SOFT_SPEED
            if landed:
                # graded: without it the policy landed 0.14 m off centre at 0.24 m/s (the
                # discount pays for every step saved), near both limits
                reward += SOFT_LANDING_BONUS * ((1.0 - CENTRE_WEIGHT * offset / PAD_RADIUS)
                                                * (1.0 - SPEED_WEIGHT * speed / SOFT_SPEED))
            else:  # on the pad, too fast: a smaller bonus that grows as it slows down
                reward += LANDING_BONUS * max(0.0, 1.0 - speed / BONUS_SPEED)
        outside = (abs(pos[0]) > LAND_HALF_WIDTH or abs(pos[1]) > LAND_HALF_WIDTH
                   or pos[2] > LAND_CEILING)
        terminated = touchdown or outside or upside_down
    else:  # a task number without its rules: marked for check_task, not scored as another's
        reward, terminated, distance = FAILURE_REWARD, True, math.nan
    return reward, terminated, distance, arrived, landed


def to_setpoint(action, centre, below, above, yaw, yaw_column, setpoint):
    """The engine's setpoint (k,) of a normalised ``action`` (k,) in [-1, 1]: ``centre +
    action * (above if action > 0 else below)``, piecewise linear about the hover command
    (zero) out to the model's limits; ``yaw`` [rad] (the drone's heading) is added to
    column ``yaw_column`` (mode 1's heading setpoint; -1: none)."""
    for i in range(action.shape[0]):
        a = action[i]  # min/max, not a branch: signs are random across worlds
        setpoint[i] = centre[i] + max(a, 0.0) * above[i] + min(a, 0.0) * below[i]
    if yaw_column >= 0:
        setpoint[yaw_column] += yaw


def heading(quat):
    """The heading [rad] of the body-to-world quaternion ``quat`` (4,) (x, y, z, w):
    ``atan2(R10, R00)``, what mode 1's yaw action turns from."""
    r = quat_to_matrix(quat[0], quat[1], quat[2], quat[3])
    return math.atan2(r[3], r[0])


def up_z_of(quat):
    """The world z component of the body z axis of ``quat`` (4,): R22."""
    return 1.0 - 2.0 * (quat[0] * quat[0] + quat[1] * quat[1])


def _put(out, i, value, noise, noise_std, low, high):
    """``out[i]``: ``value`` plus ``noise_std`` times ``noise[i]``, clipped to [low[i],
    high[i]] (rounded once, to ``out``'s type)."""
    if noise_std > 0.0:
        value += noise_std * noise[i]
    out[i] = min(max(value, low[i]), high[i])


def _features(task, pos, target, curve, time, cos_yaw, sin_yaw, noise, noise_std, low,
              high, out):
    """The task's features (3, Track 15: targets relative to ``pos`` (3,) [m], world
    frame; Navigate's goal in the heading frame of the yaw whose cosine and sine are
    ``cos_yaw``, ``sin_yaw``, the frame of its LiDAR sectors) into ``out[0:]``; returns how
    many."""
    c = 0
    if task == NAVIGATE:
        dx, dy = target[0] - pos[0], target[1] - pos[1]
        _put(out, 0, cos_yaw * dx + sin_yaw * dy, noise, noise_std, low, high)
        _put(out, 1, cos_yaw * dy - sin_yaw * dx, noise, noise_std, low, high)
        _put(out, 2, target[2] - pos[2], noise, noise_std, low, high)
        c = 3
    elif task == TRACK:
        for point in range(REFERENCE_POINTS):
            t = time + point * REFERENCE_SPACING
            for a in range(3):
                _put(out, c, reference_point(curve, t, a) - pos[a], noise, noise_std, low,
                     high)
                c += 1
    else:
        for a in range(3):
            _put(out, c, target[a] - pos[a], noise, noise_std, low, high)
            c += 1
    return c


#: The blocks of the sensor observation, per sensor in
#: :data:`~pyflyt_like.common.sensor_readings.SENSOR_ORDER`: (first index, width) in the
#: flat readings; the barometer's pressure is left out (its altitude says the same).
_SENSED = {"imu": (readings.ACCEL, 6), "baro": (readings.ALTITUDE, 1),
           "mag": (readings.FIELD, 3), "gnss": (readings.POSITION, 7),
           "range": (readings.DISTANCE, 2)}
SENSED_BLOCKS = tuple(_SENSED[name] for name in readings.SENSOR_ORDER)


def sensed_size(periods):
    """The length of the sensed blocks of :func:`observe` for the sensors of ``periods``
    (5,) (> 0: configured)."""
    size = 0
    for i in range(len(SENSED_BLOCKS)):
        if periods[i] > 0:
            size += SENSED_BLOCKS[i][1]
    return size


def observe(task, pos, quat, vel, ang_vel, sensed, periods, target, curve, time,
            last_action, noise, noise_std, low, high, out):
    """The observation into ``out`` (size,), plus ``noise_std`` times the standard normal
    draws ``noise`` (size,), clipped to [low, high] (size,): of the drone's true state, or
    with ``sensed`` of what it measures (``observation="sensors"``).

    ``sensed`` None (compiled: no sensor code): the task's features (3, Track 15: targets
    relative to the drone [m]), the body-to-world rotation matrix (9, row-major), the
    world velocity ``vel`` (3) [m/s], the body rates ``ang_vel`` (3) [rad/s]; ``pos`` (3,)
    [m]; ``quat`` (4,) (x, y, z, w).

    ``sensed`` (:data:`~pyflyt_like.common.sensor_readings.READINGS_SIZE`,): the drone's
    latest readings in the flat layout, ``periods`` (5,) the sensors' sample periods (> 0:
    configured; a GNSS receiver is required); ``pos``, ``quat``, ``vel`` and ``ang_vel`` are
    not read. The task's features relative to the GNSS position (3, Track 15) [m]; then
    per configured sensor (:data:`SENSED_BLOCKS`): IMU specific force (3) [m/s^2] and body
    rates (3) [rad/s] (sensor frame), barometric altitude (1) [m above sea level], magnetic
    field (3) [uT, body], GNSS position (3) [m, world], velocity (3) [m/s, world] and fix
    (1), range (1) [m] and valid (1).

    Both end with the previous normalised action ``last_action`` (k); ``time`` [s].
    """
    if sensed is None:
        r = quat_to_matrix(quat[0], quat[1], quat[2], quat[3])
        horizontal = math.hypot(r[0], r[3])  # the body x axis's: its direction is the heading
        cos_yaw, sin_yaw = ((r[0] / horizontal, r[3] / horizontal) if horizontal > 0.0
                            else (1.0, 0.0))
        c = _features(task, pos, target, curve, time, cos_yaw, sin_yaw, noise, noise_std,
                      low, high, out)
        for i in range(9):
            _put(out, c + i, r[i], noise, noise_std, low, high)
        c += 9
        for a in range(3):
            _put(out, c + a, vel[a], noise, noise_std, low, high)
            _put(out, c + 3 + a, ang_vel[a], noise, noise_std, low, high)
        c += 6
    else:
        position = sensed[readings.POSITION:readings.POSITION + 3]
        # no attitude is observed: Navigate's goal stays in the world frame here
        c = _features(task, position, target, curve, time, 1.0, 0.0, noise, noise_std, low,
                      high, out)
        for i in range(len(SENSED_BLOCKS)):
            if periods[i] > 0:
                first, width = SENSED_BLOCKS[i]
                for j in range(width):
                    _put(out, c + j, sensed[first + j], noise, noise_std, low, high)
                c += width
    for a in range(last_action.shape[0]):
        _put(out, c + a, last_action[a], noise, noise_std, low, high)


def put_sectors(ranges, beams, max_range, noise, noise_std, low, high, out, first):
    """Navigate's LiDAR sectors into ``out[first:]``: each sector's nearest range of the
    flat ``ranges`` (channels * beams,) [m] up to ``max_range`` [m]
    (:func:`~.navigate.sector_range`), as its inverse (:func:`~.navigate.sector_value`),
    noise and clipping as :func:`observe`."""
    sectors = out.shape[0] - first
    for s in range(sectors):
        _put(out, first + s, sector_value(sector_range(ranges, beams, sectors, s, max_range)),
             noise, noise_std, low, high)
