"""What the estimators share: input checks, small rotation helpers on numpy arrays, the
initial attitude from an accelerometer and a magnetometer sample, and the readings'
bookkeeping of ``feed``."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from pyflyt_like.common.rotations import euler_to_matrix, quat_to_matrix
from pyflyt_like.common.validation import as_float_array
from pyflyt_like.sensors import ImuParams, MagnetometerParams


def vector(name: str, value: object, size: int) -> np.ndarray:
    """``value`` as a finite float array of shape (size,); TypeError / ValueError naming
    ``name`` otherwise."""
    return as_float_array(name, value, (size,))


def scalar(name: str, value: object) -> float:
    """``value`` as a finite float (not a bool or a string)."""
    return float(as_float_array(name, value, ()))


def check_dt(dt: object) -> float:
    """The time step [s]: finite and >= 0 (0 is a no-op)."""
    value = scalar("dt", dt)
    if value < 0.0:
        raise ValueError(f"dt must be >= 0 [s], got {value}")
    return value


def check_params(name: str, value: object, kind: type, required: bool) -> Any:
    """``value`` must be an instance of ``kind`` (or None when not ``required``)."""
    if value is None and not required:
        return None
    if not isinstance(value, kind):
        raise TypeError(f"{name} must be a {kind.__name__} (from "
                        f"pyflyt_like.sensors.resolve_sensors or SensorSuite.params)"
                        f"{'' if required else ' or None'}, got {type(value).__name__}")
    return value


def matrix(quaternion: np.ndarray) -> np.ndarray:
    """(3, 3) body-to-world rotation of the unit quaternion (x, y, z, w)."""
    return np.array(quat_to_matrix(*quaternion)).reshape(3, 3)


def matrix_to_quat(r: np.ndarray) -> np.ndarray:
    """Unit quaternion (x, y, z, w), w >= 0, of the rotation matrix ``r`` (3, 3)."""
    trace = r[0, 0] + r[1, 1] + r[2, 2]
    if trace > 0.0:
        s = 2.0 * math.sqrt(1.0 + trace)
        q = [(r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s,
             0.25 * s]
    elif r[0, 0] > r[1, 1] and r[0, 0] > r[2, 2]:
        s = 2.0 * math.sqrt(1.0 + r[0, 0] - r[1, 1] - r[2, 2])
        q = [0.25 * s, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s,
             (r[2, 1] - r[1, 2]) / s]
    elif r[1, 1] > r[2, 2]:
        s = 2.0 * math.sqrt(1.0 + r[1, 1] - r[0, 0] - r[2, 2])
        q = [(r[0, 1] + r[1, 0]) / s, 0.25 * s, (r[1, 2] + r[2, 1]) / s,
             (r[0, 2] - r[2, 0]) / s]
    else:
        s = 2.0 * math.sqrt(1.0 + r[2, 2] - r[0, 0] - r[1, 1])
        q = [(r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, 0.25 * s,
             (r[1, 0] - r[0, 1]) / s]
    quat = np.array(q)
    quat /= np.linalg.norm(quat)
    return -quat if quat[3] < 0.0 else quat


def unit_quaternion(name: str, value: object) -> np.ndarray:
    """A (4,) quaternion (x, y, z, w), normalised; its norm must be within 1 +- 1e-3."""
    quat = vector(name, value, 4)
    norm = float(np.linalg.norm(quat))
    if abs(norm - 1.0) > 1e-3:
        raise ValueError(f"{name} must be a unit quaternion (x, y, z, w), got norm {norm}")
    return quat / norm


def mount_rotation(imu: ImuParams) -> np.ndarray:
    """(3, 3) sensor-to-body rotation R_bs of the IMU's mounting orientation."""
    return np.array(euler_to_matrix(*imu.mounting_orientation)).reshape(3, 3)


def world_field(mag: MagnetometerParams) -> np.ndarray:
    """The known Earth field (3,) [uT, world ENU] of the magnetometer's parameters."""
    return np.array(mag.coefficients[0:3])


def level_and_heading(accel: np.ndarray, field: np.ndarray | None,
                      world: np.ndarray | None, yaw: float = 0.0) -> np.ndarray:
    """The attitude (x, y, z, w) of a vehicle at rest from its specific force ``accel``
    (3,) [m/s^2, body] (roll and pitch: the body's up axis is along it) and, when given,
    the magnetometer's ``field`` (3,) [uT, body] against the ``world`` field (yaw: the
    tilt-compensated field's heading against the world field's); else ``yaw`` [rad]."""
    norm = float(np.linalg.norm(accel))
    if norm < 1e-6:
        raise ValueError("accel must not be zero to level the estimate (the vehicle must "
                         f"be at rest, not in free fall), got {accel.tolist()}")
    roll = math.atan2(accel[1], accel[2])
    pitch = math.atan2(-accel[0], math.hypot(accel[1], accel[2]))
    if field is not None and world is not None:
        tilt = np.array(euler_to_matrix(roll, pitch, 0.0)).reshape(3, 3)
        level = tilt @ field  # the field in a frame of the body's heading, level
        yaw = math.atan2(world[1], world[0]) - math.atan2(level[1], level[0])
    return matrix_to_quat(np.array(euler_to_matrix(roll, pitch, yaw)).reshape(3, 3))


def is_new(reading: Mapping[str, Any] | None, last: float) -> bool:
    """Whether a reading's ``time`` is set (not NaN) and later than ``last`` (NaN: none
    yet)."""
    if reading is None:
        return False
    time = float(reading["time"])
    return not math.isnan(time) and (math.isnan(last) or time > last)


def readings_mapping(readings: object) -> Mapping[str, Any]:
    """``readings`` must be a mapping in the :meth:`SensorSuite.read` layout."""
    if not isinstance(readings, Mapping):
        raise TypeError("readings must be a dict in SensorSuite.read()'s layout "
                        f"({{'imu': {{'time', 'accel', 'gyro'}}, ...}}), got "
                        f"{type(readings).__name__}")
    if "imu" not in readings:
        raise ValueError("readings must hold an 'imu' reading (the estimators predict "
                         f"from it), got keys {sorted(readings)}")
    return readings


def sensor_parameters(params: object, owner: str, imu_use: str) -> Mapping[str, Any]:
    """``params`` must be a mapping of resolved sensor parameters (``SensorSuite.params``)
    holding an ``imu`` (``owner`` needs it: ``imu_use`` says what for)."""
    if not isinstance(params, Mapping):
        raise TypeError("params must be a dict of resolved sensor parameters "
                        f"(SensorSuite.params), got {type(params).__name__}")
    if "imu" not in params:
        raise ValueError(f"{owner} needs an 'imu' sensor: {imu_use}; got sensors "
                         f"{sorted(params)}")
    return params
