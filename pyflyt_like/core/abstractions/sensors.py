"""Sensors: a vehicle's IMU, barometer, magnetometer, GNSS and rangefinder on the PyBullet path.

The component runs the engine-independent models of :mod:`pyflyt_like.sensors` on the true
state of the drone's base, read from pybullet after every physics step. See docs/sensors.md
("On the PyBullet Aviary").
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pybullet

from pyflyt_like.sensors import SensorSuite, rangefinder, resolve_sensors

#: The option's name in error messages.
OPTION = 'drone_options["sensors"]'

# A ray that starts inside the drone does not hit it, but one may still cross another of its
# links (a leg, a rotor below the base): it is cast on from just past such a hit, this many
# times at most, and this far past [m].
_SELF_HITS = 8
_SKIP = 1e-6


class Sensors:
    """The sensors of one vehicle, fed the true state of its base each physics step.

    Per physics step (:meth:`state_update`, after the drone's state update) the component
    reads the base from pybullet — position [m] and velocity [m/s] of the centre of mass,
    quaternion (x, y, z, w), body rates [rad/s] — and hands it to a
    :class:`~pyflyt_like.sensors.SensorSuite` with:

    - acceleration [m/s^2, world] = (v_k - v_{k-1}) / physics_period, the velocity change
      PyBullet's integrator applied over the step (exact: contacts and every force included);
    - body-rate derivative [rad/s^2] = (w_k - w_{k-1}) / physics_period, the same way.

    :meth:`reset` samples the reset state at t = 0 with both derivatives 0 (no step has been
    taken, so no acceleration is known: a drone released in free fall reads +g on that
    one sample); from the first physics step on they are exact.

    The rangefinder ray-tests the world (``rayTest``): from the base's position along the
    body -z axis, ``max_range`` long; the first body hit other than the drone itself (the
    floor, obstacles, other drones) gives the true range, measured from the base, so a
    level drone whose base is at height h above the floor reads h. Nothing hit within
    ``max_range``: an invalid reading of ``max_range``.

    Args:
        p: the aviary (a pybullet BulletClient).
        physics_period: seconds per physics step (its inverse must be an integer [Hz]).
        np_random: the aviary's random generator; every :meth:`reset` draws the units
            (turn-on biases, drifts) and noise streams from it, so the aviary's seed fixes
            the sensor streams.
        uav_id: pybullet body id of the drone.
        config: the sensor configuration, ``{"imu": "bmi088", "baro": "default", ...}``
            (:func:`pyflyt_like.sensors.resolve_sensors`); errors name
            ``drone_options["sensors"]``.
        gravity: magnitude of gravity [m/s^2] (the aviary's), pointing down (-z).

    Raises:
        TypeError, ValueError: a bad configuration (unknown sensor or preset names, an
            update rate that does not divide the physics rate, ...), naming the option.
    """

    def __init__(self, p, physics_period: float, np_random: np.random.Generator, uav_id: int,
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
        self.uav_id = int(uav_id)
        self.np_random = np_random
        self.physics_hz = physics_hz
        self.physics_period = physics_period
        # The suite runs every sensor but the rangefinder, whose plane model this component
        # replaces with a ray test. It was checked above under the option's name.
        suite_config = {name: config[name] for name in self.params if name != "range"}
        self.suite = SensorSuite(suite_config, physics_hz, seed=0, gravity=gravity)
        self._range = self.params.get("range")
        self._range_rng = np.random.default_rng(0)
        self._range_reading: dict[str, Any] = {}
        self.step_count = 0
        self._velocity = np.zeros(3)
        self._rates = np.zeros(3)

    # ----------------------------------------------------------------- the contract
    def reset(self) -> None:
        """Draw new units from the aviary's generator, restart the clock and sample the
        current (reset) state at t = 0, with zero acceleration and body-rate derivative."""
        entropy = int(self.np_random.integers(0, 2**63))
        self.suite.reset(seed=entropy)
        self._range_rng = np.random.default_rng([entropy, 1])  # its own stream, same seed
        self._range_reading = {"time": math.nan, "range": 0.0, "valid": False}
        self.step_count = 0
        position, velocity, quaternion, rates, rotation = self._base_state()
        self._sample(position, velocity, np.zeros(3), quaternion, rates, np.zeros(3), rotation)

    def state_update(self) -> None:
        """Sample the sensors due after this physics step (call once per physics step, after
        the drone's state update)."""
        position, velocity, quaternion, rates, rotation = self._base_state()
        acceleration = (velocity - self._velocity) / self.physics_period
        rates_dot = (rates - self._rates) / self.physics_period
        self._sample(position, velocity, acceleration, quaternion, rates, rates_dot, rotation)

    def physics_update(self) -> None:
        """Sensors apply no loads: nothing to do."""

    # ----------------------------------------------------------------- readings
    def read(self) -> dict[str, dict[str, Any]]:
        """The latest readings of the configured sensors, as
        :meth:`pyflyt_like.sensors.SensorSuite.read` lays them out (copies): ``time`` [s]
        since the last reset is the sample's."""
        readings = self.suite.read()
        if self._range is not None:
            readings["range"] = dict(self._range_reading)
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
    def _base_state(self):
        """Position, world velocity, quaternion, body rates of the base and the rotation
        (9,) body to world, row-major (the same formulas as the drones' state update)."""
        client = self.client_id
        position, quaternion = pybullet.getBasePositionAndOrientation(self.uav_id,
                                                                      physicsClientId=client)
        velocity, (wx, wy, wz) = pybullet.getBaseVelocity(self.uav_id, physicsClientId=client)
        r = pybullet.getMatrixFromQuaternion(quaternion)
        rates = np.array((r[0] * wx + r[3] * wy + r[6] * wz, r[1] * wx + r[4] * wy + r[7] * wz,
                          r[2] * wx + r[5] * wy + r[8] * wz))  # R^T w, in the drones' order
        return np.array(position), np.array(velocity), np.array(quaternion), rates, r

    def _sample(self, position, velocity, acceleration, quaternion, rates, rates_dot,
                rotation) -> None:
        self.suite.update(position, velocity, acceleration, quaternion, rates, rates_dot)
        step = self.step_count
        if self._range is not None and step % self._range.period_steps == 0:
            # One draw per sample, as the suite's rangefinder takes.
            normals = self._range_rng.standard_normal(rangefinder.SAMPLE_DRAWS)
            value, valid = rangefinder.sample_range(self._range.coefficients,
                                                    self.ray_range(position, rotation), normals)
            self._range_reading = {"time": step / self.physics_hz, "range": float(value),
                                   "valid": bool(valid)}
        self.step_count = step + 1
        self._velocity = velocity
        self._rates = rates
