"""The air a vehicle flies through in the kernels: its world's wind of the step (mean plus
turbulence, ``state.wind``) plus the altitude shear at its height
(:mod:`pyflyt_like.physics.wind_shear`, compiled)."""

from __future__ import annotations

from numba import njit

from pyflyt_like.compiled.jit import compile_shared
from pyflyt_like.physics import wind_shear

shear_factor = compile_shared(wind_shear.shear_factor)


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def air_velocity(state, config, w, d):
    """(3,) world-frame air velocity [m/s] of vehicle (w, d): its velocity less the wind."""
    vel, wind = state.vel[w, d], state.wind[w]
    ax, ay, az = vel[0] - wind[0], vel[1] - wind[1], vel[2] - wind[2]
    if config.shear:
        factor = shear_factor(state.pos[w, d, 2], config.shear_log, config.shear_min_height,
                              config.shear_log_z0, config.shear_power, config.shear_scale)
        ax -= config.shear_x * factor
        ay -= config.shear_y * factor
    return ax, ay, az
