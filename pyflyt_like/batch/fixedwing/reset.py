"""Restarting one fixed-wing world inside a compiled call (a task's fused step).

:meth:`~pyflyt_like.batch.BatchedAviary.reset` does the same over a mask from Python, with
the plant's randomisation and the turbulence's stationary draw, which this does not: a task
that restarts its worlds in its own kernel flies the nominal plant in still or steady air
(the tests compare the two resets).
"""

from __future__ import annotations

from numba import njit

from pyflyt_like.compiled.rotations import quat_to_matrix, times_vector

from ..world_reset import place_still, restart_clock
from .controllers import hold_world_setpoints


@njit(cache=True, _nrt=False, error_model="numpy")
def reset_world(state, plant, nominal, config, mode, w, start_pos, start_euler,
                start_velocity):
    """Put the aircraft of world ``w`` at ``start_pos`` (D, 3) [m], Euler angles
    ``start_euler`` (D, 3) [rad] and body-frame velocity ``start_velocity`` (D, 3) [m/s],
    at rest in rotation, surfaces centred, motors off, controllers cleared, setpoints
    preset to hold in ``mode``, step counter, contact and crash flags cleared, the wind at
    the world's mean."""
    for d in range(state.pos.shape[1]):
        qx, qy, qz, qw = place_still(state, w, d, start_pos[d], start_euler[d])
        b = start_velocity[d]
        v = state.vel[w, d]
        v[0], v[1], v[2] = times_vector(quat_to_matrix(qx, qy, qz, qw), b[0], b[1], b[2])
        state.deflection[w, d, :] = 0.0
        state.surface_command[w, d, :] = 0.0
        state.tecs[w, d, :] = 0.0
        state.throttle[w, d] = 0.0
        state.thrust_command[w, d] = 0.0
    restart_clock(state, plant, w)
    hold_world_setpoints(state, nominal, config, mode, w)
