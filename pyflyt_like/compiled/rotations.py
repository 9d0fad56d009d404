"""The rotation formulas of :mod:`pyflyt_like.common.rotations`, compiled for the kernels.

Quaternions are (x, y, z, w), PyBullet's order, body to world. Matrices are row-major
9-tuples ``(r00, r01, r02, r10, ..., r22)``; ``R v`` takes body vectors to the world.
"""

from __future__ import annotations

from pyflyt_like.common import rotations

from .jit import compile_shared

quat_to_matrix = compile_shared(rotations.quat_to_matrix)
euler_to_matrix = compile_shared(rotations.euler_to_matrix)
euler_to_quat = compile_shared(rotations.euler_to_quat)
quat_to_euler = compile_shared(rotations.quat_to_euler)
transpose_times = compile_shared(rotations.transpose_times)
times_vector = compile_shared(rotations.times_vector)
transpose_times_vector = compile_shared(rotations.transpose_times_vector)
cross = compile_shared(rotations.cross)
quat_times_rotation = compile_shared(rotations.quat_times_rotation)
quat_rate = compile_shared(rotations.quat_rate)
