"""The onboard state estimator of a PyBullet vehicle and the control state its controllers read.

Two pieces, both driven by :class:`~pyflyt_like.core.abstractions.modal_drone.ModalDrone`
(see docs/estimation.md, "Flying on the estimate"):

- :class:`OnboardEstimator` runs an estimator of :mod:`pyflyt_like.estimation` (``"ekf"`` or
  ``"complementary"``) on the drone's sensor readings once per physics step, after the
  sensors sample, and keeps the estimate in the layout of the drone's own state;
- :class:`ControlStateRing` holds the state the control tick reads (the truth or the
  estimate), ``delay_steps`` physics steps old: a ring buffer of snapshots.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pybullet

from pyflyt_like.common.rotations import euler_to_matrix
from pyflyt_like.estimation import ComplementaryFilter, ErrorStateEkf

from .sensors import compiled_entry

#: The options' names in error messages.
ESTIMATOR_OPTION = 'drone_options["estimator"]'
STATE_SOURCE_OPTION = 'drone_options["state_source"]'
DELAY_OPTION = 'drone_options["control_delay_steps"]'
#: The longest control-loop delay [physics steps]: 10 s at 1 kHz, beyond any real loop (the
#: ring holds one state per step).
MAX_CONTROL_DELAY_STEPS = 10_000
#: Accepted values.
ESTIMATORS = ("ekf", "complementary")
STATE_SOURCES = ("truth", "estimate")
#: Sensors each estimator needs, and those it uses when present.
NEEDED_SENSORS = {"ekf": ("imu", "gnss"), "complementary": ("imu",)}
OPTIONAL_SENSORS = {"ekf": ("baro", "mag"), "complementary": ("mag", "gnss")}

# One snapshot of the control state, flat: state (4, 3), rotation (3, 3) row-major body to
# world, world velocity (3,), quaternion (x, y, z, w).
_STATE, _ROTATION, _VELOCITY, _QUATERNION = (slice(0, 12), slice(12, 21), slice(21, 24),
                                             slice(24, 28))
SNAPSHOT_SIZE = 28


def check_estimation_options(estimator: object, state_source: object, delay_steps: object,
                             sensor_names: tuple[str, ...]) -> tuple[str | None, str, int]:
    """Check the three options against each other and the configured sensors.

    Args:
        estimator: ``"ekf"``, ``"complementary"`` or None.
        state_source: ``"truth"`` or ``"estimate"`` (the latter needs an estimator).
        delay_steps: the control-loop delay, an int in [0, MAX_CONTROL_DELAY_STEPS]
            [physics steps].
        sensor_names: the sensors configured by ``drone_options["sensors"]``.

    Returns:
        The estimator, the state source and the delay, checked.

    Raises:
        TypeError, ValueError: naming the option and what is allowed or missing.
    """
    if estimator is not None and (not isinstance(estimator, str) or estimator not in ESTIMATORS):
        raise ValueError(f"{ESTIMATOR_OPTION} must be one of {list(ESTIMATORS)} or None, got "
                         f"{estimator!r}")
    if estimator is not None:
        missing = [name for name in NEEDED_SENSORS[estimator] if name not in sensor_names]
        if missing:
            raise ValueError(
                f"{ESTIMATOR_OPTION}={estimator!r} needs drone_options[\"sensors\"] with "
                f"{' + '.join(NEEDED_SENSORS[estimator])} (optional: "
                f"{', '.join(OPTIONAL_SENSORS[estimator])}); missing: {', '.join(missing)} "
                f"(configured: {list(sensor_names) or 'none'})")
    if not isinstance(state_source, str) or state_source not in STATE_SOURCES:
        raise ValueError(f"{STATE_SOURCE_OPTION} must be one of {list(STATE_SOURCES)}, got "
                         f"{state_source!r}")
    if state_source == "estimate" and estimator is None:
        raise ValueError(f"{STATE_SOURCE_OPTION}='estimate' needs {ESTIMATOR_OPTION} "
                         f"({' or '.join(repr(e) for e in ESTIMATORS)}) and the sensors it "
                         "reads")
    if isinstance(delay_steps, (bool, np.bool_)) or not isinstance(delay_steps,
                                                                   (int, np.integer)):
        raise TypeError(f"{DELAY_OPTION} must be an int >= 0 [physics steps], got "
                        f"{delay_steps!r}")
    if not 0 <= delay_steps <= MAX_CONTROL_DELAY_STEPS:
        raise ValueError(f"{DELAY_OPTION} must be an int in [0, {MAX_CONTROL_DELAY_STEPS}] "
                         f"[physics steps], got {delay_steps!r}")
    return estimator, state_source, int(delay_steps)


class OnboardEstimator:
    """An estimator fed the drone's sensor readings once per physics step.

    The estimate is kept as a control-state snapshot (:data:`SNAPSHOT_SIZE` floats): state
    (4, 3) [body rates rad/s; roll, pitch, yaw rad; body velocity m/s; position m], rotation
    (3, 3) body to world, world velocity (3,) [m/s], quaternion (x, y, z, w).

    - Attitude: the estimator's quaternion; Euler angles by pybullet's convention (as the
      drone's own state).
    - Body rates: the latest gyroscope sample turned into the body frame by the IMU's
      mounting orientation, minus the estimated gyro bias (held between IMU samples).
    - EKF: position and velocity estimated. Complementary filter (attitude only): position
      and world velocity are the truth; the body velocity is the true world velocity
      turned by the estimated attitude.
    - At every reset the filter starts from the reset state (position, velocity and
      attitude: the launch state a vehicle is aligned with before take-off; the EKF's
      ``initial``; the complementary filter's ``initial_quaternion``), with the initial
      uncertainties of the sensors' figures and unknown IMU biases. (Left to initialise
      itself, the EKF would wait for the first GNSS fix, 0.1 s with the default GNSS's
      latency, with the controllers blind meanwhile, and level itself from an accelerometer
      sample that is only the tilt at rest.)

    Args:
        kind: ``"ekf"`` or ``"complementary"``.
        params: the resolved sensor parameters (``Sensors.params``).
        gravity: magnitude of gravity [m/s^2].
        spawn_quaternion: (4,) the spawn attitude (x, y, z, w).
    """

    def __init__(self, kind: str, params: Mapping[str, Any], gravity: float,
                 spawn_quaternion) -> None:
        self.kind = kind
        self.params = params
        self.gravity = gravity
        # Built here too, so that a bad configuration fails when the drone is made.
        self.filter = self._make_filter(np.zeros(3), np.zeros(3),
                                        np.asarray(spawn_quaternion, dtype=float))
        self._has_position = kind == "ekf"
        imu = params["imu"]
        self._mount = np.array(euler_to_matrix(*imu.mounting_orientation)).reshape(3, 3)
        self.snapshot = np.zeros(SNAPSHOT_SIZE)
        self._time = math.nan  # the complementary filter's; the EKF's is in _last_imu
        if kind == "ekf":
            self._feed_ekf = None  # bound at the first feed (compiled_entry)
            self._last_imu = np.full(7, math.nan)  # the last IMU sample fed and its time

    def _make_filter(self, position: np.ndarray, velocity: np.ndarray,
                     quaternion: np.ndarray) -> ErrorStateEkf | ComplementaryFilter:
        if self.kind == "ekf":
            initial = {"position": position, "velocity": velocity, "quaternion": quaternion}
            return ErrorStateEkf.from_params(self.params, gravity=self.gravity, initial=initial)
        return ComplementaryFilter.from_params(self.params, gravity=self.gravity,
                                               initial_quaternion=quaternion)

    def reset(self, truth: np.ndarray, sensors) -> None:
        """Start a new filter from the ``truth`` snapshot (the reset state) and feed it the
        reset's readings of ``sensors`` (the drone's
        :class:`~pyflyt_like.core.abstractions.sensors.Sensors`)."""
        self.filter = self._make_filter(truth[9:12], truth[_VELOCITY], truth[_QUATERNION])
        self.snapshot[:] = truth
        self._time = math.nan
        if self.kind == "ekf":
            self._last_imu[:] = math.nan
            ekf = self.filter
            self._feed_arguments = (ekf.nominal, ekf.covariance, self._last_imu,
                                    *ekf.constants, self.snapshot)
            self._feed(sensors)  # the reset's samples
            # from the next physics step on, the sensors feed it in their compiled call, on
            # copies of its arrays in their buffers, which the filter then holds (its state
            # stays readable)
            x, cov, self._last_imu, self.snapshot = sensors.feed_after_sampling(
                ekf.nominal, ekf.covariance, self._last_imu, ekf.constants, self.snapshot)
            ekf.use_arrays(x, cov)
            return
        self.feed(sensors, truth)

    def feed(self, sensors, truth: np.ndarray) -> None:
        """Apply the new samples of ``sensors`` (the drone's ``Sensors`` component) and
        refresh the snapshot (``truth``: the drone's true snapshot, for what the filter
        does not estimate)."""
        if self.kind == "ekf":  # fed by the sensors' compiled call (:meth:`reset`)
            return
        readings = sensors.read()
        estimator = self.filter
        estimator.feed(readings)
        if not estimator.initialised:
            return
        # attitude only: position and velocity are the truth
        snapshot = self.snapshot
        state = estimator.state
        position, velocity = truth[9:12], truth[_VELOCITY]
        quaternion = state.quaternion
        rotation = pybullet.getMatrixFromQuaternion(quaternion)
        r = np.array(rotation).reshape(3, 3)
        snapshot[0:3] = self._mount @ np.asarray(readings["imu"]["gyro"]) - state.gyro_bias
        snapshot[3:6] = pybullet.getEulerFromQuaternion(quaternion)
        snapshot[6:9] = r.T @ velocity
        snapshot[9:12] = position
        snapshot[_ROTATION] = rotation
        snapshot[_VELOCITY] = velocity
        snapshot[_QUATERNION] = quaternion
        self._time = float(state.time)

    def _feed(self, sensors) -> None:
        """Feed the EKF the samples of the sensors' last call (compiled)."""
        arguments = (sensors.sampled, sensors.readings, sensors.times)
        if self._feed_ekf is None:
            self._feed_ekf = compiled_entry("feed_ekf", *arguments, *self._feed_arguments)
        self._feed_ekf(*arguments, *self._feed_arguments)

    @property
    def time(self) -> float:
        """The time [s] of the last IMU sample fed (NaN before the first)."""
        return float(self._last_imu[6]) if self.kind == "ekf" else self._time

    def read(self) -> dict[str, Any]:
        """The latest estimate (copies): ``time`` [s] of the last IMU sample fed (NaN before
        the filter initialised), ``initialised``, ``quaternion`` (4,) (x, y, z, w) body to
        world, ``euler`` (3,) [rad], ``body_rates`` (3,) [rad/s] from the bias-corrected
        gyro, ``gyro_bias`` (3,) [rad/s]; the EKF adds ``position`` (3,) [m, world],
        ``velocity`` (3,) [m/s, world] and ``accel_bias`` (3,) [m/s^2]. Before the filter
        initialised, the values are the reset state's."""
        estimator = self.filter
        snapshot = self.snapshot
        out: dict[str, Any] = {"time": self.time, "initialised": bool(estimator.initialised),
                               "quaternion": snapshot[_QUATERNION].copy(),
                               "euler": snapshot[3:6].copy(),
                               "body_rates": snapshot[0:3].copy()}
        state = estimator.state
        out["gyro_bias"] = state.gyro_bias
        if self._has_position:
            out["position"] = snapshot[9:12].copy()
            out["velocity"] = snapshot[_VELOCITY].copy()
            out["accel_bias"] = state.accel_bias
        return out


class ControlStateRing:
    """The state the control tick reads, ``delay_steps`` physics steps old.

    A ring of ``delay_steps + 1`` snapshots (:data:`SNAPSHOT_SIZE` floats each), one pushed
    after each physics step; the control tick reads the slot about to be overwritten, the
    snapshot of ``delay_steps`` physics steps before the latest. After a reset every slot
    holds the reset state, so a delayed controller starts on it.

    For a pure delay this is the same as a measurement-to-actuation latency of
    ``delay_steps`` physics periods: the command applied at a step is computed from the
    state that many steps old.
    """

    def __init__(self, delay_steps: int) -> None:
        self.delay_steps = int(delay_steps)
        size = self.delay_steps + 1
        self.ring = np.zeros((size, SNAPSHOT_SIZE))
        # Per-slot views, made once: the control tick swaps them in without allocating.
        self.views = [(slot[_STATE].reshape(4, 3), slot[_ROTATION].reshape(3, 3),
                       slot[_VELOCITY], slot[_QUATERNION]) for slot in self.ring]
        self.count = 0
        #: False until the first :meth:`reset`: the control tick reads the truth till then.
        self.ready = False

    def reset(self, snapshot: np.ndarray) -> None:
        """Fill every slot with ``snapshot`` (the reset state)."""
        self.ring[:] = snapshot
        self.count = 0
        self.ready = True

    def push(self, snapshot: np.ndarray) -> None:
        """Store the snapshot of the physics step just taken."""
        self.count += 1
        self.ring[self.count % self.ring.shape[0]] = snapshot

    def current(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Views of the snapshot the control tick reads: state (4, 3), rotation (3, 3),
        world velocity (3,), quaternion (4,)."""
        return self.views[(self.count + 1) % self.ring.shape[0]]


def truth_snapshot(drone, out: np.ndarray) -> np.ndarray:
    """Write ``drone``'s true control state (state, rotation, world velocity, quaternion)
    into ``out`` (:data:`SNAPSHOT_SIZE`,) and return it."""
    out[_STATE] = drone.state.reshape(-1)
    out[_ROTATION] = drone.rotation_matrix.reshape(-1)
    out[_VELOCITY] = drone.world_velocity
    out[_QUATERNION] = drone.quaternion
    return out
