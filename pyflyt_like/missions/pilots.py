"""Pilots: per-vehicle logic that turns a mission's waypoints into setpoints each step.

A pilot owns one vehicle's reference (a minimum-snap trajectory for rotorcraft), commands
the drone every control step, records the flight and tracks which waypoints were reached
(in order, within the arrival tolerance).
"""

from __future__ import annotations

import math

import numpy as np

from pyflyt_like.common.flight_modes import FlightMode
from pyflyt_like.control.flatness import FlatReference

from .flight_log import FlightLog
from .guidance import passed
from .mission import MissionError, VehicleSpec
from .path_following import FlyablePath, PathGuidance
from .trajectory import MinimumSnapTrajectory

SETPOINT_NAMES = ("sp_x", "sp_y", "sp_yaw", "sp_z")
CORNER_ANGLE = math.radians(45.0)  # turns sharper than this stop at the waypoint
CORNER_PAUSE = 1e-3  # s: the shortest hold, making the waypoint a rest point


def wing_actuators(drone) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Names and units of a winged aircraft's ``aux_state``: each surface's deflection [rad]
    (named by its link, in the YAML's order, as ``aux_state`` holds them), then the forward
    motor's throttle, then a quadplane's four lift throttles."""
    surfaces = tuple(surface["link"] for surface in drone.params["surfaces"])
    throttles = ("throttle",) + tuple(f"lift{i}" for i in range(len(drone.aux_state)
                                                              - len(surfaces) - 1))
    return (surfaces + throttles,
            ("deflection [rad]",) * len(surfaces) + ("throttle 0…1",) * len(throttles))


class TrajectoryPilot:
    """Flies a rotorcraft along a minimum-snap trajectory through its waypoints.

    QuadX (controller "position") and PID multirotors get the reference position and yaw as
    mode-7 setpoints; geometric multirotors get the full flat reference (feed-forward).

    Args:
        spec: the vehicle's mission entry.
        drone: the vehicle in the aviary.
        tolerance: arrival tolerance [m].
    """

    touchdown_allowed = False  # ground contact after lift-off is a crash

    def __init__(self, spec: VehicleSpec, drone, tolerance: float):
        self.spec, self.drone, self.tolerance = spec, drone, tolerance
        points = np.array([spec.start_position] + [w.position for w in spec.waypoints])
        if np.any(np.linalg.norm(np.diff(points, axis=0), axis=1) < 1e-9):
            raise MissionError(f"vehicle {spec.name!r}: two consecutive waypoints (or the start "
                               "and the first waypoint) coincide")
        yaws = [spec.start_orientation[2]]
        for waypoint in spec.waypoints:
            yaws.append(yaws[-1] if waypoint.yaw is None else waypoint.yaw)
        speeds = [w.speed or spec.speed for w in spec.waypoints]
        holds = [0.0] + [w.hold for w in spec.waypoints]
        # Minimum snap is free to overshoot between waypoints when the path turns sharply
        # and segment lengths differ (a climb then a long leg can overshoot by metres), so
        # the vehicle comes to rest at corners sharper than CORNER_ANGLE.
        legs = np.diff(points, axis=0)
        for i in range(1, len(points) - 1):
            before, after = legs[i - 1], legs[i]
            cosine = before @ after / (np.linalg.norm(before) * np.linalg.norm(after))
            if cosine < math.cos(CORNER_ANGLE):
                holds[i] = max(holds[i], CORNER_PAUSE)
        self.trajectory = MinimumSnapTrajectory(points, speed=np.array(speeds),
                                                yaw=np.array(yaws), hold_times=np.array(holds))
        self.targets = points[1:]
        self.reached = 0
        self.completion_time: float | None = None
        self.feed_forward = spec.type == "multirotor" and spec.controller == "geometric"
        if spec.type == "quadx":
            actuators = tuple(f"motor{i}" for i in range(4))
            units = ("throttle 0…1",) * 4
        else:
            actuators = tuple(f"rotor{i}" for i in range(drone.n_propellers))
            units = (f"rotor speed [{drone.rotor_speed_unit}]",) * drone.n_propellers
        self.log = FlightLog(spec.name, SETPOINT_NAMES, actuators, units)
        drone.set_mode(FlightMode.POSITION)
        self._reference = np.array(spec.start_position)
        # Without feed-forward, a position loop v = k (p_sp - p) lags; leading the setpoint
        # by v_ref / k makes it command the reference velocity when on track.
        if spec.type == "quadx":
            cascade = drone.cascade
            self._lead = 1.0 / np.array((*cascade.position_gain, cascade.altitude_gain))
        elif not self.feed_forward:
            self._lead = 1.0 / np.asarray(drone.cascade.position_kp, dtype=float)
        else:
            self._lead = np.zeros(3)

    @property
    def duration(self) -> float:
        """Time the reference takes, holds included [s]."""
        return self.trajectory.duration

    @property
    def done(self) -> bool:
        """Every waypoint reached and the reference finished."""
        return self.completion_time is not None

    def command(self, time: float) -> None:
        """Set the drone's setpoint for the reference at ``time`` [s]."""
        point = self.trajectory.evaluate(time)
        self._reference = point.position
        x, y, z = point.position
        if self.feed_forward:
            self.drone.set_flat_reference(FlatReference(
                position=point.position, velocity=point.velocity,
                acceleration=point.acceleration, jerk=point.jerk, snap=point.snap,
                yaw=point.yaw, yaw_rate=point.yaw_rate, yaw_acceleration=point.yaw_acceleration))
        else:
            x, y, z = point.position + self._lead * point.velocity
            self.drone.set_setpoint(np.array((x, y, point.yaw, z)))

    def record(self, time: float) -> float:
        """Log this step, update waypoint progress; return the position error [m]."""
        drone = self.drone
        position = drone.state[3]
        error = float(np.linalg.norm(position - self._reference))
        while self.reached < len(self.targets) and np.linalg.norm(
                position - self.targets[self.reached]) <= self.tolerance:
            self.reached += 1
        if self.completion_time is None and self.reached == len(self.targets) and \
                time >= self.duration:
            self.completion_time = time
        setpoint = drone.setpoint if drone.setpoint.shape == (4,) else np.full(4, math.nan)
        self.log.append(time, drone.state, self._reference, setpoint, drone.aux_state, error)
        return error


class GuidancePilot:
    """Flies a fixed-wing along its waypoints on the autopilot (mode 2), with L1 guidance on
    the flyable path: the waypoint polyline with each corner rounded to an arc the aircraft
    can fly (:mod:`~.path_following`).

    The corner arcs have the radius of a coordinated turn at 80 % of the autopilot's
    ``max_bank`` and the trim airspeed (the remaining bank is the guidance's margin). A
    waypoint is reached when the aircraft's progress along the path passes the middle of its
    arc; the last one when progress reaches the path's end. The tracking error is the
    horizontal distance to the path. Airspeed: the trim airspeed of the model's YAML
    ``trim`` section, overridden by the vehicle's ``speed`` or a waypoint's ``speed`` for the
    leg to it.
    """

    turn_bank_share = 0.8  # of max_bank, for the corner arcs
    touchdown_allowed = False  # ground contact after lift-off is a crash

    def __init__(self, spec: VehicleSpec, drone, tolerance: float):
        autopilot = getattr(drone, "autopilot", None)
        if autopilot is None:
            raise MissionError(f"vehicle {spec.name!r}: model {drone.drone_model!r} has no "
                               "autopilot (its YAML lacks the trim and autopilot sections)")
        self.spec, self.drone, self.tolerance = spec, drone, tolerance
        tecs = autopilot.tecs
        cruise = tecs.trim_airspeed if spec.speed is None else spec.speed
        points = np.array([spec.start_position] + [w.position for w in spec.waypoints])
        radius = cruise ** 2 / (autopilot.gravity
                                * math.tan(self.turn_bank_share * autopilot.max_bank))
        try:
            self.path = FlyablePath(points, radius)
        except ValueError as error:
            raise MissionError(f"vehicle {spec.name!r}: {error}") from None
        self.guidance = PathGuidance(self.path, autopilot.heading_kp, tecs.altitude_kp)
        self.speeds = [w.speed or cruise for w in spec.waypoints]
        self.targets = points[1:]
        self.reached = 0
        self.completion_time: float | None = None
        self.log = FlightLog(spec.name, ("sp_heading", "sp_airspeed", "sp_unused",
                                         "sp_altitude"), *wing_actuators(drone))
        drone.set_mode(FlightMode.HEADING_AUTOPILOT)
        # Time the path takes at the slowest leg's speed [s] (the duration check uses it).
        self.duration = self.path.length / min(self.speeds)
        self._setpoint = drone.setpoint.copy()

    @property
    def done(self) -> bool:
        """Every waypoint passed."""
        return self.completion_time is not None

    def command(self, time: float) -> None:
        """Set the mode-2 setpoint along the path."""
        drone = self.drone
        leg = int(self.path.leg_of[self.guidance.index])
        self._setpoint = self.guidance.step(drone.state[3], drone.world_velocity,
                                            drone.airspeed,
                                            self.speeds[leg])
        drone.set_setpoint(self._setpoint)

    def record(self, time: float) -> float:
        """Log this step and update waypoint progress; return the cross-track error [m]."""
        drone = self.drone
        index, error = self.guidance.locate(drone.state[3])
        while self.reached < len(self.targets) and (
                index >= self.path.waypoint_index[self.reached]
                or (self.reached == len(self.targets) - 1 and passed(
                    drone.state[3], self.path.samples[-2], self.targets[-1], self.tolerance))):
            self.reached += 1
        if self.completion_time is None and self.reached == len(self.targets):
            self.completion_time = time
        self.log.append(time, drone.state, self.path.samples[index], self._setpoint,
                        drone.aux_state, error)
        return error
