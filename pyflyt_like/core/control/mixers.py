"""Mixing attitude and thrust commands into motor commands."""

from __future__ import annotations

import numpy as np


def mix_with_attitude_priority(matrix: np.ndarray, command: np.ndarray, low: float,
                               high: float) -> np.ndarray:
    """Mix ``command`` = [roll, pitch, yaw, thrust] into motor commands within [low, high].

    ``motor = matrix @ command``, where ``matrix`` is (n, 4) with the thrust column last.
    When the motors would leave [low, high], the collective thrust is shifted first; only if
    the attitude part alone spans more than ``high - low`` is it scaled down, uniformly, so the
    direction of the commanded torque is kept (attitude before altitude).

    Returns:
        (n,) motor commands, each within [low, high].
    """
    attitude = matrix[:, :3] @ command[:3]
    thrust = matrix[:, 3] * command[3]
    spread = attitude.max() - attitude.min()
    if spread > high - low:
        attitude *= (high - low) / spread
    motors = attitude + thrust
    top, bottom = motors.max(), motors.min()
    if top > high:
        motors -= top - high
    elif bottom < low:
        motors += low - bottom
    return np.clip(motors, low, high, out=motors)
