"""Quaternion conversions for the batch tests, written out independently of the engine's.

Quaternions are (x, y, z, w), body to world, with any leading axes.
"""

import numpy as np


def reference_euler(quat: np.ndarray) -> np.ndarray:
    """(..., 3) roll, pitch, yaw [rad] of (..., 4) quaternions."""
    x, y, z, w = np.moveaxis(quat, -1, 0)
    roll = np.arctan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
    pitch = np.arcsin(np.clip(2 * (w * y - z * x), -1.0, 1.0))
    yaw = np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
    return np.stack((roll, pitch, yaw), axis=-1)


def reference_matrix(quat: np.ndarray) -> np.ndarray:
    """(..., 3, 3) body-to-world rotation matrices of (..., 4) quaternions."""
    x, y, z, w = np.moveaxis(quat, -1, 0)
    rows = (
        (1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)),
        (2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)),
        (2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)),
    )
    return np.stack([np.stack(row, axis=-1) for row in rows], axis=-2)
