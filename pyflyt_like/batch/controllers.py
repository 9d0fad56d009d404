"""The multirotor control laws of :mod:`pyflyt_like.control` and ``Multirotor``,
re-expressed for the compiled kernels: one drone per call, scalars in, rotor commands
written in place. Their thresholds and mode numbers are imported from their one home.

Same equations as the PyBullet path (the cross-validation tests guard that):

- body rates: PID (:class:`~pyflyt_like.control.pid.PID`: integral clamped to
  ``limits / ki``, derivative on the error and zero on the first tick, output clipped),
  torque ``J a + w x J w``;
- attitude: ``e_R = 1/2 (R_d^T R - R^T R_d)^v``, rates ``clip(-k e_R)``;
- position: Lee's geometric law with the flatness feed-forward
  (:mod:`~pyflyt_like.control.geometric`, :mod:`~pyflyt_like.control.flatness`);
- allocation: pseudo-inverse, and when a rotor saturates yaw gives way before roll and
  pitch, thrust last (:class:`~pyflyt_like.control.allocation.Allocator`; the largest
  torque scale that fits in the same closed form).

The controllers use the nominal vehicle (``Nominal``), never the randomised plant.
"""

from __future__ import annotations

import math

from numba import njit

from pyflyt_like.common.flight_modes import FlightMode
from pyflyt_like.compiled.control import pid_channel
from pyflyt_like.compiled.rotations import (
    cross,
    euler_to_matrix,
    times_vector,
    transpose_times,
    transpose_times_vector,
)
from pyflyt_like.control.flatness import MAX_REFERENCE, MIN_HEADING_COSINE, MIN_THRUST_PER_MASS


@njit(cache=True, _nrt=False, error_model="numpy")
def _clip(value, bound):
    return min(max(value, -bound), bound)  # min/max compile to branch-free instructions


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _pid_channel(nominal, integral, previous, fresh, i, error, period):
    """Channel ``i`` of the rate PID, one tick: the shared law
    (:func:`pyflyt_like.control.pid.pid_channel`) on the nominal's gains; updates
    ``integral[i]`` and ``previous[i]``."""
    value, integral[i], previous[i] = pid_channel(
        error, integral[i], previous[i], fresh, nominal.rate_kp[i], nominal.rate_ki[i],
        nominal.rate_kd[i], nominal.rate_limits[i], nominal.rate_integral_bound[i], period)
    return value


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def rate_torque(state, nominal, w, d, p_ref, q_ref, r_ref, period):
    """Body torque [N m] tracking body rates [rad/s]; advances the rate PID of (w, d)."""
    omega = state.ang_vel[w, d]
    integral, previous = state.rate_integral[w, d], state.rate_previous[w, d]
    fresh = state.rate_fresh[w, d]
    a_x = _pid_channel(nominal, integral, previous, fresh, 0, p_ref - omega[0], period)
    a_y = _pid_channel(nominal, integral, previous, fresh, 1, q_ref - omega[1], period)
    a_z = _pid_channel(nominal, integral, previous, fresh, 2, r_ref - omega[2], period)
    state.rate_fresh[w, d] = False
    j = nominal.inertia
    gx, gy, gz = cross(omega[0], omega[1], omega[2], j[0] * omega[0], j[1] * omega[1],
                       j[2] * omega[2])
    return j[0] * a_x + gx, j[1] * a_y + gy, j[2] * a_z + gz


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def attitude_targets(state, mode, w):
    """Before a fused call: the rotation of each drone's mode-1 Euler setpoint in world w
    (the setpoints hold over the call, so the trigonometry is done once, not every tick)."""
    if mode != FlightMode.ATTITUDE:
        return
    for d in range(state.setpoint.shape[1]):
        setpoint, target = state.setpoint[w, d], state.attitude_target[w, d]
        rotation = euler_to_matrix(setpoint[0], setpoint[1], setpoint[2])
        for i in range(9):
            target[i] = rotation[i]


