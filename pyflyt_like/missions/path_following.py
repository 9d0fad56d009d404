"""Fixed-wing path following: waypoints joined by turns the aircraft can fly, L1 on that path.

:class:`FlyablePath` replaces each corner of the waypoint polyline by a circular arc of the
turn radius ``R`` tangent to both legs (turn anticipation: the turn starts ``R tan(Δ/2)``
before the waypoint, Δ being the change of course there), so the path is one an aircraft at
that bank can follow exactly; where two corners would overlap on a short leg, the arcs
shrink to share it. Altitude varies linearly with the horizontal distance along each leg.
The path is sampled every ``spacing`` metres.

:class:`PathGuidance` flies the path in the autopilot's mode 2. Lateral: the L1 law of Park,
Deyst & How (AIAA GNC 2004), ``a = K V² / L1 · sin η`` with the reference point the first
path sample ahead at distance L1 from the aircraft, ``K = 4 ζ²`` and ``L1 = ζ T V / π``
(period T, damping ζ: see ``missions/guidance.py``). Mode 2 holds a course χ by asking for
the turn rate ``heading_kp · (ψ_sp − χ)``; a turn rate of ``a / V`` is that lateral
acceleration, so the heading setpoint is ``χ + a / (V · heading_kp)``. Longitudinal: the
altitude setpoint is the path's altitude there plus a lead of ``slope · V / altitude_kp`` (so
that on a climbing leg TECS asks for the leg's climb rate when on it), the airspeed the
leg's speed.

The tracking error is the horizontal distance from the aircraft to the nearest point of the
path (the cross-track error of the whole flyable path, corners included).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pyflyt_like.common.angles import wrap_angle


class FlyablePath:
    """The waypoint polyline with every corner rounded to a flyable arc.

    Args:
        points: (n, 3) start then waypoints [m], ENU; consecutive points distinct
            horizontally.
        turn_radius: radius of the corner arcs [m], > 0.
        spacing: distance between samples [m], > 0.

    Attributes:
        samples: (m, 3) points along the path [m]; the first is ``points[0]``, the last
            ``points[-1]``.
        distance: (m,) horizontal path length up to each sample [m].
        waypoint_index: (n - 1,) index of the sample nearest to each waypoint (the middle
            of its arc; the last sample for the last waypoint).
        leg_of: (m,) the leg each sample belongs to (0-based; an arc belongs to the leg it
            leads into).
        on_arc: (m,) whether each sample is on a corner arc (else on a straight).
    """

    def __init__(self, points: np.ndarray, turn_radius: float, spacing: float = 1.0):
        points = np.asarray(points, dtype=float)
        if points.ndim != 2 or points.shape[1] != 3 or len(points) < 2:
            raise ValueError(f"points must be (n >= 2, 3), got shape {points.shape}")
        if not (math.isfinite(turn_radius) and turn_radius > 0):
            raise ValueError(f"turn_radius must be > 0, got {turn_radius!r}")
        if not (math.isfinite(spacing) and spacing > 0):
            raise ValueError(f"spacing must be > 0, got {spacing!r}")
        flat = points[:, :2]
        legs = np.diff(flat, axis=0)
        lengths = np.hypot(legs[:, 0], legs[:, 1])
        if np.any(lengths < 1e-6):
            raise ValueError("consecutive points must differ horizontally for a fixed-wing path")
        units = legs / lengths[:, None]
        n_corners = len(points) - 2
        turns = [float(math.atan2(units[i, 0] * units[i + 1, 1] - units[i, 1] * units[i + 1, 0],
                                  units[i] @ units[i + 1])) for i in range(n_corners)]
        # Tangent distance of each corner, shrunk so that neighbours share a leg at most.
        tangents = [turn_radius * math.tan(abs(t) / 2.0) for t in turns]
        for i in range(n_corners):
            tangents[i] = min(tangents[i], 0.5 * lengths[i], 0.5 * lengths[i + 1])
        samples: list[np.ndarray] = []
        legs_of: list[int] = []
        arcs: list[bool] = []
        waypoint_samples: list[int] = []

        def altitude(leg: int, along: float) -> float:
            fraction = min(max(along / lengths[leg], 0.0), 1.0)
            return float(points[leg, 2] + fraction * (points[leg + 1, 2] - points[leg, 2]))

        def add_line(leg: int, start: float, end: float) -> None:
            count = max(int(math.ceil((end - start) / spacing)), 1)
            for s in np.linspace(start, end, count + 1)[:-1]:
                samples.append(np.array((*(flat[leg] + s * units[leg]), altitude(leg, s))))
                legs_of.append(leg)
                arcs.append(False)

        start_along = 0.0
        for leg in range(len(legs)):
            end_along = lengths[leg] - (tangents[leg] if leg < n_corners else 0.0)
            add_line(leg, start_along, end_along)
            if leg == n_corners:
                break
            # The arc from the tangent point on this leg to the one on the next.
            turn, tangent = turns[leg], tangents[leg]
            radius = tangent / math.tan(abs(turn) / 2.0) if abs(turn) > 1e-9 else 0.0
            corner = flat[leg + 1]
            entry = corner - tangent * units[leg]
            normal = np.array((-units[leg, 1], units[leg, 0])) * math.copysign(1.0, turn)
            centre = entry + radius * normal
            arc_length = radius * abs(turn)
            count = max(int(math.ceil(arc_length / spacing)), 1)
            start_angle = math.atan2(*(entry - centre)[::-1])
            for k in range(count):
                fraction = k / count
                angle = start_angle + turn * fraction
                xy = centre + radius * np.array((math.cos(angle), math.sin(angle)))
                # Altitude: the corner's, reached at the arc's middle.
                z = altitude(leg, lengths[leg] - tangent * (1 - 2 * fraction)) if fraction < 0.5 \
                    else altitude(leg + 1, tangent * (2 * fraction - 1))
                samples.append(np.array((*xy, z)))
                legs_of.append(leg + 1)
                arcs.append(True)
                if k == count // 2:
                    waypoint_samples.append(len(samples) - 1)
            start_along = tangent
        samples.append(points[-1].copy())
        legs_of.append(len(legs) - 1)
        arcs.append(False)
        waypoint_samples.append(len(samples) - 1)
        self.samples = np.array(samples)
        steps = np.hypot(*np.diff(self.samples[:, :2], axis=0).T)
        self.distance = np.concatenate(([0.0], np.cumsum(steps)))
        self.waypoint_index = np.array(waypoint_samples)
        self.leg_of = np.array(legs_of)
        self.on_arc = np.array(arcs)
        self.turn_radius = float(turn_radius)

    @property
    def length(self) -> float:
        """Horizontal length of the path [m]."""
        return float(self.distance[-1])

    def nearest(self, position: Sequence[float], start: int = 0, window: int | None = None,
                ) -> tuple[int, float]:
        """(index, horizontal distance [m]) of the sample nearest to ``position``, searched
        from ``start`` over ``window`` samples (all when None): progress along the path is
        monotonic, so a path that crosses itself is not short-cut."""
        stop = len(self.samples) if window is None else min(start + window, len(self.samples))
        part = self.samples[start:stop, :2] - np.asarray(position, dtype=float)[:2]
        distances = np.hypot(part[:, 0], part[:, 1])
        best = int(np.argmin(distances))
        return start + best, float(distances[best])

    def ahead(self, position: Sequence[float], index: int, distance: float) -> int:
        """Index of the first sample from ``index`` on that is at least ``distance`` [m]
        from ``position`` (horizontally), or the last sample."""
        part = self.samples[index:, :2] - np.asarray(position, dtype=float)[:2]
        far = np.nonzero(np.hypot(part[:, 0], part[:, 1]) >= distance)[0]
        return index + int(far[0]) if len(far) else len(self.samples) - 1


class PathGuidance:
    """L1 guidance on a :class:`FlyablePath`, as mode-2 setpoints (see the module docstring).

    Args:
        path: the path to fly.
        heading_kp: the autopilot's course gain [1/s] (YAML ``autopilot.heading_kp``).
        altitude_kp: the autopilot's altitude gain [1/s].
        l1_period: period T of the cross-track response [s].
        l1_damping: damping ζ [-].
        min_speed: speed floor of the law [m/s].
    """

    def __init__(self, path: FlyablePath, heading_kp: float, altitude_kp: float,
                 l1_period: float = 12.0, l1_damping: float = 0.75, min_speed: float = 5.0):
        self.path = path
        self.heading_kp, self.altitude_kp = float(heading_kp), float(altitude_kp)
        self.l1_period, self.l1_damping, self.min_speed = (float(l1_period),
                                                           float(l1_damping), float(min_speed))
        self.index = 0  # progress: the nearest sample so far
        self.cross_track = 0.0  # m, horizontal distance to the path
        # How far ahead the nearest sample is searched for at each step: generous enough for
        # any speed at 120 Hz, short enough that a crossing leg far ahead is not taken.
        self._window = 200

    def locate(self, position: np.ndarray) -> tuple[int, float]:
        """Advance the progress to the sample nearest ``position`` (3,) [m]; return it and
        the horizontal distance to the path [m] (also ``index`` and ``cross_track``)."""
        self.index, self.cross_track = self.path.nearest(position, self.index, self._window)
        return self.index, self.cross_track

    def step(self, position: np.ndarray, world_velocity: np.ndarray, airspeed: float,
             speed: float) -> np.ndarray:
        """Mode-2 setpoint ``[heading, airspeed, 0, altitude]`` for this control step, from
        the progress :meth:`locate` found at ``position`` (call it first; a pilot does when
        it records the step before, so the search runs once per step).

        Args:
            position: (3,) [m]; world_velocity: (3,) ground velocity [m/s]; airspeed: [m/s];
            speed: the airspeed to fly [m/s].
        """
        path = self.path
        vx, vy = float(world_velocity[0]), float(world_velocity[1])
        ground_speed = max(math.hypot(vx, vy), self.min_speed)
        course = math.atan2(vy, vx)
        l1 = self.l1_damping * self.l1_period * ground_speed / math.pi
        target = path.samples[path.ahead(position, self.index, l1)]
        aim_x, aim_y = target[0] - position[0], target[1] - position[1]
        eta = math.atan2(aim_y, aim_x) - course
        eta = min(max(wrap_angle(eta), -math.pi / 2), math.pi / 2)
        distance = max(math.hypot(aim_x, aim_y), 1e-6)
        lateral = 4.0 * self.l1_damping ** 2 * ground_speed ** 2 / max(distance, l1) \
            * math.sin(eta)
        heading = course + lateral / (max(airspeed, self.min_speed) * self.heading_kp)
        # Altitude with a lead for the climb of the path here.
        i = min(self.index, len(path.samples) - 2)
        run = path.distance[i + 1] - path.distance[i]
        slope = (path.samples[i + 1, 2] - path.samples[i, 2]) / run if run > 1e-9 else 0.0
        altitude = path.samples[self.index, 2] + slope * ground_speed / self.altitude_kp
        return np.array((heading, speed, 0.0, altitude))
