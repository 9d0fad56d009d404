"""Conversions between the engine's arrays and the Aviary's state layout."""

from __future__ import annotations

from numba import njit, prange

from pyflyt_like.compiled.rotations import (
    euler_to_quat,
    quat_to_euler,
    quat_to_matrix,
    times_vector,
    transpose_times_vector,
)


@njit(cache=True, parallel=True, error_model="numpy")
def fill_aviary_state(pos, quat, vel, ang_vel, out):
    """Write (W, D, 4, 3) ``Aviary.state`` rows: body rates, Euler, body velocity, pos."""
    for w in prange(pos.shape[0]):
        for d in range(pos.shape[1]):
            q = quat[w, d]
            r = quat_to_matrix(q[0], q[1], q[2], q[3])
            out[w, d, 0] = ang_vel[w, d]
            out[w, d, 1, 0], out[w, d, 1, 1], out[w, d, 1, 2] = quat_to_euler(
                q[0], q[1], q[2], q[3])
            v = vel[w, d]
            out[w, d, 2, 0], out[w, d, 2, 1], out[w, d, 2, 2] = transpose_times_vector(
                r, v[0], v[1], v[2])
            out[w, d, 3] = pos[w, d]


@njit(cache=True)
def set_start_attitudes(quat, euler, mask):
    """Quaternions (W, D, 4) of the masked worlds ((W,) bool) from Euler angles (W, D, 3)."""
    for w in range(quat.shape[0]):
        if mask[w]:
            for d in range(quat.shape[1]):
                e = euler[w, d]
                quat[w, d, 0], quat[w, d, 1], quat[w, d, 2], quat[w, d, 3] = euler_to_quat(
                    e[0], e[1], e[2])



@njit(cache=True)
def set_start_velocities(quat, body_velocity, vel, mask):
    """World velocities (W, D, 3) of the masked worlds ((W,) bool): the body-frame
    ``body_velocity`` (W, D, 3) turned by the attitudes ``quat`` (W, D, 4)."""
    for w in range(quat.shape[0]):
        if mask[w]:
            for d in range(quat.shape[1]):
                q, b = quat[w, d], body_velocity[w, d]
                r = quat_to_matrix(q[0], q[1], q[2], q[3])
                vel[w, d, 0], vel[w, d, 1], vel[w, d, 2] = times_vector(r, b[0], b[1], b[2])
