"""The flight-mode numbers, one vocabulary for every vehicle and both engines.

A number means the same kind of command on every vehicle that has it (docs/modes.md tables
each vehicle's modes and setpoints). Where one number serves vehicles of different kinds
(mode 2 is thrust and torques on a multirotor, the heading autopilot on a wing, PyFlyt's
rates-and-altitude on the QuadX), the enum names it once per meaning: the later names are
aliases of the first (``FlightMode(2) is FlightMode.THRUST_TORQUES``). numba compiles the
members as integer constants, so the batched kernels compare against them directly.
"""

from __future__ import annotations

from enum import IntEnum


class FlightMode(IntEnum):
    """Flight-mode numbers (PyFlyt's QuadX and fixed-wing numbers are kept as they are)."""

    ACTUATORS = -1  # every vehicle: raw actuator commands (rotor speeds, surfaces, throttle)
    RATES = 0  # body rates (on a wing: the surface commands that rate them)
    ATTITUDE = 1  # attitude hold
    THRUST_TORQUES = 2  # multirotor: collective thrust [N] and body torques [N m]
    HEADING_AUTOPILOT = 2  # wings: heading, airspeed, altitude
    RATES_ALTITUDE = 2  # QuadX (PyFlyt): body rates and altitude
    BANK_AUTOPILOT = 3  # wings: bank, airspeed, climb rate
    ATTITUDE_ALTITUDE = 3  # QuadX (PyFlyt): roll, pitch, yaw and altitude
    BODY_VELOCITY_ALTITUDE = 4  # QuadX (PyFlyt): u, v, yaw rate, altitude
    BODY_VELOCITY_CLIMB = 5  # QuadX (PyFlyt): u, v, yaw rate, climb rate
    GROUND_VELOCITY_CLIMB = 6  # QuadX (PyFlyt): vx, vy, yaw rate, climb rate
    POSITION = 7  # x, y, yaw, z position hold
    TRANSITION = 8  # quadplane: transition between hover and wing-borne flight