@njit(cache=True, _nrt=False, error_model="numpy")
def attitude_rates(nominal, rotation, target):
    """Body-rate setpoint [rad/s] from the rotation error to ``target`` (9,), the row-major
    rotation of the Euler setpoint."""
    desired = (target[0], target[1], target[2], target[3], target[4], target[5], target[6],
               target[7], target[8])
    error = transpose_times(desired, rotation)  # R_d^T R
    ex = 0.5 * (error[7] - error[5])
    ey = 0.5 * (error[2] - error[6])
    ez = 0.5 * (error[3] - error[1])
    k, lim = nominal.angle_kp, nominal.angle_rate_limits
    return (_clip(-k[0] * ex, lim[0]), _clip(-k[1] * ey, lim[1]), _clip(-k[2] * ez, lim[2]))


@njit(cache=True, _nrt=False, error_model="numpy")
def _unit(x, y, z):
    norm = math.sqrt(x * x + y * y + z * z)
    if norm > 0.0:
        return x / norm, y / norm, z / norm, norm
    return x, y, z, norm


@njit(cache=True, _nrt=False, error_model="numpy")
def _attitude(fx, fy, fz, yaw):
    """Rotation with z along F and heading yaw; also |F| and |y_C x z_B| (flatness.py)."""
    ycx, ycy = -math.sin(yaw), math.cos(yaw)
    zx, zy, zz, force_norm = _unit(fx, fy, fz)
    cx, cy, cz = cross(ycx, ycy, 0.0, zx, zy, zz)
    xx, xy, xz, cross_norm = _unit(cx, cy, cz)
    yx, yy, yz = cross(zx, zy, zz, xx, xy, xz)
    return (xx, yx, zx, xy, yy, zy, xz, yz, zz), force_norm, cross_norm


