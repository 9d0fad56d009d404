"""A complementary attitude filter: Mahony's nonlinear complementary filter on SO(3)
(Mahony, Hamel, Pflimlin, "Nonlinear complementary filters on the special orthogonal group",
IEEE TAC 2008), with a gyro-bias integrator. Engine-independent, numpy only.

The gyroscope is integrated, ``q <- q * Exp((w_m - b + k_P e) dt)``, and corrected by the
error ``e = v x v_hat`` between a measured direction ``v`` (body frame) and its estimate
``v_hat = R^T v_0`` from the known world direction ``v_0``; the bias integrates the same
error, ``b <- b - k_I e dt``. Two directions:

- the accelerometer's: ``v`` the normalised specific force, ``v_0`` the normalised
  ``a + g e_z``; ``a`` the world acceleration, estimated from successive GNSS velocities
  (low-passed) when GNSS readings are fed, else 0. A multirotor's accelerometer reads
  its thrust axis whatever its tilt, so without ``a`` the correction pulls towards level
  while the vehicle accelerates;
- the magnetometer's, horizontal only so that it corrects the yaw and never the tilt:
  ``R (m - hard_iron)`` and the Earth field, both projected on the horizontal plane.

It estimates the attitude and the gyro bias only (no position or velocity).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from pyflyt_like.common.rotations import quat_times_rotation
from pyflyt_like.common.validation import check_finite, check_non_negative_float
from pyflyt_like.sensors import ImuParams, MagnetometerParams

from ._shared import (
    check_dt,
    check_params,
    is_new,
    level_and_heading,
    matrix,
    mount_rotation,
    readings_mapping,
    sensor_parameters,
    unit_quaternion,
    vector,
    world_field,
)

#: Default gains, chosen on the figure-eight of tests/estimation (docs/estimation.md):
#: ``accel_kp`` [rad/s]: the tilt follows the accelerometer with a 1 s time constant, long
#: against the IMU's white noise (BMI088: about 0.1 deg of tilt per sample at 200 Hz) and
#: the GNSS-derived acceleration's, short against a 1 deg/s turn-on gyro bias before the
#: integrator has learnt it; ``accel_ki`` [rad/s^2]: the bias integrator; ``k_P^2 / 4``
#: (0.25) would be critically damped, a fifth of it is slower (about 20 s) but averages the
#: accelerometer's dynamic errors instead of turning them into bias; ``mag_kp``,
#: ``mag_ki``: the same for the yaw, slower, since the magnetometer's unknown hard-iron
#: residual (1 uT is 2.6 deg of yaw in the default field) is an error the filter cannot
#: remove (faster or slower yaw gains measured worse: 4.8 and 5.0 deg RMS).
DEFAULT_GAINS = {"accel_kp": 1.0, "accel_ki": 0.05, "mag_kp": 0.3, "mag_ki": 0.01}

#: Time constant [s] of the low-pass filter on the GNSS-derived world acceleration.
ACCELERATION_TIME_CONSTANT = 0.3


@dataclass(frozen=True)
class AttitudeState:
    """A snapshot of the estimate (copies): ``time`` [s] of the last IMU sample fed,
    ``quaternion`` (4,) body to world (x, y, z, w), ``gyro_bias`` (3,) [rad/s, body]."""

    time: float
    quaternion: np.ndarray
    gyro_bias: np.ndarray


class ComplementaryFilter:
    """Mahony's complementary attitude filter with gyro-bias estimation.

    Args:
        imu_params: the IMU's parameters (its mounting orientation turns the readings
            into the body frame).
        mag_params: the magnetometer's (the Earth field and the fixed hard iron), or None;
            then ``initial_quaternion`` is required and the yaw is the integrated gyro's
            (it drifts with the gyro bias along the vertical).
        gravity: its magnitude [m/s^2].
        initial_quaternion: (4,) the initial attitude (x, y, z, w); None: from the first
            accelerometer and magnetometer samples.
        gains: overrides of :data:`DEFAULT_GAINS` (``accel_kp``, ``mag_kp`` [rad/s],
            ``accel_ki``, ``mag_ki`` [rad/s^2], each >= 0).
    """

    def __init__(self, imu_params: ImuParams, mag_params: MagnetometerParams | None = None,
                 *, gravity: float = 9.81, initial_quaternion: object = None,
                 gains: Mapping[str, float] | None = None):
        self.imu = check_params("imu_params", imu_params, ImuParams, True)
        self.mag = check_params("mag_params", mag_params, MagnetometerParams, False)
        self.gravity = check_finite("gravity", gravity)
        if self.gravity <= 0.0:
            raise ValueError(f"gravity must be > 0 [m/s^2], got {self.gravity}")
        self._initial = (None if initial_quaternion is None
                         else unit_quaternion("initial_quaternion", initial_quaternion))
        if self.mag is None and self._initial is None:
            raise ValueError("ComplementaryFilter needs mag_params or initial_quaternion: "
                             "without a magnetometer the initial yaw is unknown")
        self.gains = dict(DEFAULT_GAINS)
        if gains is not None:
            if not isinstance(gains, Mapping):
                raise TypeError(f"gains must be a dict with keys {sorted(DEFAULT_GAINS)}, "
                                f"got {type(gains).__name__}")
            unknown = sorted(set(gains) - set(DEFAULT_GAINS))
            if unknown:
                raise ValueError(f"gains has unknown keys {unknown}; allowed: "
                                 f"{', '.join(DEFAULT_GAINS)}")
            for key, value in gains.items():
                self.gains[key] = check_non_negative_float(f"gains['{key}']", value)
        self._mount = mount_rotation(self.imu)
        if self.mag is not None:
            field = world_field(self.mag)
            horizontal = np.array([field[0], field[1], 0.0])
            if np.linalg.norm(horizontal) < 1e-9:
                raise ValueError("mag_params: the Earth field has no horizontal component "
                                 "(inclination +-90 deg): it cannot give the yaw")
            self._field = field
            self._north = horizontal / np.linalg.norm(horizontal)
            self._hard_iron = np.array(self.mag.hard_iron, dtype=float)
        self.reset()

    def reset(self) -> None:
        """Forget the estimate (the next readings initialise it again)."""
        self._q = np.array([0.0, 0.0, 0.0, 1.0])
        self._bias = np.zeros(3)
        self._accel_world = np.zeros(3)
        self._gnss_velocity: np.ndarray | None = None
        self._time = math.nan
        self._last = dict.fromkeys(("imu", "gnss", "mag"), math.nan)
        self._imu_previous: tuple[np.ndarray, np.ndarray] | None = None
        self.initialised = False
        if self._initial is not None:
            self._q = self._initial.copy()
            self.initialised = True

    def initialise(self, accel: object, field: object = None) -> None:
        """Start from a vehicle at rest: roll and pitch from ``accel`` (3,) [m/s^2,
        sensor frame], yaw from ``field`` (3,) [uT, body]."""
        accel_b = self._mount @ vector("accel", accel, 3)
        if field is None:
            raise ValueError("field (a magnetometer sample) is needed to initialise the yaw")
        field_b = vector("field", field, 3) - self._hard_iron
        self._q = level_and_heading(accel_b, field_b, self._field)
        self.initialised = True

    def predict(self, accel: object, gyro: object, dt: object) -> None:
        """One IMU sample, ``accel`` (3,) [m/s^2] and ``gyro`` (3,) [rad/s] (sensor
        frame), over ``dt`` [s]: the gyro integration with the accelerometer's
        correction."""
        accel_b = self._mount @ vector("accel", accel, 3)
        gyro_b = self._mount @ vector("gyro", gyro, 3)
        dt = check_dt(dt)
        self._require_initialised("predict")
        if dt == 0.0:
            return
        error = np.zeros(3)
        norm = float(np.linalg.norm(accel_b))
        if norm > 1e-6:  # in free fall the accelerometer tells nothing about the tilt
            reference = self._accel_world + np.array([0.0, 0.0, self.gravity])
            estimate = matrix(self._q).T @ (reference / np.linalg.norm(reference))
            error = np.cross(accel_b / norm, estimate)
        rate = gyro_b - self._bias + self.gains["accel_kp"] * error
        self._bias -= self.gains["accel_ki"] * error * dt
        self._q = np.array(quat_times_rotation(*self._q, *(rate * dt)))

    def update_mag(self, field: object, dt: object) -> None:
        """A magnetometer sample ``field`` (3,) [uT, body] corrects the yaw; ``dt`` [s] is
        the time since the previous one (the correction's weight, gains per second)."""
        m = vector("field", field, 3)
        dt = check_dt(dt)
        if self.mag is None:
            raise ValueError("update_mag needs mag_params (the filter was built without a "
                             "magnetometer)")
        self._require_initialised("update_mag")
        rot = matrix(self._q)
        measured = rot @ (m - self._hard_iron)
        measured[2] = 0.0
        norm = float(np.linalg.norm(measured))
        if norm < 1e-9:
            return
        error = rot.T @ np.cross(measured / norm, self._north)  # body frame, yaw only
        self._bias -= self.gains["mag_ki"] * error * dt
        self._q = np.array(quat_times_rotation(*self._q, *(self.gains["mag_kp"] * error * dt)))

    def update_gnss_velocity(self, velocity: object, dt: object) -> None:
        """A GNSS velocity (3,) [m/s, world], ``dt`` [s] after the previous one: their
        difference, low-passed (:data:`ACCELERATION_TIME_CONSTANT`), is the world
        acceleration the accelerometer's reference direction includes."""
        v = vector("velocity", velocity, 3)
        dt = check_dt(dt)
        if self._gnss_velocity is not None and dt > 0.0:
            raw = (v - self._gnss_velocity) / dt
            alpha = dt / (ACCELERATION_TIME_CONSTANT + dt)
            self._accel_world += alpha * (raw - self._accel_world)
        self._gnss_velocity = v

    def feed(self, readings: Mapping[str, Any]) -> bool:
        """Apply the new samples of a :meth:`SensorSuite.read`-layout dict (``imu``, and
        ``mag`` and ``gnss`` when present; others ignored), as
        :meth:`ErrorStateEkf.feed <pyflyt_like.estimation.ErrorStateEkf.feed>`: the IMU
        predicts with the mean of its last two samples. Returns whether the estimate
        changed."""
        readings = readings_mapping(readings)
        imu = readings["imu"]
        mag = readings.get("mag") if self.mag is not None else None
        if not self.initialised:
            if math.isnan(float(imu["time"])) or mag is None or math.isnan(float(mag["time"])):
                return False
            self.initialise(imu["accel"], mag["field"])
            self._last["mag"] = float(mag["time"])
        changed = False
        gnss = readings.get("gnss")
        if is_new(gnss, self._last["gnss"]):
            previous, self._last["gnss"] = self._last["gnss"], float(gnss["time"])
            if gnss["fix"]:
                dt = 0.0 if math.isnan(previous) else self._last["gnss"] - previous
                self.update_gnss_velocity(gnss["velocity"], dt)
            else:
                self._gnss_velocity = None
        if is_new(imu, self._last["imu"]):
            time = float(imu["time"])
            accel = vector("readings['imu']['accel']", imu["accel"], 3)
            gyro = vector("readings['imu']['gyro']", imu["gyro"], 3)
            if self._imu_previous is not None:
                prev_a, prev_g = self._imu_previous
                self.predict(0.5 * (accel + prev_a), 0.5 * (gyro + prev_g),
                             time - self._last["imu"])
                changed = True
            self._imu_previous = (accel, gyro)
            self._last["imu"] = self._time = time
        if is_new(mag, self._last["mag"]):
            previous, self._last["mag"] = self._last["mag"], float(mag["time"])
            # the first sample after an initial attitude has no predecessor: no weight
            dt = 0.0 if math.isnan(previous) else self._last["mag"] - previous
            self.update_mag(mag["field"], dt)
            changed = True
        return changed

    @property
    def state(self) -> AttitudeState:
        """The estimate (:class:`AttitudeState`, copies)."""
        return AttitudeState(self._time, self._q.copy(), self._bias.copy())

    @property
    def quaternion(self) -> np.ndarray:
        """(4,) body to world (x, y, z, w) (a copy)."""
        return self._q.copy()

    def _require_initialised(self, what: str) -> None:
        if not self.initialised:
            raise RuntimeError(f"{what}: the filter is not initialised yet: call "
                               "initialise(accel, field) or feed(readings) first, or give "
                               "initial_quaternion")

    @classmethod
    def from_params(cls, params: Mapping[str, Any], **options: Any) -> ComplementaryFilter:
        """The filter for resolved sensor parameters, e.g. ``SensorSuite.params`` (uses
        ``imu`` and ``mag``); ``options`` as the constructor's keywords."""
        params = sensor_parameters(params, "ComplementaryFilter",
                                   "it integrates the gyroscope")
        return cls(params["imu"], params.get("mag"), **options)
