"""Mixing attitude and thrust commands into motor commands."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def mix_with_attitude_priority(matrix: Sequence[Sequence[float]], command: Sequence[float],
                               low: float, high: float) -> list[float]:
    """Mix ``command`` = [roll, pitch, yaw, thrust] into motor commands within [low, high].

    ``motor = matrix @ command``, where ``matrix`` is (n, 4) with the thrust column last.
    When the motors would leave [low, high], the collective thrust is shifted first; only if
    the attitude part alone spans more than ``high - low`` is it scaled down, uniformly, so the
    direction of the commanded torque is kept (attitude before altitude).

    Returns:
        n motor commands, each within [low, high].
    """
    if isinstance(matrix, np.ndarray):
        matrix = matrix.tolist()
    roll, pitch, yaw, thrust = command
    attitude = [row[0] * roll + row[1] * pitch + row[2] * yaw for row in matrix]
    spread = max(attitude) - min(attitude)
    if spread > high - low:
        scale = (high - low) / spread
        attitude = [a * scale for a in attitude]
    motors = [a + row[3] * thrust for a, row in zip(attitude, matrix)]
    top, bottom = max(motors), min(motors)
    shift = high - top if top > high else (low - bottom if bottom < low else 0.0)
    return [min(max(m + shift, low), high) for m in motors]
