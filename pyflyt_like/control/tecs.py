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
from collections import namedtuple
from typing import Any

#: The TECS constants, floats (units as :class:`TECS`'s arguments): ``filter_gain`` is the
#: airspeed-rate filter's step gain ``1 - exp(-period / rate_filter_tau)``, ``trim_thrust``
#: [N] the motor law's thrust at the trim throttle, ``weight`` [N].
TecsParameters = namedtuple("TecsParameters", [
    "period", "trim_airspeed", "trim_pitch", "trim_thrust", "max_thrust", "weight",
    "gravity", "lift_angle", "min_airspeed", "max_airspeed", "max_climb_rate",
    "max_sink_rate", "max_acceleration", "altitude_kp", "airspeed_kp", "throttle_kp",
    "throttle_ki", "pitch_kp", "pitch_ki", "pitch_min", "pitch_max", "speed_weight",
    "filter_gain"])

#: What TECS remembers between ticks, in the order of :func:`tecs_step`'s ``memory``:
#: thrust integral [N], pitch integral [m/s of balance rate], filtered airspeed rate
#: [m/s^2], last airspeed [m/s], whether there is a last airspeed (1.0) or not (0.0).
MEMORY_SIZE = 5


def tecs_parameters(trim: dict[str, Any], gains: dict[str, Any], period: float, mass: float,
                    max_thrust: float, gravity: float) -> TecsParameters:
    """The :class:`TecsParameters` of the YAML ``trim`` and ``autopilot`` sections."""
    g = gains
    return TecsParameters(
        period=float(period), trim_airspeed=float(trim["airspeed"]),
        trim_pitch=float(trim["pitch"]),
        trim_thrust=float(max_thrust) * float(trim["throttle"]) ** 2,
        max_thrust=float(max_thrust), weight=float(mass) * float(gravity),
        gravity=float(gravity), lift_angle=float(g["lift_angle"]),
        min_airspeed=float(g["airspeed_limits"][0]),
        max_airspeed=float(g["airspeed_limits"][1]),
        max_climb_rate=float(g["max_climb_rate"]), max_sink_rate=float(g["max_sink_rate"]),
        max_acceleration=float(g["max_acceleration"]), altitude_kp=float(g["altitude_kp"]),
        airspeed_kp=float(g["airspeed_kp"]), throttle_kp=float(g["throttle_kp"]),
        throttle_ki=float(g["throttle_ki"]), pitch_kp=float(g["pitch_kp"]),
        pitch_ki=float(g["pitch_ki"]), pitch_min=float(g["pitch_limits"][0]),
        pitch_max=float(g["pitch_limits"][1]), speed_weight=float(g["speed_weight"]),
        filter_gain=1.0 - math.exp(-float(period) / float(g["rate_filter_tau"])))


def level_pitch(params: TecsParameters, airspeed: float, bank: float) -> float:
    """Pitch [rad, FLU] of level flight at ``airspeed`` [m/s] and ``bank`` [rad]: the trim
    pitch less the extra angle of attack that lift = weight asks for there."""
    speed = max(airspeed, 0.5 * params.min_airspeed)
    cos_bank = max(math.cos(bank), 0.3)
    return params.trim_pitch - params.lift_angle * ((params.trim_airspeed / speed) ** 2
                                                    / cos_bank - 1.0)


