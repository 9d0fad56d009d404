"""The rotation formulas of :mod:`pyflyt_like.common.rotations`, compiled for the kernels.

Quaternions are (x, y, z, w), PyBullet's order, body to world. Matrices are row-major
9-tuples ``(r00, r01, r02, r10, ..., r22)``; ``R v`` takes body vectors to the world.
"""

from __future__ import annotations

from numba import njit

from pyflyt_like.common import rotations

_compile = njit(cache=True, _nrt=False, error_model="numpy")

quat_to_matrix = _compile(rotations.quat_to_matrix)
euler_to_matrix = _compile(rotations.euler_to_matrix)
euler_to_quat = _compile(rotations.euler_to_quat)
quat_to_euler = _compile(rotations.quat_to_euler)
transpose_times = _compile(rotations.transpose_times)
times_vector = _compile(rotations.times_vector)
transpose_times_vector = _compile(rotations.transpose_times_vector)
cross = _compile(rotations.cross)
quat_times_rotation = _compile(rotations.quat_times_rotation)
quat_rate = _compile(rotations.quat_rate)
