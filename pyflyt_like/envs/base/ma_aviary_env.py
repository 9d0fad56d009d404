"""MAAviaryEnv: the PettingZoo ParallelEnv machinery the multi-agent scenes share.

One :class:`~pyflyt_like.core.Aviary` holds every agent's vehicle; it is built in
``__init__`` and reset, never rebuilt, each episode. Agent ``"uav_<i>"`` flies drone ``i``.
An agent whose vehicle crashes or leaves the flight dome gets ``FAILURE_PENALTY``, is
terminated on that step and leaves ``env.agents``; its vehicle is disarmed (it falls and
lies where it lands). A scene subclass sets the vehicle family and adds its spawn rule,
observation and reward through the hooks at the bottom of this class.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pybullet
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from pyflyt_like.common.validation import as_float_array

from .attitude_observation import AttitudeObserver, check_angle_representation
from .env_common import FAILURE_PENALTY, AviaryEnvCommon
from .rendering import RENDER_MODES


class MAAviaryEnv(AviaryEnvCommon, ParallelEnv):
    """Base of the multi-agent scenes: ``n`` agents, one vehicle each, in one aviary.

    Args:
        start_pos: (n, 3) nominal spawn positions [m]; n is the number of agents.
        start_orn: (n, 3) nominal spawn Euler angles [rad].
        flight_mode: the flight mode every agent commands.
        angle_representation: "quaternion" or "euler" in the attitude observation.
        sparse_reward: reward only task events instead of dense shaping.
        agent_hz: decisions per second; must divide the vehicles' control rate.
        max_duration_seconds: episode length before truncation [s].
        flight_dome_size: radius of the allowed sphere around the origin [m].
        render_mode: None, "human" (PyBullet GUI, real time) or "rgb_array".
        render_resolution: (height, width) of rgb_array frames [px]; None for (480, 480).
            Given with another render mode it has no effect, and a UserWarning says so.
        spawn_jitter: half-width of the uniform spawn perturbation per axis, in metres for
            position and radians for attitude (used by the default :meth:`spawn_poses`).
        drone_options: extra options for every vehicle's constructor.
    """

    metadata = {"name": "ma_aviary_v0", "render_modes": list(RENDER_MODES),
                "is_parallelizable": True, "render_fps": 30}

    def __init__(self, *, start_pos, start_orn, flight_mode: int, angle_representation: str,
                 sparse_reward: bool, agent_hz: int, max_duration_seconds: float,
                 flight_dome_size: float, render_mode: str | None,
                 render_resolution=None, spawn_jitter: float = 0.0,
                 drone_options: dict[str, Any] | None = None):
        self.check_common_options(sparse_reward=sparse_reward, render_mode=render_mode,
                                  flight_dome_size=flight_dome_size,
                                  max_duration_seconds=max_duration_seconds,
                                  spawn_jitter=spawn_jitter, drone_options=drone_options)
        self.warn_unused_render_resolution(render_resolution)
        self.start_pos = as_float_array("start_pos", start_pos, (None, 3))
        if self.start_pos.shape[0] == 0:
            raise ValueError("start_pos must hold at least one position, got shape (0, 3)")
        self.start_orn = as_float_array("start_orn", start_orn, (self.start_pos.shape[0], 3))
        self.angle_representation = check_angle_representation(angle_representation)
        # One mapping (and so one action space object) per agent: seeding one agent's
        # space must not change another's samples.
        self.action_mappings = [self.family.action_mapping(flight_mode, self.flight_dome_size)
                                for _ in range(self.start_pos.shape[0])]
        self.flight_mode = int(flight_mode)
        self.open_aviary(self.start_pos, self.start_orn, drone_options,
                         lambda: self._build(agent_hz, render_resolution))
        self._np_random: np.random.Generator | None = None

    def _build(self, agent_hz: int, render_resolution) -> None:
        """Everything after the aviary exists: agents, rates, spaces, task bodies, camera."""
        drones = self.drones = self.aviary.drones
        n = self.num_drones = len(drones)
        self.possible_agents = [f"uav_{i}" for i in range(n)]
        self.agent_index = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.agents: list[str] = []
        self.set_agent_rate(agent_hz, drones[0].control_hz)

        self.aviary.set_mode(self.flight_mode)
        self.actions = np.zeros((n, self.action_mappings[0].size))
        family = self.family
        self.attitudes = [
            AttitudeObserver(drone, self.angle_representation, mapping.space, family.max_rate,
                             family.max_speed, 2.0 * self.flight_dome_size,
                             *family.aux_bounds(drone))
            for drone, mapping in zip(drones, self.action_mappings)]

        self.add_task_bodies()
        self.aviary.register_all_new_bodies()
        self._drone_ids = np.array([drone.Id for drone in drones])
        self._crash_bodies = np.ones(self.aviary.contact_array.shape[0], dtype=bool)
        self._crash_bodies[list(self.harmless_contacts())] = False
        self._observation_spaces = [self.make_observation_space(i) for i in range(n)]

        self.in_play = np.zeros(n, dtype=bool)
        self.crashed = np.zeros(n, dtype=bool)
        self.positions = np.zeros((n, 3))
        self.step_count = 0
        self.episode_over = False
        self.infos: list[dict[str, Any]] = [{} for _ in range(n)]
        self.make_render_camera(drones[0], render_resolution)

    # ----------------------------------------------------------------- PettingZoo API
    def observation_space(self, agent: str) -> spaces.Box:
        """The observation space of ``agent`` (the same object on every call)."""
        return self._observation_spaces[self._index(agent)]

    def action_space(self, agent: str) -> spaces.Box:
        """The normalised action space of ``agent`` (the same object on every call)."""
        return self.action_mappings[self._index(agent)].space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start an episode with every agent in play, in the same world.

        ``seed`` reseeds the env's generator, which draws the spawn poses and seeds the
        aviary, so one seed fixes the whole episode. ``options`` is accepted and unused.

        Returns:
            (observations, infos): dicts keyed by agent.
        """
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        rng = self._np_random
        positions, orientations = self.spawn_poses(rng)
        for drone, position, orientation in zip(self.drones, positions, orientations):
            drone.start_pos = np.array(position, dtype=np.float64)
            drone.start_orn = pybullet.getQuaternionFromEuler(orientation.tolist())
        self.aviary.reset(seed=int(rng.integers(2**31)))
        self.step_count = 0
        self.actions[:] = 0.0
        self.in_play[:] = True
        self.episode_over = False
        self.agents = list(self.possible_agents)
        self.infos = [{} for _ in range(self.num_drones)]
        self.reset_task()
        indices = list(range(self.num_drones))
        observations = self.observations(indices)
        return ({agent: observations[i] for i, agent in enumerate(self.agents)},
                {agent: self.infos[i] for i, agent in enumerate(self.agents)})

    def step(self, actions: dict[str, Any]):
        """Apply every live agent's action for one agent period.

        Args:
            actions: agent -> normalised action; every agent in ``env.agents`` needs one
                (actions of agents already gone are ignored).

        Returns:
            (observations, rewards, terminations, truncations, infos): dicts keyed by the
            agents that were live at the start of the step; infos are new dicts.
        """
        if not isinstance(actions, dict):
            raise TypeError(f"actions must be a dict agent -> action, got {actions!r}")
        if not self.agents:
            raise RuntimeError("step() called with no live agents; call reset() first")
        unknown = sorted(str(a) for a in actions if a not in self.agent_index)
        if unknown:
            raise ValueError(f"actions has unknown agents {unknown}; agents are "
                             f"{self.possible_agents}")
        live = [self.agent_index[agent] for agent in self.agents]
        for i in live:
            self._apply_action(i, actions.get(self.possible_agents[i]))

        aviary, crashed = self.aviary, self.crashed
        crashed[:] = False
        for _ in range(self.aviary_steps_per_action):
            aviary.step()
            touched = aviary.contact_array[self._drone_ids] & self._crash_bodies
            np.logical_or(crashed, touched.any(axis=1), out=crashed)
            self.after_aviary_step()
        self.step_count += 1

        self.infos = [{} for _ in range(self.num_drones)]
        failed = self._fail_crashed_and_lost()
        rewards = self.task_rewards()
        rewards[failed] = FAILURE_PENALTY
        truncated = self.step_count >= self.max_steps
        observations = self.observations(live)

        result: tuple[dict, dict, dict, dict, dict] = ({}, {}, {}, {}, {})
        for k, i in enumerate(live):
            agent = self.possible_agents[i]
            terminated = self.episode_over or not self.in_play[i]
            for out, value in zip(result, (observations[k], float(rewards[i]), terminated,
                                           truncated, self.infos[i])):
                out[agent] = value
        terminations, truncations = result[2], result[3]
        self.agents = [a for a in self.agents if not (terminations[a] or truncations[a])]
        return result

    # ----------------------------------------------------------------- shared tools
    def _index(self, agent: str) -> int:
        try:
            return self.agent_index[agent]
        except (KeyError, TypeError):
            raise ValueError(f"agent must be one of {self.possible_agents}, got "
                             f"{agent!r}") from None

    def _apply_action(self, i: int, action) -> None:
        """Clip agent ``i``'s action into ``self.actions[i]`` and command its vehicle."""
        agent = self.possible_agents[i]
        if action is None:
            raise ValueError(f"actions has no action for live agent {agent!r}")
        mapping = self.action_mappings[i]
        action = mapping.check(f"actions[{agent!r}]", action)
        stored = self.actions[i]
        np.clip(action, mapping.space.low, mapping.space.high, out=stored)
        self.drones[i].set_setpoint(mapping.to_setpoint(stored))

    def _fail_crashed_and_lost(self) -> np.ndarray:
        """Take crashed and out-of-dome vehicles out of play; return the (n,) failed mask."""
        collided = self.crashed & self.in_play
        lost = self.out_of_bounds() & self.in_play & ~collided
        for reason, mask in (("collision", collided), ("out_of_bounds", lost)):
            for i in np.flatnonzero(mask):
                self.infos[i][reason] = True
        failed = collided | lost
        if failed.any():
            self.remove_from_play(failed)
        return failed

    def gather_positions(self) -> np.ndarray:
        """Fill and return ``self.positions`` (n, 3) [m] (stale for disarmed vehicles)."""
        for row, drone in zip(self.positions, self.drones):
            row[:] = drone.state[3]
        return self.positions

    def out_of_bounds(self) -> np.ndarray:
        """(n,) True where a vehicle is outside the flight dome (a sphere about the origin)."""
        positions = self.gather_positions()
        return np.einsum("ij,ij->i", positions, positions) > self.flight_dome_size ** 2

    def remove_from_play(self, mask: np.ndarray) -> None:
        """Take the vehicles in ``mask`` (n,) out of play: they are disarmed and their agents
        terminate at the end of this step."""
        self.in_play &= ~mask
        self.aviary.set_armed(self.in_play)

    # ----------------------------------------------------------------- scene hooks
    def spawn_poses(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """This episode's (n, 3) spawn positions [m] and Euler angles [rad].

        Default: the nominal poses, each coordinate moved uniformly by +-``spawn_jitter``.
        """
        jitter = self.spawn_jitter
        shape = self.start_pos.shape
        return (self.start_pos + rng.uniform(-jitter, jitter, shape),
                self.start_orn + rng.uniform(-jitter, jitter, shape))

    def add_task_bodies(self) -> None:
        """Load the scene's own bodies into ``self.aviary``."""

    def harmless_contacts(self) -> list[int]:
        """Body ids a vehicle may touch without crashing (default: none)."""
        return []

    def make_observation_space(self, i: int) -> spaces.Box:
        """Observation space of agent ``i`` (default: its attitude vector)."""
        return self.attitudes[i].space

    def reset_task(self) -> None:
        """Set up the scene for a new episode (after the world has been reset)."""

    def after_aviary_step(self) -> None:
        """Called after every aviary step inside an env step (e.g. to score hits)."""

    def observations(self, indices: list[int]) -> list[np.ndarray]:
        """New observations of the agents ``indices`` (default: their attitude vectors)."""
        return [self.attitudes[i].observe(self.actions[i]) for i in indices]

    def task_rewards(self) -> np.ndarray:
        """(n,) rewards of this step, before the failure penalty replaces a failed agent's.

        Runs after crashed and lost vehicles left play; may fill ``self.infos[i]`` and set
        ``self.episode_over`` to end the episode for every agent.
        """
        raise NotImplementedError
