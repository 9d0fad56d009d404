"""Rotor models for the kernels: motor lag, thrust and yaw torque, and the rotor
aerodynamics of :mod:`~pyflyt_like.physics.rotor_aerodynamics` (ground effect,
rotor drag, downwash between the drones of one world), as one body-frame wrench.
"""

from __future__ import annotations

import math

from numba import njit

from pyflyt_like.compiled.jit import compile_shared
from pyflyt_like.compiled.rotations import transpose_times_vector
from pyflyt_like.physics import motor_lag, rotor_aerodynamics

from .air import air_velocity

# the physical formulas have one home, shared with the PyBullet components
downwash_force = compile_shared(rotor_aerodynamics.downwash_force)
ground_effect_gain = compile_shared(rotor_aerodynamics.ground_effect_gain)
lag_step = compile_shared(motor_lag.lag_step)


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def rotor_wrench(state, plant, nominal, config, w, d, rotation):
    """Advance the rotor speeds of (w, d) one step, then return its rotor wrench: body
    force (fx, fy, fz) [N] and torque about the centre of mass (tx, ty, tz) [N m]."""
    speeds, command = state.rotor_speed[w, d], state.rotor_command[w, d]
    rise, fall = plant.lag_gain[w, d], plant.lag_gain_fall[w, d]
    kf, km = plant.kf[w, d], plant.km[w, d]
    com = plant.com_offset[w, d]
    positions, spins = nominal.positions, nominal.spins
    z = state.pos[w, d, 2]
    upright = config.ground_effect and rotation[8] > 0.0
    fx = fy = fz = tx = ty = tz = 0.0
    total = 0.0
    for i in range(speeds.shape[0]):
        speed = lag_step(speeds[i], command[i], rise, fall)
        speeds[i] = speed
        squared = speed * abs(speed)
        thrust = kf * squared
        px, py, pz = positions[i, 0], positions[i, 1], positions[i, 2]
        if upright:
            height = z + rotation[6] * px + rotation[7] * py + rotation[8] * pz
            thrust += thrust * ground_effect_gain(height, nominal.prop_radius,
                                                  nominal.ground_effect_coeff, nominal.ground_clip)
        fz += thrust
        tx += (py - com[1]) * thrust
        ty -= (px - com[0]) * thrust
        tz += km * squared * spins[i]
        total += abs(speed)
    if config.rotor_drag:
        ax, ay, az = air_velocity(state, config, w, d)
        bx, by, bz = transpose_times_vector(rotation, ax, ay, az)
        scale = total * nominal.speed_to_rad_s * plant.drag_scale[w, d]
        dx = -nominal.drag_coeffs[0] * bx * scale
        dy = -nominal.drag_coeffs[1] * by * scale
        dz = -nominal.drag_coeffs[2] * bz * scale
        fx += dx
        fy += dy
        fz += dz
        # applied at the body origin, -com_offset from the centre of mass
        tx += -com[1] * dz + com[2] * dy
        ty += -com[2] * dx + com[0] * dz
        tz += -com[0] * dy + com[1] * dx
    if config.downwash:
        pos = state.pos[w]
        vertical = 0.0
        c = nominal.downwash_coeffs
        for other in range(pos.shape[0]):
            if other != d:
                vertical += downwash_force(
                    math.hypot(pos[other, 0] - pos[d, 0], pos[other, 1] - pos[d, 1]),
                    pos[other, 2] - pos[d, 2], nominal.prop_radius, c[0], c[1], c[2])
        fx += rotation[6] * vertical
        fy += rotation[7] * vertical
        fz += rotation[8] * vertical
    return fx, fy, fz, tx, ty, tz
