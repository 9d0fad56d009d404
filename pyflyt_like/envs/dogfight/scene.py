"""MAFixedwingDogfight: two teams of fixed-wing aircraft shooting at each other."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from gymnasium import spaces

from pyflyt_like.rules import dogfight as rules

from ..base.ma_aviary_env import MAAviaryEnv
from ..base.vehicle_family import FIXEDWING
from . import kernels
from .options import dogfight_options, observation_bounds

TEAMS = rules.TEAMS


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
    Sequence of the (n - 1, 12) blocks (11 with Euler angles), as PyFlyt's.

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
        team_size: aircraft per team (default 2), at most
            :data:`~.options.MAX_TEAM_SIZE` (128).
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
        damage_per_hit: health removed per physics-step hit, in (0, 1].
        lethal_distance: range of the guns [m], in (0, 2 * flight_dome_size].
        lethal_angle_radians: half-angle of the lethal cone [rad], in (0, pi/2).
        drone_options: extra Fixedwing options, merged over ``{"drone_model": "acrowing"}``.
        angle_representation: see :class:`~pyflyt_like.envs.base.ma_aviary_env.MAAviaryEnv`.
        sparse_reward: see :class:`~pyflyt_like.envs.base.ma_aviary_env.MAAviaryEnv`.
        agent_hz: decisions per second (default 30).
        max_duration_seconds: episode length [s] (default 60), in (0, 3600].
        flight_dome_size: radius of the allowed sphere about the origin [m] (default 800),
            at most :data:`~.options.MAX_DOME_SIZE` (100 km).
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
        options = self.options = dogfight_options(
            team_size=team_size, spawn_min_radius=spawn_min_radius,
            spawn_max_radius=spawn_max_radius, spawn_min_height=spawn_min_height,
            spawn_max_height=spawn_max_height, damage_per_hit=damage_per_hit,
            lethal_distance=lethal_distance, lethal_angle_radians=lethal_angle_radians,
            assisted_flight=assisted_flight, aggressiveness=aggressiveness,
            cooperativeness=cooperativeness, sparse_reward=sparse_reward,
            flight_dome_size=flight_dome_size, max_duration_seconds=max_duration_seconds,
            agent_hz=agent_hz, flight_mode=flight_mode,
            angle_representation=angle_representation)
        self.team_size = options.team_size
        self.assisted_flight = options.assisted_flight
        self.damage_per_hit = options.damage_per_hit
        self.lethal_distance = options.lethal_distance
        self.lethal_angle_radians = options.lethal_angle_radians
        self.spawn_radius_range = options.spawn_radius_range
        self.spawn_height_range = options.spawn_height_range
        self.aggressiveness = options.aggressiveness
        self.cooperativeness = options.cooperativeness
        if not isinstance(flatten_observation, (bool, np.bool_)):
            raise TypeError(f"flatten_observation must be a bool, got {flatten_observation!r}")
        self.flatten_observation = bool(flatten_observation)
        if drone_options is not None and not isinstance(drone_options, dict):
            raise TypeError(f"drone_options must be a dict, got {drone_options!r}")

        self.team = options.team
        self._cos_lethal_sq = math.cos(options.lethal_angle_radians) ** 2
        start_pos, start_orn = self._spawn_circle(None)
        super().__init__(start_pos=start_pos, start_orn=start_orn,
                         flight_mode=options.flight_mode,
                         angle_representation=options.angle_representation,
                         sparse_reward=options.sparse_reward, agent_hz=options.agent_hz,
                         max_duration_seconds=options.max_duration_seconds,
                         flight_dome_size=options.flight_dome_size,
                         render_mode=render_mode, render_resolution=render_resolution,
                         drone_options={"drone_model": "acrowing", **(drone_options or {})})

        n = self.num_drones
        self._quaternions = np.zeros((n, 4))
        self._velocities = np.zeros((n, 3))
        self._rates = np.zeros((n, 3))
        self._aux = np.zeros((n, self.drones[0].aux_state.shape[0]))
        self._observations = np.zeros((n, self._observation_low.shape[0]))
        self.hits_received_total = np.zeros(n, dtype=np.int64)
        # (n, n) physics-step hits of aircraft i on j since the reset (replays need the pairs)
        self.pair_hits_total = np.zeros((n, n), dtype=np.int64)
        self.health = np.ones(n)
        self._step_received = np.zeros(n, dtype=np.int64)
        self._step_dealt = np.zeros(n, dtype=np.int64)
        self._no_failures = np.zeros(n, bool)
        self._rewards = np.zeros(n)
        self.team_win: int | None = None
        self._previous_cost, self._cost = np.zeros((n, n)), np.zeros((n, n))

    # ----------------------------------------------------------------- spawning
    def _spawn_circle(self, rng: np.random.Generator | None
                      ) -> tuple[np.ndarray, np.ndarray]:
        """(n, 3) spawn positions [m] and Euler angles [rad], heading outwards.

        Drawn from ``rng`` (bearings, then radii, then heights:
        :func:`pyflyt_like.rules.dogfight.spawn_on_circle`); without one (the nominal poses
        the aviary is built with), evenly spaced bearings at the middle radius and height.
        """
        n = TEAMS * self.team_size
        if rng is None:
            uniforms = np.stack((np.arange(n) / n, np.full(n, 0.5), np.full(n, 0.5)))
        else:
            uniforms = rng.uniform(0.0, 1.0, (3, n))
        positions, orientations = np.zeros((n, 3)), np.zeros((n, 3))
        kernels.spawn_on_circle(uniforms, *self.spawn_radius_range, *self.spawn_height_range,
                                positions, orientations)
        return positions, orientations

    def spawn_poses(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return self._spawn_circle(rng)

    # ----------------------------------------------------------------- observation
    def make_observation_space(self, i: int) -> spaces.Box:
        if i == 0:
            mapping = self.action_mappings[0]
            aux_low, aux_high = self.family.aux_bounds(self.drones[0])
            self._observation_low, self._observation_high = observation_bounds(
                self.options, mapping.space.low, mapping.space.high, aux_low, aux_high)
        flat = spaces.Box(self._observation_low, self._observation_high, dtype=np.float64)
        if self.flatten_observation:
            return flat
        own = self.attitudes[i].size + 1
        block = (self._observation_low.shape[0] - own) // (self.num_drones - 1)
        return spaces.Dict({
            "self": spaces.Box(flat.low[:own], flat.high[:own], dtype=np.float64),
            "others": spaces.Sequence(spaces.Box(flat.low[own:own + block],
                                                 flat.high[own:own + block],
                                                 dtype=np.float64), stack=True),
        })

    def _gather(self) -> None:
        """Refresh the (n, ...) state arrays the rules read from the vehicles."""
        for i, drone in enumerate(self.drones):
            self.positions[i] = drone.state[3]
            self._rates[i] = drone.state[0]
            self._quaternions[i] = drone.quaternion
            self._velocities[i] = drone.world_velocity
            self._aux[i] = drone.aux_state

    def observations(self, indices: list[int]) -> list[np.ndarray]:
        self._gather()
        kernels.observe(self.positions, self._quaternions, self._velocities, self._rates,
                        self._aux, self.actions, self.health, self.in_play, self.team,
                        self.angle_representation == "quaternion", self._observation_low,
                        self._observation_high, self._observations)
        if self.flatten_observation:
            return [self._observations[i].copy() for i in indices]
        own = self.attitudes[0].size + 1
        block = (self._observations.shape[1] - own) // (self.num_drones - 1)
        return [{"self": self._observations[i, :own].copy(),
                 "others": self._observations[i, own:].reshape(-1, block).copy()}
                for i in indices]

    # ----------------------------------------------------------------- mechanics
    def _gather_poses(self) -> None:
        for i, drone in enumerate(self.drones):
            self.positions[i] = drone.state[3]
            self._quaternions[i] = drone.quaternion

    def reset_task(self) -> None:
        self.hits_received_total[:] = 0
        self.pair_hits_total[:] = 0
        self.health[:] = 1.0
        self.team_win = None
        self._gather_poses()
        kernels.engagement_costs(self.positions, self._quaternions, self._previous_cost)
        for info in self.infos:
            info.update(health=1.0, received_hits=0, dealt_hits=0, dead=False, team_win=None)

    def after_aviary_step(self) -> None:
        self._gather_poses()
        in_play = self.in_play
        was_in_play = in_play.copy()
        destroyed = kernels.score_hits(
            self.positions, self._quaternions, self.team, in_play, self.lethal_distance,
            self._cos_lethal_sq, self.aviary.updates_per_step, self.damage_per_hit,
            self._step_dealt, self._step_received, self.hits_received_total,
            self.pair_hits_total, self.health)
        if destroyed:
            in_play[:] = was_in_play  # remove_from_play takes them out (and disarms them)
            self.remove_from_play(was_in_play & (self.health <= 0.0))

    def task_rewards(self) -> np.ndarray:
        in_play = self.in_play
        dealt, received = self._step_dealt, self._step_received
        self._gather_poses()
        kernels.engagement_costs(self.positions, self._quaternions, self._cost)
        # the failure penalty replaces a failed agent's reward in the base class
        winner = kernels.step_rewards(dealt, received, self.team, in_play, self._no_failures,
                                      self._previous_cost, self._cost, self.damage_per_hit,
                                      self.aggressiveness, self.cooperativeness,
                                      self.sparse_reward, self._rewards)
        if not self.sparse_reward:
            self._previous_cost[:] = self._cost
        if winner != rules.UNDECIDED:
            self.episode_over = True
            self.team_win = winner if winner != rules.DRAW else None
        for i, info in enumerate(self.infos):
            info.update(health=float(self.health[i]), received_hits=int(received[i]),
                        dealt_hits=int(dealt[i]), dead=not in_play[i], team_win=self.team_win)
        self._step_dealt[:] = 0
        self._step_received[:] = 0
        return self._rewards.copy()