@njit(cache=True, _nrt=False, error_model="numpy")
def flat_feedforward(ref, gravity):
    """Body rates and accelerations of the flat reference ``ref`` (18,) (Faessler et al.);
    zero for a reference in free fall (``set_flat_reference`` refuses one, but a mode-7
    setpoint at zero gravity is one), whose attitude, hence rates, are undefined."""
    rotation, c, c_3 = _attitude(ref[6], ref[7], ref[8] + gravity, ref[15])
    if c < MIN_THRUST_PER_MASS:
        return (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    yaw, yaw_rate, yaw_acc = ref[15], ref[16], ref[17]
    jx, jy, jz = transpose_times_vector(rotation, ref[9], ref[10], ref[11])
    sx, sy, _ = transpose_times_vector(rotation, ref[12], ref[13], ref[14])
    cos_yaw, sin_yaw = math.cos(yaw), math.sin(yaw)
    xcx, xcy, xcz = transpose_times_vector(rotation, cos_yaw, sin_yaw, 0.0)
    _, ycy, ycz = transpose_times_vector(rotation, -sin_yaw, cos_yaw, 0.0)
    b_3 = -ycz
    w_x = -jy / c
    w_y = jx / c
    w_z = (c * yaw_rate * xcx - b_3 * jx) / (c * c_3)
    e_1 = sx - 2.0 * jz * w_y - c * w_x * w_z
    e_2 = -sy - 2.0 * jz * w_x + c * w_y * w_z
    e_3 = (yaw_acc * xcx + 2.0 * yaw_rate * w_z * xcy - 2.0 * yaw_rate * w_y * xcz
           - w_x * w_y * ycy - w_x * w_z * ycz)
    return (w_x, w_y, w_z), (e_2 / c, e_1 / c, (c * e_3 - b_3 * e_1) / (c * c_3))


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def geometric_wrench(state, nominal, gravity, w, d, rotation, ref):
    """Mode 7: Lee's law for the flat reference ``ref`` (18,); returns (f, tx, ty, tz)."""
    omega_d, omega_dot_d = flat_feedforward(ref, gravity)
    pos, vel, omega = state.pos[w, d], state.vel[w, d], state.ang_vel[w, d]
    m = nominal.mass
    kp, kv = nominal.geo_kp, nominal.geo_kv
    fx = m * (ref[6] + kp[0] * (ref[0] - pos[0]) + kv[0] * (ref[3] - vel[0]))
    fy = m * (ref[7] + kp[1] * (ref[1] - pos[1]) + kv[1] * (ref[4] - vel[1]))
    fz = m * (ref[8] + kp[2] * (ref[2] - pos[2]) + kv[2] * (ref[5] - vel[2]) + gravity)
    yaw = ref[15]
    ax, ay, az = fx, fy, fz
    if math.sqrt(fx * fx + fy * fy + fz * fz) < MIN_THRUST_PER_MASS * m:
        ax, ay, az = rotation[2], rotation[5], rotation[8]
    rotation_d, _, heading_cosine = _attitude(ax, ay, az, yaw)
    if heading_cosine < MIN_HEADING_COSINE:  # rolled 90 degrees: build x from y instead
        zx, zy, zz = rotation_d[2], rotation_d[5], rotation_d[8]
        cx, cy, cz = cross(zx, zy, zz, math.cos(yaw), math.sin(yaw), 0.0)
        yx, yy, yz, _ = _unit(cx, cy, cz)
        xx, xy, xz = cross(yx, yy, yz, zx, zy, zz)
        rotation_d = (xx, yx, zx, xy, yy, zy, xz, yz, zz)
    relative = transpose_times(rotation, rotation_d)  # R^T R_d; its transpose is R_d^T R
    erx = 0.5 * (relative[5] - relative[7])
    ery = 0.5 * (relative[6] - relative[2])
    erz = 0.5 * (relative[1] - relative[3])
    rx, ry, rz = times_vector(relative, omega_d[0], omega_d[1], omega_d[2])
    ax_, ay_, az_ = times_vector(relative, omega_dot_d[0], omega_dot_d[1], omega_dot_d[2])
    ewx, ewy, ewz = omega[0] - rx, omega[1] - ry, omega[2] - rz
    thrust = fx * rotation[2] + fy * rotation[5] + fz * rotation[8]
    j = nominal.inertia
    gx, gy, gz = cross(omega[0], omega[1], omega[2], j[0] * omega[0], j[1] * omega[1],
                       j[2] * omega[2])
    cx, cy, cz = cross(omega[0], omega[1], omega[2], rx, ry, rz)
    kr, kw = nominal.geo_kr, nominal.geo_kw
    return (thrust,
            -kr[0] * erx - kw[0] * ewx + gx - j[0] * (cx - ax_),
            -kr[1] * ery - kw[1] * ewy + gy - j[1] * (cy - ay_),
            -kr[2] * erz - kw[2] * ewz + gz - j[2] * (cz - az_))


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _collective_range(nominal, tilt, tx, ty, yaw, tz):
    """Thrust interval [N] keeping ``tilt * u_rp + yaw * u_y + c u_1`` within the limits."""
    per, low, high = nominal.per_newton, nominal.low_newtons, nominal.high_newtons
    lower, upper = -math.inf, math.inf
    for i in range(per.shape[0]):
        part = tilt * (per[i, 1] * tx + per[i, 2] * ty) + yaw * per[i, 3] * tz
        lower = max(lower, low[i] - part)
        upper = min(upper, high[i] - part)
    return lower, upper


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _largest_scale(nominal, tx, ty, tz, scale_yaw):
    """Largest scale s in [0, 1] for which some collective fits (Allocator._largest_scale).

    Scaled is the yaw part of the torque (roll/pitch in full) if ``scale_yaw``, else the
    roll/pitch part (no yaw). In newtons of collective, rotor i allows collectives from
    ``low_i - b_i - s a_i`` to ``high_i - b_i - s a_i``; some collective fits when, for each
    pair (i, j), ``K_ij + s M_ij <= 0`` with ``K_ij = (low_i - b_i) - (high_j - b_j)`` and
    ``M_ij = a_j - a_i``. None fits at s = 0 if some K_ij > 0 (then 0); otherwise the pairs
    with M_ij > 0 bound s by -K_ij / M_ij. Closed form, as the core's Allocator.
    """
    per, low, high = nominal.per_newton, nominal.low_newtons, nominal.high_newtons
    n = per.shape[0]
    scale = 1.0
    for i in range(n):
        tilt_i = per[i, 1] * tx + per[i, 2] * ty
        b_i, a_i = (tilt_i, per[i, 3] * tz) if scale_yaw else (0.0, tilt_i)
        floor_i = low[i] - b_i
        for j in range(n):
            tilt_j = per[j, 1] * tx + per[j, 2] * ty
            b_j, a_j = (tilt_j, per[j, 3] * tz) if scale_yaw else (0.0, tilt_j)
            k = floor_i - (high[j] - b_j)
            if k > 0.0:
                return 0.0
            m = a_j - a_i
            if m > 0.0 and -k < scale * m:  # divide only for a smaller bound
                scale = -k / m
    return scale


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def allocate(nominal, command, thrust, tx, ty, tz):
    """Write into ``command`` (n,) the rotor speeds for the wrench [N, N m]."""
    bound = nominal.wrench_bound
    thrust, tx = _clip(thrust, bound[0]), _clip(tx, bound[1])
    ty, tz = _clip(ty, bound[2]), _clip(tz, bound[3])
    pinv, low, high = nominal.pinv, nominal.low, nominal.high
    n = pinv.shape[0]
    saturated = False
    for i in range(n):
        squared = pinv[i, 0] * thrust + pinv[i, 1] * tx + pinv[i, 2] * ty + pinv[i, 3] * tz
        command[i] = squared
        if squared < low[i] or squared > high[i]:
            saturated = True
    # inlined, though rare in flight: random actions saturate often, and as a call (its arrays
    # passed each time) Hover's VectorEnv stepped 7-10 % slower
    if saturated:
        yaw_scale = _largest_scale(nominal, tx, ty, tz, True)
        tilt_scale = 1.0 if yaw_scale > 0.0 else _largest_scale(nominal, tx, ty, tz, False)
        lower, upper = _collective_range(nominal, tilt_scale, tx, ty, yaw_scale, tz)
        collective = min(max(thrust, lower), upper)
        for i in range(n):
            squared = (tilt_scale * (pinv[i, 1] * tx + pinv[i, 2] * ty)
                       + yaw_scale * pinv[i, 3] * tz + collective * nominal.collective[i])
            command[i] = min(max(squared, low[i]), high[i])
    for i in range(n):
        command[i] = math.sqrt(command[i])


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def control_tick(state, nominal, config, mode, w, d, rotation, outer_loop):
    """One controller tick of drone (w, d) in ``mode``: new rotor commands; ``rotation`` is
    the drone's attitude matrix (row-major 9-tuple). ``outer_loop``: True in the position
    mode (the family's ``outer_loop_modes``); None compiles the tick without the geometric
    controller."""
    command = state.rotor_command[w, d]
    setpoint = state.setpoint[w, d]
    if mode == FlightMode.ACTUATORS:
        for i in range(command.shape[0]):
            command[i] = min(max(setpoint[i], nominal.min_speed[i]), nominal.max_speed[i])
        return
    if mode == FlightMode.THRUST_TORQUES:
        thrust, tx, ty, tz = setpoint[0], setpoint[1], setpoint[2], setpoint[3]
    elif outer_loop is not None and mode == FlightMode.POSITION:
        if state.use_reference[w, d]:
            ref = state.reference[w, d]
        else:
            ref = state.reference[w, d]
            for i in range(18):
                ref[i] = 0.0
            ref[0] = _clip(setpoint[0], MAX_REFERENCE)
            ref[1] = _clip(setpoint[1], MAX_REFERENCE)
            ref[2] = _clip(setpoint[3], MAX_REFERENCE)
            ref[15] = setpoint[2]
        thrust, tx, ty, tz = geometric_wrench(state, nominal, config.gravity, w, d, rotation,
                                              ref)
    else:
        if mode == FlightMode.RATES:
            p_ref, q_ref, r_ref = setpoint[0], setpoint[1], setpoint[2]
        else:
            p_ref, q_ref, r_ref = attitude_rates(nominal, rotation, state.attitude_target[w, d])
        tx, ty, tz = rate_torque(state, nominal, w, d, p_ref, q_ref, r_ref,
                                 config.control_period)
        thrust = setpoint[3]
    allocate(nominal, command, thrust, tx, ty, tz)  # one inlined copy for every mode
