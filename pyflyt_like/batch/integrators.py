"""Rigid-body integration on SO(3) with a unit quaternion, and the floor constraint.

The body wrench (rotor force and torque, body frame) is held over the step; gravity, the
world disturbance force and the gyroscopic term ``w x J w`` are evaluated where each scheme
needs them. ``SEMI_IMPLICIT`` is PyBullet's scheme (velocities first, then positions with the
new velocities); ``EULER`` is explicit; ``RK4`` the classical fourth-order scheme on the
13-dimensional state, with the quaternion renormalised after the step.
"""

from __future__ import annotations

import math

from numba import njit

from pyflyt_like.compiled.rotations import (
    cross,
    quat_rate,
    quat_times_rotation,
    quat_to_matrix,
    times_vector,
)

EULER, SEMI_IMPLICIT, RK4 = 0, 1, 2
INTEGRATORS = {"euler": EULER, "semi_implicit": SEMI_IMPLICIT, "rk4": RK4}


@njit(cache=True, _nrt=False, error_model="numpy")
def _acceleration(q, force, world_force, mass, gravity):
    r = quat_to_matrix(q[0], q[1], q[2], q[3])
    ax, ay, az = times_vector(r, force[0], force[1], force[2])
    inverse = 1.0 / mass
    return ((ax + world_force[0]) * inverse, (ay + world_force[1]) * inverse,
            (az + world_force[2]) * inverse - gravity)


@njit(cache=True, _nrt=False, error_model="numpy")
def _angular_acceleration(omega, torque, j):
    gx, gy, gz = cross(omega[0], omega[1], omega[2], j[0] * omega[0], j[1] * omega[1],
                       j[2] * omega[2])
    return (torque[0] - gx) / j[0], (torque[1] - gy) / j[1], (torque[2] - gz) / j[2]


@njit(cache=True, _nrt=False, error_model="numpy")
def _derivative(v, q, omega, force, torque, world_force, mass, j, gravity):
    a = _acceleration(q, force, world_force, mass, gravity)
    dq = quat_rate(q[0], q[1], q[2], q[3], omega[0], omega[1], omega[2])
    alpha = _angular_acceleration(omega, torque, j)
    return v, a, dq, alpha


@njit(cache=True, _nrt=False, error_model="numpy")
def _shift3(x, k, h):
    return x[0] + h * k[0], x[1] + h * k[1], x[2] + h * k[2]


@njit(cache=True, _nrt=False, error_model="numpy")
def _shift4(x, k, h):
    return x[0] + h * k[0], x[1] + h * k[1], x[2] + h * k[2], x[3] + h * k[3]


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def integrate(scheme, pos, quat, vel, omega, force, torque, world_force, mass, j, gravity,
              dt):
    """Advance one drone's pos (3,), quat (4,), vel (3,), omega (3,) in place by ``dt``."""
    if scheme == RK4:
        p0 = (pos[0], pos[1], pos[2])
        v0 = (vel[0], vel[1], vel[2])
        q0 = (quat[0], quat[1], quat[2], quat[3])
        w0 = (omega[0], omega[1], omega[2])
        k1 = _derivative(v0, q0, w0, force, torque, world_force, mass, j, gravity)
        h = 0.5 * dt
        k2 = _derivative(_shift3(v0, k1[1], h), _shift4(q0, k1[2], h), _shift3(w0, k1[3], h),
                         force, torque, world_force, mass, j, gravity)
        k3 = _derivative(_shift3(v0, k2[1], h), _shift4(q0, k2[2], h), _shift3(w0, k2[3], h),
                         force, torque, world_force, mass, j, gravity)
        k4 = _derivative(_shift3(v0, k3[1], dt), _shift4(q0, k3[2], dt),
                         _shift3(w0, k3[3], dt), force, torque, world_force, mass, j, gravity)
        s = dt / 6.0
        for i in range(3):
            pos[i] = p0[i] + s * (k1[0][i] + 2.0 * k2[0][i] + 2.0 * k3[0][i] + k4[0][i])
            vel[i] = v0[i] + s * (k1[1][i] + 2.0 * k2[1][i] + 2.0 * k3[1][i] + k4[1][i])
            omega[i] = w0[i] + s * (k1[3][i] + 2.0 * k2[3][i] + 2.0 * k3[3][i] + k4[3][i])
        norm = 0.0
        for i in range(4):
            quat[i] = q0[i] + s * (k1[2][i] + 2.0 * k2[2][i] + 2.0 * k3[2][i] + k4[2][i])
            norm += quat[i] * quat[i]
        norm = math.sqrt(norm)
        for i in range(4):
            quat[i] /= norm
        return
    a = _acceleration(quat, force, world_force, mass, gravity)
    alpha = _angular_acceleration(omega, torque, j)
    step_kinematics(scheme, pos, quat, vel, omega, a, alpha, dt)


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def step_kinematics(scheme, pos, quat, vel, omega, linear, angular, dt):
    """One ``EULER`` or ``SEMI_IMPLICIT`` step of pos (3,), quat (4,), vel (3,) and body
    rates omega (3,), in place, under the world acceleration ``linear`` and the body angular
    acceleration ``angular`` (3-tuples) held over the step."""
    if scheme == EULER:
        for i in range(3):
            pos[i] += dt * vel[i]
        qx, qy, qz, qw = quat_times_rotation(quat[0], quat[1], quat[2], quat[3],
                                             omega[0] * dt, omega[1] * dt, omega[2] * dt)
        for i in range(3):
            vel[i] += dt * linear[i]
            omega[i] += dt * angular[i]
    else:
        for i in range(3):
            vel[i] += dt * linear[i]
            omega[i] += dt * angular[i]
            pos[i] += dt * vel[i]
        qx, qy, qz, qw = quat_times_rotation(quat[0], quat[1], quat[2], quat[3],
                                             omega[0] * dt, omega[1] * dt, omega[2] * dt)
    quat[0], quat[1], quat[2], quat[3] = qx, qy, qz, qw


@njit(cache=True, _nrt=False, error_model="numpy")
def floor_constraint(pos, quat, vel, omega, floor_z, crash_speed):
    """Hold the centre of mass at ``floor_z`` or above; returns (contact, crash).

    A drone reaching the floor stops there (no bounce, no sliding: velocities zeroed).
    It has crashed when it arrives faster than ``crash_speed`` [m/s] downwards or upside
    down.
    """
    if not pos[2] < floor_z:  # so that a NaN height stays NaN, for the divergence guard
        return False, False
    upside_down = 1.0 - 2.0 * (quat[0] * quat[0] + quat[1] * quat[1]) < 0.0
    crash = -vel[2] > crash_speed or upside_down
    pos[2] = floor_z
    for i in range(3):
        vel[i] = 0.0
        omega[i] = 0.0
    return True, crash
