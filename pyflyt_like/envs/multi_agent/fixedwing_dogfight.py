"""MAFixedwingDogfight: two teams of fixed-wing aircraft shooting at each other."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from gymnasium import spaces

from pyflyt_like.common.angles import quaternions_to_euler
from pyflyt_like.common.validation import (
    check_bool,
    check_finite,
    check_positive_float,
    check_positive_int,
)

from ..base.ma_aviary_env import MAAviaryEnv
from ..base.vehicle_family import FIXEDWING
from .dogfight_rules import (
    aim_angles,
    body_frame_differences,
    hit_matrix,
    ranges_and_ahead,
    relative_quaternions,
)

DAMAGE_REWARD = 100.0  # reward per unit of damage (a kill: ~100), see the class docstring
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

    Observation of agent i (``flatten_observation=True``, the default), a Box: its attitude
    vector (body rates, quaternion or Euler angles, body velocity, position, previous
    action, surface deflections and throttle),
    its health, then for each other aircraft in index order: position [m] and velocity
    [m/s] relative to i in i's body frame, attitude in i's body frame (quaternion x y z w,
    or Euler), health, ally flag (1 teammate, 0 enemy). A destroyed or crashed aircraft's
    block is zeros except its ally flag. With ``flatten_observation=False`` the same numbers
    come as a Dict: ``"self"`` (attitude vector and health) and ``"others"``, a stacked
    Sequence of the (n - 1, 14) blocks (13 with Euler angles), as PyFlyt's.

    Spawn (PyFlyt's rule): each episode every aircraft starts on a circle about the origin,
    at a bearing drawn uniformly in [0, 2 pi), a radius in [``spawn_min_radius``,
    ``spawn_max_radius``] and a height in [``spawn_min_height``, ``spawn_max_height``], all
    from the env's generator, heading outwards (yaw = bearing), at the model's starting speed.

    Reward per step, with a = ``aggressiveness`` and c = ``cooperativeness`` (both in [0, 1]):
    ``100 * damage_per_hit * (dealt_i - (1 - a) received_i)`` for the agent's own hits, plus
    c times the same sum over its teammates (a shared team reward), +100 / -100 to the
    winning / losing team on the deciding step. Dense adds the decrease of the agent's
    engagement cost to the best enemy still in play, ``min_j(0.1 d_ij + 1.0 angle_ij)`` (d in
    m, angle off the nose in rad), minus (1 - a) times the decrease of the best enemy's
    cost to engage the agent (being lined up costs). So a = 1 ignores incoming fire, a = 0
    weighs it as much as one's own; c = 0 is selfish, c = 1 counts every teammate's hits as
    one's own. A failed agent's reward is -100 instead.

    Infos per agent: ``health``, ``received_hits`` and ``dealt_hits`` (this step, physics-step
    hits), ``dead``, ``team_win``; plus ``collision`` / ``out_of_bounds`` on failure.

    Args:
        team_size: aircraft per team (default 2).
        assisted_flight: True: attitude hold (mode 1: roll, pitch, yaw rate, throttle);
            False: raw flight (mode 0, or -1 with ``flight_mode=-1``).
        flight_mode: None (follow ``assisted_flight``) or a mode consistent with it.
        spawn_min_radius: smallest spawn distance from the z axis [m], >= 0.
        spawn_max_radius: largest spawn distance from the z axis [m].
        spawn_min_height: lowest spawn altitude [m], > 0.
        spawn_max_height: highest spawn altitude [m].
        aggressiveness: in [0, 1]; 1 - aggressiveness weighs damage received and being
            aimed at against damage dealt (see Reward).
        cooperativeness: in [0, 1]; the weight of teammates' hits in an agent's reward.
        flatten_observation: True, one Box per agent; False, a Dict (see Observation).
        damage_per_hit: health removed per physics-step hit.
        lethal_distance: range of the guns [m].
        lethal_angle_radians: half-angle of the lethal cone [rad], in (0, pi/2).
        drone_options: extra Fixedwing options, merged over ``{"drone_model": "acrowing"}``.
        angle_representation: see :class:`~pyflyt_like.envs.base.ma_aviary_env.MAAviaryEnv`.
        sparse_reward: see :class:`~pyflyt_like.envs.base.ma_aviary_env.MAAviaryEnv`.
        agent_hz: decisions per second (default 30).
        max_duration_seconds: episode length [s] (default 60).
        flight_dome_size: radius of the allowed sphere about the origin [m] (default 800).
        render_mode: see :class:`~pyflyt_like.envs.base.ma_aviary_env.MAAviaryEnv`.
        render_resolution: see :class:`~pyflyt_like.envs.base.ma_aviary_env.MAAviaryEnv`.
    """

    metadata = {**MAAviaryEnv.metadata, "name": "ma_fixedwing_dogfight_v0"}
    family = FIXEDWING

    def __init__(self, team_size: int = 2, spawn_min_radius: float = 10.0,
                 spawn_max_radius: float = 50.0, spawn_min_height: float = 20.0,
                 spawn_max_height: float = 50.0, damage_per_hit: float = 0.003,
                 lethal_distance: float = 20.0, lethal_angle_radians: float = 0.07,
                 assisted_flight: bool = True, aggressiveness: float = 0.5,
                 cooperativeness: float = 0.5, sparse_reward: bool = False,
                 flatten_observation: bool = True, flight_dome_size: float = 800.0,
                 max_duration_seconds: float = 60.0, agent_hz: int = 30,
                 render_mode: str | None = None, flight_mode: int | None = None,
                 angle_representation: str = "quaternion", render_resolution=None,
                 drone_options: dict[str, Any] | None = None):
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
        self.spawn_radius_range = _check_range("spawn_min_radius", spawn_min_radius,
                                               "spawn_max_radius", spawn_max_radius, 0.0)
        self.spawn_height_range = _check_range("spawn_min_height", spawn_min_height,
                                               "spawn_max_height", spawn_max_height, None)
        self.aggressiveness = _check_weight("aggressiveness", aggressiveness)
        self.cooperativeness = _check_weight("cooperativeness", cooperativeness)
        self.flatten_observation = check_bool("flatten_observation", flatten_observation)
        dome = check_positive_float("flight_dome_size", flight_dome_size)
        farthest = math.hypot(self.spawn_radius_range[1], self.spawn_height_range[1])
        if farthest >= dome:
            raise ValueError(f"spawn points reach {farthest:.1f} m from the origin, outside "
                             f"flight_dome_size={dome:g} m: lower spawn_max_radius/"
                             "spawn_max_height or enlarge the dome")
        if drone_options is not None and not isinstance(drone_options, dict):
            raise TypeError(f"drone_options must be a dict, got {drone_options!r}")

        self.team = np.repeat(np.arange(TEAMS), self.team_size)
        self._enemies = self.team[:, None] != self.team[None, :]
        self._allies = (~self._enemies).astype(np.float64)
        start_pos, start_orn = self._spawn_circle(None)
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
        # (n, n) physics-step hits of aircraft i on j since the reset (replays need the pairs)
        self.pair_hits_total = np.zeros((n, n), dtype=np.int64)
        self.health = np.ones(n)
        self._step_received = np.zeros(n, dtype=np.int64)
        self._step_dealt = np.zeros(n, dtype=np.int64)
        self.team_win: int | None = None
        self._distance_sq = self._ahead = self._previous_cost = np.zeros((n, n))

    # ----------------------------------------------------------------- spawning
    def _spawn_circle(self, rng: np.random.Generator | None
                      ) -> tuple[np.ndarray, np.ndarray]:
        """(n, 3) spawn positions [m] and Euler angles [rad], heading outwards.

        Drawn from ``rng``; without one (the nominal poses the aviary is built with), evenly
        spaced bearings at the middle radius and height.
        """
        n = TEAMS * self.team_size
        if rng is None:
            bearings = 2.0 * math.pi * np.arange(n) / n
            radii = np.full(n, np.mean(self.spawn_radius_range))
            heights = np.full(n, np.mean(self.spawn_height_range))
        else:
            bearings = rng.uniform(0.0, 2.0 * math.pi, n)
            radii = rng.uniform(*self.spawn_radius_range, n)
            heights = rng.uniform(*self.spawn_height_range, n)
        positions = np.stack((radii * np.cos(bearings), radii * np.sin(bearings), heights),
                             axis=1)
        orientations = np.zeros((n, 3))
        orientations[:, 2] = bearings
        return positions, orientations

    def spawn_poses(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return self._spawn_circle(rng)

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
        self._flat_spaces = getattr(self, "_flat_spaces", {})
        flat = self._flat_spaces[i] = spaces.Box(
            np.concatenate((attitude.low, (0.0,), np.tile(block_low, others))),
            np.concatenate((attitude.high, (1.0,), np.tile(block_high, others))),
            dtype=np.float64)
        if self.flatten_observation:
            return flat
        own = attitude.shape[0] + 1
        return spaces.Dict({
            "self": spaces.Box(flat.low[:own], flat.high[:own], dtype=np.float64),
            "others": spaces.Sequence(spaces.Box(block_low, block_high, dtype=np.float64),
                                      stack=True),
        })

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
            space = self._flat_spaces[i]
            observation = np.concatenate((self.attitudes[i].observe(self.actions[i]),
                                          (self.health[i],), blocks[i, self._others[i]].ravel()))
            np.clip(observation, space.low, space.high, out=observation)
            if not self.flatten_observation:
                own = observation.shape[0] - blocks.shape[2] * (n - 1)
                observation = {"self": observation[:own],
                               "others": observation[own:].reshape(n - 1, blocks.shape[2])}
            observations.append(observation)
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
        self.pair_hits_total[:] = 0
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
        self.pair_hits_total += physics_steps * hits
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
        caution = 1.0 - self.aggressiveness
        own = DAMAGE_REWARD * self.damage_per_hit * (dealt - caution * received)
        team_total = np.bincount(self.team, weights=own, minlength=TEAMS)[self.team]
        rewards = own + self.cooperativeness * (team_total - own)
        if not self.sparse_reward:
            cost = self._engagement_costs()
            targets = self._enemies & in_play[None, :]
            # Both costs over the enemies still in play, so a kill does not jump the shaping.
            rewards += _best_decrease(self._previous_cost, cost, targets)
            # The same for the enemies' costs of engaging each agent (columns): a threat.
            rewards -= caution * _best_decrease(self._previous_cost.T, cost.T, targets)
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


def _best_decrease(before: np.ndarray, after: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(n,) decrease of the row minimum over ``mask`` from ``before`` to ``after`` (n, n);
    0 for rows with nothing masked in."""
    engaged = mask.any(axis=1)
    decrease = np.zeros(mask.shape[0])
    decrease[engaged] = (np.where(mask, before, np.inf).min(axis=1)[engaged]
                         - np.where(mask, after, np.inf).min(axis=1)[engaged])
    return decrease


def _check_weight(name: str, value: object) -> float:
    weight = check_finite(name, value)
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"{name} must be within [0, 1], got {value!r}")
    return weight


def _check_range(low_name: str, low: object, high_name: str, high: object,
                 floor: float | None) -> tuple[float, float]:
    """(low, high) of a spawn range: finite, ``low <= high``, ``low >= floor`` (``None``:
    ``low > 0``)."""
    low_value, high_value = check_finite(low_name, low), check_finite(high_name, high)
    if (low_value < floor) if floor is not None else (low_value <= 0.0):
        bound = f">= {floor:g}" if floor is not None else "> 0"
        raise ValueError(f"{low_name} must be {bound} m, got {low!r}")
    if high_value < low_value:
        raise ValueError(f"{high_name} ({high!r}) must be >= {low_name} ({low!r})")
    return low_value, high_value
