"""Geometry between every pair of aircraft, vectorised: ranges, hits, aim, relative states.

Index convention: for arrays shaped (n, n, ...), entry [i, j] is about aircraft j as seen
by aircraft i (the shooter, for hits). Frames: ENU ground, FLU body (x = the nose);
rotation matrices map body to ground; quaternions are PyBullet order (x, y, z, w).
"""

from __future__ import annotations

import math

import numpy as np

# conj(q) * p = L(q) @ p for quaternions (x, y, z, w): L's entries are +-components of q.
_CONJUGATE_PRODUCT_INDEX = np.array(((3, 2, 1, 0), (2, 3, 0, 1), (1, 0, 3, 2), (0, 1, 2, 3)))
_CONJUGATE_PRODUCT_SIGN = np.array(((1.0, 1.0, -1.0, -1.0), (-1.0, 1.0, 1.0, -1.0),
                                    (1.0, -1.0, 1.0, -1.0), (1.0, 1.0, 1.0, 1.0)))


def body_frame_differences(vectors: np.ndarray, rotations: np.ndarray) -> np.ndarray:
    """(n, n, 3): vector of j minus vector of i, in i's body frame.

    With positions [m] this is where j is as seen from i; with velocities [m/s], how j
    moves relative to i.

    Args:
        vectors: (n, 3) ground-frame vectors.
        rotations: (n, 3, 3) body-to-ground rotation matrices.
    """
    differences = vectors[None, :, :] - vectors[:, None, :]
    return np.einsum("iba,ijb->ija", rotations, differences)


def ranges_and_ahead(positions: np.ndarray, forwards: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(n, n) squared distances [m^2] and (n, n) distance of j ahead of i along i's nose [m].

    Args:
        positions: (n, 3) ground-frame positions [m].
        forwards: (n, 3) ground-frame unit nose (body x) axes.
    """
    differences = positions[None, :, :] - positions[:, None, :]
    return (np.einsum("ijk,ijk->ij", differences, differences),
            np.einsum("ik,ijk->ij", forwards, differences))


def hit_matrix(distance_sq: np.ndarray, ahead: np.ndarray, lethal_distance: float,
               lethal_angle: float, can_hit: np.ndarray) -> np.ndarray:
    """(n, n) bool: i hits j now.

    A hit needs j closer than ``lethal_distance`` [m] and within ``lethal_angle`` [rad] of
    i's nose (the angle between i's body x axis and the line from i to j), and
    ``can_hit[i, j]`` (e.g. enemies, both in play).

    Args:
        distance_sq, ahead: (n, n) from :func:`ranges_and_ahead`.
        lethal_distance: range of the guns [m].
        lethal_angle: half-angle of the lethal cone [rad], in (0, pi/2).
        can_hit: (n, n) bool.
    """
    # angle < lethal_angle  <=>  ahead > cos(lethal_angle) |d|; ahead > 0 excludes i itself.
    in_cone = (ahead > 0.0) & (ahead * ahead > math.cos(lethal_angle) ** 2 * distance_sq)
    return in_cone & (distance_sq < lethal_distance ** 2) & can_hit


def aim_angles(distance_sq: np.ndarray, ahead: np.ndarray) -> np.ndarray:
    """(n, n) angle between i's nose and the line from i to j [rad, 0..pi] (0 on the diagonal).

    Args:
        distance_sq, ahead: (n, n) from :func:`ranges_and_ahead`.
    """
    distance = np.sqrt(distance_sq)
    cosine = np.divide(ahead, distance, out=np.ones_like(distance), where=distance > 0.0)
    return np.arccos(np.clip(cosine, -1.0, 1.0, out=cosine))


def relative_quaternions(quaternions: np.ndarray) -> np.ndarray:
    """(n, n, 4) attitude of j in i's body frame, as quaternions (x, y, z, w).

    Entry [i, j] is conj(q_i) * q_j, whose rotation matrix is R_i^T R_j.

    Args:
        quaternions: (n, 4) body-to-ground quaternions (x, y, z, w).
    """
    left = quaternions[:, _CONJUGATE_PRODUCT_INDEX] * _CONJUGATE_PRODUCT_SIGN
    return np.einsum("iab,jb->ija", left, quaternions)


