"""The GNSS receiver: position [m] and velocity [m/s] in the world frame at its own rate,
with white and correlated errors, a latency and a fix flag.

A sample ``k`` (every ``dt = 1 / update_rate``), per world axis ``a``:

- position ``p_a + e_a,k + sigma_a n`` with ``sigma`` = ``horizontal_noise`` on x and y,
  ``vertical_noise`` on z (white, per axis), and ``e`` a first-order Gauss-Markov error
  (:mod:`pyflyt_like.sensors.noise`): ``e_{k+1} = exp(-dt/tau) e_k + s sqrt(1 -
  exp(-2 dt/tau)) n_k``, stationary standard deviation ``s`` = ``correlated_horizontal``
  or ``correlated_vertical``, ``tau`` = ``correlated_time_constant``; drawn from its
  stationary distribution at reset;
- velocity ``v_a + velocity_noise n`` (white, per axis);
- fix: true from ``time_to_fix`` [s] after reset on (before it, position and velocity are
  0 and the fix false).

The reading delivered at sample ``k`` is the one made at sample ``k - latency``: each
sample goes into a ring of ``latency + 1`` slots (:func:`push`) and the oldest comes out
(:func:`pop`); until ``latency`` samples have been made, the ring's zeros come out with the
fix false.

Bounds (:func:`check_parameters`): the latency is at most :data:`MAX_LATENCY_SECONDS` of
samples and at most :data:`MAX_LATENCY_SAMPLES` whatever the rate, since the ring holds one
slot per sample of it on every drone; ``time_to_fix`` is at most :data:`MAX_TIME_TO_FIX`.

Arrays of the per-sample functions: ``coefficients`` (:data:`COEFFICIENT_SIZE`,):
horizontal, vertical and velocity white sigmas, Gauss-Markov phi, horizontal and vertical
drives, horizontal and vertical sigmas, the number of samples before the fix; ``state``
(:data:`STATE_SIZE`,): the Gauss-Markov errors (3) [m] and the samples made so far;
``ring`` (latency + 1, :data:`RING_WIDTH`): position (3), velocity (3), fix (1 or 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .noise import markov_coefficients, markov_step
from .params import UPDATE_RATE, Parameter, SensorParams

WHITE_H, WHITE_V, WHITE_VEL, PHI, DRIVE_H, DRIVE_V, SIGMA_H, SIGMA_V, FIX_SAMPLES = range(9)
COEFFICIENT_SIZE = 9
ERROR, COUNT = 0, 3
STATE_SIZE = 4
RING_WIDTH = 7
FIX_COLUMN = 6
RESET_DRAWS = 3  # Gauss-Markov starts
SAMPLE_DRAWS = 9  # Gauss-Markov (3), position white (3), velocity white (3)
#: The longest latency [s] (``latency / update_rate``): receivers deliver a fix 0.1-0.5 s
#: after its measurement (PX4's default EKF2_GPS_DELAY is 110 ms); 10 s allows a slow
#: telemetry link on top, twenty times the slowest receiver.
MAX_LATENCY_SECONDS = 10.0
#: The most samples of latency at any rate: the ring takes ``latency + 1`` slots of
#: :data:`RING_WIDTH` floats per drone (5.6 MB at this bound), so a rate of every physics
#: step at a fast physics rate cannot make it huge; 10 s at 10 kHz.
MAX_LATENCY_SAMPLES = 100_000
#: The longest ``time_to_fix`` [s]: a cold start takes about 30 s, one that must first
#: download the almanac about 12.5 min; an hour is more than any.
MAX_TIME_TO_FIX = 3600.0

#: The GNSS receiver's parameters (name -> :class:`~pyflyt_like.sensors.params.Parameter`).
PARAMETERS = {
    "update_rate": UPDATE_RATE,
    "horizontal_noise": Parameter("number", "m", "standard deviation of the white position "
                                  "noise on x and y (each)", 0.0),
    "vertical_noise": Parameter("number", "m", "standard deviation of the white position "
                                "noise on z", 0.0),
    "velocity_noise": Parameter("number", "m/s", "standard deviation of the white velocity "
                                "noise per axis", 0.0),
    "correlated_horizontal": Parameter("number", "m", "stationary standard deviation of "
                                       "the Gauss-Markov error on x and y (each)", 0.0),
    "correlated_vertical": Parameter("number", "m", "stationary standard deviation of the "
                                     "Gauss-Markov error on z", 0.0),
    "correlated_time_constant": Parameter("positive", "s", "time constant of the "
                                          "Gauss-Markov error"),
    "latency": Parameter("count", "samples", "samples between a measurement and its "
                         "delivery, at most MAX_LATENCY_SECONDS (10 s) of samples and "
                         "MAX_LATENCY_SAMPLES (100 000)"),
    "time_to_fix": Parameter("number", "s", "time after reset before the first fix, at "
                             "most MAX_TIME_TO_FIX (3600 s)", 0.0, MAX_TIME_TO_FIX),
}


@dataclass(frozen=True, eq=False, kw_only=True)
class GnssParams(SensorParams):
    """The GNSS receiver's parameters (names and units: :data:`PARAMETERS`)."""

    horizontal_noise: float
    vertical_noise: float
    velocity_noise: float
    correlated_horizontal: float
    correlated_vertical: float
    correlated_time_constant: float
    latency: int
    time_to_fix: float

    def _coefficients(self) -> np.ndarray:
        phi, drive_h = markov_coefficients(self.correlated_horizontal,
                                           self.correlated_time_constant, self.dt)
        _, drive_v = markov_coefficients(self.correlated_vertical,
                                         self.correlated_time_constant, self.dt)
        # The first sample at or after time_to_fix; the rounding guard keeps an exact
        # multiple of dt (0.3 s at 10 Hz) on its own sample.
        fix_samples = math.ceil(self.time_to_fix * self.update_rate - 1e-9)
        return np.array([self.horizontal_noise, self.vertical_noise, self.velocity_noise,
                         phi, drive_h, drive_v, self.correlated_horizontal,
                         self.correlated_vertical, float(max(fix_samples, 0))])


