"""Total energy control (TECS): climb rate and airspeed to pitch and throttle.

Lambregts' TECS ("Vertical flight path and speed control autopilot design using total energy
principles", AIAA 1983) splits the longitudinal problem by energy. With the specific energy
rates, normalised by g (units of a climb rate, m/s),

    Ė = ḣ + V V̇ / g        (total: what the throttle changes)
    Ḃ = (2 − w) ḣ − w V V̇ / g   (balance between height and speed: what the pitch changes)

thrust sets the total energy rate and pitch its distribution; the speed weight ``w`` (0 … 2,
1 by default) says which of height and speed the pitch favours when thrust cannot give
both. Below the lowest airspeed ``w`` is 2: pitch then holds speed alone and the aircraft
gives up height rather than stall.

- Demands: ``V̇_sp = airspeed_kp (V_sp − V)``, clipped to ``max_acceleration``, and the
  climb rate given (mode 3) or ``altitude_kp (h_sp − h)`` (mode 2), clipped to
  ``max_climb_rate`` / ``max_sink_rate``.
- Throttle: a steady thrust change ΔT gives ``ΔĖ = ΔT V / (m g)``, so the thrust demand is
  ``T_trim + m g / V · (Ė_sp + throttle_kp (Ė_sp − Ė)) + ∫ throttle_ki m g / V (Ė_sp − Ė)``,
  turned into throttle by the motor law ``T = T_max · throttle²``.
- Pitch: at constant thrust a change Δγ of flight-path angle gives ``ΔḂ = 2 V Δγ``. The
  flight-path demand is the demanded climb's ``ḣ_sp / V`` plus ``(pitch_kp (Ḃ_sp − Ḃ) +
  ∫ pitch_ki (Ḃ_sp − Ḃ)) / (2 V)``; pitch (FLU, positive = nose down) is the trim pitch,
  minus that flight-path angle, minus the extra angle of attack that the airspeed and the
  bank ask for: lift ∝ V² (α − α₀) / cos φ, so ``lift_angle · ((V_trim / V)² / cos φ − 1)``.

Both integrators stop while their output is saturated in the direction of the error (anti-
windup). V̇ comes from the airspeed by a first-order filtered difference. Gains and trim come
from the vehicle YAML (``trim`` and ``autopilot`` sections).
"""

from __future__ import annotations

import math
from typing import Any


