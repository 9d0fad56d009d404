"""The rocket's mission pilot: a powered descent onto a landing pad.

Guidance: at ignition the pilot plans, per axis, the quintic polynomial in time (minimum
jerk) from the rocket's position and velocity, with zero acceleration, to the touchdown
point (the pad plus the rocket's height above its lowest point) with zero velocity and zero
acceleration, over a time ``T`` chosen so that the profile's largest acceleration is at most
``accel_share`` of what the booster can give either way (up: ``T_max/m − g``; down, while
lit: ``g − T_min/m``). A minimum-jerk profile's peak acceleration is ``10/√3 · Δ/T²`` for a
move Δ from rest, so ``T = √(10/√3 · Δ / a)`` with the largest Δ of the three axes, plus the
time the initial velocity needs to be stopped.

Tracking: the commanded acceleration is the profile's plus a PD on its position and
velocity errors. The thrust vector it asks for, ``F = m (a + g ẑ)``, tilted at most
``max_tilt`` from the vertical, sets the throttle (``T_min`` to ``T_max``) from its size and
the attitude from its direction: the rotation taking the body z axis onto F, times
``attitude_kp``, is a body-rate setpoint for roll and pitch, and the gimbal turns the rate
errors into thrust-vector angles (a gimbal tilt toward +x pitches the stage about −y, one
toward −y rolls it about −x). The grid fins damp the spin about the long axis. When the
rocket's lowest point reaches the pad (ground contact, or within 5 cm of it), the booster is
shut down: the mission is over. The pad counts as reached (and the mission completed) when
that touchdown is within the arrival tolerance of the pad horizontally, at most 2 m/s, and
within ``max_tilt`` of upright.
"""

from __future__ import annotations

import math

import numpy as np
import pybullet

from .flight_log import FlightLog
from .mission import MissionError, VehicleSpec

G = 9.81  # m/s^2, the Aviary's gravity
MAX_TOUCHDOWN_SPEED = 2.0  # m/s: faster is a crash, not a landing


def quintic(start: float, velocity: float, end: float, duration: float) -> np.ndarray:
    """Coefficients c0..c5 of the quintic from ``start`` at ``velocity`` (zero acceleration)
    to ``end`` at rest, zero acceleration, after ``duration`` [s]."""
    t = duration
    c = np.zeros(6)
    c[0], c[1] = start, velocity
    # Solve for c3, c4, c5 from the end conditions.
    matrix = np.array(((t ** 3, t ** 4, t ** 5), (3 * t ** 2, 4 * t ** 3, 5 * t ** 4),
                       (6 * t, 12 * t ** 2, 20 * t ** 3)))
    c[3:] = np.linalg.solve(matrix, (end - start - velocity * t, -velocity, 0.0))
    return c


def evaluate(coefficients: np.ndarray, t: float) -> tuple[float, float, float]:
    """(position, velocity, acceleration) of a quintic at time ``t``."""
    c0, c1, c2, c3, c4, c5 = coefficients.tolist()
    return (c0 + t * (c1 + t * (c2 + t * (c3 + t * (c4 + t * c5)))),
            c1 + t * (2 * c2 + t * (3 * c3 + t * (4 * c4 + t * 5 * c5))),
            2 * c2 + t * (6 * c3 + t * (12 * c4 + t * 20 * c5)))


