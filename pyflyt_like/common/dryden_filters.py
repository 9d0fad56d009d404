"""Dryden turbulence shaping filters (MIL-F-8785C, low altitude), exactly discretised.

The parameters and the exact discrete filters of :mod:`pyflyt_like.core.wind.dryden`, whose
docstring gives the equations; here without pybullet, so the batched engine uses the same
numbers.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammainc

FOOT = 0.3048  # m
MAX_ALTITUDE = 1000.0 * FOOT  # m, upper end of the standard's low-altitude model


def low_altitude_parameters(altitude: float, wind_speed_20ft: float
                            ) -> tuple[np.ndarray, np.ndarray]:
    """MIL-F-8785C low-altitude turbulence intensities and scale lengths.

    Args:
        altitude: height above ground ``h`` [m], > 0 (the standard's model: ``h <= 304.8 m``).
        wind_speed_20ft: wind speed at 20 ft ``W20`` [m/s], >= 0.

    Returns:
        ``(sigma, length)``: (3,) intensities ``sigma_u, sigma_v, sigma_w`` [m/s] and (3,)
        scale lengths ``L_u, L_v, L_w`` [m].
    """
    h_ft = altitude / FOOT
    denominator = 0.177 + 0.000823 * h_ft
    sigma_w = 0.1 * wind_speed_20ft
    sigma_uv = sigma_w / denominator ** 0.4
    length_uv = h_ft / denominator ** 1.2 * FOOT
    return (np.array([sigma_uv, sigma_uv, sigma_w]),
            np.array([length_uv, length_uv, altitude]))


def first_order_coefficients(theta: float) -> tuple[float, float]:
    """Exact discrete form of the u filter for ``theta = V Ts / L_u``: ``(a, b)``.

    ``x[k+1] = a x[k] + b n[k]`` keeps ``var(x) = 1`` and has ``corr(x[k], x[k+m]) = a**m``.
    """
    return math.exp(-theta), math.sqrt(-math.expm1(-2.0 * theta))


def second_order_coefficients(theta: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact discrete form of the v/w filter for ``theta = V Ts / L``: ``(Phi, chol(Q))``.

    Both (2, 2), in states scaled to unit stationary covariance (``Phi Phi^T + Q = I``); the
    turbulence is ``sigma * (x1 + sqrt(3) x2) / 2``. See the module docstring.
    """
    decay = math.exp(-theta)
    phi = decay * np.array([[1.0 + theta, theta], [-theta, 1.0 - theta]])
    x = 2.0 * theta
    p3 = float(gammainc(3, x))
    q11, q12, q22 = p3, 0.5 * x * x * math.exp(-x), p3 + 2.0 * x * math.exp(-x)
    l11 = math.sqrt(q11)
    l21 = q12 / l11 if l11 > 0.0 else 0.0  # l11 == 0 only if P3 underflows (theta < 1e-100)
    l22 = math.sqrt(max(q22 - l21 * l21, 0.0))
    return phi, np.array([[l11, 0.0], [l21, l22]])
