"""Sensors: a vehicle's IMU, barometer, magnetometer, GNSS, rangefinder, LiDAR and depth
camera on the PyBullet path.

The component runs the engine-independent models of :mod:`pyflyt_like.sensors`, compiled,
on the true state of the drone's base after every physics step; the rangefinder, the LiDAR
and the depth camera ray-test the world (the last two through
:mod:`pyflyt_like.core.abstractions.lidar`). See docs/sensors.md ("On the PyBullet Aviary",
"LiDAR", "Depth camera").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pybullet

from pyflyt_like.common.sensor_readings import (
    DISTANCE,
    GNSS,
    IMU,
    RANGE,
    READINGS_SIZE,
    VALID,
    unpack_readings,
)
from pyflyt_like.sensors import (
    depth,
    gnss,
    lidar,
    rangefinder,
    resolve_sensors,
)
from pyflyt_like.sensors.config import (
    ALL_SENSOR_NAMES,
    SENSOR_MODELS,
    SENSOR_NAMES,
    sensor_periods,
)
from pyflyt_like.sensors.schedule import sample_due, samples_within

from .lidar import LidarCaster

#: The option's name in error messages.
OPTION = 'drone_options["sensors"]'

# A ray that starts inside the drone does not hit it, but one may still cross another of its
# links (a leg, a rotor below the base): it is cast on from just past such a hit, this many
# times at most, and this far past [m].
_SELF_HITS = 8
_SKIP = 1e-6

# The sensors the compiled step samples, in its order (the rangefinder is ray-tested here).
SAMPLED = SENSOR_NAMES[IMU:GNSS + 1]
_MODELS = {name: SENSOR_MODELS[name][0] for name in SAMPLED}
# Each sampled sensor's index in SENSOR_NAMES (its period) and in ALL_SENSOR_NAMES (its
# random stream), by name: a point sensor added after the rangefinder is sampled here too,
# and SAMPLED is then no prefix of either.
_PERIOD_INDEX = [SENSOR_NAMES.index(name) for name in SAMPLED]
_STREAM_INDEX = [ALL_SENSOR_NAMES.index(name) for name in SAMPLED]
# The LiDAR's and the depth camera's random streams: children number LIDAR and DEPTH of the
# spawned seed, as SensorSuite's.
LIDAR = ALL_SENSOR_NAMES.index("lidar")
DEPTH = ALL_SENSOR_NAMES.index("depth")
# Physics steps of normal draws taken at once (a numpy call per sensor per block).
BLOCK_STEPS = 256


class Sensors:
    """The sensors of one vehicle, fed the true state of its base each physics step.

    Per physics step (:meth:`state_update`, after the drone's state update) the component
    takes the drone's state — position [m] and velocity [m/s] of the centre of mass,
    quaternion (x, y, z, w), body rates [rad/s], as the drone read them from pybullet — and
    runs the models of :mod:`pyflyt_like.sensors` on it, compiled
    (:func:`pyflyt_like.compiled.onboard.sample_sensors`), with:

    - acceleration [m/s^2, world] = (v_k - v_{k-1}) / physics_period, the velocity change
      PyBullet's integrator applied over the step (exact: contacts and every force included);
    - body-rate derivative [rad/s^2] = (w_k - w_{k-1}) / physics_period, the same way.

    :meth:`reset` samples the reset state at t = 0 with both derivatives 0 (no step has been
    taken, so no acceleration is known: a drone released in free fall reads +g on that
    one sample); from the first physics step on they are exact. The readings are those a
    :class:`~pyflyt_like.sensors.SensorSuite` seeded alike gives for the same states, bit
    for bit: each sensor draws from its own generator, spawned from the reset's seed by
    sensor name, its draws taken in blocks ahead of the samples that use them.

    The rangefinder ray-tests the world (``rayTest``): from the base's position along the
    body -z axis, ``max_range`` long; the first body hit other than the drone itself (the
    floor, obstacles, other drones) gives the true range, measured from the base, so a
    level drone whose base is at height h above the floor reads h. Nothing hit within
    ``max_range``: an invalid reading of ``max_range``.

    The LiDAR casts its beams with one ``rayTestBatch`` per sample (per 16 383 rays), from
    its mounting point, never seeing the drone itself
    (:class:`~pyflyt_like.core.abstractions.lidar.LidarCaster`), and samples the ranges
    with :func:`pyflyt_like.sensors.lidar.sample_ranges`, drawing from its own generator
    (the sixth child of the reset's seed, as :class:`~pyflyt_like.sensors.SensorSuite`'s).

    The depth camera casts its pixels' rays the same way (a second
    :class:`~pyflyt_like.core.abstractions.lidar.LidarCaster`, ``cast_range`` far), turns
    the ranges into depths (:func:`pyflyt_like.sensors.depth.depths_from_ranges`) and
    samples them as the LiDAR's, drawing from its own generator (the seventh child).

    Args:
        p: the aviary (a pybullet BulletClient).
        physics_period: seconds per physics step (its inverse must be an integer [Hz]).
        np_random: the aviary's random generator; every :meth:`reset` draws the units
            (turn-on biases, drifts) and noise streams from it, so the aviary's seed fixes
            the sensor streams.
        drone: the vehicle; its ``Id``, ``state`` (4, 3), ``world_velocity`` (3,),
            ``quaternion`` and ``rotation_matrix`` (3, 3) are read.
        config: the sensor configuration, ``{"imu": "bmi088", "baro": "default", ...}``
            (:func:`pyflyt_like.sensors.resolve_sensors`); errors name
            ``drone_options["sensors"]``.
        gravity: magnitude of gravity [m/s^2] (the aviary's), pointing down (-z).

    Raises:
        TypeError, ValueError: a bad configuration (unknown sensor or preset names, an
            update rate that does not divide the physics rate, ...), naming the option.
    """

    def __init__(self, p, physics_period: float, np_random: np.random.Generator, drone,
                 config: Mapping[str, Any], gravity: float = 9.81):
        physics_hz = round(1.0 / physics_period)
        if abs(physics_hz * physics_period - 1.0) > 1e-9:
            raise ValueError(f"physics_period must be 1 / an integer rate [Hz], got "
                             f"{physics_period!r}")
        self.params = resolve_sensors(config, physics_hz, option=OPTION)
        if not self.params:
            raise ValueError(f"{OPTION} configures no sensor; give None instead of "
                             f"{config!r} for a drone without sensors")
        self.client_id: int = p._client
        self.drone = drone
        self.uav_id = int(drone.Id)
        self.np_random = np_random
        self.physics_hz = physics_hz
        self.physics_period = physics_period
        self.gravity = float(gravity)
        params = self.params
        self.periods = sensor_periods(params)
        self._sampled_periods = self.periods.copy()
        self._sampled_periods[RANGE] = 0  # the ray test below
        #: The compiled step's countdowns (:mod:`pyflyt_like.sensors.schedule`), and those
        #: of the sensors sampled here in Python: rangefinder, LiDAR, depth camera.
        self._countdown = np.zeros(len(SENSOR_NAMES))
        self._ray_periods = np.array(
            [params[name].period_steps if name in params else 0
             for name in ("range", "lidar", "depth")], np.int64)
        self._ray_countdown = np.zeros(3)
        self._coefficients = [params[name].coefficients if name in params else np.zeros(0)
                              for name in SAMPLED]
        self._states = [_MODELS[name].zeros_state() if name in params else np.zeros(0)
                        for name in SAMPLED]
        self._ring = gnss.zeros_ring(params["gnss"].latency if "gnss" in params else 0)
        self._draws_per_sample = [_MODELS[name].SAMPLE_DRAWS for name in SAMPLED]
        capacity = max(count * -(-BLOCK_STEPS // max(period, 1)) for count, period in
                       zip(self._draws_per_sample, self.periods[_PERIOD_INDEX]))
        self._normals = np.zeros((len(SAMPLED), capacity))
        self._cursors = np.zeros(len(SAMPLED), np.int64)
        self._previous = np.zeros(6)
        #: The latest readings, flat (:mod:`pyflyt_like.common.sensor_readings`), and the
        #: sample time [s] of each sensor (:data:`~pyflyt_like.sensors.config.SENSOR_NAMES`
        #: order; NaN before its first sample).
        self.readings = np.zeros(READINGS_SIZE)
        self.times = np.full(len(SENSOR_NAMES), np.nan)
        self._rngs: list[np.random.Generator] = []
        self._range = params.get("range")
        self._range_rng = np.random.default_rng(0)
        self._lidar = LidarCaster(p, drone, params["lidar"]) if "lidar" in params else None
        self._lidar_rng = np.random.default_rng(0)
        shape = params["lidar"].shape if "lidar" in params else (0, 0)
        self._lidar_coefficients = (params["lidar"].coefficients if "lidar" in params
                                    else np.zeros(lidar.COEFFICIENT_SIZE))
        self._lidar_normals, self._lidar_uniforms = np.zeros(shape), np.zeros(shape)
        #: The LiDAR's latest ranges [m] (channels, beams) and their sample time [s].
        self.lidar_ranges = np.zeros(shape)
        self.lidar_time = math.nan
        self._depth = LidarCaster(p, drone, params["depth"]) if "depth" in params else None
        self._depth_rng = np.random.default_rng(0)
        image = params["depth"].shape if "depth" in params else (0, 0)
        self._depth_coefficients = (params["depth"].coefficients if "depth" in params
                                    else np.zeros(lidar.COEFFICIENT_SIZE))
        self._depth_truths = np.zeros(image)
        self._depth_normals, self._depth_uniforms = np.zeros(image), np.zeros(image)
        #: The depth camera's latest depths [m] (height, width) and their sample time [s].
        self.depth_image = np.zeros(image)
        self.depth_time = math.nan
        self.step_count = 0
        self._refill_at = 0
        #: Which sensors sampled in the last :meth:`state_update` (bits of
        #: :mod:`pyflyt_like.compiled.onboard`).
        self.sampled = 0
        self._sample = None  # bound at the first sample, to the argument types it gets
        self._pack()

    # ----------------------------------------------------------------- the contract
    def reset(self) -> None:
        """Draw new units from the aviary's generator, restart the clock and sample the
        current (reset) state at t = 0, with zero acceleration and body-rate derivative."""
        entropy = int(self.np_random.integers(0, 2**63))
        # the generators of SensorSuite(seed=entropy), by sensor name (a child depends on
        # its index in ALL_SENSOR_NAMES only)
        children = np.random.SeedSequence(entropy).spawn(len(ALL_SENSOR_NAMES))
        self._rngs = [np.random.default_rng(children[j]) for j in _STREAM_INDEX]
        self._range_rng = np.random.default_rng([entropy, 1])  # its own stream, same seed
        self._lidar_rng = np.random.default_rng(children[LIDAR])
        self._depth_rng = np.random.default_rng(children[DEPTH])
        for state in self._states:
            state[:] = 0.0
        for i, name in enumerate(SAMPLED):
            if name in self.params:
                draws = self._rngs[i].standard_normal(_MODELS[name].RESET_DRAWS)
                if name == "gnss":
                    gnss.reset(self._coefficients[i], draws, self._states[i], self._ring)
                else:
                    _MODELS[name].reset(self._coefficients[i], draws, self._states[i])
        self.readings[:] = 0.0
        self.times[:] = np.nan
        self.lidar_ranges[:] = 0.0
        self.lidar_time = math.nan
        self.depth_image[:] = 0.0
        self.depth_time = math.nan
        self.step_count = 0
        self._refill_at = 0
        self._step(True)

    def state_update(self) -> None:
        """Sample the sensors due after this physics step (call once per physics step, after
        the drone's state update)."""
        self._step(False)

    def physics_update(self) -> None:
        """Sensors apply no loads: nothing to do."""

    def feed_after_sampling(self, x: np.ndarray, cov: np.ndarray, last_imu: np.ndarray,
                            constants: tuple, snapshot: np.ndarray) -> tuple[np.ndarray, ...]:
        """Feed an EKF in the same compiled call as the sampling, from the next physics step
        on (:func:`pyflyt_like.compiled.onboard.onboard_step`): its nominal state ``x``,
        covariance ``cov``, last IMU sample ``last_imu``, ``constants``
        (:attr:`pyflyt_like.estimation.ErrorStateEkf.constants`) and ``snapshot``
        (:func:`~pyflyt_like.compiled.onboard.feed_ekf`'s arguments) are copied into the
        step's buffers (again after each filter reset: the sizes must not change). Returns
        the copies of ``x``, ``cov``, ``last_imu`` and ``snapshot`` that the step writes:
        the filter and the estimator use them from now on."""
        (mount, filter_gravity, noise, ibb, drift_tau, drift_m, lag, r_gnss, ground,
         r_baro, field, hard_iron, r_mag, ibm, use_baro, use_mag) = constants
        return self._pack(
            (x, cov, last_imu, mount, noise, r_gnss, field, hard_iron, r_mag, snapshot),
            (filter_gravity, drift_tau, drift_m, lag, ground, r_baro),
            (1, ibb, ibm, use_baro, use_mag))

    # ----------------------------------------------------------------- readings
    def read(self) -> dict[str, dict[str, Any]]:
        """The latest readings of the configured sensors, as
        :meth:`pyflyt_like.sensors.SensorSuite.read` lays them out (copies): ``time`` [s]
        since the last reset is the sample's; the LiDAR's ``ranges`` (channels, beams)
        [m]; the depth camera's ``depth`` (height, width) [m]."""
        readings = unpack_readings(self.readings, self.times,
                                   [name for name in self.params if name in SENSOR_NAMES])
        if self._lidar is not None:
            readings["lidar"] = {"time": self.lidar_time, "ranges": self.lidar_ranges.copy()}
        if self._depth is not None:
            readings["depth"] = {"time": self.depth_time, "depth": self.depth_image.copy()}
        return readings

    def ray_range(self, position, rotation) -> float:
        """The true range [m] from ``position`` (3,) along the body -z axis of ``rotation``
        (9,) (body to world, row-major) to the first body other than this drone, within
        ``max_range``; ``inf`` when nothing is hit."""
        max_range = self._range.max_range
        direction = (-rotation[2], -rotation[5], -rotation[8])  # -(body z) in the world
        start = tuple(position)
        travelled = 0.0
        for _ in range(_SELF_HITS):
            end = tuple(s + (max_range - travelled) * d for s, d in zip(start, direction))
            body, _, _, hit, _ = pybullet.rayTest(start, end,
                                                  physicsClientId=self.client_id)[0]
            if body < 0:
                return math.inf
            # Measured from the hit point (double precision here), not Bullet's hit fraction.
            travelled += math.dist(start, hit)
            if body != self.uav_id:
                return travelled
            travelled += _SKIP
            start = tuple(h + _SKIP * d for h, d in zip(hit, direction))
            if travelled >= max_range:
                break
        return math.inf

    # ----------------------------------------------------------------- internals
    def _step(self, at_reset: bool) -> None:
        """Sample what is due at this step of the clock, then count it."""
        step = self.step_count
        if step == self._refill_at:
            self._refill(step, at_reset)
        drone = self.drone
        if self._sample is None:
            self._bind(step, at_reset)
        # the drone's own arrays (and its quaternion tuple) as they are: views or copies
        # made here would cost more than the compiled step
        self.sampled = self._sample(step, at_reset, drone.state, drone.world_velocity,
                                    drone.quaternion, self._floats, self._ints, self._layout)
        if sample_due(self._ray_periods, self._ray_countdown, 0, at_reset):
            # One draw per sample, as the suite's rangefinder takes.
            normals = self._range_rng.standard_normal(rangefinder.SAMPLE_DRAWS)
            true_range = self.ray_range(drone.state[3], drone.rotation_matrix.reshape(-1))
            value, valid = rangefinder.sample_range(self._range.coefficients, true_range,
                                                    normals)
            self.readings[DISTANCE] = value
            self.readings[VALID] = 1.0 if valid else 0.0
            self.times[RANGE] = step / self.physics_hz
        if sample_due(self._ray_periods, self._ray_countdown, 1, at_reset):
            self._sample_lidar(step)
        if sample_due(self._ray_periods, self._ray_countdown, 2, at_reset):
            self._sample_depth(step)
        self.step_count = step + 1

    def _sample_lidar(self, step: int) -> None:
        """Cast the LiDAR's beams from the drone's current pose and sample them."""
        truths = self._lidar.cast()
        coefficients = self._lidar_coefficients
        lidar.draw(self._lidar_rng, coefficients, self._lidar_normals, self._lidar_uniforms)
        lidar.sample_ranges(coefficients, truths, self._lidar_normals, self._lidar_uniforms,
                            self.lidar_ranges)
        self.lidar_time = step / self.physics_hz

    def _sample_depth(self, step: int) -> None:
        """Cast the depth camera's rays from the drone's current pose, turn the ranges into
        depths and sample them."""
        truths = depth.depths_from_ranges(self._depth.params, self._depth.cast(),
                                          out=self._depth_truths)
        coefficients = self._depth_coefficients
        lidar.draw(self._depth_rng, coefficients, self._depth_normals, self._depth_uniforms)
        lidar.sample_ranges(coefficients, truths, self._depth_normals, self._depth_uniforms,
                            self.depth_image)
        self.depth_time = step / self.physics_hz

    def _bind(self, step: int, at_reset: bool) -> None:
        """Compile (or load) the onboard step for the argument types of this drone."""
        drone = self.drone
        self._sample = compiled_entry("onboard_step", step, at_reset, drone.state,
                                      drone.world_velocity, drone.quaternion, self._floats,
                                      self._ints, self._layout)

    def _pack(self, ekf_arrays: tuple = (), ekf_scalars: tuple = (),
              ekf_flags: tuple = (0, -1, -1, 0, 0)) -> tuple[np.ndarray, ...]:
        """Put the sensors' arrays, and an EKF's when given, into the onboard step's two
        buffers (:func:`pyflyt_like.compiled.onboard.pack_blocks`; one array argument each,
        not forty) and use views of them from now on. The EKF's arrays, scalars and flags
        are in the order of the step's blocks; returns the views of x, cov, last_imu and
        snapshot (none without an EKF)."""
        from pyflyt_like.compiled.onboard import FLOAT_BLOCKS, SCALARS, pack_blocks

        scalars = np.zeros(len(SCALARS))
        scalars[0], scalars[1] = self.physics_hz, self.gravity
        scalars[2:2 + len(ekf_scalars)] = ekf_scalars
        n_ekf = len(FLOAT_BLOCKS) - FLOAT_BLOCKS.index("x")
        arrays = [np.asarray(a, dtype=float) for a in ekf_arrays] or [np.zeros(0)] * n_ekf
        floats, float_layout, views = pack_blocks(
            [scalars, *self._coefficients, *self._states, self._ring, self._normals,
             self._previous, self.readings, self.times, self._countdown, *arrays], float)
        ints, int_layout, int_views = pack_blocks(
            [self._sampled_periods, self._cursors, np.array(ekf_flags, np.int64)], np.int64)
        self._floats, self._ints = floats, ints
        self._layout = np.concatenate([float_layout, int_layout])
        n = len(SAMPLED)
        self._coefficients, self._states = views[1:1 + n], views[1 + n:1 + 2 * n]
        (self._ring, self._normals, self._previous, self.readings, self.times,
         self._countdown) = views[1 + 2 * n:7 + 2 * n]
        self._sampled_periods, self._cursors = int_views[0], int_views[1]
        if not ekf_arrays:
            return ()
        x, cov, last_imu, *_, snapshot = views[7 + 2 * n:]
        return x, cov, last_imu, snapshot

    def _refill(self, step: int, at_reset: bool) -> None:
        """Draw the normals of every sample due in the next :data:`BLOCK_STEPS` physics
        steps from ``step`` on (exactly those: the streams stay those of a SensorSuite)."""
        for i, sensor in enumerate(_PERIOD_INDEX):
            samples = samples_within(self._sampled_periods, self._countdown, sensor, at_reset,
                                     BLOCK_STEPS)
            if samples:
                count = samples * self._draws_per_sample[i]
                self._normals[i, :count] = self._rngs[i].standard_normal(count)
        self._cursors[:] = 0
        self._refill_at = step + BLOCK_STEPS


def compiled_entry(name: str, *arguments) -> Callable:
    """The function ``name`` of :mod:`pyflyt_like.compiled.onboard`, compiled (or loaded
    from the cache) for the types of ``arguments``: numba would work them out at every call
    (~2 us for ~20 arguments, a tenth of a physics step). numba is loaded here, by the first
    drone with sensors, not by the Aviary itself."""
    from pyflyt_like.compiled import onboard
    from pyflyt_like.compiled.jit import bound_entry

    return bound_entry(getattr(onboard, name), *arguments)
