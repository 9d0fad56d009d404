"""The quadplane's mission pilot: vertical take-off, transition, wing-borne waypoints,
back-transition, vertical landing on the last waypoint.

Phases, in order (``phase`` names them):

1. ``takeoff``: mode 7 climbs straight up from the start to the first waypoint's altitude at
   ``climb_rate``, turned towards that waypoint.
2. ``transition``: :meth:`QuadPlane.transition_to` ``("cruise")`` until it hands over to
   mode 2.
3. ``cruise``: the fixed-wing's path following (:mod:`~.path_following`) from where the
   hand-over happened, through every waypoint but the last, to a point above the last one
   at the last wing-borne waypoint's altitude (the cruise altitude). The back-transition
   begins on the path's last straight, within 3 m of it, once less of it is left than the
   braking distance (``transition.braking_distance`` of the YAML, for the trim airspeed,
   scaled with the square of the airspeed).
4. ``back_transition``: :meth:`QuadPlane.transition_to` ``("hover")`` until it hands over to
   mode 7, its heading steered for the point 20 m ahead on the last leg's line.
5. ``approach``: mode 7 to above the last waypoint at ``approach_speed``, at cruise altitude.
6. ``descent``: mode 7 down at ``descent_rate`` to the last waypoint. A waypoint on the ground
   is a touchdown: ground contact in this phase is a landing, not a crash.

A wing-borne waypoint is reached as in :class:`~.pilots.GuidancePilot` (progress passes the
middle of its corner arc); the last one when the aircraft is within the tolerance of it,
below 0.3 m/s. In the hover phases the mode-7 setpoint moves toward its goal at the phase's
rate, so it is a reference the aircraft can follow. The tracking error is the horizontal
distance to the path in cruise; in the transitions the distance to the straight line they
fly along (the take-off heading at the take-off altitude; the path's last leg, at its
altitude), so braking past the end of the path is not counted as an error; and in the hover
phases the distance to the moving mode-7 setpoint's position.
"""

from __future__ import annotations

import math

import numpy as np

from pyflyt_like.common.flight_modes import FlightMode

from .flight_log import FlightLog
from .mission import MissionError, VehicleSpec
from .path_following import FlyablePath, PathGuidance
from .pilots import wing_actuators

CLIMBED = 0.5  # m: the take-off ends this close to the cruise altitude
ARRIVED_SPEED = 0.3  # m/s: at rest above (or on) the landing point
ON_LINE = 3.0  # m: the back-transition starts no further than this from the last leg
LINE_LOOKAHEAD = 20.0  # m: the back-transition steers for the point this far along its line


