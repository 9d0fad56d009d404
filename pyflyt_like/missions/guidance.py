"""Fixed-wing waypoint guidance: L1 lateral guidance plus altitude and airspeed hold.

:class:`FixedwingGuidance` turns a leg (from one waypoint to the next) and the aircraft's
state into a mode-1 setpoint of :class:`~pyflyt_like.core.drones.fixedwing.Fixedwing`:
``[roll rad, pitch rad, yaw rate rad/s, throttle 0..1]``. Frames are the project's: ENU
ground frame, FLU body frame, so positive roll = right wing down (turns right, yaw
decreasing), positive pitch = nose DOWN, positive yaw rate = nose left.

Lateral guidance — the L1 law of Park, Deyst & How, "A New Nonlinear Guidance Logic for
Trajectory Tracking" (AIAA GNC 2004). A reference point is placed on the leg's line at
distance ``L1`` ahead of the aircraft; with ``eta`` the signed angle from the horizontal
ground velocity to the line of sight to that point, the commanded lateral acceleration is

    a = K · V² / L1 · sin(eta),   K = 4 ζ²   (K = 2, ζ = 1/√2 in the paper).

Linearised about the track (cross-track error d, V constant), ``d'' + K V/L1 d' + K V²/L1² d
= 0``: natural frequency ``ω = 2ζV/L1`` and damping ζ. Asking for a period ``T = 2π/ω``
gives ``L1 = ζ T V / π``, so ``L1`` grows with speed and the response time stays the same;
``GuidanceGains.l1_distance`` fixes ``L1`` instead. Further than ``L1`` from the line there is
no such point and the aircraft aims at the nearest point of the line (a perpendicular
intercept); ``eta`` is clipped to ±90°, so an aircraft flying away from its point turns at
the full acceleration. The acceleration becomes a coordinated-turn bank
``φ = −atan(a / g)`` (a positive = to the left; a right turn needs a positive roll) clipped to
``max_bank``, with the yaw-rate feed-forward of docs/fixedwing.md.

Longitudinal — the altitude reference slides along the leg (linear in along-track progress
from ``target_from``'s to ``target_to``'s altitude). The altitude error asks for a climb rate
(saturated at ``max_climb_rate``, plus the leg's slope times the ground speed along it); the
pitch is the trim pitch, minus the flight-path angle of that climb rate (a steady climb at
the trim angle of attack needs the nose raised by the flight-path angle), minus a
proportional term on the climb-rate error (the climb-rate damping) and an integral on the
altitude error, minus a bank compensation (a level turn needs more lift). Throttle is the
trim throttle, plus a feed-forward of the climb's flight-path angle, plus a PI on the airspeed
error. Both integrators are clamped and frozen while their output saturates (anti-windup); the
altitude integrator also while the climb demand is at its limit.

Leg switching — :func:`passed`: within ``tolerance`` of ``target_to``, or past the plane
through ``target_to`` perpendicular to the leg. A fixed-wing aircraft cannot stop or turn on
the spot, so one that misses a waypoint by more than the tolerance would otherwise circle it
forever; with the plane test it goes on to the next leg regardless.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pyflyt_like.common.validation import as_float_array

GRAVITY = 9.81  # m/s^2, as the Aviary's default


@dataclass(frozen=True)
class GuidanceGains:
    """Gains and limits of :class:`FixedwingGuidance` (vehicle-neutral defaults).

    Trim pitch, trim throttle and cruise speed are not here: they are the vehicle's and come
    from the caller.

    Attributes:
        l1_period: period T of the linearised cross-track response [s]; sets
            ``L1 = ζ T V / π`` (ignored when ``l1_distance`` is given).
        l1_damping: damping ζ of the cross-track response [-]; gain ``K = 4 ζ²`` (the
            paper's K = 2 is ζ = 1/√2).
        l1_distance: fixed L1 distance [m], or None to derive it from the period.
        max_bank: bank limit [rad].
        min_speed: speed floor used in the laws [m/s], so a slow or stationary aircraft does
            not divide by zero; below it the heading comes from the yaw.
        altitude_kp: climb rate asked per metre of altitude error [1/s].
        max_climb_rate: limit of the climb (and descent) rate asked for [m/s].
        climb_kp: pitch per climb-rate error [rad per m/s] (the climb-rate damping).
        altitude_ki: pitch per integrated altitude error [rad per m·s].
        pitch_integral_limit: limit of the altitude integrator's pitch contribution [rad].
        bank_pitch: extra nose-up pitch per unit of extra load factor in a level turn,
            applied as ``bank_pitch · (1/cos φ − 1)`` [rad].
        pitch_min: most nose-up pitch setpoint [rad] (negative: FLU pitch is nose down).
        pitch_max: most nose-down pitch setpoint [rad].
        speed_kp: throttle per airspeed error [1 per m/s].
        speed_ki: throttle per integrated airspeed error [1 per m].
        climb_throttle: throttle feed-forward per radian of the flight-path angle asked for
            [1/rad] (a climb needs ``W sin γ`` more thrust; with thrust ∝ throttle² this is
            about ``W / (2 √(T_max T_trim))``: 0.9 for fixedwing, 0.7 for acrowing).
        throttle_integral_limit: limit of the airspeed integrator's throttle contribution [-].
        throttle_min: lowest throttle [0..1].
        throttle_max: highest throttle [0..1].
    """

    l1_period: float = 15.0
    l1_damping: float = 0.75
    l1_distance: float | None = None
    max_bank: float = 0.6
    min_speed: float = 3.0
    altitude_kp: float = 0.4
    max_climb_rate: float = 3.0
    climb_kp: float = 0.05
    altitude_ki: float = 0.002
    pitch_integral_limit: float = 0.1
    bank_pitch: float = 0.25
    pitch_min: float = -0.4
    pitch_max: float = 0.3
    speed_kp: float = 0.15
    speed_ki: float = 0.03
    climb_throttle: float = 0.8
    throttle_integral_limit: float = 0.3
    throttle_min: float = 0.0
    throttle_max: float = 1.0

    def __post_init__(self) -> None:
        positive = ("l1_period", "l1_damping", "max_bank", "min_speed", "max_climb_rate")
        for name in positive:
            value = getattr(self, name)
            if not math.isfinite(value) or value <= 0:
                raise ValueError(f"GuidanceGains.{name} must be > 0, got {value!r}")
        if self.l1_distance is not None and not self.l1_distance > 0:
            raise ValueError(f"GuidanceGains.l1_distance must be > 0 or None, got "
                             f"{self.l1_distance!r}")
        if not self.max_bank < math.pi / 2:
            raise ValueError(f"GuidanceGains.max_bank must be < pi/2, got {self.max_bank!r}")
        if not self.pitch_min < self.pitch_max:
            raise ValueError("GuidanceGains.pitch_min must be below pitch_max")
        if not 0.0 <= self.throttle_min < self.throttle_max <= 1.0:
            raise ValueError("GuidanceGains throttle limits must satisfy 0 <= min < max <= 1")


def _cross(a: np.ndarray, b: np.ndarray) -> float:
    """z component of the 2-D cross product a × b (positive: b is counter-clockwise of a)."""
    return float(a[0] * b[1] - a[1] * b[0])


def leg_errors(position, target_from, target_to) -> tuple[float, float]:
    """Horizontal (along-track [m], cross-track [m]) of ``position`` on the leg.

    Along-track is measured from ``target_from`` towards ``target_to``; cross-track is
    positive to the LEFT of the leg (ENU, counter-clockwise). A degenerate leg (the two
    points on one vertical) gives (0, horizontal distance to ``target_to``).
    """
    p, a, b = (as_float_array(n, v, (3,))[:2] for n, v in
               (("position", position), ("target_from", target_from), ("target_to", target_to)))
    leg = b - a
    length = float(np.hypot(*leg))
    if length < 1e-9:
        return 0.0, float(np.hypot(*(p - b)))
    unit = leg / length
    offset = p - a
    return float(offset @ unit), _cross(unit, offset)


def passed(position, target_from, target_to, tolerance: float) -> bool:
    """Whether the leg ``target_from`` → ``target_to`` is done.

    True when ``position`` is within ``tolerance`` [m] (3-D distance) of ``target_to``, OR
    beyond the plane through ``target_to`` perpendicular to the (3-D) leg, i.e.
    ``(position − target_to) · (target_to − target_from) ≥ 0``. The second test lets a
    fixed-wing aircraft that misses the waypoint by more than the tolerance (it cannot stop,
    and its turns have a radius of tens of metres) still go on to the next leg instead of
    circling the waypoint. A degenerate leg (``target_from == target_to``) has only the
    distance test.
    """
    p = as_float_array("position", position, (3,))
    a = as_float_array("target_from", target_from, (3,))
    b = as_float_array("target_to", target_to, (3,))
    if float(np.linalg.norm(p - b)) <= tolerance:
        return True
    leg = b - a
    if float(leg @ leg) < 1e-18:
        return False
    return float((p - b) @ leg) >= 0.0


class FixedwingGuidance:
    """L1 waypoint guidance for fixed-wing attitude hold (mode 1), see the module docstring.

    Args:
        cruise_speed: airspeed to hold [m/s] unless :meth:`step` is given another.
        trim_pitch: pitch of level flight at cruise speed [rad] (FLU: negative = nose up),
            e.g. the vehicle's figure in docs/fixedwing.md.
        trim_throttle: throttle of level flight at cruise speed [0..1].
        control_period: time between calls of :meth:`step` [s], for the integrators.
        gains: :class:`GuidanceGains`; default ``GuidanceGains()``.
        gravity: magnitude of gravity [m/s^2].
    """

    def __init__(self, cruise_speed: float, trim_pitch: float, trim_throttle: float,
                 control_period: float, gains: GuidanceGains | None = None,
                 gravity: float = GRAVITY):
        for name, value in (("cruise_speed", cruise_speed), ("control_period", control_period),
                            ("gravity", gravity)):
            if not math.isfinite(value) or value <= 0:
                raise ValueError(f"{name} must be > 0, got {value!r}")
        self.gains = gains if gains is not None else GuidanceGains()
        self.cruise_speed = float(cruise_speed)
        self.trim_pitch = float(trim_pitch)
        self.trim_throttle = float(trim_throttle)
        self.control_period = float(control_period)
        self.gravity = float(gravity)
        self.altitude_integral = 0.0  # m·s
        self.speed_integral = 0.0  # m
        # Diagnostics of the last step, for logs and tests.
        self.l1_distance = 0.0  # m
        self.eta = 0.0  # rad, positive: reference point to the left of the velocity
        self.lateral_acceleration = 0.0  # m/s^2, positive to the left
        self.cross_track = 0.0  # m, positive: aircraft left of the leg
        self.altitude_reference = 0.0  # m

    def reset(self) -> None:
        """Clear the integrators (call on a new mission or after a reset of the aircraft)."""
        self.altitude_integral = 0.0
        self.speed_integral = 0.0

    def turn_radius(self, speed: float | None = None) -> float:
        """Radius [m] of a level coordinated turn at ``max_bank`` and ``speed`` [m/s].

        ``V² / (g tan(max_bank))``, at the cruise speed by default: the scale of the corner
        a leg change costs, e.g. for choosing the arrival tolerance of :func:`passed`.
        """
        speed = self.cruise_speed if speed is None else float(speed)
        return speed * speed / (self.gravity * math.tan(self.gains.max_bank))

    def l1_for(self, speed: float) -> float:
        """L1 distance [m] at ground speed ``speed`` [m/s]."""
        g = self.gains
        if g.l1_distance is not None:
            return g.l1_distance
        return g.l1_damping * g.l1_period * max(speed, g.min_speed) / math.pi

    def lateral(self, position, world_velocity, yaw: float, target_from,
                target_to) -> float:
        """L1 lateral acceleration [m/s^2] (positive to the left) toward the leg's line.

        ``position`` (3,) [m] and ``world_velocity`` (3,) [m/s] are ENU; ``yaw`` [rad] gives
        the heading when the horizontal ground speed is below ``gains.min_speed``.
        """
        g = self.gains
        p = as_float_array("position", position, (3,))[:2]
        v = as_float_array("world_velocity", world_velocity, (3,))[:2].copy()
        a = as_float_array("target_from", target_from, (3,))[:2]
        b = as_float_array("target_to", target_to, (3,))[:2]
        speed = float(np.hypot(*v))
        if speed < g.min_speed:
            v = np.array((math.cos(yaw), math.sin(yaw))) * g.min_speed
            speed = g.min_speed
        l1 = self.l1_for(speed)
        leg = b - a
        length = float(np.hypot(*leg))
        if length < 1e-9:  # no line: aim straight at the point
            aim = b - p
            cross_track = float(np.hypot(*aim))
        else:
            unit = leg / length
            offset = p - a
            along, cross_track = float(offset @ unit), _cross(unit, offset)
            if abs(cross_track) < l1:  # the point on the line L1 away, ahead
                aim = a + (along + math.sqrt(l1 * l1 - cross_track * cross_track)) * unit - p
            else:  # out of reach: aim at the nearest point of the line
                aim = a + along * unit - p
        eta = math.atan2(_cross(v, aim), float(v @ aim)) if float(aim @ aim) > 0 else 0.0
        eta = min(max(eta, -math.pi / 2), math.pi / 2)
        gain = 4.0 * g.l1_damping ** 2
        self.l1_distance, self.eta, self.cross_track = l1, eta, cross_track
        self.lateral_acceleration = gain * speed * speed / l1 * math.sin(eta)
        return self.lateral_acceleration

    def bank_for(self, lateral_acceleration: float) -> float:
        """Coordinated-turn bank [rad] for a lateral acceleration [m/s^2] (positive left).

        FLU: a left acceleration needs the left wing down, a negative roll.
        """
        bank = -math.atan(lateral_acceleration / self.gravity)
        return min(max(bank, -self.gains.max_bank), self.gains.max_bank)

    def step(self, position, world_velocity, yaw: float, target_from, target_to,
             speed: float | None = None, airspeed: float | None = None) -> np.ndarray:
        """One guidance step; returns the mode-1 setpoint (4,).

        Args:
            position: (3,) ENU position [m].
            world_velocity: (3,) ENU ground velocity [m/s].
            yaw: Euler yaw [rad] (heading fallback when nearly stationary).
            target_from: (3,) start of the leg [m] (the previous waypoint, or the start).
            target_to: (3,) end of the leg [m] (the waypoint flown to).
            speed: airspeed to hold [m/s]; default the cruise speed.
            airspeed: measured airspeed [m/s]; default ``|world_velocity|`` (no wind).

        Returns:
            ``[roll rad, pitch rad, yaw rate rad/s, throttle 0..1]``.
        """
        g = self.gains
        dt = self.control_period
        p = as_float_array("position", position, (3,))
        v = as_float_array("world_velocity", world_velocity, (3,))
        a = as_float_array("target_from", target_from, (3,))
        b = as_float_array("target_to", target_to, (3,))
        air = float(np.linalg.norm(v)) if airspeed is None else float(airspeed)
        air_floor = max(air, g.min_speed)
        target_speed = self.cruise_speed if speed is None else float(speed)

        # Lateral: L1 acceleration -> bank -> coordinated yaw rate (body r = psi' cos(phi)).
        bank = self.bank_for(self.lateral(p, v, yaw, a, b))
        yaw_rate = -self.gravity * math.tan(bank) * math.cos(bank) / air_floor

        # Altitude reference along the leg, and the leg's climb rate at our along-track speed.
        leg = b[:2] - a[:2]
        length = float(np.hypot(*leg))
        climb_ff = 0.0
        if length < 1e-9:
            z_ref = b[2]
        else:
            unit = leg / length
            fraction = float((p[:2] - a[:2]) @ unit) / length
            z_ref = a[2] + min(max(fraction, 0.0), 1.0) * (b[2] - a[2])
            if 0.0 < fraction < 1.0:
                climb_ff = (b[2] - a[2]) / length * max(float(v[:2] @ unit), 0.0)
        self.altitude_reference = float(z_ref)
        error_z = z_ref - p[2]
        climb_wanted = climb_ff + g.altitude_kp * error_z
        climb_demand = min(max(climb_wanted, -g.max_climb_rate), g.max_climb_rate)
        path_angle = math.asin(min(max(climb_demand / air_floor, -1.0), 1.0))
        integral_term = g.altitude_ki * self.altitude_integral
        pitch_unclipped = (self.trim_pitch - path_angle - g.climb_kp * (climb_demand - v[2])
                           - integral_term - g.bank_pitch * (1.0 / math.cos(bank) - 1.0))
        pitch = min(max(pitch_unclipped, g.pitch_min), g.pitch_max)
        # Anti-windup: integrate only while the climb demand is not saturated (a large climb
        # or descent is flown at max_climb_rate; the integrator is for the standing error
        # near the reference), and not while the pitch is saturated in the direction it
        # would push (a positive altitude error asks for nose up = more negative pitch).
        if climb_demand == climb_wanted and not (
                (pitch_unclipped <= g.pitch_min and error_z > 0)
                or (pitch_unclipped >= g.pitch_max and error_z < 0)):
            self.altitude_integral += error_z * dt
        if g.altitude_ki > 0:
            bound = g.pitch_integral_limit / g.altitude_ki
            self.altitude_integral = min(max(self.altitude_integral, -bound), bound)

        # Airspeed: trim throttle + PI.
        error_v = target_speed - air
        throttle_unclipped = (self.trim_throttle + g.climb_throttle * path_angle
                              + g.speed_kp * error_v + g.speed_ki * self.speed_integral)
        throttle = min(max(throttle_unclipped, g.throttle_min), g.throttle_max)
        if not ((throttle_unclipped >= g.throttle_max and error_v > 0)
                or (throttle_unclipped <= g.throttle_min and error_v < 0)):
            self.speed_integral += error_v * dt
        if g.speed_ki > 0:
            bound = g.throttle_integral_limit / g.speed_ki
            self.speed_integral = min(max(self.speed_integral, -bound), bound)

        return np.array((bank, pitch, yaw_rate, throttle))
