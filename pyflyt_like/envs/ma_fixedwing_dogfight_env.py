"""MAFixedwingDogfight: two teams of fixed-wing aircraft shooting at each other."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from gymnasium import spaces

from ..core.utils.validation import check_positive_float, check_positive_int
from .dogfight_rules import (
    aim_angles,
    body_frame_differences,
    hit_matrix,
    quaternions_to_euler,
    ranges_and_ahead,
    relative_quaternions,
)
from .ma_aviary_env import MAAviaryEnv
from .vehicle_family import FIXEDWING

FORMATION_SPACING = 10.0  # m, between neighbours of a team at spawn (line abreast)
SPAWN_POSITION_JITTER = 3.0  # m, uniform per axis around each nominal spawn point
SPAWN_YAW_JITTER = 0.2  # rad, uniform around the heading toward the other team
DAMAGE_REWARD = 100.0  # reward per unit of damage dealt to enemies (a kill: ~+100)
DAMAGE_PENALTY = 100.0  # penalty per unit of damage received
WIN_REWARD = 100.0  # to each agent of the winning team on the deciding step (losers: -)
CLOSING_WEIGHT = 0.1  # 1/m, dense shaping: engagement cost per metre to an enemy
AIM_WEIGHT = 1.0  # 1/rad, dense shaping: engagement cost per radian off the nose
MAX_RELATIVE_SPEED_FACTOR = 2.0  # relative velocities are bounded by this x the max speed
TEAMS = 2


def dogfight_flight_mode(assisted_flight: object, flight_mode: object) -> int:
    """The fixed-wing mode the agents fly: 1 (attitude hold) when assisted, else 0 or -1.

    ``flight_mode=None`` picks 1 when assisted, 0 otherwise; an explicit mode must agree
    with ``assisted_flight``.
    """
    if not isinstance(assisted_flight, (bool, np.bool_)):
        raise TypeError(f"assisted_flight must be a bool, got {assisted_flight!r}")
    allowed = (1,) if assisted_flight else (0, -1)
    if flight_mode is None:
        return allowed[0]
    if isinstance(flight_mode, bool) or flight_mode not in allowed:
        raise ValueError(f"flight_mode must be one of {list(allowed)} (or None) with "
                         f"assisted_flight={bool(assisted_flight)}, got {flight_mode!r}")
    return int(flight_mode)


class MAFixedwingDogfightEnv(MAAviaryEnv):
    """Team 0 (``uav_0`` .. ``uav_<team_size-1>``) against team 1 (the rest), acrowing jets.

    Guns: aircraft i hits enemy j on a physics step when j is within ``lethal_distance`` and
    within ``lethal_angle_radians`` of i's nose (body x axis). Each hit removes
    ``damage_per_hit`` from j's health (1 at spawn). Hits are scored after every aviary step
    (one control period, ``aviary.updates_per_step`` physics steps) from the geometry at its
    end, and count as one hit per physics step of it; with the defaults (120 Hz control,
    240 Hz physics, 30 Hz agents) that is 2 hits per aviary step, 8 per env step. No
    friendly fire. At health 0 the aircraft is destroyed: disarmed at once (it falls, it
    neither shoots nor can be hit), its agent terminates with ``info["dead"]`` and leaves
    ``env.agents``. A crash (any contact) or leaving the dome ends an agent the same way,
    with reward -100. When a team has nobody left the episode ends for every agent with
    ``info["team_win"]`` the other team's index (None for a draw, or while undecided).

    Observation of agent i, a Box: its attitude vector (body rates, quaternion or Euler
    angles, body velocity, position, previous action, surface deflections and throttle),
    its health, then for each other aircraft in index order: position [m] and velocity
    [m/s] relative to i in i's body frame, attitude in i's body frame (quaternion x y z w,
    or Euler), health, ally flag (1 teammate, 0 enemy). A destroyed or crashed aircraft's
    block is zeros except its ally flag.

    Reward per step: +100 per unit of damage dealt (``damage_per_hit`` a hit), -100 per
    unit received, +100 / -100 to the winning / losing team on the deciding step; dense
    adds the decrease of the engagement cost to the best enemy still in play,
    ``min_j(0.1 d_ij + 1.0 angle_ij)`` (d in m, angle off the nose in rad). A failed
    agent's reward is -100 instead.

    Infos per agent: ``health``, ``received_hits`` and ``dealt_hits`` (this step, physics-step
    hits), ``dead``, ``team_win``; plus ``collision`` / ``out_of_bounds`` on failure.

    Args:
        team_size: aircraft per team (default 2).
        assisted_flight: True: attitude hold (mode 1: roll, pitch, yaw rate, throttle);
            False: raw flight (mode 0, or -1 with ``flight_mode=-1``).
        flight_mode: None (follow ``assisted_flight``) or a mode consistent with it.
        spawn_height: nominal spawn altitude [m].
        spawn_radius: distance of each team's nominal spawn line from the origin [m]; team 0
            at -x heading +x, team 1 at +x heading -x. Each episode every aircraft is moved
            by up to 3 m per axis and 0.2 rad of heading, drawn from the env's generator.
        damage_per_hit: health removed per physics-step hit.
        lethal_distance: range of the guns [m].
        lethal_angle_radians: half-angle of the lethal cone [rad], in (0, pi/2).
        drone_options: extra Fixedwing options, merged over ``{"drone_model": "acrowing"}``.
        Others: see :class:`~pyflyt_like.envs.ma_aviary_env.MAAviaryEnv` (defaults: dome
        300 m, 60 s, 30 Hz, quaternion, dense reward).
    """

    metadata = {**MAAviaryEnv.metadata, "name": "ma_fixedwing_dogfight_v0"}
    family = FIXEDWING

    def __init__(self, team_size: int = 2, assisted_flight: bool = True,
                 flight_mode: int | None = None, angle_representation: str = "quaternion",
                 sparse_reward: bool = False, agent_hz: int = 30,
                 max_duration_seconds: float = 60.0, flight_dome_size: float = 300.0,
                 spawn_height: float = 30.0, spawn_radius: float = 40.0,
                 damage_per_hit: float = 0.003, lethal_distance: float = 20.0,
                 lethal_angle_radians: float = 0.07, render_mode: str | None = None,
                 render_resolution=(480, 480), drone_options: dict[str, Any] | None = None):
        self.team_size = check_positive_int("team_size", team_size)
        mode = dogfight_flight_mode(assisted_flight, flight_mode)
        self.assisted_flight = bool(assisted_flight)
        self.damage_per_hit = check_positive_float("damage_per_hit", damage_per_hit)
        self.lethal_distance = check_positive_float("lethal_distance", lethal_distance)
        self.lethal_angle_radians = check_positive_float("lethal_angle_radians",
                                                         lethal_angle_radians)
        if self.lethal_angle_radians >= math.pi / 2:
            raise ValueError(f"lethal_angle_radians must be in (0, pi/2), got "
                             f"{lethal_angle_radians!r}")
        self.spawn_height = check_positive_float("spawn_height", spawn_height)
        if self.spawn_height <= SPAWN_POSITION_JITTER:
            raise ValueError(f"spawn_height must exceed the spawn jitter "
                             f"{SPAWN_POSITION_JITTER} m, got {spawn_height!r}")
        self.spawn_radius = check_positive_float("spawn_radius", spawn_radius)
        dome = check_positive_float("flight_dome_size", flight_dome_size)
        if drone_options is not None and not isinstance(drone_options, dict):
            raise TypeError(f"drone_options must be a dict, got {drone_options!r}")

        self.team = np.repeat(np.arange(TEAMS), self.team_size)
        self._enemies = self.team[:, None] != self.team[None, :]
        self._allies = (~self._enemies).astype(np.float64)
        start_pos, start_orn = self._formation(None)
        farthest = np.linalg.norm(np.abs(start_pos) + SPAWN_POSITION_JITTER, axis=1).max()
        if farthest >= dome:
            raise ValueError(f"spawn points reach {farthest:.1f} m from the origin, outside "
                             f"flight_dome_size={dome:g} m: lower spawn_radius/spawn_height "
                             "or enlarge the dome")
        super().__init__(start_pos=start_pos, start_orn=start_orn, flight_mode=mode,
                         angle_representation=angle_representation,
                         sparse_reward=sparse_reward, agent_hz=agent_hz,
                         max_duration_seconds=max_duration_seconds, flight_dome_size=dome,
                         render_mode=render_mode, render_resolution=render_resolution,
                         drone_options={"drone_model": "acrowing", **(drone_options or {})})

        n = self.num_drones
        self._rotations = np.zeros((n, 3, 3))
        self._forwards = np.zeros((n, 3))
        self._velocities = np.zeros((n, 3))
        self._quaternions = np.zeros((n, 4))
        self._others = [np.delete(np.arange(n), i) for i in range(n)]
        self.hits_received_total = np.zeros(n, dtype=np.int64)
        self.health = np.ones(n)
        self._step_received = np.zeros(n, dtype=np.int64)
        self._step_dealt = np.zeros(n, dtype=np.int64)
        self.team_win: int | None = None
        self._distance_sq = self._ahead = self._previous_cost = np.zeros((n, n))

    # ----------------------------------------------------------------- spawning
    def _formation(self, rng: np.random.Generator | None) -> tuple[np.ndarray, np.ndarray]:
        """(n, 3) spawn positions [m] and Euler angles [rad]; nominal when ``rng`` is None."""
        n = TEAMS * self.team_size
        side = np.where(self.team == 0, -1.0, 1.0)
        lateral = (np.arange(self.team_size) - 0.5 * (self.team_size - 1)) * FORMATION_SPACING
        positions = np.stack((side * self.spawn_radius, np.tile(lateral, TEAMS),
                              np.full(n, self.spawn_height)), axis=1)
        orientations = np.zeros((n, 3))
        orientations[:, 2] = np.where(self.team == 0, 0.0, math.pi)  # face the other team
        if rng is not None:
            positions += rng.uniform(-SPAWN_POSITION_JITTER, SPAWN_POSITION_JITTER, (n, 3))
            orientations[:, 2] += rng.uniform(-SPAWN_YAW_JITTER, SPAWN_YAW_JITTER, n)
        return positions, orientations

    def spawn_poses(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return self._formation(rng)

    # ----------------------------------------------------------------- observation
    def make_observation_space(self, i: int) -> spaces.Box:
        attitude = self.attitudes[i].space
        n_angles = 4 if self.angle_representation == "quaternion" else 3
        angle_bound = 1.0 if n_angles == 4 else math.pi
        reach = 4.0 * self.flight_dome_size  # two aircraft in (or just out of) the dome
        speed = MAX_RELATIVE_SPEED_FACTOR * self.family.max_speed
        block_high = np.concatenate((np.full(3, reach), np.full(3, speed),
                                     np.full(n_angles, angle_bound), (1.0, 1.0)))
        block_low = np.concatenate((-block_high[:-2], (0.0, 0.0)))
        others = self.num_drones - 1
        return spaces.Box(np.concatenate((attitude.low, (0.0,), np.tile(block_low, others))),
                          np.concatenate((attitude.high, (1.0,), np.tile(block_high, others))),
                          dtype=np.float64)

    def observations(self, indices: list[int]) -> list[np.ndarray]:
        for rotation, velocity, quaternion, drone in zip(
                self._rotations, self._velocities, self._quaternions, self.drones):
            rotation[:] = drone.rotation_matrix
            velocity[:] = drone.world_velocity
            quaternion[:] = drone.quaternion
        attitudes = relative_quaternions(self._quaternions)
        if self.angle_representation == "euler":
            attitudes = quaternions_to_euler(attitudes)
        n = self.num_drones
        seen_health = np.where(self.in_play, self.health, 0.0)
        blocks = np.concatenate(
            (body_frame_differences(self.gather_positions(), self._rotations),
             body_frame_differences(self._velocities, self._rotations), attitudes,
             np.broadcast_to(seen_health[None, :, None], (n, n, 1)), self._allies[:, :, None]),
            axis=2)
        blocks[:, ~self.in_play, :-1] = 0.0
        observations = []
        for i in indices:
            space = self._observation_spaces[i]
            observation = np.concatenate((self.attitudes[i].observe(self.actions[i]),
                                          (self.health[i],), blocks[i, self._others[i]].ravel()))
            observations.append(np.clip(observation, space.low, space.high, out=observation))
        return observations

    # ----------------------------------------------------------------- mechanics
    def _update_ranges(self) -> None:
        """Refresh the distances and along-nose offsets between all pairs (for the guns)."""
        for forward, drone in zip(self._forwards, self.drones):
            forward[:] = drone.rotation_matrix[:, 0]
        self._distance_sq, self._ahead = ranges_and_ahead(self.gather_positions(),
                                                          self._forwards)

    def reset_task(self) -> None:
        self.hits_received_total[:] = 0
        self.health[:] = 1.0
        self.team_win = None
        self._update_ranges()
        self._previous_cost = self._engagement_costs()
        for info in self.infos:
            info.update(health=1.0, received_hits=0, dealt_hits=0, dead=False, team_win=None)

    def after_aviary_step(self) -> None:
        self._update_ranges()
        in_play = self.in_play
        can_hit = self._enemies & in_play[:, None] & in_play[None, :]
        hits = hit_matrix(self._distance_sq, self._ahead, self.lethal_distance,
                          self.lethal_angle_radians, can_hit)
        if not hits.any():
            return
        physics_steps = self.aviary.updates_per_step
        received = physics_steps * hits.sum(axis=0)
        self._step_dealt += physics_steps * hits.sum(axis=1)
        self._step_received += received
        self.hits_received_total += received
        np.maximum(1.0 - self.damage_per_hit * self.hits_received_total, 0.0, out=self.health)
        destroyed = in_play & (self.health <= 0.0)
        if destroyed.any():
            self.remove_from_play(destroyed)

    def _engagement_costs(self) -> np.ndarray:
        """(n, n) dense-shaping cost of i engaging j: distance and angle off i's nose."""
        return (CLOSING_WEIGHT * np.sqrt(self._distance_sq)
                + AIM_WEIGHT * aim_angles(self._distance_sq, self._ahead))

    def task_rewards(self) -> np.ndarray:
        in_play = self.in_play
        dealt, received = self._step_dealt, self._step_received
        rewards = self.damage_per_hit * (DAMAGE_REWARD * dealt - DAMAGE_PENALTY * received)
        if not self.sparse_reward:
            cost = self._engagement_costs()
            targets = self._enemies & in_play[None, :]
            # Both costs over the enemies still in play, so a kill does not jump the shaping.
            before = np.where(targets, self._previous_cost, np.inf).min(axis=1)
            after = np.where(targets, cost, np.inf).min(axis=1)
            engaged = targets.any(axis=1)
            rewards[engaged] += before[engaged] - after[engaged]
            self._previous_cost = cost
        standing = [bool(in_play[self.team == t].any()) for t in range(TEAMS)]
        if not all(standing):
            self.episode_over = True
            if any(standing):
                self.team_win = standing.index(True)
                rewards += np.where(self.team == self.team_win, WIN_REWARD, -WIN_REWARD)
        for i, info in enumerate(self.infos):
            info.update(health=float(self.health[i]), received_hits=int(received[i]),
                        dealt_hits=int(dealt[i]), dead=not in_play[i], team_win=self.team_win)
        self._step_dealt[:] = 0
        self._step_received[:] = 0
        return rewards
