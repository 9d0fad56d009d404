"""The downward rangefinder: distance along the body -z axis to the floor plane.

Truth: ``range = (z - floor_z) / cos(tilt)``, ``cos(tilt) = R22`` (the world z component of
the body z axis), ``z`` the vehicle's height [m] and ``floor_z`` the floor's [m]. (The
PyBullet integration ray-tests the world instead and samples the distance it measured with
:func:`sample_range`; the batched engine has the plane.)

A sample: ``r = range + sigma n`` clipped to [0, max_range]. The reading is valid when the
beam points down (``R22 > 0``) and the true range is within [min_range, max_range];
otherwise it is invalid and reads the true range clipped to [0, max_range] (``max_range``
when pointing up or level), so an invalid reading is never beyond the sensor's range and
never negative. Validity follows the true range, not the noisy one, so that a reading near
a limit does not flicker.

Arrays of the per-sample function: ``coefficients`` (:data:`COEFFICIENT_SIZE`,): white
sigma [m], min range [m], max range [m]. The sensor has no state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .params import UPDATE_RATE, Parameter, SensorParams

WHITE, MIN_RANGE, MAX_RANGE = range(3)
COEFFICIENT_SIZE = 3
SAMPLE_DRAWS = 1

#: The rangefinder's parameters (name -> :class:`~pyflyt_like.sensors.params.Parameter`).
PARAMETERS = {
    "update_rate": UPDATE_RATE,
    "noise": Parameter("number", "m", "standard deviation of the white noise per sample",
                       0.0),
    "min_range": Parameter("number", "m", "shortest valid range", 0.0),
    "max_range": Parameter("positive", "m", "longest valid range"),
}


@dataclass(frozen=True, eq=False, kw_only=True)
class RangefinderParams(SensorParams):
    """The rangefinder's parameters (names and units: :data:`PARAMETERS`)."""

    noise: float
    min_range: float
    max_range: float

    def _coefficients(self) -> np.ndarray:
        return np.array([self.noise, self.min_range, self.max_range])


def sample(coefficients, pos, quat, floor_z, normals):
    """One sample ``(range [m], valid)`` of the vehicle at ``pos`` (3,) [m] and ``quat``
    (4,) (x, y, z, w) above the floor at height ``floor_z`` [m]; ``normals``
    (:data:`SAMPLE_DRAWS`,) the white noise's draw."""
    max_range = coefficients[MAX_RANGE]
    cos_tilt = 1.0 - 2.0 * (quat[0] * quat[0] + quat[1] * quat[1])  # R22
    if cos_tilt <= 0.0:  # the beam points up or along the floor: no return
        return max_range, False
    truth = (pos[2] - floor_z) / cos_tilt
    valid = coefficients[MIN_RANGE] <= truth <= max_range
    measured = truth + coefficients[WHITE] * normals[0] if valid else truth
    return min(max(measured, 0.0), max_range), valid


def sample_range(coefficients, truth, normals):
    """One sample ``(range [m], valid)`` of a true range measured elsewhere (the PyBullet
    path's ray test): ``truth`` [m] along the beam to the first surface hit, ``inf`` when
    nothing is hit within the beam; ``normals`` (:data:`SAMPLE_DRAWS`,) the white noise's
    draw. The same rules as :func:`sample`: valid within [min_range, max_range], an invalid
    reading is ``truth`` clipped to [0, max_range] without noise (``max_range`` for no hit)."""
    max_range = coefficients[MAX_RANGE]
    valid = coefficients[MIN_RANGE] <= truth <= max_range
    measured = truth + coefficients[WHITE] * normals[0] if valid else truth
    return min(max(measured, 0.0), max_range), valid
