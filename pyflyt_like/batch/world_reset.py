"""What every family's one-world reset inside a compiled call does (the multirotor's
:mod:`.multirotor_reset`, the fixed-wing's :mod:`.fixedwing.reset`)."""

from __future__ import annotations

from numba import njit

from pyflyt_like.compiled.rotations import euler_to_quat


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def place_still(state, w, d, start_pos, start_euler):
    """Put drone ``d`` of world ``w`` at ``start_pos`` (3,) [m] with Euler angles
    ``start_euler`` (3,) [rad], not rotating, its rate controller cleared, contact and crash
    flags cleared, an exact obstacle query due; returns its quaternion (x, y, z, w). The
    velocity is the caller's."""
    qx, qy, qz, qw = euler_to_quat(start_euler[0], start_euler[1], start_euler[2])
    q = state.quat[w, d]
    q[0], q[1], q[2], q[3] = qx, qy, qz, qw
    for a in range(3):
        state.pos[w, d, a] = start_pos[a]
        state.ang_vel[w, d, a] = 0.0
        state.rate_integral[w, d, a] = 0.0
        state.rate_previous[w, d, a] = 0.0
    state.wrench[w, d, :] = 0.0
    state.rate_fresh[w, d] = True
    state.contact[w, d] = False
    state.crashed[w, d] = False
    state.obstacle_check[w, d, 3] = -1.0
    return qx, qy, qz, qw


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def restart_clock(state, plant, w):
    """World ``w``'s step counter back to 0 and its wind at the world's mean."""
    state.steps[w] = 0
    for a in range(3):
        state.wind[w, a] = plant.wind_mean[w, a]
