"""The error processes the sensor models share, per sample and on floats (compile-ready).

- First-order Gauss-Markov error at a sample period ``dt`` [s] with time constant ``tau``
  [s] and stationary standard deviation ``sigma``, exact in discrete time:
  ``e_{k+1} = phi e_k + drive n_k`` with ``phi = exp(-dt / tau)`` and
  ``drive = sigma sqrt(1 - exp(-2 dt / tau))``, ``n_k`` a standard normal draw; its
  variance stays ``sigma^2`` when ``e_0`` is drawn from ``N(0, sigma^2)``.
- Saturation at ``+-limit`` (0: none), then quantisation to a multiple of ``step`` (0:
  none), rounding half up.
"""

from __future__ import annotations

import math

import numpy as np


def markov_coefficients(sigma: float, time_constant: float, dt: float) -> tuple[float, float]:
    """``(phi, drive)`` of a Gauss-Markov error of stationary standard deviation ``sigma``
    and ``time_constant`` [s] sampled every ``dt`` [s] (``time_constant`` > 0)."""
    phi = math.exp(-dt / time_constant)
    # 1 - exp(-2x) through expm1: exact also when dt << time_constant.
    return phi, sigma * math.sqrt(-math.expm1(-2.0 * dt / time_constant))


def markov_step(error, phi, drive, normal):
    """The Gauss-Markov ``error`` one sample later, from one standard normal draw."""
    return phi * error + drive * normal


def saturate_quantise(value, limit, step):
    """``value`` clipped to [-limit, limit] (``limit`` 0: not clipped), then rounded to a
    multiple of ``step`` (0: not rounded)."""
    if limit > 0.0:
        value = -limit if value < -limit else (limit if value > limit else value)
    if step > 0.0:
        # np.floor, not math.floor: compiled, math.floor goes through an int64 and back
        # (two conversions per reading, a tenth of the compiled IMU's sample)
        value = step * np.floor(value / step + 0.5)
    return value