class TECS:
    """Climb rate and airspeed to pitch [rad] and throttle [0, 1] (module docstring).

    Args:
        trim: YAML ``trim``: ``airspeed`` [m/s], ``pitch`` [rad], ``throttle`` [0, 1] of level
            flight.
        gains: YAML ``autopilot``: ``lift_angle`` [rad], ``airspeed_limits`` (2,) [m/s],
            ``max_climb_rate``, ``max_sink_rate`` [m/s], ``max_acceleration`` [m/s²],
            ``altitude_kp``, ``airspeed_kp`` [1/s], ``throttle_kp`` [-], ``throttle_ki``
            [1/s], ``pitch_kp`` [-], ``pitch_ki`` [1/s], ``pitch_limits`` (2,) [rad] (most
            nose-up, most nose-down), ``speed_weight`` [-], ``rate_filter_tau`` [s].
        period: control period [s].
        mass: aircraft mass [kg].
        max_thrust: forward motor's thrust at full throttle [N].
        gravity: [m/s²], > 0.
    """

    def __init__(self, trim: dict[str, Any], gains: dict[str, Any], period: float, mass: float,
                 max_thrust: float, gravity: float):
        self.period = float(period)
        self.trim_airspeed = float(trim["airspeed"])
        self.trim_pitch = float(trim["pitch"])
        self.trim_thrust = max_thrust * float(trim["throttle"]) ** 2
        self.max_thrust, self.weight = float(max_thrust), float(mass) * float(gravity)
        self.gravity = float(gravity)
        g = gains
        self.lift_angle = float(g["lift_angle"])
        self.min_airspeed, self.max_airspeed = (float(v) for v in g["airspeed_limits"])
        self.max_climb_rate, self.max_sink_rate = float(g["max_climb_rate"]), float(
            g["max_sink_rate"])
        self.max_acceleration = float(g["max_acceleration"])
        self.altitude_kp, self.airspeed_kp = float(g["altitude_kp"]), float(g["airspeed_kp"])
        self.throttle_kp, self.throttle_ki = float(g["throttle_kp"]), float(g["throttle_ki"])
        self.pitch_kp, self.pitch_ki = float(g["pitch_kp"]), float(g["pitch_ki"])
        self.pitch_min, self.pitch_max = (float(v) for v in g["pitch_limits"])
        self.speed_weight = float(g["speed_weight"])
        self._filter_gain = 1.0 - math.exp(-self.period / float(g["rate_filter_tau"]))
        self.reset()

    def reset(self) -> None:
        """Forget the integrators and the airspeed history."""
        self.thrust_integral = 0.0  # N
        self.pitch_integral = 0.0  # m/s of balance rate
        self.airspeed_rate = 0.0  # m/s², filtered
        self._last_airspeed: float | None = None

    def climb_rate_for(self, altitude_setpoint: float, altitude: float) -> float:
        """Mode 2's climb-rate demand [m/s] for an altitude setpoint [m]."""
        return self.altitude_kp * (altitude_setpoint - altitude)

    def level_pitch(self, airspeed: float, bank: float = 0.0) -> float:
        """Pitch [rad, FLU] of level flight at ``airspeed`` [m/s] and ``bank`` [rad]: the trim
        pitch less the extra angle of attack that lift = weight asks for there."""
        speed = max(airspeed, 0.5 * self.min_airspeed)
        cos_bank = max(math.cos(bank), 0.3)
        return self.trim_pitch - self.lift_angle * ((self.trim_airspeed / speed) ** 2
                                                    / cos_bank - 1.0)

    def step(self, climb_rate_setpoint: float, airspeed_setpoint: float, climb_rate: float,
             airspeed: float, bank: float) -> tuple[float, float]:
        """One control tick: return (pitch setpoint [rad, FLU], throttle [0, 1]).

        Args:
            climb_rate_setpoint: [m/s], clipped to the limits.
            airspeed_setpoint: [m/s], clipped to ``airspeed_limits``.
            climb_rate: ḣ [m/s] (ground-frame vertical velocity).
            airspeed: V [m/s].
            bank: current roll [rad] (sets the turn's extra angle of attack).
        """
        if self._last_airspeed is not None:
            raw = (airspeed - self._last_airspeed) / self.period
            self.airspeed_rate += self._filter_gain * (raw - self.airspeed_rate)
        self._last_airspeed = airspeed
        g = self.gravity
        speed = max(airspeed, 0.5 * self.min_airspeed)  # the laws divide by it
        climb_sp = min(max(climb_rate_setpoint, -self.max_sink_rate), self.max_climb_rate)
        airspeed_sp = min(max(airspeed_setpoint, self.min_airspeed), self.max_airspeed)
        accel_sp = min(max(self.airspeed_kp * (airspeed_sp - airspeed), -self.max_acceleration),
                       self.max_acceleration)
        underspeed = airspeed < self.min_airspeed
        w = 2.0 if underspeed else self.speed_weight
        kinetic_sp, kinetic = speed * accel_sp / g, speed * self.airspeed_rate / g

        # Throttle: total energy rate.
        total_error = (climb_sp + kinetic_sp) - (climb_rate + kinetic)
        per_energy_rate = self.weight / speed  # N of thrust per m/s of energy rate
        thrust = (self.trim_thrust + per_energy_rate * ((climb_sp + kinetic_sp)
                                                        + self.throttle_kp * total_error)
                  + self.thrust_integral)
        if underspeed:
            thrust = self.max_thrust
        saturated_high, saturated_low = thrust >= self.max_thrust, thrust <= 0.0
        if not ((saturated_high and total_error > 0) or (saturated_low and total_error < 0)):
            self.thrust_integral += self.throttle_ki * per_energy_rate * total_error * self.period
            self.thrust_integral = min(max(self.thrust_integral, -self.max_thrust),
                                       self.max_thrust)
        throttle = math.sqrt(min(max(thrust, 0.0), self.max_thrust) / self.max_thrust)

        # Pitch: energy balance rate.
        balance_error = ((2.0 - w) * (climb_sp - climb_rate) - w * (kinetic_sp - kinetic))
        path_angle = (min(1.0, 2.0 - w) * climb_sp / speed
                      + (self.pitch_kp * balance_error + self.pitch_integral) / (2.0 * speed))
        pitch = self.level_pitch(speed, bank) - path_angle
        clipped = min(max(pitch, self.pitch_min), self.pitch_max)
        # A nose-up demand (pitch below its minimum) with a positive error would wind up.
        if not ((pitch < self.pitch_min and balance_error > 0)
                or (pitch > self.pitch_max and balance_error < 0)):
            self.pitch_integral += self.pitch_ki * balance_error * self.period
            self.pitch_integral = min(max(self.pitch_integral, -2.0 * speed), 2.0 * speed)
        return clipped, throttle
