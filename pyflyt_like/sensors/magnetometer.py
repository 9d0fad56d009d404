"""The magnetometer: a constant Earth field seen from the body, with hard-iron bias and
white noise.

The field in the world frame (ENU: x east, y north, z up) from its intensity ``F`` [uT],
declination ``D`` (from true north towards east) and inclination ``I`` (below the
horizontal, positive in the northern hemisphere), both in degrees as the World Magnetic
Model and NOAA's calculators give them:
``B = F (cos I sin D, cos I cos D, -sin I)``.

A sample (body frame, [uT]): ``m = R^T B + h + h_k + sigma n``, ``R`` the body-to-world
rotation, ``h`` the fixed hard-iron bias (``hard_iron``, body frame), ``h_k`` a per-unit
hard-iron residual drawn at reset (standard deviation ``hard_iron_sigma`` per axis),
``sigma`` the white noise. Soft iron is not modelled.

Arrays of the per-sample functions: ``coefficients`` (:data:`COEFFICIENT_SIZE`,): the
world field (3) [uT], white sigma [uT], hard-iron bias (3) [uT], hard-iron sigma [uT];
``state`` (:data:`STATE_SIZE`,): the drawn hard-iron residual (3) [uT].
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pyflyt_like.common.rotations import quat_to_matrix, transpose_times_vector

from .params import UPDATE_RATE, Parameter, SensorParams

FIELD, WHITE, HARD_IRON, HARD_IRON_SIGMA = 0, 3, 4, 7
COEFFICIENT_SIZE = 8
STATE_SIZE = 3
RESET_DRAWS = 3
SAMPLE_DRAWS = 3

#: The magnetometer's parameters (name -> :class:`~pyflyt_like.sensors.params.Parameter`).
PARAMETERS = {
    "update_rate": UPDATE_RATE,
    "field_intensity": Parameter("number", "uT", "total intensity of the Earth field", 0.0),
    "declination": Parameter("number", "deg", "angle of the horizontal field from true "
                             "north towards east", -180.0, 180.0),
    "inclination": Parameter("number", "deg", "angle of the field below the horizontal",
                             -90.0, 90.0),
    "noise": Parameter("number", "uT", "standard deviation of the white noise per "
                       "sample and axis", 0.0),
    "hard_iron": Parameter("vector", "uT", "fixed hard-iron bias, body frame"),
    "hard_iron_sigma": Parameter("number", "uT", "standard deviation of the hard-iron "
                                 "residual drawn at reset, per axis", 0.0),
}


@dataclass(frozen=True, eq=False, kw_only=True)
class MagnetometerParams(SensorParams):
    """The magnetometer's parameters (names and units: :data:`PARAMETERS`)."""

    field_intensity: float
    declination: float
    inclination: float
    noise: float
    hard_iron: np.ndarray
    hard_iron_sigma: float

    def _coefficients(self) -> np.ndarray:
        c = np.zeros(COEFFICIENT_SIZE)
        c[FIELD:FIELD + 3] = earth_field(self.field_intensity, self.declination,
                                         self.inclination)
        c[WHITE] = self.noise
        c[HARD_IRON:HARD_IRON + 3] = self.hard_iron
        c[HARD_IRON_SIGMA] = self.hard_iron_sigma
        return c


def earth_field(intensity: float, declination: float, inclination: float) -> np.ndarray:
    """The Earth field (3,) [uT] in the world ENU frame from its ``intensity`` [uT],
    ``declination`` and ``inclination`` [deg]."""
    d, i = math.radians(declination), math.radians(inclination)
    horizontal = intensity * math.cos(i)
    return np.array([horizontal * math.sin(d), horizontal * math.cos(d),
                     -intensity * math.sin(i)])


def zeros_state() -> np.ndarray:
    """A new magnetometer state (:data:`STATE_SIZE`,), all zeros."""
    return np.zeros(STATE_SIZE)


def reset(coefficients, normals, state):
    """Draw the unit's hard-iron residual from ``normals`` (:data:`RESET_DRAWS`,)."""
    for i in range(3):
        state[i] = coefficients[HARD_IRON_SIGMA] * normals[i]


def sample(coefficients, quat, normals, state, out):
    """One sample [uT] into ``out`` (3,), body frame, of the vehicle at ``quat`` (4,)
    (x, y, z, w); ``normals`` (:data:`SAMPLE_DRAWS`,) the white noise's draws."""
    r = quat_to_matrix(quat[0], quat[1], quat[2], quat[3])
    bx, by, bz = transpose_times_vector(r, coefficients[FIELD], coefficients[FIELD + 1],
                                        coefficients[FIELD + 2])
    out[0] = bx + coefficients[HARD_IRON] + state[0] + coefficients[WHITE] * normals[0]
    out[1] = by + coefficients[HARD_IRON + 1] + state[1] + coefficients[WHITE] * normals[1]
    out[2] = bz + coefficients[HARD_IRON + 2] + state[2] + coefficients[WHITE] * normals[2]
