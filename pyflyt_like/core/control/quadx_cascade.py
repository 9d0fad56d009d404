"""QuadX's cascaded flight controller: position -> velocity -> attitude -> rates -> mixer.

The cascade serves PyFlyt's flight modes 0..7 (mode -1 bypasses it). Gains and limits come
from the vehicle YAML (``controller`` section). Thrust is computed by model inversion: the
vertical loop asks for an acceleration, and the collective throttle that produces it is
``sqrt(m (g + a_z) / (T_max cos(roll) cos(pitch)))`` since thrust grows with throttle squared.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..abstractions.pid import PID
from .mixers import mix_with_attitude_priority

ALTITUDE_MODES = (2, 3, 4, 7)
VERTICAL_VELOCITY_MODES = (1, 5, 6)


def _wrap_angle(angle: float) -> float:
    return (angle + math.pi) % (2.0 * math.pi) - math.pi


def _pid(section: dict[str, Any], period: float) -> PID:
    n = len(section["kp"])
    return PID(section["kp"], section.get("ki", [0.0] * n), section.get("kd", [0.0] * n),
               section["limits"], period)


class QuadXCascade:
    """Cascaded PID controller of a QuadX.

    Args:
        gains: the YAML ``controller`` mapping (rate, angle, velocity, position, altitude,
            vertical_velocity sections, each with kp/ki/kd/limits lists).
        mixer: the YAML ``mixer`` mapping (matrix (4, 4), min_throttle, max_throttle).
        period: control period [s].
        mass: vehicle mass [kg].
        max_total_thrust: thrust of all motors at full throttle [N].
        gravity: magnitude of gravity [m/s^2].
    """

    def __init__(self, gains: dict[str, Any], mixer: dict[str, Any], period: float, mass: float,
                 max_total_thrust: float, gravity: float):
        self.rate = _pid(gains["rate"], period)
        self.angle_gain = np.array(gains["angle"]["kp"], dtype=float)
        self.rate_limits = np.array(gains["angle"]["limits"], dtype=float)
        self.velocity = _pid(gains["velocity"], period)
        self.position_gain = np.array(gains["position"]["kp"], dtype=float)
        self.velocity_limits = np.array(gains["position"]["limits"], dtype=float)
        self.altitude_gain = float(gains["altitude"]["kp"][0])
        self.climb_limit = float(gains["altitude"]["limits"][0])
        self.vertical = _pid(gains["vertical_velocity"], period)
        self.mixer_matrix = np.array(mixer["matrix"], dtype=float)
        self.min_throttle = float(mixer["min_throttle"])
        self.max_throttle = float(mixer["max_throttle"])
        self.weight_per_thrust = mass / max_total_thrust
        self.gravity = gravity
        self._command = np.zeros(4)
        self._zero2 = np.zeros(2)
        self._zero1 = np.zeros(1)

    def reset(self) -> None:
        """Clear every integrator."""
        self.rate.reset()
        self.velocity.reset()
        self.vertical.reset()

    def hover_throttle(self) -> float:
        """Collective throttle that balances gravity when level."""
        return math.sqrt(self.gravity * self.weight_per_thrust)

    def step(self, mode: int, setpoint: np.ndarray, state: np.ndarray,
             world_velocity: np.ndarray) -> np.ndarray:
        """Return (4,) motor commands for built-in ``mode`` (0..7).

        Args:
            mode: flight mode 0..7 (see docs/quadx.md).
            setpoint: (4,) the mode's setpoint.
            state: (4, 3) drone state.
            world_velocity: (3,) ground-frame linear velocity [m/s].
        """
        roll, pitch, yaw = state[1]
        if mode in (0, 2):
            rate_setpoint = setpoint[:3]
        else:
            if mode in (1, 3):
                angle_setpoint = setpoint[:3]
                yaw_error = _wrap_angle(angle_setpoint[2] - yaw)
            else:
                angle_setpoint, yaw_error = self._horizontal(mode, setpoint, state, world_velocity)
            rate_setpoint = self.angle_gain * (angle_setpoint - state[1])
            rate_setpoint[2] = self.angle_gain[2] * yaw_error
            if mode in (4, 5, 6):
                rate_setpoint[2] = setpoint[2]
            np.clip(rate_setpoint, -self.rate_limits, self.rate_limits, out=rate_setpoint)
        command = self._command
        command[:3] = self.rate.step(state[0], rate_setpoint)
        command[3] = setpoint[3] if mode == 0 else self._throttle(mode, setpoint[3], state,
                                                                  world_velocity[2], roll, pitch)
        return mix_with_attitude_priority(self.mixer_matrix, command, self.min_throttle,
                                          self.max_throttle)

    def _horizontal(self, mode: int, setpoint: np.ndarray, state: np.ndarray,
                    world_velocity: np.ndarray) -> tuple[np.ndarray, float]:
        """Velocity loop in the heading frame; returns (roll, pitch, yaw) setpoint, yaw error."""
        yaw = state[1, 2]
        cos_yaw, sin_yaw = math.cos(yaw), math.sin(yaw)
        vx, vy = world_velocity[0], world_velocity[1]
        heading_velocity = np.array((cos_yaw * vx + sin_yaw * vy, -sin_yaw * vx + cos_yaw * vy))
        yaw_error = 0.0
        if mode == 4 or mode == 5:
            velocity_setpoint = setpoint[:2]
        else:
            if mode == 6:
                gx, gy = setpoint[0], setpoint[1]
            else:
                position = state[3]
                gx, gy = np.clip(self.position_gain * (setpoint[:2] - position[:2]),
                                 -self.velocity_limits, self.velocity_limits)
                yaw_error = _wrap_angle(setpoint[2] - yaw)
            velocity_setpoint = np.array((cos_yaw * gx + sin_yaw * gy,
                                          -sin_yaw * gx + cos_yaw * gy))
        tilt = self.velocity.step(heading_velocity, velocity_setpoint)
        # Forward acceleration needs nose-down (positive) pitch; leftward needs negative roll.
        return np.array((-tilt[1], tilt[0], yaw)), yaw_error

    def _throttle(self, mode: int, vertical_setpoint: float, state: np.ndarray,
                  climb_rate: float, roll: float, pitch: float) -> float:
        """Collective throttle from the altitude or climb-rate setpoint."""
        if mode in ALTITUDE_MODES:
            climb_setpoint = self.altitude_gain * (vertical_setpoint - state[3, 2])
            climb_setpoint = min(max(climb_setpoint, -self.climb_limit), self.climb_limit)
        else:
            climb_setpoint = vertical_setpoint
        self._zero1[0] = climb_setpoint
        acceleration = self.vertical.step(np.array((climb_rate,)), self._zero1)[0]
        tilt = max(math.cos(roll) * math.cos(pitch), 0.5)
        ratio = self.weight_per_thrust * max(self.gravity + acceleration, 0.0) / tilt
        return math.sqrt(ratio)
