"""What the tasks read of each world's drone, the same from either engine."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Kinematics(NamedTuple):
    """One drone per world, arrays over W worlds.

    pos: (W, 3) centre of mass [m], world ENU.
    rot: (W, 3, 3) body-to-world rotation matrices (columns: body x, y, z in world).
    vel: (W, 3) velocity [m/s], world frame.
    ang_vel: (W, 3) body rates p, q, r [rad/s], body frame.
    """

    pos: np.ndarray
    rot: np.ndarray
    vel: np.ndarray
    ang_vel: np.ndarray


def quat_to_rotation(quat: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Fill ``out`` (W, 3, 3) with the rotation matrices of unit quaternions (W, 4) (x, y, z,
    w), as ``pybullet.getMatrixFromQuaternion``."""
    x, y, z, w = quat[:, 0], quat[:, 1], quat[:, 2], quat[:, 3]
    out[:, 0, 0] = 1.0 - 2.0 * (y * y + z * z)
    out[:, 0, 1] = 2.0 * (x * y - z * w)
    out[:, 0, 2] = 2.0 * (x * z + y * w)
    out[:, 1, 0] = 2.0 * (x * y + z * w)
    out[:, 1, 1] = 1.0 - 2.0 * (x * x + z * z)
    out[:, 1, 2] = 2.0 * (y * z - x * w)
    out[:, 2, 0] = 2.0 * (x * z - y * w)
    out[:, 2, 1] = 2.0 * (y * z + x * w)
    out[:, 2, 2] = 1.0 - 2.0 * (x * x + y * y)
    return out
