"""Rocket-Landing: bring the falling stage down upright and slowly onto a landing pad."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pybullet
from gymnasium import spaces

from pyflyt_like.common.loading import MODELS_DIR

from ..base.env_common import FAILURE_PENALTY
from .base import RocketBaseEnv

PAD_URDF = MODELS_DIR / "scene" / "landing_pad" / "landing_pad.urdf"
PAD_POSITION = (0.0, 0.0, 0.0)  # m, pad frame (centre of its bottom face), on the ground

SPAWN_HEIGHT = 250.0  # m, nominal altitude of the stage's base link at spawn
SPAWN_HEIGHT_JITTER = 25.0  # m, spawn altitude is uniform in SPAWN_HEIGHT +- this
SPAWN_LATERAL_OFFSET = 20.0  # m, spawn x and y are each uniform in +- this
SPAWN_DESCENT_SPEED = (15.0, 30.0)  # m/s, range of the downward spawn speed
SPAWN_LATERAL_SPEED = 2.0  # m/s, spawn vx and vy are each uniform in +- this
SPAWN_TILT = 0.05  # rad, spawn roll and pitch are each uniform in +- this (yaw: any)

SAFE_LANDING_SPEED = 3.0  # m/s, fastest pad touchdown that counts as a landing
MAX_LANDING_TILT = math.radians(10.0)  # rad, most tilted pad touchdown that counts
LANDING_BONUS = 100.0  # reward of a landing at SAFE_LANDING_SPEED; twice this at 0 m/s

SHAPING_GAIN = 0.5  # reward per metre of progress in the shaping potential
SPEED_WEIGHT = 2.0  # s, a metre per second of speed weighs as much as this many metres
TILT_WEIGHT = 10.0  # m/rad, a radian of tilt weighs as much as this many metres
FUEL_COST = 0.1  # reward per kg of fuel burnt (dense reward only)


def tilt(rotation_matrix: np.ndarray) -> float:
    """Angle [rad] between the body z axis and the vertical, for a (3, 3) body-to-ground R."""
    return math.acos(max(-1.0, min(1.0, float(rotation_matrix[2, 2]))))


class RocketLandingEnv(RocketBaseEnv):
    """Land the rocket stage on a pad at the origin.

    The stage spawns 225-275 m up (base link), up to 20 m off the pad in x and y, falling
    at 15-30 m/s with up to 2 m/s of lateral drift, tilted up to 0.05 rad in roll and pitch,
    with any heading. It can make it: full thrust is 1.41 times the full stage's weight, so
    stopping from 30 m/s takes 110 m and 7.3 s (19 kg of the 410.9 kg of fuel), and thrust
    can match the weight (throttle 0.52 when full) for a soft final descent.

    Observation: Box = attitude vector (see docs/envs.md) ⊕ pad contact flag (1: the stage
    touched the pad during this step) ⊕ (3,) where the base link would be standing upright
    on the pad centre, relative to where it is, in the body frame [m].

    Touching the pad ends the episode. At under 3 m/s and within 10 degrees of upright it
    is a landing (``info["landed"]``) worth ``100 * (2 - speed / 3 m/s)``; otherwise it is a
    crash worth -100 (``info["collision"]``). Touching the ground, or leaving the box, is
    -100 with ``info["collision"]`` / ``info["out_of_bounds"]``. On a pad touchdown, info
    also has ``touchdown_speed`` [m/s] and ``touchdown_tilt`` [rad], taken just before
    the contact.

    Dense reward per env step: ``0.5 * (phi_now - phi_before) - 0.1 * fuel burnt [kg]``
    plus the landing bonus, with ``phi = -(d + 2 s * |v| + 10 m/rad * tilt)``, ``d`` the
    distance [m] of the base link from its landed pose, ``|v|`` the speed [m/s]. The
    shaping telescopes, so an episode's shaping return does not depend on ``agent_hz``.
    Sparse reward: only the landing bonus and the -100 failures.

    Args:
        sparse_reward: reward only landings and failures.
        ceiling: highest allowed altitude [m] (default 500).
        max_displacement: largest allowed |x| and |y| [m] (default 200).
        max_duration_seconds: episode length before truncation [s] (default 30).
        angle_representation: "quaternion" (default) or "euler".
        agent_hz: decisions per second (default 40; must divide 120).
        render_mode: None, "human" or "rgb_array".
        render_resolution: (height, width) of rgb_array frames [px].
        flight_mode: must be 0.
        drone_options: extra Rocket options.
        **options: the delay and observation options of every task (docs/envs.md).
    """

    def __init__(self, *, sparse_reward: bool = False, ceiling: float = 500.0,
                 max_displacement: float = 200.0, max_duration_seconds: float = 30.0,
                 angle_representation: str = "quaternion", agent_hz: int = 40,
                 render_mode: str | None = None, render_resolution: tuple[int, int] | None = None,
                 flight_mode: int = 0, drone_options: dict[str, Any] | None = None,
                 **options: Any):
        super().__init__(start_pos=(0.0, 0.0, SPAWN_HEIGHT), flight_mode=flight_mode,
                         angle_representation=angle_representation,
                         sparse_reward=sparse_reward, agent_hz=agent_hz,
                         max_duration_seconds=max_duration_seconds, ceiling=ceiling,
                         max_displacement=max_displacement, render_mode=render_mode,
                         render_resolution=render_resolution, drone_options=drone_options,
                         **options)
        self._pad_contact = False
        self._contact_flag = 0.0
        self._impact_speed = self._impact_tilt = 0.0
        self._potential = 0.0
        self._fuel = 0.0

    # ----------------------------------------------------------------- world
    def add_task_bodies(self) -> None:
        client = self.aviary._client
        self.pad_id = pybullet.loadURDF(str(PAD_URDF), PAD_POSITION, (0.0, 0.0, 0.0, 1.0),
                                        useFixedBase=True, physicsClientId=client)
        pad_top = pybullet.getAABB(self.pad_id, -1, physicsClientId=client)[1][2]
        # The stage was loaded upright: its lowest collision point gives how high its base
        # link stands above whatever it rests on.
        drone = self.drone
        lowest = min(pybullet.getAABB(drone.Id, link, physicsClientId=client)[0][2]
                     for link in range(-1, pybullet.getNumJoints(drone.Id,
                                                                 physicsClientId=client)))
        standing_height = float(drone.state[3, 2]) - lowest
        self.landed_position = np.array([PAD_POSITION[0], PAD_POSITION[1],
                                         pad_top + standing_height])

    def harmless_contacts(self) -> list[int]:
        # The pad is judged by the task (landing or crash), not by AviaryEnv's crash rule.
        return [self.pad_id]

    def make_observation_space(self) -> spaces.Space:
        self.require_gnss("pad deltas")
        attitude = self.attitude.space
        bound = 2.0 * self.flight_dome_size
        low = np.concatenate([attitude.low, [0.0], np.full(3, -bound)])
        high = np.concatenate([attitude.high, [1.0], np.full(3, bound)])
        return spaces.Box(low, high, dtype=np.float64)

    # ----------------------------------------------------------------- episode
    def reset_task(self) -> None:
        rng = self.np_random
        drone = self.drone
        x, y = rng.uniform(-SPAWN_LATERAL_OFFSET, SPAWN_LATERAL_OFFSET, 2)
        z = SPAWN_HEIGHT + rng.uniform(-SPAWN_HEIGHT_JITTER, SPAWN_HEIGHT_JITTER)
        roll, pitch = rng.uniform(-SPAWN_TILT, SPAWN_TILT, 2)
        yaw = rng.uniform(-math.pi, math.pi)
        vx, vy = rng.uniform(-SPAWN_LATERAL_SPEED, SPAWN_LATERAL_SPEED, 2)
        vz = -rng.uniform(*SPAWN_DESCENT_SPEED)
        client = drone.client_id
        pybullet.resetBasePositionAndOrientation(
            drone.Id, (x, y, z), pybullet.getQuaternionFromEuler((roll, pitch, yaw)),
            physicsClientId=client)
        pybullet.resetBaseVelocity(drone.Id, (vx, vy, vz), (0.0, 0.0, 0.0),
                                   physicsClientId=client)
        drone.update_state()
        self._pad_contact = False
        self._contact_flag = 0.0
        self._sample_approach()
        self._potential = self._shaping_potential()
        self._fuel = float(drone.boosters.fuel_remaining.sum())

    def after_aviary_step(self) -> None:
        if self.aviary.contact_array[self.drone.Id, self.pad_id]:
            self._pad_contact = True
        elif not self._pad_contact:
            self._sample_approach()

    def _sample_approach(self) -> None:
        """Remember speed and tilt now: the contact impulse alters them on the touching step."""
        drone = self.drone
        velocity = drone.world_velocity
        self._impact_speed = math.sqrt(float(velocity @ velocity))
        self._impact_tilt = tilt(drone.rotation_matrix)

    def _shaping_potential(self) -> float:
        drone = self.drone
        distance = float(np.linalg.norm(drone.state[3] - self.landed_position))
        velocity = drone.world_velocity
        speed = math.sqrt(float(velocity @ velocity))
        return -(distance + SPEED_WEIGHT * speed + TILT_WEIGHT * tilt(drone.rotation_matrix))

    # ----------------------------------------------------------------- per step
    def observe(self) -> np.ndarray:
        drone = self.drone
        pad_delta = (self.landed_position - self.observed_position()) @ drone.rotation_matrix
        return np.concatenate([self.attitude.observe(self.action),
                               (self._contact_flag,), pad_delta])

    def task_reward(self) -> float:
        drone = self.drone
        potential = self._shaping_potential()
        fuel = float(drone.boosters.fuel_remaining.sum())
        reward = 0.0 if self.sparse_reward else (
            SHAPING_GAIN * (potential - self._potential) - FUEL_COST * (self._fuel - fuel))
        self._potential, self._fuel = potential, fuel
        touched_pad, self._pad_contact = self._pad_contact, False
        self._contact_flag = float(touched_pad)
        if not touched_pad or self.crashed:  # a ground crash is AviaryEnv's to penalise
            return reward
        self.termination = True
        self.info["touchdown_speed"] = self._impact_speed
        self.info["touchdown_tilt"] = self._impact_tilt
        if self._impact_speed < SAFE_LANDING_SPEED and self._impact_tilt < MAX_LANDING_TILT:
            self.info["landed"] = True
            return reward + LANDING_BONUS * (2.0 - self._impact_speed / SAFE_LANDING_SPEED)
        self.info["collision"] = True
        return FAILURE_PENALTY
