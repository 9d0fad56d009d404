"""Sensors on the batched engine: the models of :mod:`pyflyt_like.sensors` as a pipeline stage.

Every drone of every world carries the same sensors (``BatchedAviary(..., sensors=config)``,
the configuration of :func:`pyflyt_like.sensors.resolve_sensors`). Their arrays live in the
family's state named tuple (fields :data:`SENSOR_FIELDS`, empty behind their world axes
without sensors), since
the stages' signature ``(state, plant, nominal, config, mode, w, noise, step_index)`` passes
nothing else that a step writes into:

- ``sensor_periods`` (5,) int64: each sensor's sample period in physics steps, in
  :data:`~pyflyt_like.sensors.config.SENSOR_NAMES` order; 0 where not configured;
- ``sensor_coefficients`` (:data:`COEFFICIENT_SIZE`,): every configured sensor's
  ``coefficients`` at its offset (:data:`COEFFICIENT_OFFSETS`);
- ``sensor_state`` (W, D, :data:`STATE_SIZE`): the models' states (IMU 31, barometer 1,
  magnetometer 3, GNSS 4), then the velocity [m/s, world] and body rates [rad/s] of the
  previous physics step, whose differences give the acceleration and its angular twin;
- ``sensor_ring`` (W, D, latency + 1, 7): the GNSS latency ring ((W, D, 0, 7) without GNSS);
- ``sensor_readings`` (W, D, :data:`READINGS_SIZE`): the latest readings, in the layout
  of :mod:`pyflyt_like.common.sensor_readings`;
- ``sensor_times`` (W, 5): each sensor's last sample time [s] since the world's reset, NaN
  before the first sample;
- ``sensor_streams`` (W,) uint64: each world's SplitMix64 stream
  (:mod:`~pyflyt_like.batch.world_random`), from which its units and noise are drawn;
- ``sensor_countdown`` (W, 5): per world, each sensor's countdown of physics steps to its
  next sample (:func:`pyflyt_like.sensors.schedule.sample_due`);
- ``sensor_scratch`` (W, 30): per world, the normal draws and the derivatives of the sample
  at hand (a row per thread would need numba's thread id, which cached code cannot call:
  it crashes when loaded from the cache in another process).

Truth fed to the models, as the PyBullet ``Sensors`` component: position, velocity,
quaternion and body rates after the physics step (the stage runs after ``floor``);
acceleration [m/s^2, world] and body-rate derivative [rad/s^2] are the differences over the
step divided by its period, exact for what the integrator and the floor applied. A reset
draws new units and samples the reset state at t = 0 with both derivatives 0. Then a sensor
samples after physics step ``k`` (counted from the reset) when ``k % period == 0``, its
``time`` ``k * dt``. The rangefinder's ray meets the floor plane ``z = floor_height``, the
plane the batched floor holds the centre of mass on (docs/sensors.md).

Random numbers: standard normal draws by the ziggurat
(:func:`~pyflyt_like.batch.world_random.fill_ziggurat_normals`; Box-Muller's made the IMU's
draws cost three times the physics step) on each world's SplitMix64 stream. Per world, in a
fixed order: at a reset, for each drone, the reset draws of the IMU, barometer,
magnetometer and GNSS (those configured); at each physics step, for each drone, the sample
draws of the sensors due, in :data:`SENSOR_NAMES` order, the IMU's as many as its sample
takes (:func:`pyflyt_like.sensors.imu.sample_draws`: its white noise's 6, then its bias
random walk's 6 when it steps). A world's readings therefore depend on its stream only, not
on the thread that ran it nor on W.

Cost: the stage is inlined into the kernels, the IMU's model with it
(``compile_shared(..., inline=True)``), the draws with literal counts (the compiler unrolls
them); whether a sensor is due is told by a countdown, not an integer division per world and
step (:mod:`pyflyt_like.sensors.schedule`, the schedule of both engines).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace

import numpy as np
from numba import njit

from pyflyt_like.common.sensor_readings import (
    ACCEL,
    BARO,
    DISTANCE,
    FIELD,
    FIX,
    GNSS,
    GYRO,
    IMU,
    MAG,
    POSITION,
    PRESSURE,
    RANGE,
    READINGS,
    READINGS_SIZE,
    VALID,
    VELOCITY,
)
from pyflyt_like.compiled import rotations as r
from pyflyt_like.compiled.jit import compile_shared
from pyflyt_like.compiled.sensor_models import (
    baro_reset,
    baro_sample,
    gnss_reset,
    gnss_sample,
    imu_reset,
    mag_reset,
    mag_sample,
    range_sample_truth,
    sample_due,
)
from pyflyt_like.sensors import barometer, gnss, imu, magnetometer, noise, rangefinder
from pyflyt_like.sensors.config import (
    RAY_SENSOR_NAMES,
    SENSOR_MODELS,
    SENSOR_NAMES,
    sensor_periods,
)
from pyflyt_like.sensors.params import SensorParams

from .ray_sensors import (
    RAY_CONSTANTS,
    RAY_FIELDS,
    rangefinder_truth,
    read_ray_sensors,
    reset_ray_world,
    scan_world,
    zeros_ray_arrays,
)
from .world_random import fill_ziggurat_normals

#: The sensor fields of a family's state named tuple, in order.
SENSOR_FIELDS = ("sensor_periods", "sensor_coefficients", "sensor_state", "sensor_ring",
                 "sensor_readings", "sensor_times", "sensor_streams", "sensor_countdown",
                 "sensor_scratch", *RAY_FIELDS)

#: The sensor fields that are the engine's, shared by every world (no world axis); the
#: others lead with (W, D) or (W,).
SENSOR_CONSTANTS = ("sensor_periods", "sensor_coefficients", *RAY_CONSTANTS)

# The model modules in SENSOR_NAMES order (IMU, BARO, ... index them).
_MODULES = tuple(SENSOR_MODELS[name][0] for name in SENSOR_NAMES)


def _offsets(sizes: list[int]) -> tuple[int, ...]:
    """Where each block of ``sizes`` starts when laid end to end, then the total."""
    return tuple(int(x) for x in np.cumsum([0, *sizes]))


# Where each sensor's coefficients start in sensor_coefficients (SENSOR_NAMES order).
*COEFFICIENT_OFFSETS, COEFFICIENT_SIZE = _offsets([m.COEFFICIENT_SIZE for m in _MODULES])
COEFFICIENT_OFFSETS = tuple(COEFFICIENT_OFFSETS)
IMU_C, BARO_C, MAG_C, GNSS_C, RANGE_C = COEFFICIENT_OFFSETS

# Where each model's state starts in a drone's sensor_state (the rangefinder has none), then
# the previous step's truth.
IMU_S, BARO_S, MAG_S, GNSS_S, PREVIOUS_VEL = _offsets(
    [m.STATE_SIZE for m in _MODULES[IMU:GNSS + 1]])
PREVIOUS_RATES = PREVIOUS_VEL + 3
STATE_SIZE = PREVIOUS_RATES + 3

# Scratch per world: the normal draws of one sample (the IMU's reset takes the most), then
# the acceleration and the body-rate derivative fed to the IMU.
NORMALS, ACCELERATION, RATES_DOT = 0, 24, 27
SCRATCH_SIZE = 30


# ------------------------------------------------------------------ the IMU, inlined
# The IMU samples every physics step, and its sample called with a dozen array views cost
# 5 ns more per drone-step than inlined (of about 20): inlined into the sensors stage.
_saturate_quantise = compile_shared(noise.saturate_quantise, inline=True)
_specific_force = compile_shared(imu.specific_force, r.quat_to_matrix,
                                 r.transpose_times_vector, r.cross, inline=True)
_measure = compile_shared(imu.measure, _saturate_quantise, inline=True)
imu_sample = compile_shared(imu.sample, _specific_force, _measure, r.transpose_times_vector,
                            inline=True)
imu_sample_draws = compile_shared(imu.sample_draws, inline=True)


# ------------------------------------------------------------------ arrays (Python)
def zeros_sensor_arrays(n_worlds: int, n_drones: int,
                        params: Mapping[str, SensorParams] | None = None
                        ) -> dict[str, np.ndarray]:
    """The sensor fields of a state for ``params`` (resolved configuration, sensor name ->
    parameters; None or {}: no sensors, every per-world array empty behind its (W, D)
    or (W,) axes), allocated once:
    coefficients and periods filled, the rest zeros (times NaN) until the first reset."""
    params = dict(params or {})
    periods = sensor_periods(params)
    coefficients = np.zeros(COEFFICIENT_SIZE)
    for i, name in enumerate(SENSOR_NAMES):
        if name in params:
            offset = COEFFICIENT_OFFSETS[i]
            coefficients[offset:offset + _MODULES[i].COEFFICIENT_SIZE] = \
                params[name].coefficients
    # Without sensors the per-world arrays keep their leading (W, D) axes, as every state
    # array does, with nothing behind them.
    on = 1 if params else 0
    w, d = n_worlds, n_drones
    slots = params["gnss"].latency + 1 if "gnss" in params else 0
    return dict(
        sensor_periods=periods, sensor_coefficients=coefficients,
        sensor_state=np.zeros((w, d, on * STATE_SIZE)),
        sensor_ring=np.zeros((w, d, slots, gnss.RING_WIDTH)),
        sensor_readings=np.zeros((w, d, on * READINGS_SIZE)),
        sensor_times=np.full((w, on * len(SENSOR_NAMES)), np.nan),
        sensor_streams=np.zeros(w, np.uint64),
        sensor_countdown=np.zeros((w, on * len(SENSOR_NAMES))),
        sensor_scratch=np.zeros((w, on * SCRATCH_SIZE)),
        **zeros_ray_arrays(w, d, params))


def sensor_layout_bytes(params: Mapping[str, SensorParams] | None) -> tuple[int, int]:
    """(per_world, per_drone) bytes of the sensor arrays for ``params``, measured on the
    layout (one world of one and of two drones)."""
    def total(n_drones: int) -> int:
        return sum(a.nbytes for a in zeros_sensor_arrays(1, n_drones, params).values())

    per_drone = total(2) - total(1)
    return total(1) - per_drone, per_drone


def sensor_read_bytes(params: Mapping[str, SensorParams] | None) -> tuple[int, int]:
    """(per_world, per_drone) bytes of the copies :func:`read_sensors` returns for
    ``params`` (as much again as the readings, a LiDAR's or a depth camera's rays included),
    a transient of the engine's ``read_sensors``, measured on the layout (one world of one
    and of two drones); (0, 0) without sensors."""
    if not params:
        return 0, 0

    def total(n_drones: int) -> int:
        state = SimpleNamespace(**zeros_sensor_arrays(1, n_drones, params))
        return sum(array.nbytes for entry in read_sensors(state, params).values()
                   for array in entry.values())

    per_drone = total(2) - total(1)
    return total(1) - per_drone, per_drone


def read_sensors(state, params: Mapping[str, SensorParams]) -> dict[str, dict[str, np.ndarray]]:
    """The latest readings of the configured sensors, copies with leading axes (W, D):
    ``time`` (W, D) [s] and each reading (W, D) or (W, D, 3), fix and valid as bools."""
    readings, times = state.sensor_readings, state.sensor_times
    n_worlds, n_drones = readings.shape[:2]
    out: dict[str, dict[str, np.ndarray]] = {}
    for i, name in enumerate(SENSOR_NAMES):
        if name not in params:
            continue
        entry = {"time": np.repeat(times[:, i, None], n_drones, axis=1)}
        for key, (start, width, kind) in READINGS[name].items():
            values = readings[..., start] if width == 1 else readings[..., start:start + width]
            entry[key] = values > 0.5 if kind is bool else values.copy()
        out[name] = entry
    out.update(read_ray_sensors(state, params))
    return out


def sensing_switches(params: Mapping[str, SensorParams] | None, world: bool
                     ) -> tuple[bool | None, bool | None] | None:
    """The kernels' ``sensing`` argument for an engine carrying the sensors ``params``
    (resolved; None or {}: none), among obstacles if ``world``: None with neither (the
    obstacles and sensors stages are not compiled), else ``(points, rays)``: ``points``
    True if it carries one of the point sensors (:data:`SENSOR_NAMES`: IMU, barometer,
    magnetometer, GNSS, rangefinder), ``rays`` True if one of the ray sensors
    (:data:`~pyflyt_like.sensors.config.RAY_SENSOR_NAMES`: LiDAR, depth camera), None where
    not: numba compiles the stage and the reset without those (``Multirotor-Navigate-v0``,
    a LiDAR among obstacles, compiles no IMU, barometer, magnetometer, GNSS nor
    rangefinder code)."""
    params = params or {}
    points = True if any(name in params for name in SENSOR_NAMES) else None
    rays = True if any(name in params for name in RAY_SENSOR_NAMES) else None
    if points is None and rays is None and not world:
        return None
    return points, rays


# ------------------------------------------------------------------ the stage (compiled)
_INLINE = dict(cache=True, _nrt=False, error_model="numpy", inline="always")


@njit(**_INLINE)
def _sample_points(state, config, w, k, at_reset):
    """Sample the due point sensors of every drone of world ``w`` after its physics step
    ``k`` (since the reset; ``at_reset``: the reset state at k = 0, derivatives 0), then
    remember the velocities and rates for the next step's differences. Called at the reset
    and after every physics step: the countdowns count the calls."""
    periods, c = state.sensor_periods, state.sensor_coefficients
    streams, scratch = state.sensor_streams, state.sensor_scratch[w]
    normals = scratch[NORMALS:NORMALS + 24]
    accel = scratch[ACCELERATION:ACCELERATION + 3]
    rates_dot = scratch[RATES_DOT:RATES_DOT + 3]
    gravity, dt = config.gravity, config.dt
    time = k * dt
    rate = 1.0 / dt  # [Hz]: one division per world and step, the six differences multiply
    countdown = state.sensor_countdown[w]
    due_imu = sample_due(periods, countdown, IMU, at_reset)
    due_baro = sample_due(periods, countdown, BARO, at_reset)
    due_mag = sample_due(periods, countdown, MAG, at_reset)
    due_gnss = sample_due(periods, countdown, GNSS, at_reset)
    due_range = sample_due(periods, countdown, RANGE, at_reset)
    for d in range(state.pos.shape[1]):
        s, out = state.sensor_state[w, d], state.sensor_readings[w, d]
        pos, quat = state.pos[w, d], state.quat[w, d]
        vel, rates = state.vel[w, d], state.ang_vel[w, d]
        if due_imu:
            for i in range(3):
                if at_reset:
                    accel[i] = 0.0
                    rates_dot[i] = 0.0
                else:
                    accel[i] = (vel[i] - s[PREVIOUS_VEL + i]) * rate
                    rates_dot[i] = (rates[i] - s[PREVIOUS_RATES + i]) * rate
            # the white noise's 6 draws, then the walk's 6 when it steps (every 20 ms,
            # imu.WALK_INTERVAL); literal counts: the compiler unrolls the draws
            fill_ziggurat_normals(streams, w, normals, imu.WHITE_DRAWS)
            if imu_sample_draws(c[IMU_C:BARO_C], s[IMU_S:BARO_S]) > imu.WHITE_DRAWS:
                fill_ziggurat_normals(streams, w, normals[imu.WHITE_DRAWS:imu.SAMPLE_DRAWS],
                                      imu.SAMPLE_DRAWS - imu.WHITE_DRAWS)
            imu_sample(c[IMU_C:BARO_C], accel, quat, rates, rates_dot, gravity,
                       normals[0:imu.SAMPLE_DRAWS], s[IMU_S:BARO_S], out[ACCEL:ACCEL + 3],
                       out[GYRO:GYRO + 3])
        if due_baro:
            fill_ziggurat_normals(streams, w, normals, barometer.SAMPLE_DRAWS)
            baro_sample(c[BARO_C:MAG_C], pos[2], normals[0:barometer.SAMPLE_DRAWS],
                        s[BARO_S:MAG_S], out[PRESSURE:PRESSURE + 2])
        if due_mag:
            fill_ziggurat_normals(streams, w, normals, magnetometer.SAMPLE_DRAWS)
            mag_sample(c[MAG_C:GNSS_C], quat, normals[0:magnetometer.SAMPLE_DRAWS],
                       s[MAG_S:GNSS_S], out[FIELD:FIELD + 3])
        if due_gnss:
            fill_ziggurat_normals(streams, w, normals, gnss.SAMPLE_DRAWS)
            fix = gnss_sample(c[GNSS_C:RANGE_C], pos, vel, normals[0:gnss.SAMPLE_DRAWS],
                              s[GNSS_S:PREVIOUS_VEL], state.sensor_ring[w, d],
                              out[POSITION:POSITION + 3], out[VELOCITY:VELOCITY + 3])
            out[FIX] = 1.0 if fix else 0.0
        if due_range:
            fill_ziggurat_normals(streams, w, normals, rangefinder.SAMPLE_DRAWS)
            truth = rangefinder_truth(config, state.world_layout[w], pos, quat,
                                      c[RANGE_C + rangefinder.MAX_RANGE])
            distance, valid = range_sample_truth(c[RANGE_C:COEFFICIENT_SIZE], truth,
                                                 normals[0:rangefinder.SAMPLE_DRAWS])
            out[DISTANCE] = distance
            out[VALID] = 1.0 if valid else 0.0
        for i in range(3):
            s[PREVIOUS_VEL + i] = vel[i]
            s[PREVIOUS_RATES + i] = rates[i]
    times = state.sensor_times[w]
    if due_imu:
        times[IMU] = time
    if due_baro:
        times[BARO] = time
    if due_mag:
        times[MAG] = time
    if due_gnss:
        times[GNSS] = time
    if due_range:
        times[RANGE] = time


@njit(**_INLINE)
def sample_world(state, config, w, k, at_reset, points, rays):
    """Sample the due sensors of every drone of world ``w`` after its physics step ``k``
    (since the reset; ``at_reset``: the reset state at k = 0): the point sensors unless
    ``points`` is None, the ray sensors unless ``rays`` is None (:func:`sensing_switches`;
    None: not compiled)."""
    if points is not None:
        _sample_points(state, config, w, k, at_reset)
    if rays is not None and state.ray_countdown.shape[1] > 0:
        scan_world(state, config, w, k * config.dt, at_reset)


@njit(**_INLINE)
def sense(state, config, w, points, rays):
    """The sensors stage of world ``w``: sample what is due after the current physics step
    (before the clock counts it), with ``config``'s gravity, period, floor and obstacle
    layouts. Nothing without sensors (empty scratch). ``points``, ``rays``: the switches of
    :func:`sensing_switches`."""
    if state.sensor_scratch.shape[1] == 0:
        return
    sample_world(state, config, w, state.steps[w] + 1, False, points, rays)


@njit(**_INLINE)
def _reset_points(state, w, d):
    """The reset draws of drone (w, d)'s configured point sensors."""
    periods, c = state.sensor_periods, state.sensor_coefficients
    streams = state.sensor_streams
    normals = state.sensor_scratch[w, NORMALS:NORMALS + 24]
    s = state.sensor_state[w, d]
    if periods[IMU] > 0:
        fill_ziggurat_normals(streams, w, normals, imu.RESET_DRAWS)
        imu_reset(c[IMU_C:BARO_C], normals[0:imu.RESET_DRAWS], s[IMU_S:BARO_S])
    if periods[BARO] > 0:
        fill_ziggurat_normals(streams, w, normals, barometer.RESET_DRAWS)
        baro_reset(c[BARO_C:MAG_C], normals[0:barometer.RESET_DRAWS], s[BARO_S:MAG_S])
    if periods[MAG] > 0:
        fill_ziggurat_normals(streams, w, normals, magnetometer.RESET_DRAWS)
        mag_reset(c[MAG_C:GNSS_C], normals[0:magnetometer.RESET_DRAWS], s[MAG_S:GNSS_S])
    if periods[GNSS] > 0:
        fill_ziggurat_normals(streams, w, normals, gnss.RESET_DRAWS)
        gnss_reset(c[GNSS_C:RANGE_C], normals[0:gnss.RESET_DRAWS], s[GNSS_S:PREVIOUS_VEL],
                   state.sensor_ring[w, d])


