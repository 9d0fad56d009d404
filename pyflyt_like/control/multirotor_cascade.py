"""Cascaded PID position controller for rotor-speed multirotors.

position -> (P) ground velocity -> (PID) acceleration -> tilt angles and collective thrust
-> the vehicle's attitude loop -> body rates -> torques -> allocation -> rotor speeds. The
same structure as the cascade the Genesis drone example describes, written for any
:class:`~pyflyt_like.core.drones.Multirotor`; the alternative to the geometric controller
for mode 7. Gains live in the vehicle YAML (``position_pid`` section).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .pid import MAX_ERROR, PID


class MultirotorCascade:
    """Position (x, y, yaw, z) to attitude and collective thrust.

    Args:
        gains: the YAML ``position_pid`` mapping: ``position_kp`` (3,) [1/s],
            ``velocity_limits`` (3,) [m/s], a ``velocity`` PID section (kp, ki, kd, limits
            in m/s^2 per axis, ground frame) and ``max_tilt`` [rad].
        period: control period [s].
        mass: [kg]; gravity: [m/s^2].
    """

    def __init__(self, gains: dict[str, Any], period: float, mass: float, gravity: float):
        self.position_kp = np.asarray(gains["position_kp"], dtype=float)
        self.velocity_limits = np.asarray(gains["velocity_limits"], dtype=float)
        velocity = gains["velocity"]
        self.velocity = PID(velocity["kp"], velocity["ki"], velocity["kd"], velocity["limits"],
                            period)
        self.max_tilt = float(gains["max_tilt"])
        self.mass, self.gravity = mass, gravity

    def reset(self) -> None:
        """Clear the velocity integrators."""
        self.velocity.reset()

    def step(self, setpoint: np.ndarray, position: np.ndarray, world_velocity: np.ndarray
             ) -> tuple[np.ndarray, float]:
        """Return (roll, pitch, yaw) [rad] and collective thrust [N] for [x, y, yaw, z]."""
        # A target beyond MAX_ERROR (1e308) would overflow kp * (target - position).
        x, y, yaw, z = setpoint.tolist()
        target = np.array([min(max(v, -MAX_ERROR), MAX_ERROR) for v in (x, y, z)])
        velocity_setpoint = np.clip(self.position_kp * (target - position),
                                    -self.velocity_limits, self.velocity_limits)
        ax, ay, az = self.velocity.step_values(world_velocity.tolist(), velocity_setpoint)
        cos_yaw, sin_yaw = math.cos(yaw), math.sin(yaw)
        forward = cos_yaw * ax + sin_yaw * ay     # heading frame
        left = -sin_yaw * ax + cos_yaw * ay
        vertical = self.gravity + az
        # FLU: nose down (+pitch) accelerates forward, right wing down (+roll) to the right.
        pitch = min(max(math.atan2(forward, vertical), -self.max_tilt), self.max_tilt)
        roll = min(max(math.atan2(-left * math.cos(pitch), vertical), -self.max_tilt),
                   self.max_tilt)
        thrust = self.mass * max(vertical, 0.0) / max(math.cos(roll) * math.cos(pitch), 0.5)
        return np.array((roll, pitch, yaw)), thrust
