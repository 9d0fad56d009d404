"""The aircraft as one rigid body: the composite of its URDF links, whose centre of mass
lies off the base origin and whose inertia tensor has products (a wing above the fuselage,
a fin on top), as PyBullet's articulated-body solver moves it.

The state is that of the base origin (where ``getBasePositionAndOrientation`` is), so
Newton-Euler about the centre of mass ``c`` (body frame) reads, with the load ``F`` at the
base origin and its torque ``tau_O`` about it (body frame)::

    alpha = J^-1 (tau_O - c x F + tau_d - w x J w)
    a_O = R (F / m - alpha x c - w x (w x c)) + F_d / m - g z

(``J`` about the centre of mass; ``F_d`` a world force at the centre of mass, ``tau_d`` a
body torque). Integrated as PyBullet does: velocities first, then the position with the
new velocity and the attitude by the exponential map of the new body rate
(``semi_implicit``), or explicit Euler.
"""

from __future__ import annotations

from numba import njit

from pyflyt_like.compiled.rotations import cross, times_vector

from ..integrators import step_kinematics


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def _accelerations(rotation, omega, wrench, torque_disturbance, force_disturbance, mass, com,
                   inertia, inverse, gravity):
    """(world acceleration of the base origin [m/s^2], body angular acceleration [rad/s^2])."""
    fx, fy, fz = wrench[0], wrench[1], wrench[2]
    wx, wy, wz = omega[0], omega[1], omega[2]
    cx, cy, cz = com[0], com[1], com[2]
    mx, my, mz = cross(cx, cy, cz, fx, fy, fz)
    jx = inertia[0] * wx + inertia[1] * wy + inertia[2] * wz
    jy = inertia[3] * wx + inertia[4] * wy + inertia[5] * wz
    jz = inertia[6] * wx + inertia[7] * wy + inertia[8] * wz
    gx, gy, gz = cross(wx, wy, wz, jx, jy, jz)
    sx = wrench[3] - mx + torque_disturbance[0] - gx
    sy = wrench[4] - my + torque_disturbance[1] - gy
    sz = wrench[5] - mz + torque_disturbance[2] - gz
    ax = inverse[0] * sx + inverse[1] * sy + inverse[2] * sz
    ay = inverse[3] * sx + inverse[4] * sy + inverse[5] * sz
    az = inverse[6] * sx + inverse[7] * sy + inverse[8] * sz
    rx, ry, rz = cross(ax, ay, az, cx, cy, cz)
    ux, uy, uz = cross(wx, wy, wz, cx, cy, cz)
    qx, qy, qz = cross(wx, wy, wz, ux, uy, uz)
    inverse_mass = 1.0 / mass
    bx = fx * inverse_mass - rx - qx
    by = fy * inverse_mass - ry - qy
    bz = fz * inverse_mass - rz - qz
    lx, ly, lz = times_vector(rotation, bx, by, bz)
    return ((lx + force_disturbance[0] * inverse_mass, ly + force_disturbance[1] * inverse_mass,
             lz + force_disturbance[2] * inverse_mass - gravity), (ax, ay, az))


@njit(cache=True, _nrt=False, error_model="numpy", inline="always")
def integrate_aircraft(scheme, rotation, pos, quat, vel, omega, wrench, torque_disturbance,
                       force_disturbance, mass, com, inertia, inverse, gravity, dt):
    """Advance one aircraft's pos, quat, vel, omega in place by ``dt`` (module docstring);
    ``rotation`` is the attitude's row-major matrix at the start of the step."""
    linear, angular = _accelerations(rotation, omega, wrench, torque_disturbance,
                                     force_disturbance, mass, com, inertia, inverse, gravity)
    step_kinematics(scheme, pos, quat, vel, omega, linear, angular, dt)
