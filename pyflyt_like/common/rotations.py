"""Rotation arithmetic on scalars and tuples: the one home of these formulas.

Plain Python on floats (no numpy, no allocation), so that the PyBullet path calls them as
they are and the batched engine compiles them (:mod:`pyflyt_like.compiled.rotations` wraps each
with numba's ``njit``).

Quaternions are (x, y, z, w), PyBullet's order, body to world. Matrices are row-major
9-tuples ``(r00, r01, r02, r10, ..., r22)``; ``R v`` takes body vectors to the world.
"""

from __future__ import annotations

import math


def quat_to_matrix(x, y, z, w):
    """Row-major rotation matrix of the unit quaternion (x, y, z, w)."""
    return (1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - z * w), 2.0 * (x * z + y * w),
            2.0 * (x * y + z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - x * w),
            2.0 * (x * z - y * w), 2.0 * (y * z + x * w), 1.0 - 2.0 * (x * x + y * y))


def euler_to_matrix(roll, pitch, yaw):
    """R = Rz(yaw) Ry(pitch) Rx(roll), PyBullet's Euler convention."""
    cr, sr = math.cos(roll), math.sin(roll)
    cp, sp = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    return (cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr,
            sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr,
            -sp, cp * sr, cp * cr)


def euler_to_quat(roll, pitch, yaw):
    """Quaternion (x, y, z, w) of the Euler angles (PyBullet's convention)."""
    cr, sr = math.cos(0.5 * roll), math.sin(0.5 * roll)
    cp, sp = math.cos(0.5 * pitch), math.sin(0.5 * pitch)
    cy, sy = math.cos(0.5 * yaw), math.sin(0.5 * yaw)
    return (sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy, cr * cp * cy + sr * sp * sy)


def quat_to_euler(x, y, z, w):
    """Roll, pitch, yaw [rad] of the quaternion, as pybullet.getEulerFromQuaternion."""
    roll = math.atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y))
    sine = 2.0 * (w * y - z * x)
    pitch = math.asin(min(max(sine, -1.0), 1.0))
    yaw = math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
    return roll, pitch, yaw


def transpose_times(a, b):
    """a^T b for row-major 9-tuples."""
    return (a[0] * b[0] + a[3] * b[3] + a[6] * b[6], a[0] * b[1] + a[3] * b[4] + a[6] * b[7],
            a[0] * b[2] + a[3] * b[5] + a[6] * b[8],
            a[1] * b[0] + a[4] * b[3] + a[7] * b[6], a[1] * b[1] + a[4] * b[4] + a[7] * b[7],
            a[1] * b[2] + a[4] * b[5] + a[7] * b[8],
            a[2] * b[0] + a[5] * b[3] + a[8] * b[6], a[2] * b[1] + a[5] * b[4] + a[8] * b[7],
            a[2] * b[2] + a[5] * b[5] + a[8] * b[8])


def times_vector(m, x, y, z):
    """m v for a row-major 9-tuple."""
    return (m[0] * x + m[1] * y + m[2] * z, m[3] * x + m[4] * y + m[5] * z,
            m[6] * x + m[7] * y + m[8] * z)


def transpose_times_vector(m, x, y, z):
    """m^T v for a row-major 9-tuple."""
    return (m[0] * x + m[3] * y + m[6] * z, m[1] * x + m[4] * y + m[7] * z,
            m[2] * x + m[5] * y + m[8] * z)


def cross(ax, ay, az, bx, by, bz):
    return ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx


def quat_times_rotation(x, y, z, w, rx, ry, rz):
    """q * exp(r / 2): turn q by the body-frame rotation vector r [rad]; unit result."""
    angle = math.sqrt(rx * rx + ry * ry + rz * rz)
    if angle > 1e-12:
        scale = math.sin(0.5 * angle) / angle
        dx, dy, dz, dw = rx * scale, ry * scale, rz * scale, math.cos(0.5 * angle)
    else:  # second-order series: exact to rounding below 1e-12 rad
        dx, dy, dz, dw = 0.5 * rx, 0.5 * ry, 0.5 * rz, 1.0
    qx = w * dx + x * dw + y * dz - z * dy
    qy = w * dy + y * dw + z * dx - x * dz
    qz = w * dz + z * dw + x * dy - y * dx
    qw = w * dw - x * dx - y * dy - z * dz
    inverse = 1.0 / math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
    return qx * inverse, qy * inverse, qz * inverse, qw * inverse


def quat_rate(x, y, z, w, p, q, r):
    """dq/dt = q * (omega, 0) / 2 for body rates omega = (p, q, r)."""
    return (0.5 * (w * p + y * r - z * q), 0.5 * (w * q + z * p - x * r),
            0.5 * (w * r + x * q - y * p), -0.5 * (x * p + y * q + z * r))