def most_latency(update_rate: int) -> int:
    """The largest ``latency`` [samples] allowed at ``update_rate`` [Hz]:
    :data:`MAX_LATENCY_SECONDS` of samples, at most :data:`MAX_LATENCY_SAMPLES`."""
    # the tolerance keeps an exact fit (10 s at 10 Hz: 100 samples) whole
    return min(MAX_LATENCY_SAMPLES, math.floor(MAX_LATENCY_SECONDS * update_rate + 1e-9))


def check_parameters(values: dict, name: str) -> None:
    """The checks across parameters (each one alone is checked by the configuration):
    ``values`` the converted parameters (``update_rate`` resolved), ``name`` the option
    (``sensors["gnss"]``).

    Raises:
        ValueError: a ``latency`` beyond :func:`most_latency` at the ``update_rate``.
    """
    latency, rate = values["latency"], values["update_rate"]
    most = most_latency(rate)
    if latency > most:
        raise ValueError(f'{name}["latency"]={latency} samples at {name}["update_rate"]='
                         f"{rate} Hz is more than the {most} allowed: at most "
                         f"MAX_LATENCY_SECONDS={MAX_LATENCY_SECONDS:g} s of samples and "
                         f"MAX_LATENCY_SAMPLES={MAX_LATENCY_SAMPLES} (receivers deliver "
                         f"within 0.1-0.5 s)")


def zeros_state() -> np.ndarray:
    """A new GNSS state (:data:`STATE_SIZE`,), all zeros (:func:`reset` fills it)."""
    return np.zeros(STATE_SIZE)


def zeros_ring(latency: int) -> np.ndarray:
    """An empty ring (latency + 1, :data:`RING_WIDTH`) of pending readings."""
    return np.zeros((latency + 1, RING_WIDTH))


def reset(coefficients, normals, state, ring):
    """Restart: the Gauss-Markov errors drawn from their stationary distribution
    (``normals`` (:data:`RESET_DRAWS`,)), no sample made, the ring emptied."""
    state[ERROR] = coefficients[SIGMA_H] * normals[0]
    state[ERROR + 1] = coefficients[SIGMA_H] * normals[1]
    state[ERROR + 2] = coefficients[SIGMA_V] * normals[2]
    state[COUNT] = 0.0
    for i in range(ring.shape[0]):
        for j in range(RING_WIDTH):
            ring[i, j] = 0.0


def push(ring, slot, pos, vel, fix):
    """Write a reading (``pos``, ``vel`` (3,) each, ``fix``) into ``ring`` at ``slot``."""
    for a in range(3):
        ring[slot, a] = pos[a]
        ring[slot, 3 + a] = vel[a]
    ring[slot, FIX_COLUMN] = 1.0 if fix else 0.0


def pop(ring, slot, pos_out, vel_out):
    """Read the reading at ``slot`` of ``ring`` into ``pos_out``, ``vel_out`` (3,); return
    its fix."""
    for a in range(3):
        pos_out[a] = ring[slot, a]
        vel_out[a] = ring[slot, 3 + a]
    return ring[slot, FIX_COLUMN] > 0.5


def sample(coefficients, pos, vel, normals, state, ring, pos_out, vel_out):
    """Measure the true ``pos`` [m] and ``vel`` [m/s] ((3,) world), queue the measurement
    and deliver the one made ``latency`` samples ago (``ring.shape[0] - 1``) into
    ``pos_out``, ``vel_out``; return its fix flag.

    ``normals`` (:data:`SAMPLE_DRAWS`,): the Gauss-Markov steps (3), the position's (3)
    and the velocity's (3) white noise.
    """
    count = state[COUNT]
    fix = count >= coefficients[FIX_SAMPLES]
    for a in range(3):
        vertical = a == 2
        white = coefficients[WHITE_V] if vertical else coefficients[WHITE_H]
        drive = coefficients[DRIVE_V] if vertical else coefficients[DRIVE_H]
        if fix:
            pos_out[a] = pos[a] + state[ERROR + a] + white * normals[3 + a]
            vel_out[a] = vel[a] + coefficients[WHITE_VEL] * normals[6 + a]
        else:
            pos_out[a] = 0.0
            vel_out[a] = 0.0
        state[ERROR + a] = markov_step(state[ERROR + a], coefficients[PHI], drive,
                                       normals[a])
    slots = ring.shape[0]
    slot = int(count) % slots
    push(ring, slot, pos_out, vel_out, fix)
    state[COUNT] = count + 1.0
    return pop(ring, (slot + 1) % slots, pos_out, vel_out)
