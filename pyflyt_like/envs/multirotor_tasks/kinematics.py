"""What the tasks read of each world's drone, the same from either engine."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from pyflyt_like.batch.rotations import quat_to_matrix

from .threads import over_worlds


class Kinematics(NamedTuple):
    """One drone per world, arrays over W worlds.

    pos: (W, 3) centre of mass [m], world ENU.
    rot: (W, 3, 3) body-to-world rotation matrices (columns: body x, y, z in world).
    vel: (W, 3) velocity [m/s], world frame.
    ang_vel: (W, 3) body rates p, q, r [rad/s], body frame.
    yaw: (W,) heading [rad], ``atan2(R10, R00)``: what the attitude action turns from.
    """

    pos: np.ndarray
    rot: np.ndarray
    vel: np.ndarray
    ang_vel: np.ndarray
    yaw: np.ndarray


def heading(rot: np.ndarray) -> float:
    """Heading [rad] of one (3, 3) body-to-world rotation: the yaw of :class:`Kinematics`."""
    return math.atan2(rot[1, 0], rot[0, 0])


def quat_to_rotation(quat: np.ndarray, out: np.ndarray, yaw: np.ndarray) -> np.ndarray:
    """Fill ``out`` (W, 3, 3) with the rotation matrices of unit quaternions (W, 4) (x, y, z,
    w), as ``pybullet.getMatrixFromQuaternion``, and ``yaw`` (W,) with their headings."""
    over_worlds(_rotation_rows, _blocks_of_rotations, len(quat), quat, out, yaw)
    return out


@njit(cache=True, parallel=True, error_model="numpy")
def _blocks_of_rotations(blocks, quat, out, yaw):
    n = quat.shape[0]
    for block in prange(blocks):
        _rotation_rows(block * n // blocks, (block + 1) * n // blocks, quat, out, yaw)


@njit(cache=True, error_model="numpy")
def _rotation_rows(first, last, quat, out, yaw):
    for w in range(first, last):
        q = quat[w]
        r = quat_to_matrix(q[0], q[1], q[2], q[3])
        for i in range(3):
            for j in range(3):
                out[w, i, j] = r[3 * i + j]
        yaw[w] = math.atan2(r[3], r[0])
