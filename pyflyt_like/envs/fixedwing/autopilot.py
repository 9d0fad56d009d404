"""The autopilot baseline of Fixedwing-Reach: the PyBullet twin flown in mode 2 (course,
airspeed, -, altitude hold; docs/fixedwing.md, "Autopilot") steered at each target.

Each agent step it asks for the course of the horizontal line to the target, a fixed
airspeed and the target's altitude. A target closer than two turn radii and more than
90 degrees off the course cannot be met by turning at it (the aircraft would circle it):
the autopilot then holds its course until the target is far enough to turn back onto it.
The episodes are the twin's with the same seeds as a policy's evaluation, so both meet the
same spawns and the same sequence of targets.

From the command line: ``python scripts/evaluate_reach_autopilot.py [episodes] [first seed]``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pyflyt_like.common.validation import check_positive_float, check_positive_int, check_seed

from .twin_env import FixedwingReachTwinEnv

ALTITUDE_HOLD = 2  # the fixed-wing mode: [course rad, airspeed m/s, 0, altitude m]
GRAVITY = 9.81  # m/s^2
#: Airspeed [m/s] the autopilot asks for per model: each model's fastest autopilot setpoint
#: (its ``airspeed_limits``) is quickest to the targets, at the cost of wider turns.
AIRSPEED = {"acrowing": 18.0, "fixedwing": 22.0}
#: The bank [rad] of the turn radius used to decide whether a target can be turned onto:
#: the models' ``max_bank`` (acrowing 0.7, fixedwing 0.6).
MAX_BANK = {"acrowing": 0.7, "fixedwing": 0.6}


def autopilot_setpoint(pos: np.ndarray, course: float, target: np.ndarray, airspeed: float,
                       turn_radius: float) -> np.ndarray:
    """The mode-2 setpoint (4,) [rad, m/s, -, m] for an aircraft at ``pos`` (3,) [m] on
    ``course`` [rad, ENU] towards ``target`` (3,) [m] at ``airspeed`` [m/s], with
    ``turn_radius`` [m] its tightest turn's: the course to the target, or the present course
    while the target is within two turn radii and more than 90 degrees off."""
    dx, dy = target[0] - pos[0], target[1] - pos[1]
    bearing = math.atan2(dy, dx)
    error = math.remainder(bearing - course, 2.0 * math.pi)
    if math.hypot(dx, dy) < 2.0 * turn_radius and abs(error) > math.pi / 2:
        bearing = course  # fly on, then come back round at the target
    return np.array((bearing, airspeed, 0.0, target[2]))


def fly_episode(env: FixedwingReachTwinEnv, seed: int | None,
                airspeed: float | None = None) -> dict[str, Any]:
    """One autopilot episode of the twin ``env`` reset with ``seed``; returns its
    ``targets_reached``, ``return`` and ``steps``."""
    model = env.options.drone_model
    airspeed = AIRSPEED[model] if airspeed is None else check_positive_float("airspeed",
                                                                             airspeed)
    turn_radius = airspeed ** 2 / (GRAVITY * math.tan(MAX_BANK[model]))
    env.reset(seed=seed)
    env.aviary.set_mode(ALTITUDE_HOLD)
    drone = env.drone
    total, steps, info, done = 0.0, 0, {"targets_reached": 0}, False
    while not done:
        velocity = drone.world_velocity
        course = math.atan2(velocity[1], velocity[0])
        setpoint = autopilot_setpoint(drone.state[3], course, env.target, airspeed,
                                      turn_radius)
        _, reward, terminated, truncated, info = env.step_setpoint(setpoint)
        total += reward
        steps += 1
        done = terminated or truncated
    return {"targets_reached": int(info["targets_reached"]), "return": total, "steps": steps}


def evaluate_autopilot(episodes: int, seed: int = 0, airspeed: float | None = None,
                       **options: Any) -> np.ndarray:
    """(episodes, 3) targets reached, return and steps of the autopilot in ``episodes``
    twin episodes reset with seeds ``seed``, ``seed + 1``, ...; ``options`` are the task's
    (``flight_mode`` is irrelevant: the autopilot flies mode 2)."""
    episodes = check_positive_int("episodes", episodes)
    seed = check_seed("seed", seed)
    env = FixedwingReachTwinEnv(**options)
    try:
        rows = [fly_episode(env, seed + i, airspeed) for i in range(episodes)]
    finally:
        env.close()
    return np.array([[row["targets_reached"], row["return"], row["steps"]] for row in rows])

