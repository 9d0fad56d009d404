"""The in-memory record of one vehicle's flight: what the reports are written from."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

STATE_COLUMNS = ("p", "q", "r", "roll", "pitch", "yaw", "u", "v", "w", "x", "y", "z")


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
    def columns(self) -> tuple[str, ...]:
        """CSV header: time, the 12 state columns, reference position, setpoints, actuators,
        error."""
        return ("time", *STATE_COLUMNS, "x_ref", "y_ref", "z_ref", *self.setpoint_names,
                *self.actuator_names, "error")

    def poses(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(m,) times [s], (m, 3) positions x, y, z [m] and (m, 3) Euler angles roll, pitch,
        yaw [rad] of the recorded rows."""
        states = np.array(self.states).reshape(len(self.times), 12)
        x, roll = STATE_COLUMNS.index("x"), STATE_COLUMNS.index("roll")
        return np.array(self.times), states[:, x:x + 3], states[:, roll:roll + 3]

    def table(self) -> np.ndarray:
        """(rows, columns) array in :attr:`columns` order."""
        if not self.times:
            return np.zeros((0, len(self.columns)))
        return np.column_stack((np.array(self.times), np.array(self.states),
                                np.array(self.references), np.array(self.setpoints),
                                np.array(self.actuators), np.array(self.errors)))
