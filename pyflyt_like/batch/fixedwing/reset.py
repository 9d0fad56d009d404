"""Restarting one fixed-wing world inside a compiled call (a task's fused step).

:meth:`~pyflyt_like.batch.BatchedAviary.reset` does the same over a mask from Python, with
the plant's randomisation and the turbulence's stationary draw, which this does not: a task
that restarts its worlds in its own kernel flies the nominal plant in still or steady air
(the tests compare the two resets).
"""

from __future__ import annotations

from numba import njit

from ..rotations import euler_to_quat, quat_to_matrix, times_vector
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
        e = start_euler[d]
        qx, qy, qz, qw = euler_to_quat(e[0], e[1], e[2])
        q = state.quat[w, d]
        q[0], q[1], q[2], q[3] = qx, qy, qz, qw
        b = start_velocity[d]
        v = state.vel[w, d]
        v[0], v[1], v[2] = times_vector(quat_to_matrix(qx, qy, qz, qw), b[0], b[1], b[2])
        for a in range(3):
            state.pos[w, d, a] = start_pos[d, a]
            state.ang_vel[w, d, a] = 0.0
            state.rate_integral[w, d, a] = 0.0
            state.rate_previous[w, d, a] = 0.0
        state.deflection[w, d, :] = 0.0
        state.surface_command[w, d, :] = 0.0
        state.wrench[w, d, :] = 0.0
        state.tecs[w, d, :] = 0.0
        state.throttle[w, d] = 0.0
        state.thrust_command[w, d] = 0.0
        state.rate_fresh[w, d] = True
        state.contact[w, d] = False
        state.crashed[w, d] = False
    state.steps[w] = 0
    for a in range(3):
        state.wind[w, a] = plant.wind_mean[w, a]
    hold_world_setpoints(state, nominal, config, mode, w)
