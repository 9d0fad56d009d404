"""Helpers shared by the core tests: vehicle constants and small flight utilities."""

from __future__ import annotations

import math

import numpy as np
import pybullet

GRAVITY = 9.81  # m/s^2, REFERENCE §1 Aviary
AIR_DENSITY = 1.225  # kg/m^3, REFERENCE §1 BoringBodies

# cf2x QuadX facts (REFERENCE §1 QuadX and cf2x.urdf / cf2x.yaml).
MASS = 0.027  # kg
TOTAL_THRUST = 2.0  # N, all four motors at full throttle
MOTOR_TAU = 0.01  # s
THRUST_COEF = 3.16e-10  # N / RPM^2
TORQUE_COEF = 7.94e-12  # N m / RPM^2
TORQUE_SIGNS = np.array([-1.0, -1.0, 1.0, 1.0])  # yaw-torque direction per motor (PX4 Quad-X)
DRAG_COEFS = np.array([1.0, 1.0, 1.0])  # base-link Cd along body x, y, z
NORMAL_AREAS = np.array([0.0015, 0.0015, 0.0085])  # m^2 along body x, y, z


def wrap(angle):
    """Wrap an angle (or array of angles) to [-pi, pi)."""
    return (np.asarray(angle) + math.pi) % (2.0 * math.pi) - math.pi


def step_period(aviary) -> float:
    """Seconds advanced by one ``aviary.step()``: the slowest drone's control period."""
    return max(drone.control_period for drone in aviary.drones)


def n_steps(aviary, seconds: float) -> int:
    return int(round(seconds / step_period(aviary)))


def fly(aviary, seconds: float) -> np.ndarray:
    """Step for ``seconds``; return the (steps, n, 4, 3) states recorded after every step."""
    states = []
    for _ in range(n_steps(aviary, seconds)):
        aviary.step()
        states.append(aviary.all_states)
    return np.array(states)


def base_pose(aviary, index: int):
    drone = aviary.drones[index]
    return pybullet.getBasePositionAndOrientation(drone.Id, physicsClientId=aviary._client)


def world_velocity(aviary, index: int) -> np.ndarray:
    drone = aviary.drones[index]
    return np.array(pybullet.getBaseVelocity(drone.Id, physicsClientId=aviary._client)[0])


def spin_up_in_place(aviary, seconds: float = 0.25) -> None:
    """Step while pinning every drone to its current pose at rest, so the motors settle.

    Motor throttles are internal to the drones and survive the teleports; after this the
    drones sit at their poses, at rest, with throttles converged to their commands (after
    ``seconds`` the lag residual is ``exp(-seconds / tau)``, ~1e-11 for the defaults).
    """
    client = aviary._client
    poses = [pybullet.getBasePositionAndOrientation(d.Id, physicsClientId=client)
             for d in aviary.drones]

    def pin():
        for drone, (position, orientation) in zip(aviary.drones, poses):
            pybullet.resetBasePositionAndOrientation(drone.Id, position, orientation,
                                                     physicsClientId=client)
            pybullet.resetBaseVelocity(drone.Id, (0, 0, 0), (0, 0, 0), physicsClientId=client)
            drone.update_state()

    for _ in range(n_steps(aviary, seconds)):
        aviary.step()
        pin()
