"""The attitude maths of the pursuit pilot (:mod:`.pursuit_pilot`), vectorised over N
aircraft so that the pilot flies a batch with no Python loop over it: rotation matrices
from the observations' Euler angles or quaternions, the nose's heading and the SO(3)
attitude error (the last two numpy twins of the attitude controller's scalar functions in
:mod:`pyflyt_like.control.fixedwing_attitude`, named in their docstrings).

Frames: FLU body, ENU ground, PyBullet's Euler order ``R = Rz(yaw) Ry(pitch) Rx(roll)``;
angles in radians; quaternions (x, y, z, w).
"""

from __future__ import annotations

import numpy as np

from pyflyt_like.common.rotations import quat_to_matrix, transpose_times


def euler_to_matrices(euler: np.ndarray) -> np.ndarray:
    """(N, 3, 3) body-to-ground rotations of (N, 3) roll, pitch, yaw [rad] (PyBullet order)."""
    cr, cp, cy = np.cos(euler).T
    sr, sp, sy = np.sin(euler).T
    return np.stack((cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr,
                     sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr,
                     -sp, cp * sr, cp * cr), axis=-1).reshape(-1, 3, 3)


def quaternions_to_matrices(quaternions: np.ndarray) -> np.ndarray:
    """(N, 3, 3) body-to-ground rotations of (N, 4) quaternions (x, y, z, w).

    Normalised first: float32 observations (the vector env) are not exactly unit.
    """
    norm = np.linalg.norm(quaternions, axis=1, keepdims=True)
    unit = np.divide(quaternions, norm, out=np.zeros_like(quaternions), where=norm > 0.0)
    unit[norm[:, 0] == 0.0, 3] = 1.0  # a zero row (a dead aircraft's) as the identity
    return np.stack(quat_to_matrix(*unit.T), axis=-1).reshape(-1, 3, 3)


def heading_references(rotations: np.ndarray) -> np.ndarray:
    """(N,) heading [rad] of the nose, robust through the vertical (the attitude controller's
    :func:`~pyflyt_like.control.fixedwing_attitude.heading_reference`, vectorised)."""
    r = rotations
    cube = r[:, 2, 0] ** 3
    x, y = r[:, 0, 0] - cube * r[:, 0, 2], r[:, 1, 0] - cube * r[:, 1, 2]
    return np.arctan2(y, x)


def desired_matrices(roll: np.ndarray, pitch: np.ndarray, heading: np.ndarray) -> np.ndarray:
    """(N, 3, 3) ``Rz(heading) Ry(pitch) Rx(roll)``, all (N,) [rad]."""
    return euler_to_matrices(np.stack((roll, pitch, heading), axis=1))


def rotation_errors(rotations: np.ndarray, desired: np.ndarray) -> np.ndarray:
    """(N, 3) body-frame rotation vectors [rad] of ``desired^T rotations`` (angle in [0, pi]).

    :func:`~pyflyt_like.control.fixedwing_attitude.rotation_error`, vectorised: through the
    unit quaternion (Shepperd's method, the best-conditioned of the four square roots per
    row), so an aircraft upside down still feels the full error.
    """
    m = np.stack(transpose_times(desired.reshape(-1, 9).T, rotations.reshape(-1, 9).T),
                 axis=-1).reshape(-1, 3, 3)
    m00, m11, m22 = m[:, 0, 0], m[:, 1, 1], m[:, 2, 2]
    trace = m00 + m11 + m22
    # 4 w^2, 4 x^2, 4 y^2, 4 z^2 (up to the factor 4 and an offset of 1)
    squares = np.stack((1.0 + trace, 1.0 + m00 - m11 - m22, 1.0 - m00 + m11 - m22,
                        1.0 - m00 - m11 + m22), axis=1)
    pick = np.argmax(squares, axis=1)
    big = 2.0 * np.sqrt(np.maximum(squares[np.arange(len(pick)), pick], 1e-12))
    a, b, c = m[:, 2, 1] - m[:, 1, 2], m[:, 0, 2] - m[:, 2, 0], m[:, 1, 0] - m[:, 0, 1]
    d, e, f = m[:, 0, 1] + m[:, 1, 0], m[:, 0, 2] + m[:, 2, 0], m[:, 1, 2] + m[:, 2, 1]
    quarter = 0.25 * big
    # (w, x, y, z) * big for each choice of the largest component, rows selected by pick
    candidates = np.stack((
        np.stack((big * quarter, a, b, c), axis=1),
        np.stack((a, big * quarter, d, e), axis=1),
        np.stack((b, d, big * quarter, f), axis=1),
        np.stack((c, e, f, big * quarter), axis=1)), axis=1)
    q = candidates[np.arange(len(pick)), pick] / big[:, None]
    q *= np.where(q[:, :1] < 0.0, -1.0, 1.0)  # the shorter way round
    sine = np.linalg.norm(q[:, 1:], axis=1)
    scale = np.where(sine < 1e-12, 2.0, 2.0 * np.arctan2(sine, q[:, 0]) / np.maximum(sine, 1e-12))
    return scale[:, None] * q[:, 1:]
