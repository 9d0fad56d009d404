"""Small rotation helpers shared by controllers."""

from __future__ import annotations

import numpy as np


def hat(vector: np.ndarray) -> np.ndarray:
    """(3, 3) skew-symmetric matrix with ``hat(a) @ b == cross(a, b)``."""
    x, y, z = vector
    return np.array(((0.0, -z, y), (z, 0.0, -x), (-y, x, 0.0)))


def vee(matrix: np.ndarray) -> np.ndarray:
    """(3,) vector of a skew-symmetric (3, 3) matrix; the inverse of :func:`hat`."""
    return np.array((matrix[2, 1], matrix[0, 2], matrix[1, 0]))