class RocketPilot:
    """Lands a rocket on the pad of a ``type: rocket`` mission (see the module docstring).

    Args:
        spec: the vehicle's entry; its one waypoint (the mission file's check) is the pad,
            a point on the ground.
        drone: the :class:`~pyflyt_like.core.drones.rocket.Rocket`.
        tolerance: how far from the pad the rocket may touch down [m].
    """

    accel_share = 0.5
    position_kp = 0.6  # 1/s^2
    velocity_kp = 1.6  # 1/s
    max_tilt = math.radians(15.0)
    attitude_kp = 2.0  # 1/s
    rate_kp = 4.0  # gimbal command per rad/s
    spin_kp = 2.0  # fin command per rad/s
    touchdown_allowed = True  # its whole point

    def __init__(self, spec: VehicleSpec, drone, tolerance: float):
        self.spec, self.drone, self.tolerance = spec, drone, tolerance
        booster = drone.params["booster_params"]
        self.min_thrust, self.max_thrust = float(booster["min_thrust"]), float(
            booster["max_thrust"])
        self.dry_mass = drone.mass - float(drone.boosters.fuel_remaining.sum())
        self.pad = np.array(spec.waypoints[0].position)
        self.height = self._height_above_lowest_point()
        self.touchdown = self.pad + (0.0, 0.0, self.height)
        if spec.start_position[2] - self.height < self.pad[2]:
            raise MissionError(f"vehicle {spec.name!r}: the rocket starts below its pad")
        self.targets = self.pad[None, :]
        self.reached = 0
        self.completion_time: float | None = None
        self.touched_down = False
        self.landed_speed: float | None = None  # m/s at touchdown
        self.landed_tilt: float | None = None  # rad from upright at touchdown
        self.log = FlightLog(spec.name, ("sp_x", "sp_y", "sp_z", "sp_throttle"),
                             ("fin0", "fin1", "fin2", "fin3", "ignition", "fuel", "throttle",
                              "gimbal1", "gimbal2"),
                             ("deflection [rad]",) * 4 + ("0…1",) * 3
                             + ("gimbal angle [rad]",) * 2)
        self._plan(drone.state[3], drone.world_velocity)
        self._reference = np.array(spec.start_position)
        self._setpoint = np.zeros(4)
        self._lit = True

    def _height_above_lowest_point(self) -> float:
        drone = self.drone
        lowest = min(pybullet.getAABB(drone.Id, link, physicsClientId=drone.client_id)[0][2]
                     for link in range(-1, pybullet.getNumJoints(
                         drone.Id, physicsClientId=drone.client_id)))
        return float(drone.state[3][2] - lowest)

    @property
    def mass(self) -> float:
        """Current mass [kg]: dry structure plus the fuel left."""
        return self.dry_mass + float(self.drone.boosters.fuel_remaining.sum())

    def _plan(self, position: np.ndarray, velocity: np.ndarray) -> None:
        m = self.mass
        # What the booster gives either way, at the heaviest (now).
        accel = self.accel_share * min(self.max_thrust / m - G, G - self.min_thrust / m)
        if accel <= 0:
            raise MissionError(f"vehicle {self.spec.name!r}: the booster cannot both lift and "
                               "lower the rocket at its present mass")
        move = np.abs(self.touchdown - position)
        stop = np.abs(velocity) / accel
        # The descent's planned time [s]; the runner's duration check uses it.
        self.duration = float(np.max(np.sqrt(10.0 / math.sqrt(3.0) * move / accel) + stop))
        self.profile = [quintic(float(position[i]), float(velocity[i]),
                                float(self.touchdown[i]), self.duration) for i in range(3)]
        self.start_time = None

    @property
    def done(self) -> bool:
        """Touched down (on the pad or not: the mission is over either way)."""
        return self.touched_down

    def command(self, time: float) -> None:
        """The booster, gimbal and fin commands of this step."""
        drone = self.drone
        if self.start_time is None:
            self.start_time = time
        t = min(time - self.start_time, self.duration)
        reference = [evaluate(c, t) for c in self.profile]
        position_ref = np.array([r[0] for r in reference])
        velocity_ref = np.array([r[1] for r in reference])
        accel_ref = np.array([r[2] for r in reference])
        self._reference = position_ref
        position, velocity = drone.state[3], drone.world_velocity
        accel = (accel_ref + self.position_kp * (position_ref - position)
                 + self.velocity_kp * (velocity_ref - velocity))
        force = self.mass * (accel + (0.0, 0.0, G))
        # Tilt limit: keep the vertical part, shorten the horizontal one.
        horizontal = math.hypot(force[0], force[1])
        vertical = max(force[2], 1e-6)
        limit = vertical * math.tan(self.max_tilt)
        if horizontal > limit:
            force[:2] *= limit / horizontal
        size = float(np.linalg.norm(force))
        throttle = min(max((size - self.min_thrust) / (self.max_thrust - self.min_thrust),
                           0.0), 1.0)
        # Attitude: turn the body z axis onto the thrust direction.
        rotation = drone.rotation_matrix
        axis = np.cross(rotation[:, 2], force / size)  # world frame, |axis| = sin(angle)
        error = rotation.T @ axis
        rates = drone.state[0]
        rate_x = self.attitude_kp * float(error[0]) - float(rates[0])
        rate_y = self.attitude_kp * float(error[1]) - float(rates[1])
        gimbal1 = min(max(-self.rate_kp * rate_x, -1.0), 1.0)
        gimbal2 = min(max(-self.rate_kp * rate_y, -1.0), 1.0)
        spin = min(max(-self.spin_kp * float(rates[2]), -1.0), 1.0)
        lit = 1.0 if self._lit else 0.0
        drone.set_setpoint(np.array((0.0, 0.0, spin, lit, throttle, gimbal1, gimbal2)))
        self._setpoint = np.array((*position_ref, throttle))

    def record(self, time: float) -> float:
        """Log this step, shut the booster down at touchdown; return the distance [m] to the
        reference position."""
        drone = self.drone
        position = drone.state[3]
        error = float(np.linalg.norm(position - self._reference))
        contact = bool(drone.p.contact_array[drone.Id].any())
        if self._lit and (contact or position[2] <= self.touchdown[2] + 0.05):
            self._lit = False
            self.landed_speed = float(np.linalg.norm(drone.world_velocity))
            self.landed_tilt = math.acos(min(float(drone.rotation_matrix[2, 2]), 1.0))
            self.touched_down = True
            if (math.dist(position[:2], self.pad[:2]) <= self.tolerance
                    and self.landed_speed <= MAX_TOUCHDOWN_SPEED
                    and self.landed_tilt <= self.max_tilt):
                self.reached = 1
                self.completion_time = time
        self.log.append(time, drone.state, self._reference, self._setpoint, drone.aux_state,
                        error)
        return error
