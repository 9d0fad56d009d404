"""An error-state (multiplicative) extended Kalman filter: IMU prediction, GNSS, barometer
and magnetometer updates. Engine-independent: arrays in, arrays out (numpy only).

Frames and units: world ENU, body FLU, quaternions (x, y, z, w) body to world, SI units,
magnetometer in uT. The equations, noise models and their sources are in
docs/estimation.md; in short (Sola, "Quaternion kinematics for the error-state Kalman
filter", 2017, local angle errors):

- nominal state: position ``p`` [m, world], velocity ``v`` [m/s, world], attitude ``q``,
  accelerometer bias ``b_a`` [m/s^2], gyroscope bias ``b_g`` [rad/s], and two optional
  states: the magnetometer's unknown hard-iron residual ``b_m`` [uT, body] and the
  barometer's drift ``b_b`` [m];
- error state ``(dp, dv, dtheta, db_a, db_g[, db_m][, db_b])``, 15 to 19 entries, with the
  true attitude ``q_true = q * Exp(dtheta)`` (dtheta in the body frame);
- prediction from each IMU sample, updates in Joseph form, injection of the error into the
  nominal state and reset of the error to 0 (the reset Jacobian ``I - [dtheta/2]x`` is
  taken as identity: dtheta is small after each update).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from pyflyt_like.common.validation import check_finite
from pyflyt_like.sensors import (
    BarometerParams,
    GnssParams,
    ImuParams,
    MagnetometerParams,
    isa_altitude,
    isa_pressure,
)

from . import ekf_maths as maths
from ._shared import (
    check_dt,
    check_params,
    is_new,
    level_and_heading,
    mount_rotation,
    readings_mapping,
    scalar,
    sensor_parameters,
    unit_quaternion,
    vector,
    world_field,
)

# Floors on the noise figures the filter uses, so that "ideal" (zero-noise) sensors do not
# make a singular covariance: the filter always keeps a little doubt (the integration of a
# sampled IMU is not exact either).
MIN_ACCEL_DENSITY = 1e-4  # m/s^2/sqrt(Hz)
MIN_GYRO_DENSITY = 1e-5  # rad/s/sqrt(Hz)
MIN_ACCEL_WALK = 1e-6  # m/s^3/sqrt(Hz)
MIN_GYRO_WALK = 1e-7  # rad/s^2/sqrt(Hz)
MIN_POSITION_SIGMA = 1e-3  # m
MIN_VELOCITY_SIGMA = 1e-3  # m/s
MIN_ALTITUDE_SIGMA = 1e-3  # m
MIN_FIELD_SIGMA = 1e-3  # uT

#: Keys of ``initial``.
INITIAL_KEYS = ("position", "velocity", "quaternion")


@dataclass(frozen=True)
class EkfState:
    """A snapshot of the estimate (copies).

    Attributes:
        time: the time [s] of the last IMU sample fed by :meth:`ErrorStateEkf.feed`
            (NaN when fed by :meth:`~ErrorStateEkf.predict` only).
        position: (3,) [m, world]. velocity: (3,) [m/s, world].
        quaternion: (4,) body to world (x, y, z, w).
        accel_bias: (3,) [m/s^2, body]. gyro_bias: (3,) [rad/s, body].
        mag_bias: (3,) [uT, body], the hard-iron residual (zeros when not estimated).
        baro_bias: the barometer's drift [m] (0 when not estimated).
        covariance: (n, n) of the error state, n = :attr:`ErrorStateEkf.size`.
    """

    time: float
    position: np.ndarray
    velocity: np.ndarray
    quaternion: np.ndarray
    accel_bias: np.ndarray
    gyro_bias: np.ndarray
    mag_bias: np.ndarray
    baro_bias: float
    covariance: np.ndarray


class ErrorStateEkf:
    """Error-state EKF fusing an IMU with GNSS, and optionally a barometer and a
    magnetometer.

    Args:
        imu_params: the IMU's parameters (:class:`~pyflyt_like.sensors.ImuParams`); its
            noise densities and random walks make the process noise.
        gnss_params: the GNSS receiver's (required: without it the horizontal position and
            velocity are unobservable, the barometer gives height only).
        baro_params: the barometer's, or None.
        mag_params: the magnetometer's, or None; without it the yaw comes from
            ``initial["quaternion"]`` (required then) and is observable only while the
            vehicle accelerates horizontally.
        gravity: its magnitude [m/s^2], along world -z.
        initial: optional ``{"position" (3,), "velocity" (3,), "quaternion" (4,)}``: the
            initial state's known parts; the others come from the first readings
            (:meth:`initialise`). With all three the filter starts at once.
        estimate_mag_bias: estimate the magnetometer's hard-iron residual (3 states);
            None: when ``mag_params.hard_iron_sigma > 0``. Otherwise the residual counts as
            white noise.
        estimate_baro_bias: estimate the barometer's drift (1 state, a Gauss-Markov process
            of the barometer's drift sigma and time constant, observable against the
            GNSS height); None: when ``baro_params.drift_sigma > 0``. Otherwise the drift
            counts as white noise.

    Raises:
        TypeError: a parameter object of the wrong type.
        ValueError: GNSS missing, neither a magnetometer nor an initial quaternion, a bad
            ``initial``.
    """

    def __init__(self, imu_params: ImuParams, gnss_params: GnssParams | None = None,
                 baro_params: BarometerParams | None = None,
                 mag_params: MagnetometerParams | None = None, *, gravity: float = 9.81,
                 initial: Mapping[str, Any] | None = None,
                 estimate_mag_bias: bool | None = None,
                 estimate_baro_bias: bool | None = None):
        self.imu = check_params("imu_params", imu_params, ImuParams, True)
        if gnss_params is None:
            raise ValueError(
                "ErrorStateEkf needs gnss_params: without GNSS the horizontal position and "
                "velocity are unobservable (a barometer gives the height only); allowed: "
                "imu + gnss, optionally with baro and mag (the sensors 'imu', 'gnss', "
                "'baro', 'mag')")
        self.gnss = check_params("gnss_params", gnss_params, GnssParams, True)
        self.baro = check_params("baro_params", baro_params, BarometerParams, False)
        self.mag = check_params("mag_params", mag_params, MagnetometerParams, False)
        self.gravity = check_finite("gravity", gravity)
        if self.gravity <= 0.0:
            raise ValueError(f"gravity must be > 0 [m/s^2], got {self.gravity}")
        self._initial = _check_initial(initial)
        if self.mag is None and "quaternion" not in self._initial:
            raise ValueError(
                "ErrorStateEkf needs mag_params or initial['quaternion']: without a "
                "magnetometer the initial yaw is unknown")

        mag_bias = _flag("estimate_mag_bias", estimate_mag_bias,
                         self.mag is not None and self.mag.hard_iron_sigma > 0.0)
        baro_bias = _flag("estimate_baro_bias", estimate_baro_bias,
                          self.baro is not None and self.baro.drift_sigma > 0.0)
        if mag_bias and self.mag is None:
            raise ValueError("estimate_mag_bias=True needs mag_params")
        if baro_bias and self.baro is None:
            raise ValueError("estimate_baro_bias=True needs baro_params")
        self.estimates_mag_bias, self.estimates_baro_bias = mag_bias, baro_bias
        n = 15
        # the optional error states' indices, -1 when not estimated (as ekf_maths takes them)
        self._ibm = n if mag_bias else -1
        n += 3 if mag_bias else 0
        self._ibb = n if baro_bias else -1
        n += 1 if baro_bias else 0
        #: The error state's size (15 to 19).
        self.size = n
        self._noise_models()
        self._mount = mount_rotation(self.imu)
        self.reset()

    # --- set-up ------------------------------------------------------------------------

    def _noise_models(self) -> None:
        """The filter's noise figures from the sensors' parameters (docs/estimation.md)."""
        imu = self.imu
        # quantisation: uniform error of one LSB, variance step^2 / 12 per sample, as an
        # extra white noise density step^2 / 12 * dt [(unit)^2 / Hz]
        dt_imu = imu.dt
        #: (4,) the process noise densities squared: accelerometer and gyroscope white
        #: noise [(m/s^2)^2/Hz, (rad/s)^2/Hz], then their random walks.
        self.process_noise = np.array([
            max(imu.accelerometer_noise_density ** 2
                + imu.accelerometer_resolution ** 2 / 12.0 * dt_imu, MIN_ACCEL_DENSITY ** 2),
            max(imu.gyroscope_noise_density ** 2
                + imu.gyroscope_resolution ** 2 / 12.0 * dt_imu, MIN_GYRO_DENSITY ** 2),
            max(imu.accelerometer_random_walk, MIN_ACCEL_WALK) ** 2,
            max(imu.gyroscope_random_walk, MIN_GYRO_WALK) ** 2])
        gnss = self.gnss
        # the Gauss-Markov error counts as extra white noise (its variance added): the
        # filter does not model its correlation, so it trusts a biased fix a little too
        # much over times shorter than its time constant.
        horizontal = math.hypot(gnss.horizontal_noise, gnss.correlated_horizontal)
        vertical = math.hypot(gnss.vertical_noise, gnss.correlated_vertical)
        self._r_gnss = np.diag(np.concatenate([
            np.array([horizontal, horizontal, vertical]).clip(MIN_POSITION_SIGMA) ** 2,
            np.full(3, max(gnss.velocity_noise, MIN_VELOCITY_SIGMA) ** 2)]))
        self._latency = gnss.latency / gnss.update_rate  # [s]
        # the barometer drift's time constant [s] and sigma [m] (unused without its state)
        self._drift_tau, self._drift_m = 1.0, 0.0
        self._r_baro = 0.0
        self._field, self._hard_iron = np.zeros(3), np.zeros(3)
        self._r_mag = np.zeros((3, 3))
        if self.baro is not None:
            baro = self.baro
            # metres per pascal at the ground: the slope of the firmware's altitude formula
            p_ground = isa_pressure(baro.ground_altitude)
            self._m_per_pa = abs(isa_altitude(p_ground - 1.0) - isa_altitude(p_ground))
            white = baro.pressure_noise * self._m_per_pa
            drift = baro.drift_sigma * self._m_per_pa
            self._drift_tau, self._drift_m = baro.drift_time_constant, drift
            self._r_baro = max(white if self.estimates_baro_bias else math.hypot(white, drift),
                               MIN_ALTITUDE_SIGMA) ** 2
        if self.mag is not None:
            mag = self.mag
            self._field = world_field(mag)
            self._hard_iron = np.array(mag.hard_iron, dtype=float)
            sigma = mag.noise if self.estimates_mag_bias else math.hypot(
                mag.noise, mag.hard_iron_sigma)
            self._r_mag = np.eye(3) * max(sigma, MIN_FIELD_SIGMA) ** 2

    def reset(self) -> None:
        """Forget the estimate: the filter waits for :meth:`initialise` (or the first
        readings of :meth:`feed`), unless ``initial`` gave the whole state."""
        nominal = np.zeros(maths.NOMINAL_SIZE)
        nominal[maths.Q + 3] = 1.0
        self.use_arrays(nominal, np.zeros((self.size, self.size)))
        self._time = math.nan
        self._last = dict.fromkeys(("imu", "gnss", "baro", "mag"), math.nan)
        self._imu_previous: tuple[np.ndarray, np.ndarray] | None = None
        self.initialised = False
        if all(key in self._initial for key in INITIAL_KEYS):
            self._start(self._initial["position"], self._initial["velocity"],
                        self._initial["quaternion"])

    def use_arrays(self, nominal: np.ndarray, covariance: np.ndarray) -> None:
        """Hold the estimate in ``nominal`` (:data:`~.ekf_maths.NOMINAL_SIZE`,) and
        ``covariance`` (size, size) float64 from now on, as they are (the PyBullet vehicles
        give views of the buffers their compiled onboard step writes in place)."""
        #: The nominal state, flat (layout of :mod:`.ekf_maths`); the attributes below are
        #: views of it.
        self.nominal = x = nominal
        self._p, self._v = x[maths.P:maths.P + 3], x[maths.V:maths.V + 3]
        self._q = x[maths.Q:maths.Q + 4]
        self._ba, self._bg = x[maths.BA:maths.BA + 3], x[maths.BG:maths.BG + 3]
        self._bm_est = x[maths.BM:maths.BM + 3]
        #: The error state's covariance (size, size), updated in place.
        self.covariance = covariance

    def initialise(self, accel: object, field: object = None, position: object = None,
                   velocity: object = None) -> None:
        """Start the estimate from a vehicle at rest (or the given parts of ``initial``).

        Args:
            accel: (3,) an accelerometer sample [m/s^2, sensor frame]: roll and pitch
                (unless ``initial["quaternion"]``).
            field: (3,) a magnetometer sample [uT, body]: the yaw (needed when there is
                no ``initial["quaternion"]``).
            position: (3,) [m, world], e.g. a GNSS fix; default ``initial["position"]``
                (required if neither).
            velocity: (3,) [m/s, world]; default ``initial["velocity"]``, else 0.
        """
        accel_b = self._mount @ vector("accel", accel, 3)
        if "quaternion" in self._initial:
            quat = self._initial["quaternion"]
        else:
            if field is None:
                raise ValueError("field (a magnetometer sample) is needed to initialise "
                                 "the yaw when initial has no 'quaternion'")
            field_b = vector("field", field, 3) - self._hard_iron
            quat = level_and_heading(accel_b, field_b, self._field)
        if position is None:
            if "position" not in self._initial:
                raise ValueError("position is needed to initialise (a GNSS fix or "
                                 "initial['position'])")
            position = self._initial["position"]
        if velocity is None:
            velocity = self._initial.get("velocity", np.zeros(3))
        self._start(vector("position", position, 3), vector("velocity", velocity, 3), quat)

    def _start(self, position: np.ndarray, velocity: np.ndarray, quat: np.ndarray) -> None:
        self._p[:], self._v[:], self._q[:] = position, velocity, quat
        imu, gnss = self.imu, self.gnss
        # initial standard deviations: the sensors' figures where they bound the error
        pos = max(math.hypot(gnss.horizontal_noise, gnss.correlated_horizontal), 0.1)
        pos_z = max(math.hypot(gnss.vertical_noise, gnss.correlated_vertical), 0.1)
        vel = max(gnss.velocity_noise, 0.05)
        tilt = max(imu.accelerometer_turn_on_bias / self.gravity, math.radians(1.0))
        sigmas = [pos, pos, pos_z, vel, vel, vel, tilt, tilt, math.radians(10.0)]
        sigmas += [max(imu.accelerometer_turn_on_bias, 0.02)] * 3
        sigmas += [max(imu.gyroscope_turn_on_bias, math.radians(0.1))] * 3
        if self._ibm >= 0:
            sigmas += [self.mag.hard_iron_sigma] * 3
        if self._ibb >= 0:
            sigmas += [self._drift_m]
        self.covariance[:] = np.diag(np.square(sigmas))
        self.initialised = True

    # --- the filter ----------------------------------------------------------------------

    def predict(self, accel: object, gyro: object, dt: object) -> None:
        """Propagate the estimate ``dt`` [s] on with one IMU sample: ``accel`` (3,)
        specific force [m/s^2] and ``gyro`` (3,) body rates [rad/s], in the IMU's sensor
        frame (turned into the body frame by its mounting orientation; the lever arm of
        ``mounting_position`` is not compensated)."""
        accel_s = vector("accel", accel, 3)
        gyro_s = vector("gyro", gyro, 3)
        dt = check_dt(dt)
        self._require_initialised("predict")
        if dt == 0.0:
            return
        maths.predict(self.nominal, self.covariance, accel_s, gyro_s, dt, self._mount,
                      self.gravity, self.process_noise, self._ibb, self._drift_tau,
                      self._drift_m)

    def update_gnss(self, position: object, velocity: object) -> None:
        """Fuse a GNSS fix: ``position`` (3,) [m, world] and ``velocity`` (3,) [m/s],
        measured ``latency / update_rate`` seconds ago (the filter compares them with its
        state extrapolated back by that time along its velocity and last acceleration)."""
        z_p = vector("position", position, 3)
        z_v = vector("velocity", velocity, 3)
        self._require_initialised("update_gnss")
        maths.update_gnss(self.nominal, self.covariance, z_p, z_v, self._latency,
                          self._r_gnss, self._ibm, self._ibb)

    def update_baro(self, altitude: object) -> None:
        """Fuse a barometric ``altitude`` [m above sea level]: ``altitude -
        ground_altitude`` measures world z (plus the drift when estimated)."""
        z = scalar("altitude", altitude)
        if self.baro is None:
            raise ValueError("update_baro needs baro_params (the filter was built without "
                             "a barometer)")
        self._require_initialised("update_baro")
        maths.update_baro(self.nominal, self.covariance, z, self.baro.ground_altitude,
                          self._r_baro, self._ibm, self._ibb)

    def update_mag(self, field: object) -> None:
        """Fuse a magnetometer sample ``field`` (3,) [uT, body], the full vector against
        ``R^T B + hard_iron (+ b_m)``, B the known Earth field of the magnetometer's
        parameters."""
        m = vector("field", field, 3)
        if self.mag is None:
            raise ValueError("update_mag needs mag_params (the filter was built without a "
                             "magnetometer)")
        self._require_initialised("update_mag")
        maths.update_mag(self.nominal, self.covariance, m, self._field, self._hard_iron,
                         self._r_mag, self._ibm, self._ibb)

    @property
    def constants(self) -> tuple:
        """The filter's constants in the order the compiled feed takes them
        (:func:`pyflyt_like.compiled.onboard.feed_ekf`, after ``x, cov, last_imu``): mount
        (3, 3), gravity, process noise (4,), ibb, drift time constant [s], drift sigma [m],
        GNSS latency [s], GNSS covariance (6, 6), ground altitude [m], barometer variance
        [m^2], world field (3,) [uT], hard iron (3,) [uT], magnetometer covariance (3, 3),
        ibm, whether a barometer and a magnetometer are fused."""
        ground = self.baro.ground_altitude if self.baro is not None else 0.0
        return (self._mount, self.gravity, self.process_noise, self._ibb, self._drift_tau,
                self._drift_m, self._latency, self._r_gnss, ground, self._r_baro, self._field,
                self._hard_iron, self._r_mag, self._ibm, self.baro is not None,
                self.mag is not None)

    # --- readings ------------------------------------------------------------------------

    def feed(self, readings: Mapping[str, Any]) -> bool:
        """Apply the new samples of a :meth:`SensorSuite.read`-layout dict: a new IMU
        sample (its ``time`` later than the last) predicts from the last one, with the mean
        of the two samples (trapezoidal); then each configured sensor whose ``time`` is new
        updates (GNSS only with a fix). Before the filter is initialised, it initialises
        from the first usable readings (IMU, magnetometer unless ``initial`` has a
        quaternion, a GNSS fix unless it has a position). Returns whether the estimate
        changed."""
        readings = readings_mapping(readings)
        imu = readings["imu"]
        if not self.initialised:
            return self._feed_initialise(readings)
        changed = False
        if is_new(imu, self._last["imu"]):
            time = float(imu["time"])
            accel = vector("readings['imu']['accel']", imu["accel"], 3)
            gyro = vector("readings['imu']['gyro']", imu["gyro"], 3)
            if self._imu_previous is not None and not math.isnan(self._last["imu"]):
                prev_a, prev_g = self._imu_previous
                self.predict(0.5 * (accel + prev_a), 0.5 * (gyro + prev_g),
                             time - self._last["imu"])
                changed = True
            self._imu_previous = (accel, gyro)
            self._last["imu"] = self._time = time
        gnss = readings.get("gnss")
        if is_new(gnss, self._last["gnss"]):
            self._last["gnss"] = float(gnss["time"])
            if gnss["fix"]:
                self.update_gnss(gnss["position"], gnss["velocity"])
                changed = True
        baro = readings.get("baro") if self.baro is not None else None
        if is_new(baro, self._last["baro"]):
            self._last["baro"] = float(baro["time"])
            self.update_baro(baro["altitude"])
            changed = True
        mag = readings.get("mag") if self.mag is not None else None
        if is_new(mag, self._last["mag"]):
            self._last["mag"] = float(mag["time"])
            self.update_mag(mag["field"])
            changed = True
        return changed

    def _feed_initialise(self, readings: Mapping[str, Any]) -> bool:
        imu = readings["imu"]
        if math.isnan(float(imu["time"])):
            return False
        field = None
        if "quaternion" not in self._initial:
            mag = readings.get("mag")
            if mag is None or math.isnan(float(mag["time"])):
                return False
            field = mag["field"]
        position = velocity = None
        if "position" not in self._initial:
            gnss = readings.get("gnss")
            if gnss is None or math.isnan(float(gnss["time"])) or not gnss["fix"]:
                return False
            position, velocity = gnss["position"], gnss["velocity"]
        self.initialise(imu["accel"], field, position, velocity)
        for name in self._last:  # the samples used to start are not fused again
            if name in readings:
                self._last[name] = float(readings[name]["time"])
        self._imu_previous = (vector("accel", imu["accel"], 3),
                              vector("gyro", imu["gyro"], 3))
        self._time = self._last["imu"]
        return True

    # --- views ---------------------------------------------------------------------------

    @property
    def state(self) -> EkfState:
        """The estimate (:class:`EkfState`, copies)."""
        return EkfState(self._time, self._p.copy(), self._v.copy(), self._q.copy(),
                        self._ba.copy(), self._bg.copy(), self._bm_est.copy(),
                        float(self.nominal[maths.BB]), self.covariance.copy())

    @property
    def position(self) -> np.ndarray:
        """(3,) [m, world] (a copy)."""
        return self._p.copy()

    @property
    def velocity(self) -> np.ndarray:
        """(3,) [m/s, world] (a copy)."""
        return self._v.copy()

    @property
    def quaternion(self) -> np.ndarray:
        """(4,) body to world (x, y, z, w) (a copy)."""
        return self._q.copy()

    def _require_initialised(self, what: str) -> None:
        if not self.initialised:
            raise RuntimeError(f"{what}: the filter is not initialised yet: call "
                               "initialise(...) or feed(readings) first, or give "
                               "initial={'position', 'velocity', 'quaternion'}")

    @classmethod
    def from_params(cls, params: Mapping[str, Any], **options: Any) -> ErrorStateEkf:
        """The filter for resolved sensor parameters, e.g. ``SensorSuite.params``
        (``{"imu": ImuParams, "gnss": ..., "baro": ..., "mag": ...}``; others ignored);
        ``options`` as the constructor's keywords."""
        params = sensor_parameters(params, "ErrorStateEkf", "it predicts from the IMU")
        return cls(params["imu"], params.get("gnss"), params.get("baro"), params.get("mag"),
                   **options)


def _flag(name: str, value: object, default: bool) -> bool:
    if value is None:
        return default
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True, False or None, got {value!r}")
    return value


def _check_initial(initial: Mapping[str, Any] | None) -> dict[str, np.ndarray]:
    if initial is None:
        return {}
    if not isinstance(initial, Mapping):
        raise TypeError(f"initial must be a dict with keys {', '.join(INITIAL_KEYS)}, got "
                        f"{type(initial).__name__}")
    unknown = sorted(set(initial) - set(INITIAL_KEYS))
    if unknown:
        raise ValueError(f"initial has unknown keys {unknown}; allowed: "
                         f"{', '.join(INITIAL_KEYS)}")
    out = {}
    for key in ("position", "velocity"):
        if key in initial:
            out[key] = vector(f"initial['{key}']", initial[key], 3)
    if "quaternion" in initial:
        out["quaternion"] = unit_quaternion("initial['quaternion']", initial["quaternion"])
    return out
