"""Fixed-wing autopilot: modes 2 (altitude, airspeed, heading) and 3 (bank, airspeed, climb).

The longitudinal loops are :class:`~pyflyt_like.control.tecs.TECS`. Laterally, mode 2
holds a course: the course error (``χ``, the heading of the ground velocity, or of the nose
below ``min_ground_speed``) asks for a turn rate ``ψ̇ = heading_kp · wrap(ψ_sp − χ)``,
limited to what ``max_bank`` gives, and a coordinated turn at that rate needs the bank
``φ = −atan(V ψ̇ / g)`` (FLU: positive roll = right wing down turns right, ψ decreasing).
Mode 3 takes the bank itself (clipped to ``max_bank``).

Both feed the attitude controller with the coordinated-turn body rates of the current bank
as feed-forward: at turn rate ``ψ̇ = −g tan φ / V`` and constant Euler roll and pitch, the
body rates are ``ψ̇ (−sin θ, cos θ sin φ, cos θ cos φ)``; the pitch part keeps the nose
coming round with the turn, the yaw part is the rudder's coordination. Only the attitude
controller has integrators on the lateral side (the course loop is proportional, so a turn
never winds up).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pyflyt_like.common.angles import wrap_angle

from .fixedwing_attitude import FixedwingAttitude, heading_reference
from .tecs import TECS


def course_of(r, vx: float, vy: float, min_ground_speed: float) -> float:
    """Course χ [rad]: the heading of the ground velocity (vx, vy) [m/s], or of the nose
    (:func:`~.fixedwing_attitude.heading_reference` of ``r``, row-major 9-tuple) when it is
    slower than ``min_ground_speed`` [m/s]."""
    if vx * vx + vy * vy < min_ground_speed * min_ground_speed:
        return heading_reference(r)
    return math.atan2(vy, vx)


def bank_for_course_error(error: float, airspeed: float, min_airspeed: float,
                          max_bank: float, heading_kp: float, gravity: float) -> float:
    """Mode 2's bank setpoint [rad] for a course error [rad] (already wrapped): the
    coordinated turn at ``heading_kp · error``, limited to what ``max_bank`` gives."""
    speed = max(airspeed, min_airspeed)
    max_turn_rate = gravity * math.tan(max_bank) / speed
    turn_rate = min(max(heading_kp * error, -max_turn_rate), max_turn_rate)
    return -math.atan(speed * turn_rate / gravity)


def turn_feedforward(roll: float, pitch: float, airspeed: float, min_airspeed: float,
                     max_bank: float, gravity: float):
    """The body rates [rad/s] of a coordinated turn at the current ``roll`` (held within
    1.5 ``max_bank``) and ``pitch`` [rad]: ``ψ̇ (−sin θ, cos θ sin φ, cos θ cos φ)``."""
    speed = max(airspeed, min_airspeed)
    held_roll = min(max(roll, -1.5 * max_bank), 1.5 * max_bank)
    turn_rate = -gravity * math.tan(held_roll) / speed
    cos_pitch = math.cos(pitch)
    return (-turn_rate * math.sin(pitch), turn_rate * cos_pitch * math.sin(roll),
            turn_rate * cos_pitch * math.cos(roll))


class FixedwingAutopilot:
    """Modes 2 and 3 of a fixed-wing on top of its attitude controller.

    Args:
        attitude: the vehicle's attitude controller (mode 1), shared.
        trim: YAML ``trim`` (see :class:`TECS`).
        gains: YAML ``autopilot``: the :class:`TECS` gains plus ``max_bank`` [rad],
            ``heading_kp`` [1/s] and ``min_ground_speed`` [m/s].
        period: control period [s].
        mass: [kg]. max_thrust: forward motor's full thrust [N]. gravity: [m/s²].
    """

    def __init__(self, attitude: FixedwingAttitude, trim: dict[str, Any],
                 gains: dict[str, Any], period: float, mass: float, max_thrust: float,
                 gravity: float):
        self.attitude = attitude
        self.tecs = TECS(trim, gains, period, mass, max_thrust, gravity)
        self.max_bank = float(gains["max_bank"])
        self.heading_kp = float(gains["heading_kp"])
        self.min_ground_speed = float(gains["min_ground_speed"])
        self.gravity = float(gravity)

    def reset(self) -> None:
        """Clear the TECS integrators (the attitude controller is reset by its owner)."""
        self.tecs.reset()

    def course(self, rotation: np.ndarray, velocity: np.ndarray) -> float:
        """Course χ [rad]: the ground velocity's heading, or the nose's when slow."""
        return course_of(rotation.ravel().tolist(), float(velocity[0]), float(velocity[1]),
                         self.min_ground_speed)

    def bank_for_heading(self, heading: float, airspeed: float, rotation: np.ndarray,
                         velocity: np.ndarray) -> float:
        """Mode 2's bank setpoint [rad] for a heading setpoint [rad]."""
        error = wrap_angle(heading - self.course(rotation, velocity))
        return bank_for_course_error(error, airspeed, self.tecs.min_airspeed, self.max_bank,
                                     self.heading_kp, self.gravity)

    def step(self, bank: float, airspeed_setpoint: float, climb_rate_setpoint: float,
             state: np.ndarray, rotation: np.ndarray, airspeed: float,
             ) -> tuple[list[float], float]:
        """Fly ``bank`` [rad], ``airspeed_setpoint`` [m/s] and ``climb_rate_setpoint`` [m/s].

        Args:
            state: (4, 3) drone state; rotation: (3, 3) body-to-ground; airspeed: the
                norm of the air velocity [m/s].

        Returns:
            ([roll, pitch, yaw] surface commands in [-1, 1], throttle in [0, 1]).
        """
        roll, pitch = float(state[1][0]), float(state[1][1])
        climb_rate = float(rotation[2] @ state[2])  # ground-frame vertical velocity
        bank = min(max(bank, -self.max_bank), self.max_bank)
        pitch_setpoint, throttle = self.tecs.step(climb_rate_setpoint, airspeed_setpoint,
                                                  climb_rate, airspeed, roll)
        feedforward = turn_feedforward(roll, pitch, airspeed, self.tecs.min_airspeed,
                                       self.max_bank, self.gravity)
        rates = self.attitude.rate_setpoint(bank, pitch_setpoint, rotation, feedforward)
        return self.attitude.commands(rates, state), throttle