def tecs_step(params: TecsParameters, memory, climb_rate_setpoint: float,
              airspeed_setpoint: float, climb_rate: float, airspeed: float, bank: float):
    """One control tick (module docstring).

    Args:
        params: the constants.
        memory: the (MEMORY_SIZE,) floats of the last tick (see :data:`MEMORY_SIZE`).
        climb_rate_setpoint: [m/s], clipped to the limits.
        airspeed_setpoint: [m/s], clipped to ``airspeed_limits``.
        climb_rate: ḣ [m/s] (ground-frame vertical velocity).
        airspeed: V [m/s].
        bank: current roll [rad] (sets the turn's extra angle of attack).

    Returns:
        (pitch setpoint [rad, FLU], throttle [0, 1], the new memory as a 5-tuple).
    """
    p = params
    thrust_integral, pitch_integral, airspeed_rate, last_airspeed, has_last = (
        memory[0], memory[1], memory[2], memory[3], memory[4])
    if has_last > 0.0:
        raw = (airspeed - last_airspeed) / p.period
        airspeed_rate += p.filter_gain * (raw - airspeed_rate)
    g = p.gravity
    speed = max(airspeed, 0.5 * p.min_airspeed)  # the laws divide by it
    climb_sp = min(max(climb_rate_setpoint, -p.max_sink_rate), p.max_climb_rate)
    airspeed_sp = min(max(airspeed_setpoint, p.min_airspeed), p.max_airspeed)
    accel_sp = min(max(p.airspeed_kp * (airspeed_sp - airspeed), -p.max_acceleration),
                   p.max_acceleration)
    underspeed = airspeed < p.min_airspeed
    w = 2.0 if underspeed else p.speed_weight
    kinetic_sp, kinetic = speed * accel_sp / g, speed * airspeed_rate / g

    # Throttle: total energy rate.
    total_error = (climb_sp + kinetic_sp) - (climb_rate + kinetic)
    per_energy_rate = p.weight / speed  # N of thrust per m/s of energy rate
    thrust = (p.trim_thrust + per_energy_rate * ((climb_sp + kinetic_sp)
                                                 + p.throttle_kp * total_error)
              + thrust_integral)
    if underspeed:
        thrust = p.max_thrust
    saturated_high, saturated_low = thrust >= p.max_thrust, thrust <= 0.0
    if not ((saturated_high and total_error > 0) or (saturated_low and total_error < 0)):
        thrust_integral += p.throttle_ki * per_energy_rate * total_error * p.period
        thrust_integral = min(max(thrust_integral, -p.max_thrust), p.max_thrust)
    throttle = math.sqrt(min(max(thrust, 0.0), p.max_thrust) / p.max_thrust)

    # Pitch: energy balance rate.
    balance_error = ((2.0 - w) * (climb_sp - climb_rate) - w * (kinetic_sp - kinetic))
    path_angle = (min(1.0, 2.0 - w) * climb_sp / speed
                  + (p.pitch_kp * balance_error + pitch_integral) / (2.0 * speed))
    pitch = level_pitch(p, speed, bank) - path_angle
    clipped = min(max(pitch, p.pitch_min), p.pitch_max)
    # A nose-up demand (pitch below its minimum) with a positive error would wind up.
    if not ((pitch < p.pitch_min and balance_error > 0)
            or (pitch > p.pitch_max and balance_error < 0)):
        pitch_integral += p.pitch_ki * balance_error * p.period
        pitch_integral = min(max(pitch_integral, -2.0 * speed), 2.0 * speed)
    return clipped, throttle, (thrust_integral, pitch_integral, airspeed_rate, airspeed, 1.0)


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
        self.params = params = tecs_parameters(trim, gains, period, mass, max_thrust, gravity)
        for name, value in params._asdict().items():  # read as attributes by the pilots
            setattr(self, name, value)
        self.reset()

    def reset(self) -> None:
        """Forget the integrators and the airspeed history."""
        self.memory = (0.0,) * MEMORY_SIZE

    @property
    def thrust_integral(self) -> float:
        """The throttle loop's integral [N]."""
        return self.memory[0]

    @property
    def pitch_integral(self) -> float:
        """The pitch loop's integral [m/s of balance rate]."""
        return self.memory[1]

    @property
    def airspeed_rate(self) -> float:
        """The filtered airspeed rate [m/s²]."""
        return self.memory[2]

    def climb_rate_for(self, altitude_setpoint: float, altitude: float) -> float:
        """Mode 2's climb-rate demand [m/s] for an altitude setpoint [m]."""
        return self.altitude_kp * (altitude_setpoint - altitude)

    def level_pitch(self, airspeed: float, bank: float = 0.0) -> float:
        """Pitch [rad, FLU] of level flight at ``airspeed`` [m/s] and ``bank`` [rad]."""
        return level_pitch(self.params, airspeed, bank)

    def step(self, climb_rate_setpoint: float, airspeed_setpoint: float, climb_rate: float,
             airspeed: float, bank: float) -> tuple[float, float]:
        """One control tick: return (pitch setpoint [rad, FLU], throttle [0, 1]); see
        :func:`tecs_step`."""
        pitch, throttle, self.memory = tecs_step(self.params, self.memory, climb_rate_setpoint,
                                                 airspeed_setpoint, climb_rate, airspeed, bank)
        return pitch, throttle
