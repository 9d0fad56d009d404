"""The barometer: static pressure of the ISA troposphere at the vehicle's altitude, with
white noise and a slow drift, and the altitude a flight controller derives from it.

ISA troposphere (ISO 2533; valid from below sea level up to 11 km), at the altitude ``h``
[m] above sea level (the geometric altitude stands in for the geopotential one: they differ
by 0.16 % at 10 km):

- ``T(h) = T0 - L h`` [K];
- ``p(h) = p0 (T(h) / T0)^(g0 / (R L))`` [Pa];
- the inverse, the firmware's barometric altitude, ``h(p) = (T0 / L) (1 - (p / p0)^(R L /
  g0))`` [m];

with ``p0 = 101325 Pa``, ``T0 = 288.15 K``, ``L = 0.0065 K/m``, ``g0 = 9.80665 m/s^2``,
``R = 287.05287 J/(kg K)``. The world's z = 0 is at ``ground_altitude`` [m] above sea level
(0 by default), so ``h = ground_altitude + z``.

A sample (every ``dt = 1 / update_rate``): ``p_meas = p(h) + d_k + sigma n_k`` with
``sigma`` the white noise [Pa] and ``d_k`` the drift [Pa], a first-order Gauss-Markov
process of stationary standard deviation ``drift_sigma`` and time constant
``drift_time_constant`` (:mod:`pyflyt_like.sensors.noise`; drawn from its stationary
distribution at reset, so it is bounded, as a temperature-driven drift is). The reading's
altitude is ``h(p_meas)``: above sea level, like the firmware's (subtract
``ground_altitude`` for the height above the world's z = 0).

Arrays of the per-sample functions: ``coefficients`` (:data:`COEFFICIENT_SIZE`,): white
sigma [Pa], drift phi, drift drive [Pa], drift sigma [Pa], ground altitude [m]; ``state``
(:data:`STATE_SIZE`,): the drift [Pa].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .noise import markov_coefficients, markov_step
from .params import UPDATE_RATE, Parameter, SensorParams

SEA_LEVEL_PRESSURE = 101325.0  # Pa
SEA_LEVEL_TEMPERATURE = 288.15  # K
LAPSE_RATE = 0.0065  # K/m
STANDARD_GRAVITY = 9.80665  # m/s^2
GAS_CONSTANT = 287.05287  # J/(kg K), dry air
EXPONENT = STANDARD_GRAVITY / (GAS_CONSTANT * LAPSE_RATE)  # g0 / (R L), ~5.2559

WHITE, DRIFT_PHI, DRIFT_DRIVE, DRIFT_SIGMA, GROUND_ALTITUDE = range(5)
COEFFICIENT_SIZE = 5
DRIFT = 0
STATE_SIZE = 1
RESET_DRAWS = 1  # the drift's start
SAMPLE_DRAWS = 2  # white noise, drift

#: The barometer's parameters (name -> :class:`~pyflyt_like.sensors.params.Parameter`).
PARAMETERS = {
    "update_rate": UPDATE_RATE,
    "pressure_noise": Parameter("number", "Pa", "standard deviation of the white noise "
                                "per sample", 0.0),
    "drift_sigma": Parameter("number", "Pa", "stationary standard deviation of the "
                             "Gauss-Markov drift", 0.0),
    "drift_time_constant": Parameter("positive", "s", "time constant of the drift"),
    "ground_altitude": Parameter("number", "m", "altitude above sea level of the world's "
                                 "z = 0", -1000.0, 11000.0),
}


@dataclass(frozen=True, eq=False, kw_only=True)
class BarometerParams(SensorParams):
    """The barometer's parameters (names and units: :data:`PARAMETERS`)."""

    pressure_noise: float
    drift_sigma: float
    drift_time_constant: float
    ground_altitude: float

    def _coefficients(self) -> np.ndarray:
        phi, drive = markov_coefficients(self.drift_sigma, self.drift_time_constant,
                                         self.dt)
        return np.array([self.pressure_noise, phi, drive, self.drift_sigma,
                         self.ground_altitude])


def zeros_state() -> np.ndarray:
    """A new barometer state (:data:`STATE_SIZE`,), all zeros (:func:`reset` fills it)."""
    return np.zeros(STATE_SIZE)


def isa_temperature(altitude):
    """ISA troposphere temperature [K] at ``altitude`` [m] above sea level."""
    return SEA_LEVEL_TEMPERATURE - LAPSE_RATE * altitude


def isa_pressure(altitude):
    """ISA troposphere static pressure [Pa] at ``altitude`` [m] above sea level."""
    return SEA_LEVEL_PRESSURE * (isa_temperature(altitude) / SEA_LEVEL_TEMPERATURE) ** EXPONENT


def isa_altitude(pressure):
    """The altitude [m] above sea level of the static ``pressure`` [Pa] in the ISA
    troposphere (a pressure <= 0, which noise alone cannot make at flying heights, gives
    the model's top, ``T0 / L``)."""
    ratio = pressure / SEA_LEVEL_PRESSURE
    if ratio <= 0.0:
        ratio = 0.0
    return SEA_LEVEL_TEMPERATURE / LAPSE_RATE * (1.0 - ratio ** (1.0 / EXPONENT))


def reset(coefficients, normals, state):
    """Draw the drift's start from its stationary distribution, one standard normal draw
    ``normals`` (:data:`RESET_DRAWS`,)."""
    state[DRIFT] = coefficients[DRIFT_SIGMA] * normals[0]


def sample(coefficients, z, normals, state, out):
    """One sample at world height ``z`` [m] into ``out`` (2,): the measured pressure [Pa]
    and the altitude above sea level derived from it [m]; advances the drift.

    ``normals`` (:data:`SAMPLE_DRAWS`,): the white noise's and the drift's draws.
    """
    pressure = (isa_pressure(coefficients[GROUND_ALTITUDE] + z) + state[DRIFT]
                + coefficients[WHITE] * normals[0])
    out[0] = pressure
    out[1] = isa_altitude(pressure)
    state[DRIFT] = markov_step(state[DRIFT], coefficients[DRIFT_PHI],
                               coefficients[DRIFT_DRIVE], normals[1])
