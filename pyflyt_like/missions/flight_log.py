"""The in-memory record of one vehicle's flight: what the reports are written from."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pyflyt_like.common.rotations import euler_to_matrix

STATE_COLUMNS = ("p", "q", "r", "roll", "pitch", "yaw", "u", "v", "w", "x", "y", "z")
#: The onboard estimate's columns, after ``error``, in a log with an estimator: position
#: [m] (NaN for the complementary filter, which has none) and Euler angles [rad].
ESTIMATE_COLUMNS = ("x_est", "y_est", "z_est", "roll_est", "pitch_est", "yaw_est")


@dataclass
class FlightLog:
    """Rows appended once per control step of one vehicle.

    Attributes:
        vehicle: the vehicle's name.
        setpoint_names: names of the setpoint columns (e.g. ``sp_x, sp_y, sp_yaw, sp_z``).
        actuator_names: names of the actuator command columns (e.g. ``rotor0`` ...).
        actuator_units: the unit of each actuator column (e.g. ``rad``, ``0…1``, ``rad/s``);
            plots draw columns of different units on separate axes. Empty: all unitless.
        times: [s]; states: (12,) rows in ``STATE_COLUMNS`` order; references: (3,) reference
        positions [m]; setpoints; actuators; errors: position error to the reference [m].
        estimates: None for a vehicle without an onboard estimator (the log then has no
            estimate columns); else, once :meth:`start_estimates` was called, one (6,) row
            per step in ``ESTIMATE_COLUMNS`` order: the estimated x, y, z [m] and roll,
            pitch, yaw [rad], NaN where not estimated (no position in the complementary
            filter, nothing before the filter initialised).
    """

    vehicle: str
    setpoint_names: tuple[str, ...]
    actuator_names: tuple[str, ...]
    actuator_units: tuple[str, ...] = ()
    times: list[float] = field(default_factory=list)
    states: list[np.ndarray] = field(default_factory=list)
    references: list[np.ndarray] = field(default_factory=list)
    setpoints: list[np.ndarray] = field(default_factory=list)
    actuators: list[np.ndarray] = field(default_factory=list)
    errors: list[float] = field(default_factory=list)
    estimates: list[np.ndarray] | None = None

    def append(self, time: float, state: np.ndarray, reference: np.ndarray,
               setpoint: np.ndarray, actuators: np.ndarray, error: float) -> None:
        """Record one control step (arrays are copied)."""
        self.times.append(float(time))
        self.states.append(np.array(state, dtype=float).reshape(12))
        self.references.append(np.array(reference, dtype=float).reshape(3))
        self.setpoints.append(np.array(setpoint, dtype=float).reshape(len(self.setpoint_names)))
        self.actuators.append(np.array(actuators, dtype=float).reshape(len(self.actuator_names)))
        self.errors.append(float(error))

    @property
    def has_estimates(self) -> bool:
        """Whether the log records an onboard estimate (and has ``ESTIMATE_COLUMNS``)."""
        return self.estimates is not None

    def start_estimates(self) -> None:
        """Give the log estimate columns: from now on every :meth:`append` is followed by
        one :meth:`append_estimate`.

        Raises:
            ValueError: rows were already recorded (their estimates would be missing).
        """
        if self.times:
            raise ValueError(f"flight log of {self.vehicle!r}: start_estimates must come "
                             f"before the first row, {len(self.times)} rows are recorded")
        if self.estimates is None:
            self.estimates = []

    def append_estimate(self, position: np.ndarray | None, euler: np.ndarray | None) -> None:
        """Record the estimate of the step last appended (arrays are copied).

        Args:
            position: (3,) estimated position [m, world], or None when the estimator has
                none (the complementary filter): NaN.
            euler: (3,) estimated roll, pitch, yaw [rad], or None when not estimated
                (e.g. the filter has not initialised): NaN.

        Raises:
            ValueError: the log has no estimate columns (:meth:`start_estimates` was not
                called) or this step already has its estimate.
        """
        if self.estimates is None:
            raise ValueError(f"flight log of {self.vehicle!r} has no estimate columns: call "
                             "start_estimates() before the first row")
        if len(self.estimates) >= len(self.times):
            raise ValueError(f"flight log of {self.vehicle!r}: an estimate for each of the "
                             f"{len(self.times)} rows is recorded already; append the row "
                             "first")
        row = np.full(6, np.nan)
        if position is not None:
            row[:3] = np.asarray(position, dtype=float).reshape(3)
        if euler is not None:
            row[3:] = np.asarray(euler, dtype=float).reshape(3)
        self.estimates.append(row)

    @property
    def columns(self) -> tuple[str, ...]:
        """CSV header: time, the 12 state columns, reference position, setpoints, actuators,
        error, then, only with an estimator, ``ESTIMATE_COLUMNS``."""
        columns = ("time", *STATE_COLUMNS, "x_ref", "y_ref", "z_ref", *self.setpoint_names,
                   *self.actuator_names, "error")
        # Appended last, so that every other column keeps its index with or without them.
        return (*columns, *ESTIMATE_COLUMNS) if self.has_estimates else columns

    def poses(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(m,) times [s], (m, 3) positions x, y, z [m] and (m, 3) Euler angles roll, pitch,
        yaw [rad] of the recorded rows."""
        states = np.array(self.states).reshape(len(self.times), 12)
        x, roll = STATE_COLUMNS.index("x"), STATE_COLUMNS.index("roll")
        return np.array(self.times), states[:, x:x + 3], states[:, roll:roll + 3]

    def estimate_table(self) -> np.ndarray:
        """(m, 6) estimate rows in ``ESTIMATE_COLUMNS`` order: x, y, z [m], roll, pitch, yaw
        [rad], NaN where not estimated.

        Raises:
            ValueError: the log has no estimate columns, or not one estimate per row.
        """
        if self.estimates is None:
            raise ValueError(f"flight log of {self.vehicle!r} has no estimate columns")
        if len(self.estimates) != len(self.times):
            raise ValueError(f"flight log of {self.vehicle!r}: {len(self.estimates)} estimate "
                             f"rows for {len(self.times)} rows; append_estimate must follow "
                             "every append")
        return np.array(self.estimates, dtype=float).reshape(len(self.times), 6)

    def estimate_errors(self) -> tuple[np.ndarray, np.ndarray]:
        """The estimate against the truth per row: (m,) position error |p_est - p| [m] and
        (m,) attitude error [deg], the angle of the rotation taking the estimated attitude
        to the true one (both built from the Euler angles). NaN where not estimated.

        Raises:
            ValueError: as :meth:`estimate_table`.
        """
        estimate = self.estimate_table()
        if not len(estimate):
            return np.zeros(0), np.zeros(0)
        _, position, euler = self.poses()
        position_error = np.linalg.norm(estimate[:, :3] - position, axis=1)
        true = _matrices(euler)
        estimated = _matrices(estimate[:, 3:])
        # relative = R_est^T R_true; its angle from the trace (cosine) and the antisymmetric
        # part (sine): atan2 keeps the precision at small angles, where acos loses it.
        relative = np.einsum("nji,njk->nik", estimated, true)
        cosine = np.trace(relative, axis1=1, axis2=2) - 1.0
        sine = np.linalg.norm(np.stack((relative[:, 2, 1] - relative[:, 1, 2],
                                        relative[:, 0, 2] - relative[:, 2, 0],
                                        relative[:, 1, 0] - relative[:, 0, 1]), axis=1), axis=1)
        attitude_error = np.degrees(np.arctan2(sine, cosine))
        return position_error, attitude_error

    def table(self) -> np.ndarray:
        """(rows, columns) array in :attr:`columns` order.

        Raises:
            ValueError: a log with estimate columns lacks the estimate of some row.
        """
        if not self.times:
            return np.zeros((0, len(self.columns)))
        parts = [np.array(self.times), np.array(self.states), np.array(self.references),
                 np.array(self.setpoints), np.array(self.actuators), np.array(self.errors)]
        if self.has_estimates:
            parts.append(self.estimate_table())
        return np.column_stack(parts)


def _matrices(euler: np.ndarray) -> np.ndarray:
    """(m, 3, 3) rotation matrices (body to world) of (m, 3) roll, pitch, yaw [rad]; a row
    with a NaN angle gives a NaN matrix."""
    return np.array([euler_to_matrix(*row) for row in euler.tolist()],
                    dtype=float).reshape(-1, 3, 3)
