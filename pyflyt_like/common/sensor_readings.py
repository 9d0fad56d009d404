"""The flat layout of one drone's latest sensor readings, shared by both engines.

The batched engine keeps each drone's readings in this layout
(``sensor_readings[w, d]``, :mod:`pyflyt_like.batch.sensors`), and the tasks observe
readings in it on either engine (:func:`pack_readings` lays out a PyBullet drone's
``read_sensors`` dict the same way). Per sensor, in :data:`SENSOR_ORDER`
(imu, baro, mag, gnss, range):

====================  =====  ======================================
reading               width  unit, frame
====================  =====  ======================================
imu accel             3      m/s^2, sensor frame (specific force)
imu gyro              3      rad/s, sensor frame
baro pressure         1      Pa
baro altitude         1      m above sea level
mag field             3      uT, body
gnss position         3      m, world (ENU)
gnss velocity         3      m/s, world
gnss fix              1      1.0 or 0.0
range range           1      m
range valid           1      1.0 or 0.0
====================  =====  ======================================
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

#: The point sensors, in the one order of both engines' sensor arrays (periods, countdowns,
#: sample times, random streams), of this layout and of the tasks' sensed observation
#: (:data:`pyflyt_like.sensors.config.SENSOR_NAMES` is this tuple); the index constants.
SENSOR_ORDER = ("imu", "baro", "mag", "gnss", "range")
IMU, BARO, MAG, GNSS, RANGE = range(len(SENSOR_ORDER))
ACCEL, GYRO, PRESSURE, ALTITUDE, FIELD = 0, 3, 6, 7, 8
POSITION, VELOCITY, FIX, DISTANCE, VALID = 11, 14, 17, 18, 19
READINGS_SIZE = 20
#: Sensor name (in :data:`SENSOR_ORDER`) -> reading name -> (first index, width, kind) in
#: the layout.
READINGS = {
    "imu": {"accel": (ACCEL, 3, float), "gyro": (GYRO, 3, float)},
    "baro": {"pressure": (PRESSURE, 1, float), "altitude": (ALTITUDE, 1, float)},
    "mag": {"field": (FIELD, 3, float)},
    "gnss": {"position": (POSITION, 3, float), "velocity": (VELOCITY, 3, float),
             "fix": (FIX, 1, bool)},
    "range": {"range": (DISTANCE, 1, float), "valid": (VALID, 1, bool)},
}


def pack_readings(readings: Mapping[str, Mapping[str, Any]], out: np.ndarray) -> np.ndarray:
    """Write a ``read_sensors`` dict (sensor name -> reading name -> value; the sensors
    present) into ``out`` (:data:`READINGS_SIZE`,) float64 and return it; the entries of
    absent sensors are left as they are, bools written as 1.0 or 0.0; sensors without a
    place in the layout (the LiDAR's ranges) are skipped."""
    for name, entry in readings.items():
        if name not in READINGS:
            continue
        for key, (start, width, _kind) in READINGS[name].items():
            out[start:start + width] = entry[key]
    return out


def unpack_readings(readings: np.ndarray, times: np.ndarray,
                    names: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The ``read_sensors`` dict of the sensors ``names`` from flat ``readings``
    (:data:`READINGS_SIZE`,) and their sample ``times`` (5,) [s] (in
    :data:`SENSOR_ORDER`): copies; 3-vectors as arrays, scalars as floats, fix and valid as
    bools, each sensor's ``time`` first."""
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        entry: dict[str, Any] = {"time": float(times[SENSOR_ORDER.index(name)])}
        for key, (start, width, kind) in READINGS[name].items():
            if width > 1:
                entry[key] = readings[start:start + width].copy()
            elif kind is bool:
                entry[key] = bool(readings[start] > 0.5)
            else:
                entry[key] = float(readings[start])
        out[name] = entry
    return out
