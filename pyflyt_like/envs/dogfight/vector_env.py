"""``Dogfight-v0``: the fixed-wing dogfight as a native VectorEnv on the batched engine."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from pyflyt_like.batch import BatchedAviary
from pyflyt_like.batch.world_random import world_streams
from pyflyt_like.common.rates import DEFAULT_PHYSICS_HZ
from pyflyt_like.common.validation import as_float_array, check_agent_hz, check_positive_int

from ..base.fused_vector_env import FusedVectorEnv
from ..base.task_memory import check_task_memory, engine_family, num_envs_text
from ..base.vector_seeding import checked_vector_seed, seed_vector_env
from ..base.vehicle_actions import fixedwing_action_mapping
from . import kernels
from .options import dogfight_options, observation_bounds

PHYSICS_HZ = DEFAULT_PHYSICS_HZ  # the PettingZoo scene's (the Aviary's default)
OPPONENTS = ("self", "scripted")
DRONE_MODELS = ("acrowing", "fixedwing")
#: Observations per env that a step with an opponent builds for a moment (its inputs and
#: the scripted pilot's temporaries), in the memory estimate.
OPPONENT_OBSERVATIONS = 3


class DogfightVectorEnv(FusedVectorEnv):
    """Fixed-wing dogfights in ``W`` batched worlds; each env is one aircraft of the
    learning side.

    The rules, spaces and options are :class:`~pyflyt_like.envs.MAFixedwingDogfightEnv`'s
    (one implementation: :mod:`pyflyt_like.rules.dogfight`), with its defaults; one
    compiled call per :meth:`step` flies every world (actions, physics, guns, endings,
    rewards, observations, autoreset).

    ``opponent="self"``: every aircraft of every world is an env (shared-parameter
    self-play), ``num_envs = W * 2 * team_size``; env ``w * 2 * team_size + i`` is aircraft
    ``i`` of world ``w`` (team 0 first). ``opponent="scripted"`` (a
    :class:`~pyflyt_like.envs.PursuitPilot`) or a callable mapping the opponents'
    observations (N, obs) to actions (N, act): team 1 is flown by it and the envs are team
    0's aircraft, ``num_envs = W * team_size``.

    Episodes are the world's: an episode ends for every env of a world when a team has no
    aircraft left in play (terminated) or at ``max_duration_seconds`` (truncated), and the
    world restarts on the next step (``NEXT_STEP`` autoreset: that step ignores the
    world's actions and returns reward 0). An aircraft destroyed, crashed or out of the
    dome before its world's end stays out of play: its env returns reward 0 and
    ``info["dead"]`` True until then (PettingZoo's agent would have left).

    Infos, arrays over the envs with ``_key`` masks: ``health``, ``received_hits``
    (physics-step hits this step), ``dead`` (out of play), every step; ``team_win``
    (0 or 1; -1: nobody won, a draw or the time limit) on a world's last step only
    (``_team_win`` marks them).

    Differences from the PyBullet scene, by design: the batched engine's floor is the only
    contact (aircraft do not collide with each other); an aircraft out of play glides with
    its motor off instead of being frozen; each world draws its spawn from its own stream.

    Args:
        num_envs: W * 2 * team_size (self-play) or W * team_size; the env's arrays (its
            observations and spaces grow with num_envs x team_size) and the engine's must
            fit in half this machine's memory together, else a ValueError gives the
            estimate before anything is allocated.
        opponent: "self", "scripted" or a callable (see above).
        drone_model: "acrowing" (the scene's) or "fixedwing".
        seed: seed of the first reset if ``reset`` gets none.
        **options: the scene's options (:func:`~.options.dogfight_options`).

    Raises:
        TypeError, ValueError: a bad argument, naming it.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 2, opponent: str | Callable = "self",
                 drone_model: str = "acrowing", seed: int | None = None,
                 render_mode: None = None, **options: Any):
        if render_mode is not None:
            raise ValueError(f"render_mode must be None (Dogfight-v0 does not render; record "
                             f"a replay, docs/tacview.md), got {render_mode!r}")
        self.render_mode = None
        options = self.options = dogfight_options(**options)
        num_envs = check_positive_int("num_envs", num_envs)
        if not (opponent in OPPONENTS if isinstance(opponent, str) else callable(opponent)):
            raise ValueError(f"opponent must be one of {list(OPPONENTS)} or a callable "
                             f"mapping (N, obs) observations to (N, act) actions, got "
                             f"{opponent!r}")
        if drone_model not in DRONE_MODELS:
            raise ValueError(f"drone_model must be one of {list(DRONE_MODELS)}, got "
                             f"{drone_model!r}")
        self.self_play = opponent == "self"
        n = self.num_drones = options.num_drones
        learners = n if self.self_play else options.team_size
        if num_envs % learners:
            raise ValueError(f"num_envs must be a multiple of {learners} (the learning "
                             f"aircraft per world with opponent={opponent!r} and "
                             f"team_size={options.team_size}), got {num_envs}")
        self._seed = checked_vector_seed(seed, num_envs)
        self.num_envs, self.n_worlds = num_envs, num_envs // learners
        self._learners = learners
        for name in ("team_size", "flight_mode", "angle_representation", "flight_dome_size",
                     "lethal_distance", "lethal_angle_radians", "damage_per_hit",
                     "agent_hz", "max_duration_seconds", "sparse_reward"):
            setattr(self, name, getattr(options, name))
        self.flatten_observation = True
        self.team = options.team

        engine = dict(drone_model=drone_model, mode=options.flight_mode, physics_hz=PHYSICS_HZ)
        family = engine_family(**engine)  # the model, checked: the spaces need it
        aviary_steps = check_agent_hz(options.agent_hz, family.control_hz)
        mapping = fixedwing_action_mapping(options.flight_mode)
        k = self.action_size = mapping.size
        travel = np.abs(family.model.surfaces.travel)
        low, high = observation_bounds(options, mapping.space.low, mapping.space.high,
                                       np.append(-travel, 0.0), np.append(travel, 1.0))
        self.single_observation_space = spaces.Box(low, high, dtype=np.float64)
        self.single_action_space = mapping.space
        # the env's arrays (observations and pair tables grow with the square of the
        # aircraft per world; the batched spaces hold two bounds per entry) and the
        # engine's, before either exists
        w, aux_size = self.n_worlds, travel.shape[0] + 1
        what, hint = num_envs_text(num_envs, more="a smaller team_size")
        # an opponent gets team 1's observations (one per env), which PursuitPilot copies
        # and works on: measured 2.1-2.4 observations per env beyond the step's own
        opponent_bytes = 0 if self.self_play else OPPONENT_OBSERVATIONS * 8 * low.shape[0]
        #: The estimated peak memory [bytes] of the env and its engine.
        self.memory_estimate = check_task_memory(
            f"{what} ({w} worlds of {n} aircraft)", hint, family, num_envs=num_envs,
            n_worlds=w, n_drones=n,
            world_arrays=lambda m: kernels.zeros_arrays(m, n, k, aux_size),
            observation_space=self.single_observation_space,
            action_space=self.single_action_space, transient_per_env=opponent_bytes)
        self.sim = BatchedAviary(n_worlds=w, n_drones=n, **engine)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.metadata = {**self.metadata, "render_fps": options.agent_hz}
        self.params = kernels.DogfightParams(
            team=self.team.astype(np.int64), mode=options.flight_mode,
            lethal_distance=options.lethal_distance,
            cos_lethal_sq=math.cos(options.lethal_angle_radians) ** 2,
            damage_per_hit=options.damage_per_hit, aggressiveness=options.aggressiveness,
            cooperativeness=options.cooperativeness, sparse=options.sparse_reward,
            dome_size=options.flight_dome_size, max_steps=options.max_steps(),
            aviary_steps=aviary_steps, physics_steps=PHYSICS_HZ // family.control_hz,
            action_low=mapping.space.low.copy(), action_high=mapping.space.high.copy(),
            setpoint_offset=mapping.to_setpoint(np.zeros(k)),
            setpoint_scale=mapping.to_setpoint(np.ones(k)) - mapping.to_setpoint(np.zeros(k)),
            observation_low=low, observation_high=high,
            use_quaternion=options.angle_representation == "quaternion",
            radius_low=options.spawn_radius_range[0], radius_high=options.spawn_radius_range[1],
            height_low=options.spawn_height_range[0], height_high=options.spawn_height_range[1],
            start_velocity=np.tile(family.model.starting_velocity, (n, 1)))
        self.task = kernels.zeros_arrays(w, n, k, aux_size)
        self._actions = np.zeros((w, n, k))
        self._observation = np.zeros((w, n, low.shape[0]))
        self._reward = np.zeros((w, n))
        self._env_mask = np.ones(num_envs, bool)
        self._bind_kernel(kernels.dogfight_rows, self.task, self.params,
                          self.params.aviary_steps * self.params.physics_steps)
        self._started = False
        if opponent == "scripted":
            from .pursuit_pilot import PursuitPilot  # numpy only; loaded here

            opponent = PursuitPilot(self)
        self.opponent = None if self.self_play else opponent

    # ----------------------------------------------------------------- views
    def _learning(self, array: np.ndarray) -> np.ndarray:
        """(num_envs, ...) rows of the learning aircraft of a (W, n, ...) array (a copy)."""
        if self.self_play:
            return array.reshape(self.num_envs, *array.shape[2:]).copy()
        return array[:, :self._learners].reshape(self.num_envs, *array.shape[2:])

    def opponent_observations(self) -> np.ndarray:
        """(W * team_size, obs) the current observations of team 1 (the opponent's input);
        empty rows with self-play."""
        if self.self_play:
            return self._observation[:, :0].reshape(0, self._observation.shape[2])
        return self._observation[:, self._learners:].reshape(-1, self._observation.shape[2])

    # ----------------------------------------------------------------- API
    def reset(self, *, seed: int | list[int] | None = None,
              options: dict[str, Any] | None = None):
        """Start a new episode in every world.

        ``seed``: None, an int in [0, 2**63) or a list of num_envs such ints; it seeds the
        env's generator, from which every world's stream is drawn. ``options`` must be None
        (worlds restart by themselves).
        """
        seeds = checked_vector_seed(seed, self.num_envs)
        if options is not None:
            raise ValueError(f"options must be None (Dogfight-v0 restarts each world when "
                             f"its episode ends), got {options!r}")
        if seeds is None and self._seed is not None:
            seeds, self._seed = self._seed, None
        seed_vector_env(self, seeds)
        self.task.streams[:] = world_streams(self.np_random, self.n_worlds)
        self._restart_worlds(self._all)
        self._started = True
        return self._learning(self._observation), self._infos(self._restart)

    def step(self, actions):
        """Advance every world one agent step (worlds whose episode ended restart).

        ``actions``: (num_envs, act) numbers in the action space (clipped).

        Raises:
            TypeError, ValueError: bad ``actions`` (type, shape, NaN or inf); nothing changed.
            RuntimeError: before the first :meth:`reset`.
        """
        if not self._started:
            raise RuntimeError("step() called before reset(): call reset() first")
        actions = as_float_array("actions", actions, self.action_space.shape)
        if self.self_play:
            self._actions.reshape(self.num_envs, -1)[:] = actions
        else:
            self._actions[:, :self._learners] = actions.reshape(self.n_worlds,
                                                                 self._learners, -1)
            opponent = as_float_array("the opponent's actions",
                                      self.opponent(self.opponent_observations()),
                                      (self.n_worlds * self._learners, self.action_size))
            self._actions[:, self._learners:] = opponent.reshape(self.n_worlds,
                                                                 self._learners, -1)
        self._play()
        ended = self._ended
        reward = self._learning(self._reward)
        per_env = self._learners
        return (self._learning(self._observation), reward,
                np.repeat(self._terminated, per_env), np.repeat(self._truncated, per_env),
                self._infos(ended))

    def _infos(self, ended: np.ndarray) -> dict[str, np.ndarray]:
        task, per_env = self.task, self._learners
        win = np.where(task.team_win >= 0, task.team_win, -1)
        infos = {"health": self._learning(task.health[:, :, None])[:, 0],
                 "received_hits": self._learning(task.received[:, :, None])[:, 0],
                 "dead": ~self._learning(task.in_play[:, :, None])[:, 0],
                 "team_win": np.repeat(win, per_env)}
        out = {}
        for key, value in infos.items():
            out[key] = value
            out[f"_{key}"] = np.repeat(ended, per_env) if key == "team_win" else self._env_mask
        return out