class QuadplanePilot:
    """Flies a quadplane through a mission's waypoints and lands on the last (see module).

    Args:
        spec: the vehicle's mission entry (at least two waypoints, as the mission file's
            check ensures: one wing-borne, the landing point).
        drone: the :class:`~pyflyt_like.core.drones.quadplane.QuadPlane`.
        tolerance: arrival tolerance [m].
    """

    climb_rate = 2.0  # m/s
    approach_speed = 3.0  # m/s
    descent_rate = 1.0  # m/s
    turn_bank_share = 0.8  # of max_bank, for the corner arcs

    def __init__(self, spec: VehicleSpec, drone, tolerance: float):
        if drone.autopilot is None:
            raise MissionError(f"vehicle {spec.name!r}: model {drone.drone_model!r} has no "
                               "autopilot (its YAML lacks the trim and autopilot sections)")
        self.spec, self.drone, self.tolerance = spec, drone, tolerance
        tecs = drone.autopilot.tecs
        self.cruise_speed = tecs.trim_airspeed if spec.speed is None else spec.speed
        self.speeds = [w.speed or self.cruise_speed for w in spec.waypoints]
        self.start = np.array(spec.start_position)
        self.targets = np.array([w.position for w in spec.waypoints])
        self.landing = self.targets[-1]
        self.cruise_altitude = float(self.targets[-2][2])
        self.braking_distance = float(drone.params["transition"]["braking_distance"])
        self.reached = 0
        self.completion_time: float | None = None
        self.phase = "takeoff"
        self.touchdown_allowed = False
        self.path: FlyablePath | None = None
        self.guidance: PathGuidance | None = None
        self.log = FlightLog(spec.name, ("sp_mode", "sp0", "sp1", "sp2", "sp3"),
                             *wing_actuators(drone))
        first = self.targets[0]
        self._yaw = math.atan2(first[1] - self.start[1], first[0] - self.start[0])
        drone.set_mode(FlightMode.POSITION)
        self._reference = self.start.copy()
        self._goal = np.array((self.start[0], self.start[1], float(first[2])))
        self._rate = self.climb_rate
        self._hold()
        legs = np.diff(np.vstack((self.start, self.targets)), axis=0)
        climb = abs(float(first[2]) - self.start[2])
        # A generous estimate of the mission's time [s] (the duration check uses it).
        self.duration = (climb / 1.5 + 10.0 + float(np.hypot(*legs[:, :2].T).sum())
                          / min(self.speeds) + 20.0
                          + abs(self.cruise_altitude - self.landing[2]) / self.descent_rate)

    @property
    def done(self) -> bool:
        """Landed on (or hovering at) the last waypoint."""
        return self.completion_time is not None

    def command(self, time: float) -> None:
        """Advance the phase when its end has come, and set this step's setpoint."""
        drone = self.drone
        position = drone.state[3]
        if self.phase in ("takeoff", "approach", "descent"):
            self._hold()
        if self.phase == "takeoff" and np.array_equal(self._reference, self._goal) and abs(
                position[2] - self._goal[2]) < CLIMBED:
            drone.transition_to("cruise")
            self.phase = "transition"
            self._line = (np.array(position, dtype=float),
                          np.array((math.cos(self._yaw), math.sin(self._yaw))))
        elif self.phase == "transition" and drone.transition_target is None:
            self._start_cruise(position)
        elif self.phase == "cruise":
            left = self.path.length - float(self.path.distance[self.guidance.index])
            airspeed = drone.airspeed
            # Braking holds a heading, so it starts on the last straight, never in a turn.
            if self.guidance.index >= self._last_straight and \
                    self.guidance.cross_track < ON_LINE and \
                    left <= self.braking_distance * (airspeed / self.cruise_speed) ** 2:
                drone.transition_to("hover")
                self.phase = "back_transition"
                end, before = self.path.samples[-1], self.path.samples[-2]
                direction = (end - before)[:2]
                self._line = (end, direction / np.linalg.norm(direction))
            else:
                leg = min(int(self.path.leg_of[self.guidance.index]), len(self.speeds) - 2)
                drone.set_setpoint(self.guidance.step(position, drone.world_velocity,
                                                      airspeed, self.speeds[leg]))
        elif self.phase == "back_transition" and drone.transition_target is not None:
            # Steer onto the last leg's line: aim LINE_LOOKAHEAD ahead along it.
            origin, unit = self._line
            offset = (position - origin)[:2]
            cross = float(unit[0] * offset[1] - unit[1] * offset[0])  # > 0: left of it
            drone.setpoint[2] = math.atan2(unit[1], unit[0]) - math.atan2(cross, LINE_LOOKAHEAD)
        elif self.phase == "back_transition":
            self.phase = "approach"
            self._reference = np.array(position, dtype=float)
            self._goal = np.array((self.landing[0], self.landing[1], position[2]))
            self._rate = self.approach_speed
            self._hold()
        elif self.phase == "approach" and np.array_equal(self._reference, self._goal) and \
                math.dist(position[:2], self.landing[:2]) < self.tolerance:
            self.phase = "descent"
            self.touchdown_allowed = True
            self._goal = np.array(self.landing, dtype=float)
            self._rate = self.descent_rate

    def _start_cruise(self, position: np.ndarray) -> None:
        autopilot = self.drone.autopilot
        above_landing = (self.landing[0], self.landing[1], self.cruise_altitude)
        points = np.vstack((position, self.targets[:-1], above_landing))
        keep = np.concatenate(([True], np.hypot(*np.diff(points[:, :2], axis=0).T) > 1e-6))
        radius = self.cruise_speed ** 2 / (
            autopilot.gravity * math.tan(self.turn_bank_share * autopilot.max_bank))
        self.path = FlyablePath(points[keep], radius)
        self.guidance = PathGuidance(self.path, autopilot.heading_kp,
                                     autopilot.tecs.altitude_kp)
        arcs = np.nonzero(self.path.on_arc)[0]
        self._last_straight = int(arcs[-1]) + 1 if len(arcs) else 0
        self.phase = "cruise"

    def _hold(self) -> None:
        """Move the mode-7 reference one control period toward the goal, and command it."""
        step = self._rate * self.drone.control_period
        gap = self._goal - self._reference
        distance = float(np.linalg.norm(gap))
        self._reference = self._goal.copy() if distance <= step else (
            self._reference + gap * (step / distance))
        x, y, z = self._reference
        self.drone.set_setpoint(np.array((x, y, self._yaw, z)))

    def record(self, time: float) -> float:
        """Log this step and update progress; return the tracking error [m]."""
        drone = self.drone
        position = drone.state[3]
        if self.phase == "cruise":
            index, error = self.guidance.locate(position)
            reference = self.path.samples[index]
            # The path's waypoint samples: [0] is where cruise began, then the waypoints.
            wing_borne = self.path.waypoint_index[:len(self.targets) - 1]
            while self.reached < len(wing_borne) and index >= wing_borne[self.reached]:
                self.reached += 1
        elif self.phase in ("transition", "back_transition"):
            # Braking or accelerating along a straight line: the error is the distance to
            # that line (the transition's own, or the path's last leg).
            origin, unit = self._line
            along = float((position - origin)[:2] @ unit)
            reference = np.array((*(origin[:2] + along * unit), origin[2]))
            error = float(np.linalg.norm(position - reference))
        else:
            reference = self._reference
            error = float(np.linalg.norm(position - reference))
        if self.phase in ("back_transition", "approach", "descent"):
            self.reached = max(self.reached, len(self.targets) - 1)
        speed = float(np.linalg.norm(drone.world_velocity))
        if (self.phase == "descent" and self.completion_time is None
                and math.dist(position, self.landing) <= self.tolerance
                and speed < ARRIVED_SPEED):
            self.reached = len(self.targets)
            self.completion_time = time
        self.log.append(time, drone.state, reference, np.concatenate(([drone.mode],
                                                                      drone.setpoint)),
                        drone.aux_state, error)
        return error
