"""QuadX's cascaded flight controller: position -> velocity -> attitude -> rates -> mixer.

The cascade serves PyFlyt's flight modes 0..7 (mode -1 bypasses it). Gains and limits come
from the vehicle YAML (``controller`` section). Thrust is computed by model inversion: the
vertical loop asks for an acceleration, and the collective throttle that produces it is
``sqrt(m (g + a_z) / (T_max cos(roll) cos(pitch)))`` since thrust grows with throttle squared.

It works on Python floats: on 3-vectors these are several times faster than numpy calls,
and this runs at every control tick of every drone.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pyflyt_like.common.angles import wrap_angle
from pyflyt_like.common.flight_modes import FlightMode

from .mixers import mix_with_attitude_priority
from .pid import PID

_F = FlightMode
# PyFlyt's QuadX modes -1..7 (docs/quadx.md), as plain ints: they appear in error messages
QUADX_MODES = tuple(int(m) for m in (
    _F.ACTUATORS, _F.RATES, _F.ATTITUDE, _F.RATES_ALTITUDE, _F.ATTITUDE_ALTITUDE,
    _F.BODY_VELOCITY_ALTITUDE, _F.BODY_VELOCITY_CLIMB, _F.GROUND_VELOCITY_CLIMB, _F.POSITION))
ALTITUDE_MODES = tuple(int(m) for m in (_F.RATES_ALTITUDE, _F.ATTITUDE_ALTITUDE,
                                        _F.BODY_VELOCITY_ALTITUDE, _F.POSITION))
RATE_MODES = (int(_F.RATES), int(_F.RATES_ALTITUDE))
ANGLE_MODES = (int(_F.ATTITUDE), int(_F.ATTITUDE_ALTITUDE))
YAW_RATE_MODES = tuple(int(m) for m in (_F.BODY_VELOCITY_ALTITUDE, _F.BODY_VELOCITY_CLIMB,
                                        _F.GROUND_VELOCITY_CLIMB))


def _clip(value: float, limit: float) -> float:
    return min(max(value, -limit), limit)


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
        self.angle_gain = [float(k) for k in gains["angle"]["kp"]]
        self.rate_limits = [float(k) for k in gains["angle"]["limits"]]
        self.velocity = _pid(gains["velocity"], period)
        self.position_gain = [float(k) for k in gains["position"]["kp"]]
        self.velocity_limits = [float(k) for k in gains["position"]["limits"]]
        self.altitude_gain = float(gains["altitude"]["kp"][0])
        self.climb_limit = float(gains["altitude"]["limits"][0])
        self.vertical = _pid(gains["vertical_velocity"], period)
        self.mixer_matrix = np.array(mixer["matrix"], dtype=float).tolist()
        self.min_throttle = float(mixer["min_throttle"])
        self.max_throttle = float(mixer["max_throttle"])
        self.weight_per_thrust = mass / max_total_thrust
        self.gravity = gravity

    def reset(self) -> None:
        """Clear every integrator."""
        self.rate.reset()
        self.velocity.reset()
        self.vertical.reset()

    def hover_throttle(self) -> float:
        """Collective throttle that balances gravity when level."""
        return math.sqrt(self.gravity * self.weight_per_thrust)

    def step(self, mode: int, setpoint: np.ndarray, state: np.ndarray,
             world_velocity: np.ndarray) -> list[float]:
        """Return 4 motor commands for built-in ``mode`` (0..7).

        Args:
            mode: flight mode 0..7 (see docs/quadx.md).
            setpoint: (4,) the mode's setpoint.
            state: (4, 3) drone state.
            world_velocity: (3,) ground-frame linear velocity [m/s].
        """
        s0, s1, s2, s3 = setpoint.tolist()
        rates, angles, _, position = state.tolist()
        roll, pitch, yaw = angles
        if mode in RATE_MODES:
            rate_setpoint = (s0, s1, s2)
        else:
            if mode in ANGLE_MODES:
                roll_setpoint, pitch_setpoint, yaw_error = s0, s1, wrap_angle(s2 - yaw)
            else:
                roll_setpoint, pitch_setpoint, yaw_error = self._tilt(
                    mode, s0, s1, s2, yaw, position, world_velocity)
            kr, kp, ky = self.angle_gain
            lr, lp, ly = self.rate_limits
            yaw_rate = s2 if mode in YAW_RATE_MODES else ky * yaw_error
            rate_setpoint = (_clip(kr * (roll_setpoint - roll), lr),
                             _clip(kp * (pitch_setpoint - pitch), lp), _clip(yaw_rate, ly))
        torque = self.rate.step_values(rates, rate_setpoint)
        if mode == _F.RATES:
            throttle = s3
        else:
            climb_setpoint = s3
            if mode in ALTITUDE_MODES:
                climb_setpoint = _clip(self.altitude_gain * (s3 - position[2]), self.climb_limit)
            acceleration = self.vertical.step_values((float(world_velocity[2]),),
                                                     (climb_setpoint,))[0]
            tilt = max(math.cos(roll) * math.cos(pitch), 0.5)
            throttle = math.sqrt(self.weight_per_thrust * max(self.gravity + acceleration, 0.0)
                                 / tilt)
        torque.append(throttle)
        return mix_with_attitude_priority(self.mixer_matrix, torque, self.min_throttle,
                                          self.max_throttle)

    def _tilt(self, mode: int, s0: float, s1: float, s2: float, yaw: float,
              position: list[float], world_velocity: np.ndarray) -> tuple[float, float, float]:
        """Velocity loop in the heading frame; returns roll and pitch setpoints, yaw error."""
        cos_yaw, sin_yaw = math.cos(yaw), math.sin(yaw)
        vx, vy = float(world_velocity[0]), float(world_velocity[1])
        heading_velocity = (cos_yaw * vx + sin_yaw * vy, -sin_yaw * vx + cos_yaw * vy)
        yaw_error = 0.0
        if mode in (_F.BODY_VELOCITY_ALTITUDE, _F.BODY_VELOCITY_CLIMB):
            velocity_setpoint = (s0, s1)
        else:
            if mode == _F.GROUND_VELOCITY_CLIMB:
                gx, gy = s0, s1
            else:
                gx = _clip(self.position_gain[0] * (s0 - position[0]), self.velocity_limits[0])
                gy = _clip(self.position_gain[1] * (s1 - position[1]), self.velocity_limits[1])
                yaw_error = wrap_angle(s2 - yaw)
            velocity_setpoint = (cos_yaw * gx + sin_yaw * gy, -sin_yaw * gx + cos_yaw * gy)
        forward, left = self.velocity.step_values(heading_velocity, velocity_setpoint)
        # Forward acceleration needs nose-down (positive) pitch; leftward needs negative roll.
        return -left, forward, yaw_error
