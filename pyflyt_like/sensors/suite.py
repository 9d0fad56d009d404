"""A sensor suite in plain Python: the configured sensors of one vehicle, fed the true state
every physics step, holding their latest readings. Engine-independent (it takes arrays, not
a drone). The PyBullet vehicles' Sensors component runs the same models compiled and gives
the same readings for the same states and seed, bit for bit.

Random numbers: each sensor draws from its own numpy Generator, spawned from the seed by
sensor name (:data:`~pyflyt_like.sensors.config.ALL_SENSOR_NAMES` order: the LiDAR's is the
sixth child, the depth camera's the seventh), so a sensor's stream is the same whichever
other sensors are configured;
within a sensor, draws come in a fixed order (its reset draws, then its sample draws at
each of its samples). The same seed gives bit-identical readings.

The ray sensors (the LiDAR, the depth camera) cast their rays against a
:class:`~pyflyt_like.worlds.World` and the floor: the suite takes one (``world=``) only when
a ray sensor is configured, and refuses a ray sensor without.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from pyflyt_like.common.validation import check_finite, check_seed
from pyflyt_like.worlds import World, pack_layouts

from . import barometer, depth, gnss, imu, lidar, magnetometer, rangefinder
from .config import ALL_SENSOR_NAMES, RAY_SENSOR_NAMES, resolve_sensors
from .schedule import sample_due

#: The Aviary's default gravity [m/s^2].
GRAVITY = 9.81
_INDEX = {name: i for i, name in enumerate(ALL_SENSOR_NAMES)}


class SensorSuite:
    """The configured sensors of one vehicle and their latest readings.

    Args:
        config: sensor name -> preset name or parameter dict
            (:func:`~pyflyt_like.sensors.config.resolve_sensors`).
        physics_hz: the physics rate [Hz]; :meth:`update` is called once per physics step.
        seed: seeds the sensors' random streams (None: fresh entropy).
        gravity: its magnitude [m/s^2] (the accelerometer's specific force).
        floor_z: the floor plane's height [m] (the rangefinder, the ray sensors).
        world: the obstacles the ray sensors (LiDAR, depth camera) see (a
            :class:`~pyflyt_like.worlds.World`; ``World()`` for the floor alone): required
            with a ray sensor, refused without one. Each sample casts every ray against the
            world in plain Python (:func:`~pyflyt_like.sensors.lidar.scan_truths`): a
            reference, slow for large scans, images or worlds.

    Readings (:meth:`read`, :meth:`update`), for the configured sensors only, each the
    latest sample with ``time`` [s] since reset (NaN before the first):
    ``{"imu": {"time", "accel" (3,) [m/s^2, sensor frame], "gyro" (3,) [rad/s]},
    "baro": {"time", "pressure" [Pa], "altitude" [m above sea level]},
    "mag": {"time", "field" (3,) [uT, body]},
    "gnss": {"time", "position" (3,) [m, world], "velocity" (3,) [m/s, world], "fix"},
    "range": {"time", "range" [m], "valid"},
    "lidar": {"time", "ranges" (channels, beams) [m]},
    "depth": {"time", "depth" (height, width) [m along the optical axis]}}``. A GNSS
    reading's ``time`` is when it was delivered: it measured the state ``latency`` samples
    earlier.

    Raises:
        TypeError, ValueError: a bad configuration (naming ``sensors``), a ray sensor
            without a ``world`` or a ``world`` without one, a ``world`` that is no World.
    """

    def __init__(self, config: Mapping[str, Any] | None, physics_hz: int,
                 seed: int | None = None, *, gravity: float = GRAVITY,
                 floor_z: float = 0.0, world: World | None = None):
        self.params = resolve_sensors(config, physics_hz)
        self.physics_hz = physics_hz
        self.gravity = check_finite("gravity", gravity)
        self.floor_z = check_finite("floor_z", floor_z)
        self.world = _check_world(world, [name for name in RAY_SENSOR_NAMES
                                          if name in self.params])
        self._coefficients = {name: p.coefficients for name, p in self.params.items()}
        self._states = {"imu": imu.zeros_state(), "baro": barometer.zeros_state(),
                        "mag": magnetometer.zeros_state(), "gnss": gnss.zeros_state()}
        latency = self.params["gnss"].latency if "gnss" in self.params else 0
        self._ring = gnss.zeros_ring(latency)
        self._accel, self._gyro = np.zeros(3), np.zeros(3)
        self._baro, self._field = np.zeros(2), np.zeros(3)
        self._position, self._velocity = np.zeros(3), np.zeros(3)
        self._range, self._valid, self._fix = 0.0, False, False
        shape = self.params["lidar"].shape if "lidar" in self.params else (0, 0)
        self._world_pool = None if world is None else pack_layouts([world])
        self._truths, self._ranges = np.zeros(shape), np.zeros(shape)
        self._lidar_normals, self._lidar_uniforms = np.zeros(shape), np.zeros(shape)
        image = self.params["depth"].shape if "depth" in self.params else (0, 0)
        self._depth_truths, self._depth = np.zeros(image), np.zeros(image)
        self._depth_normals, self._depth_uniforms = np.zeros(image), np.zeros(image)
        # the depth camera's rays are cast cast_range far (beyond max_range at its
        # oblique pixels): scan_truths casts to the coefficients' max_range, so it gets a
        # copy holding cast_range there
        self._depth_cast = np.zeros(lidar.COEFFICIENT_SIZE)
        if "depth" in self.params:
            self._depth_cast[:] = self._coefficients["depth"]
            self._depth_cast[lidar.MAX_RANGE] = self.params["depth"].cast_range
        self._times = dict.fromkeys(ALL_SENSOR_NAMES, math.nan)
        # each sensor's period [physics steps] (0: not configured) and countdown to its
        # next sample (the schedule of both engines)
        self._periods = np.array([self.params[name].period_steps if name in self.params
                                  else 0 for name in ALL_SENSOR_NAMES], np.int64)
        self._countdown = np.zeros(len(ALL_SENSOR_NAMES))
        self._rngs: dict[str, np.random.Generator] = {}
        self.step_count = 0
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Draw new units (turn-on biases, drifts), clear the readings and restart the
        clock; a ``seed`` restarts the random streams, None continues them."""
        seed = check_seed("seed", seed)
        if seed is not None or not self._rngs:
            # the first five children are those of spawn(5): adding the LiDAR's changed none
            children = np.random.SeedSequence(seed).spawn(len(ALL_SENSOR_NAMES))
            self._rngs = {name: np.random.default_rng(child)
                          for name, child in zip(ALL_SENSOR_NAMES, children)}
        self.step_count = 0
        self._times = dict.fromkeys(ALL_SENSOR_NAMES, math.nan)
        for array in (self._accel, self._gyro, self._baro, self._field, self._position,
                      self._velocity, self._ranges, self._depth):
            array[:] = 0.0
        self._range, self._valid, self._fix = 0.0, False, False
        c, s = self._coefficients, self._states
        if "imu" in c:
            imu.reset(c["imu"], self._draw("imu", imu.RESET_DRAWS), s["imu"])
        if "baro" in c:
            barometer.reset(c["baro"], self._draw("baro", barometer.RESET_DRAWS), s["baro"])
        if "mag" in c:
            magnetometer.reset(c["mag"], self._draw("mag", magnetometer.RESET_DRAWS),
                               s["mag"])
        if "gnss" in c:
            gnss.reset(c["gnss"], self._draw("gnss", gnss.RESET_DRAWS), s["gnss"],
                       self._ring)

    def update(self, position, velocity, acceleration, quaternion, ang_vel, ang_accel
               ) -> dict[str, dict[str, Any]]:
        """Feed one physics step's true state; every sensor due samples it. Returns the
        latest readings (:meth:`read`).

        Args:
            position: (3,) world frame [m], of the centre of mass.
            velocity: (3,) world frame [m/s], of the centre of mass.
            acceleration: (3,) world frame [m/s^2], of the centre of mass.
            quaternion: (4,) body-to-world (x, y, z, w).
            ang_vel: (3,) body rates [rad/s].
            ang_accel: (3,) the body rates' derivative [rad/s^2].
        """
        pos = _vector("position", position, 3)
        vel = _vector("velocity", velocity, 3)
        acc = _vector("acceleration", acceleration, 3)
        quat = _vector("quaternion", quaternion, 4)
        rates = _vector("ang_vel", ang_vel, 3)
        rates_dot = _vector("ang_accel", ang_accel, 3)
        step, time = self.step_count, self.step_count / self.physics_hz
        c, s = self._coefficients, self._states
        if self._due("imu", step):
            imu.sample(c["imu"], acc, quat, rates, rates_dot, self.gravity,
                       self._draw("imu", imu.SAMPLE_DRAWS), s["imu"], self._accel, self._gyro)
            self._times["imu"] = time
        if self._due("baro", step):
            barometer.sample(c["baro"], pos[2], self._draw("baro", barometer.SAMPLE_DRAWS),
                             s["baro"], self._baro)
            self._times["baro"] = time
        if self._due("mag", step):
            magnetometer.sample(c["mag"], quat, self._draw("mag", magnetometer.SAMPLE_DRAWS),
                                s["mag"], self._field)
            self._times["mag"] = time
        if self._due("gnss", step):
            self._fix = gnss.sample(c["gnss"], pos, vel, self._draw("gnss", gnss.SAMPLE_DRAWS),
                                    s["gnss"], self._ring, self._position, self._velocity)
            self._times["gnss"] = time
        if self._due("range", step):
            self._range, self._valid = rangefinder.sample(
                c["range"], pos, quat, self.floor_z,
                self._draw("range", rangefinder.SAMPLE_DRAWS))
            self._times["range"] = time
        if self._due("lidar", step):
            self._sample_lidar(pos, quat)
            self._times["lidar"] = time
        if self._due("depth", step):
            self._sample_depth(pos, quat)
            self._times["depth"] = time
        self.step_count += 1
        return self.read()

    def read(self) -> dict[str, dict[str, Any]]:
        """The latest readings of the configured sensors (copies; layout in the class
        docstring)."""
        t = self._times
        every = {
            "imu": lambda: {"time": t["imu"], "accel": self._accel.copy(),
                            "gyro": self._gyro.copy()},
            "baro": lambda: {"time": t["baro"], "pressure": float(self._baro[0]),
                             "altitude": float(self._baro[1])},
            "mag": lambda: {"time": t["mag"], "field": self._field.copy()},
            "gnss": lambda: {"time": t["gnss"], "position": self._position.copy(),
                             "velocity": self._velocity.copy(), "fix": bool(self._fix)},
            "range": lambda: {"time": t["range"], "range": float(self._range),
                              "valid": bool(self._valid)},
            "lidar": lambda: {"time": t["lidar"], "ranges": self._ranges.copy()},
            "depth": lambda: {"time": t["depth"], "depth": self._depth.copy()},
        }
        return {name: every[name]() for name in self.params}

    def _sample_lidar(self, pos: np.ndarray, quat: np.ndarray) -> None:
        """Cast the LiDAR's beams against the world and the floor, then sample them."""
        params = self.params["lidar"]
        coefficients = self._coefficients["lidar"]
        lidar.scan_truths(*self._world_pool, 0, self.floor_z, pos, quat, coefficients,
                          params.directions, self._truths)
        lidar.draw(self._rngs["lidar"], coefficients, self._lidar_normals,
                   self._lidar_uniforms)
        lidar.sample_scan(coefficients, self._truths, self._lidar_normals,
                          self._lidar_uniforms, self._ranges)

    def _sample_depth(self, pos: np.ndarray, quat: np.ndarray) -> None:
        """Cast the depth camera's rays against the world and the floor, turn the ranges
        into depths, then sample them as the LiDAR's ranges."""
        params = self.params["depth"]
        coefficients = self._coefficients["depth"]
        lidar.scan_truths(*self._world_pool, 0, self.floor_z, pos, quat, self._depth_cast,
                          params.directions, self._depth_truths)
        depth.depths_from_ranges(params, self._depth_truths, out=self._depth_truths)
        lidar.draw(self._rngs["depth"], coefficients, self._depth_normals,
                   self._depth_uniforms)
        lidar.sample_scan(coefficients, self._depth_truths, self._depth_normals,
                          self._depth_uniforms, self._depth)

    def _due(self, name: str, step: int) -> bool:
        return sample_due(self._periods, self._countdown, _INDEX[name], step == 0)

    def _draw(self, name: str, count: int) -> np.ndarray:
        return self._rngs[name].standard_normal(count)


def _check_world(world: object, ray_sensors: list[str]) -> World | None:
    """``world`` if it suits the configuration: a World with ray sensors (``ray_sensors``,
    their names), None without."""
    if ray_sensors and world is None:
        raise ValueError(f'sensors["{ray_sensors[0]}"] needs a world to cast its rays '
                         "against: give SensorSuite(..., world=World([...])), or World() "
                         "for the floor alone")
    if not ray_sensors and world is not None:
        raise ValueError("world is only used by a LiDAR or a depth camera, and sensors "
                         "configures neither; give world=None or add sensors['lidar'] or "
                         "sensors['depth']")
    if world is not None and not isinstance(world, World):
        raise TypeError(f"world must be a pyflyt_like.worlds.World, got "
                        f"{type(world).__name__}")
    return world


def _vector(name: str, value: object, size: int) -> np.ndarray:
    """``value`` as a float array of shape (size,) (cheap: called every physics step)."""
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a numeric array of shape ({size},), got "
                        f"{value!r}") from None
    if array.shape != (size,):
        raise ValueError(f"{name} must have shape ({size},), got {array.shape}")
    return array
