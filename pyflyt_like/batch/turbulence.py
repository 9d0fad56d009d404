"""Per-world Dryden turbulence for the kernels: the exact discrete shaping filters of
:mod:`pyflyt_like.common.dryden_filters` (u first order, v and w second order), one
independent state per world, advanced once per physics step."""

from __future__ import annotations

import math

from numba import njit

_SQRT3 = math.sqrt(3.0)


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def current_wind(state, plant, config, w):
    """Write the wind of world ``w`` [m/s] (mean plus turbulence) into ``state.wind[w]``."""
    wind, mean = state.wind[w], plant.wind_mean[w]
    for i in range(3):
        wind[i] = mean[i]
    if config.turbulence:
        x, axes, sigma = state.turbulence[w], plant.turbulence_axes[w], config.turb_sigma
        u = sigma[0] * x[0]
        v = sigma[1] * 0.5 * (x[1] + _SQRT3 * x[2])
        vertical = sigma[2] * 0.5 * (x[3] + _SQRT3 * x[4])
        for i in range(3):
            wind[i] += u * axes[0, i] + v * axes[1, i] + vertical * axes[2, i]


@njit(cache=True, _nrt=False, error_model="numpy")
def _second_order(x, offset, phi, chol, n1, n2):
    x1, x2 = x[offset], x[offset + 1]
    x[offset] = phi[0] * x1 + phi[1] * x2 + chol[0] * n1
    x[offset + 1] = phi[2] * x1 + phi[3] * x2 + chol[1] * n1 + chol[2] * n2


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def advance_turbulence(state, config, w, noise):
    """One filter step of world ``w`` with five standard normal draws ``noise``."""
    x = state.turbulence[w]
    x[0] = config.turb_a * x[0] + config.turb_b * noise[0]
    _second_order(x, 1, config.turb_phi_v, config.turb_chol_v, noise[1], noise[2])
    _second_order(x, 3, config.turb_phi_w, config.turb_chol_w, noise[3], noise[4])
