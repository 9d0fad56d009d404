"""Angle arithmetic shared by the controllers, the envs and the missions."""

from __future__ import annotations

import math

import numpy as np


def wrap_angle(angle: float | np.ndarray) -> float | np.ndarray:
    """``angle`` [rad] (a float or an array) wrapped into [−π, π)."""
    return (angle + math.pi) % (2.0 * math.pi) - math.pi
