"""One vehicle's onboard step, compiled: its sensors sample the true state, then the EKF
takes their new samples. The PyBullet vehicles call it once per physics step
(:class:`~pyflyt_like.core.abstractions.sensors.Sensors`,
:class:`~pyflyt_like.core.abstractions.estimator.OnboardEstimator`): a Python sensor suite
and a numpy filter cost ~10 times the physics step, this costs a few microseconds.

The models are those of :mod:`pyflyt_like.sensors` and the filter's maths those of
:mod:`pyflyt_like.estimation.ekf_maths`, compiled (:mod:`.sensor_models`, :mod:`.ekf`);
what is written here is only the order of the calls, the same as
:class:`pyflyt_like.sensors.SensorSuite` (the schedule of :mod:`pyflyt_like.sensors.schedule`,
in the order imu, baro, mag, gnss) and
:meth:`pyflyt_like.estimation.ErrorStateEkf.feed` (a new IMU sample predicts from the last
one with the mean of the two; then GNSS with a fix, barometer, magnetometer update).

Arrays of the sensors: ``periods`` (5,) int64 [physics steps] in the order imu, baro, mag,
gnss, range (0: not sampled here; the PyBullet rangefinder ray-tests in Python) and their
``countdown`` (5,) float (:func:`~pyflyt_like.sensors.schedule.sample_due`); per model
its ``coefficients`` and ``state`` (empty when not configured) and the GNSS ``ring``;
``normals`` (4, capacity) the standard normal draws of the imu, baro, mag and gnss samples
to come, each row consumed from ``cursors[i]``; ``previous`` (6,) the velocity [m/s, world]
and body rates [rad/s] of the previous call; ``readings`` (20,) the latest readings in the
flat layout of :mod:`pyflyt_like.common.sensor_readings`; ``times`` (5,) their sample times
[s] (NaN before the first).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pyflyt_like.common.sensor_readings import (
    ACCEL,
    ALTITUDE,
    BARO,
    FIELD,
    FIX,
    GNSS,
    GYRO,
    IMU,
    MAG,
    POSITION,
    PRESSURE,
    VELOCITY,
)
from pyflyt_like.sensors import barometer, gnss, imu, magnetometer

from .ekf import predict, update_baro, update_gnss, update_mag
from .rotations import quat_to_euler, quat_to_matrix
from .sensor_models import baro_sample, gnss_sample, imu_sample, mag_sample, sample_due

#: Bits of the mask :func:`sample_sensors` returns: the sensors that sampled.
IMU_BIT, BARO_BIT, MAG_BIT, GNSS_BIT = 1, 2, 4, 8

_OPTIONS = dict(cache=True, error_model="numpy")


@njit(**_OPTIONS)
def _draws(normals, cursors, i, count):
    """The next ``count`` draws of row ``i`` (a view), the cursor moved past them."""
    start = cursors[i]
    cursors[i] = start + count
    return normals[i, start:start + count]


@njit(**_OPTIONS)
def sample_sensors(k, at_reset, state, vel, quat, physics_hz, gravity, periods, countdown,
                   c_imu, c_baro, c_mag, c_gnss, s_imu, s_baro, s_mag, s_gnss, ring, normals,
                   cursors, previous, readings, times):
    """Sample the sensors due after physics step ``k`` (since the reset) of the true state:
    ``state`` (4, 3) in the Aviary's layout (body rates [rad/s], Euler angles, body velocity,
    position [m]), ``vel`` (3,) [m/s, world], ``quat`` (4,) (x, y, z, w), an array or a
    tuple; ``physics_hz`` the physics rate [Hz] (a sample's time is ``k / physics_hz``
    [s]). The acceleration and body-rate derivative are the differences from
    ``previous`` over the physics period (0 ``at_reset``). Returns the mask of the sensors
    that sampled (:data:`IMU_BIT`, ...)."""
    pos, rates = state[3], state[0]
    accel = np.empty(3)
    rates_dot = np.empty(3)
    for i in range(3):
        if at_reset:
            accel[i] = 0.0
            rates_dot[i] = 0.0
        else:
            accel[i] = (vel[i] - previous[i]) * physics_hz
            rates_dot[i] = (rates[i] - previous[3 + i]) * physics_hz
        previous[i] = vel[i]
        previous[3 + i] = rates[i]
    time = k / physics_hz
    mask = 0
    if sample_due(periods, countdown, IMU, at_reset):
        imu_sample(c_imu, accel, quat, rates, rates_dot, gravity,
                   _draws(normals, cursors, IMU, imu.SAMPLE_DRAWS), s_imu,
                   readings[ACCEL:ACCEL + 3], readings[GYRO:GYRO + 3])
        times[IMU] = time
        mask |= IMU_BIT
    if sample_due(periods, countdown, BARO, at_reset):
        baro_sample(c_baro, pos[2], _draws(normals, cursors, BARO, barometer.SAMPLE_DRAWS),
                    s_baro, readings[PRESSURE:PRESSURE + 2])
        times[BARO] = time
        mask |= BARO_BIT
    if sample_due(periods, countdown, MAG, at_reset):
        mag_sample(c_mag, quat, _draws(normals, cursors, MAG, magnetometer.SAMPLE_DRAWS),
                   s_mag, readings[FIELD:FIELD + 3])
        times[MAG] = time
        mask |= MAG_BIT
    if sample_due(periods, countdown, GNSS, at_reset):
        fix = gnss_sample(c_gnss, pos, vel, _draws(normals, cursors, GNSS, gnss.SAMPLE_DRAWS),
                          s_gnss, ring, readings[POSITION:POSITION + 3],
                          readings[VELOCITY:VELOCITY + 3])
        readings[FIX] = 1.0 if fix else 0.0
        times[GNSS] = time
        mask |= GNSS_BIT
    return mask


@njit(**_OPTIONS)
def feed_ekf(mask, readings, times, x, cov, last_imu, mount, gravity, noise, ibb, drift_tau,
             drift_m, lag, r_gnss, ground_altitude, r_baro, world_field, hard_iron, r_mag,
             ibm, use_baro, use_mag, snapshot):
    """Feed the EKF (``x``, ``cov``: :mod:`pyflyt_like.estimation.ekf_maths`) the samples of
    ``mask``, then write the estimate's ``snapshot`` (28,) (:func:`write_snapshot`).

    ``last_imu`` (7,): the last IMU sample fed (accel 3, gyro 3) and its time [s] (NaN:
    none yet). The other arguments are the filter's constants, as
    :class:`~pyflyt_like.estimation.ErrorStateEkf` holds them.
    """
    if mask & IMU_BIT:
        time = times[IMU]
        if not math.isnan(last_imu[6]) and time > last_imu[6]:
            mean = np.empty(6)  # accel, gyro: one temporary, not four
            for i in range(6):
                mean[i] = 0.5 * (readings[ACCEL + i] + last_imu[i])
            predict(x, cov, mean[0:3], mean[3:6], time - last_imu[6], mount, gravity, noise,
                    ibb, drift_tau, drift_m, True)
        last_imu[0:6] = readings[ACCEL:ACCEL + 6]
        last_imu[6] = time
    if mask & GNSS_BIT and readings[FIX] > 0.5:
        update_gnss(x, cov, readings[POSITION:POSITION + 3], readings[VELOCITY:VELOCITY + 3],
                    lag, r_gnss, ibm, ibb)
    if use_baro and mask & BARO_BIT:
        update_baro(x, cov, readings[ALTITUDE], ground_altitude, r_baro, ibm, ibb)
    if use_mag and mask & MAG_BIT:
        update_mag(x, cov, readings[FIELD:FIELD + 3], world_field, hard_iron, r_mag, ibm, ibb)
    write_snapshot(x, readings[GYRO:GYRO + 3], mount, snapshot)


@njit(**_OPTIONS)
def write_snapshot(x, gyro, mount, snapshot):
    """The estimate as a control-state snapshot (28,), the layout of the PyBullet vehicles'
    control state (``SNAPSHOT_SIZE`` of ``pyflyt_like.core.abstractions.estimator``): body
    rates (3) [rad/s], roll, pitch, yaw (3) [rad], body velocity (3) [m/s], position (3) [m],
    rotation (9) row-major body to world, world velocity (3) [m/s], quaternion (4). The body
    rates are the latest ``gyro`` sample (3,) turned into the body frame by ``mount``
    (3, 3), minus the estimated bias."""
    r = quat_to_matrix(x[6], x[7], x[8], x[9])
    for i in range(3):
        snapshot[i] = (mount[i, 0] * gyro[0] + mount[i, 1] * gyro[1] + mount[i, 2] * gyro[2]
                       - x[13 + i])
    roll, pitch, yaw = quat_to_euler(x[6], x[7], x[8], x[9])
    snapshot[3], snapshot[4], snapshot[5] = roll, pitch, yaw
    for i in range(3):  # R^T v, then the position
        snapshot[6 + i] = r[i] * x[3] + r[3 + i] * x[4] + r[6 + i] * x[5]
        snapshot[9 + i] = x[i]
    for i in range(9):
        snapshot[12 + i] = r[i]
    for i in range(3):
        snapshot[21 + i] = x[3 + i]
    for i in range(4):
        snapshot[24 + i] = x[6 + i]


# ---------------------------------------------------------------- one call per physics step
# A compiled call unboxes each array argument (~50 ns apiece), more than the sampling
# itself for the forty-odd arrays of sensors and filter: a vehicle's arrays live in one
# float64 and one int64 buffer instead, as blocks at the rows of a layout table (start,
# rows, columns), and the call takes the two buffers and the table.

#: The float blocks, in order: the scalars (:data:`SCALARS`), per sensor (imu, baro, mag,
#: gnss) its coefficients then its state, the GNSS ring, normals, previous, readings,
#: times, countdown; then the EKF's (empty without one): x, cov, last_imu, mount, process
#: noise, r_gnss, world field, hard iron, r_mag, snapshot.
FLOAT_BLOCKS = ("scalars", "c_imu", "c_baro", "c_mag", "c_gnss", "s_imu", "s_baro", "s_mag",
                "s_gnss", "ring", "normals", "previous", "readings", "times", "countdown", "x",
                "cov", "last_imu", "mount", "noise", "r_gnss", "world_field", "hard_iron",
                "r_mag", "snapshot")
#: The int blocks: sensor periods (5,), draw cursors (4,), flags (:data:`FLAGS`).
INT_BLOCKS = ("periods", "cursors", "flags")
#: The float scalars block: physics rate [Hz], gravity [m/s^2] (the sensors'), the filter's
#: gravity [m/s^2], barometer drift time constant [s] and sigma [m], GNSS latency [s],
#: ground altitude [m], barometer variance [m^2].
SCALARS = ("physics_hz", "gravity", "filter_gravity", "drift_tau", "drift_m", "lag",
           "ground_altitude", "r_baro")
#: The int flags block: whether an EKF is fed, its ibb and ibm, whether it fuses the
#: barometer and the magnetometer.
FLAGS = ("with_ekf", "ibb", "ibm", "use_baro", "use_mag")


(_SCALARS, _C_IMU, _C_BARO, _C_MAG, _C_GNSS, _S_IMU, _S_BARO, _S_MAG, _S_GNSS, _RING, _NORMALS,
 _PREVIOUS, _READINGS, _TIMES, _COUNTDOWN, _X, _COV, _LAST_IMU, _MOUNT, _NOISE, _R_GNSS,
 _WORLD_FIELD, _HARD_IRON, _R_MAG, _SNAPSHOT, _PERIODS, _CURSORS,
 _FLAGS) = range(len(FLOAT_BLOCKS) + len(INT_BLOCKS))


def pack_blocks(blocks: list[np.ndarray], dtype) -> tuple[np.ndarray, np.ndarray,
                                                          list[np.ndarray]]:
    """Copy ``blocks`` (1-D or 2-D arrays) into one new buffer of ``dtype``.

    Returns the buffer, its layout (len(blocks), 3) int64 (start, rows, columns; a 1-D
    block of size n is n rows of 1 column) and views of the buffer shaped like the blocks,
    holding their values."""
    layout = np.zeros((len(blocks), 3), np.int64)
    start = 0
    for b, block in enumerate(blocks):
        rows, cols = (block.shape[0], 1) if block.ndim == 1 else block.shape
        layout[b] = start, rows, cols
        start += rows * cols
    buffer = np.zeros(start, dtype)
    views = []
    for block, (first, rows, cols) in zip(blocks, layout):
        view = buffer[first:first + rows * cols].reshape(block.shape)
        view[...] = block
        views.append(view)
    return buffer, layout, views


@njit(**_OPTIONS)
def _vector(buffer, layout, b):
    first = layout[b, 0]
    return buffer[first:first + layout[b, 1] * layout[b, 2]]


@njit(**_OPTIONS)
def _matrix(buffer, layout, b):
    return _vector(buffer, layout, b).reshape((layout[b, 1], layout[b, 2]))


@njit(**_OPTIONS)
def onboard_step(k, at_reset, state, vel, quat, floats, ints, layout):
    """A vehicle's onboard step after physics step ``k``: :func:`sample_sensors`, then,
    with an EKF, :func:`feed_ekf` with what sampled. ``state``, ``vel``, ``quat`` as
    :func:`sample_sensors` takes them; the rest in ``floats`` and ``ints``, the blocks of
    :data:`FLOAT_BLOCKS` and :data:`INT_BLOCKS` at the rows of ``layout`` (float blocks
    first; :func:`pack_blocks`). Returns the mask of the sensors that sampled."""
    f, i = floats, ints
    scalars = _vector(f, layout, _SCALARS)
    flags = _vector(i, layout, _FLAGS)
    readings = _vector(f, layout, _READINGS)
    times = _vector(f, layout, _TIMES)
    mask = sample_sensors(
        k, at_reset, state, vel, quat, scalars[0], scalars[1], _vector(i, layout, _PERIODS),
        _vector(f, layout, _COUNTDOWN), _vector(f, layout, _C_IMU),
        _vector(f, layout, _C_BARO), _vector(f, layout, _C_MAG),
        _vector(f, layout, _C_GNSS), _vector(f, layout, _S_IMU), _vector(f, layout, _S_BARO),
        _vector(f, layout, _S_MAG), _vector(f, layout, _S_GNSS), _matrix(f, layout, _RING),
        _matrix(f, layout, _NORMALS), _vector(i, layout, _CURSORS),
        _vector(f, layout, _PREVIOUS), readings, times)
    if flags[0]:
        feed_ekf(mask, readings, times, _vector(f, layout, _X), _matrix(f, layout, _COV),
                 _vector(f, layout, _LAST_IMU), _matrix(f, layout, _MOUNT), scalars[2],
                 _vector(f, layout, _NOISE), flags[1], scalars[3], scalars[4], scalars[5],
                 _matrix(f, layout, _R_GNSS), scalars[6], scalars[7],
                 _vector(f, layout, _WORLD_FIELD), _vector(f, layout, _HARD_IRON),
                 _matrix(f, layout, _R_MAG), flags[2], flags[3] != 0, flags[4] != 0,
                 _vector(f, layout, _SNAPSHOT))
    return mask