# not inlined: called at resets only, and an inlined copy of sample_world in every restart
# path of a task kernel tripled its compile time
@njit(cache=True, _nrt=False, error_model="numpy")
def reset_sensor_world(state, config, w, points, rays):
    """Draw world ``w``'s new units from its stream (per drone: the IMU's, barometer's,
    magnetometer's and GNSS's reset draws, those configured), forget its readings and
    sample the reset state at t = 0 with both derivatives 0. Nothing without sensors.
    ``points``, ``rays``: the switches of :func:`sensing_switches`."""
    if state.sensor_scratch.shape[1] == 0:
        return
    for d in range(state.pos.shape[1]):
        s = state.sensor_state[w, d]
        for i in range(s.shape[0]):
            s[i] = 0.0
        out = state.sensor_readings[w, d]
        for i in range(out.shape[0]):
            out[i] = 0.0
        if points is not None:
            _reset_points(state, w, d)
    times = state.sensor_times[w]
    for i in range(times.shape[0]):
        times[i] = np.nan
    if rays is not None:
        reset_ray_world(state, w)
    sample_world(state, config, w, 0, True, points, rays)


@njit(cache=True, _nrt=False, error_model="numpy")
def reset_sensor_worlds(state, config, worlds, points, rays):
    """:func:`reset_sensor_world` for each world of ``worlds`` (int64 indices)."""
    for w in worlds:
        reset_sensor_world(state, config, w, points, rays)
