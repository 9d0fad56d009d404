"""Angle arithmetic shared by the controllers, the batched engine, the envs and the missions."""

from __future__ import annotations

import math

import numpy as np


def wrap_angle(angle: float | np.ndarray) -> float | np.ndarray:
    """``angle`` [rad] (a float or an array) wrapped into [−π, π)."""
    return (angle + math.pi) % (2.0 * math.pi) - math.pi


def quaternions_to_euler(quaternions: np.ndarray) -> np.ndarray:
    """(..., 3) roll, pitch, yaw [rad] of (..., 4) quaternions (x, y, z, w).

    The same convention as PyBullet's getEulerFromQuaternion: R = Rz(yaw) Ry(pitch) Rx(roll).
    """
    x, y, z, w = np.moveaxis(quaternions, -1, 0)
    roll = np.arctan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y))
    pitch = np.arcsin(np.clip(2.0 * (w * y - z * x), -1.0, 1.0))
    yaw = np.arctan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
    return np.stack((roll, pitch, yaw), axis=-1)
