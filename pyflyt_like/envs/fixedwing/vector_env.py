"""``Fixedwing-Reach-v0``: fly through random targets, as a native VectorEnv on the batched
fixed-wing engine."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from pyflyt_like.batch import BatchedAviary
from pyflyt_like.batch.world_random import world_streams
from pyflyt_like.common.validation import as_float_array, check_positive_int

from ..base.fused_vector_env import FusedVectorEnv
from ..base.task_memory import check_task_memory, engine_family, num_envs_text
from ..base.vector_seeding import checked_vector_seed, seed_vector_env
from ..base.vehicle_actions import fixedwing_action_mapping
from . import kernels
from .options import ReachOptions, observation_bounds, reach_options


def task_parameters(options: ReachOptions, surfaces_travel: np.ndarray,
                    start_velocity: np.ndarray) -> tuple[kernels.ReachParams, spaces.Box,
                                                         spaces.Box]:
    """The task's :class:`~.kernels.ReachParams` and the single observation and action
    spaces (float64), for the model's surface travels (m,) [rad] and body-frame starting
    velocity (3,) [m/s]; both engines build theirs here."""
    mapping = fixedwing_action_mapping(options.flight_mode)
    k = mapping.size
    travel = np.abs(np.asarray(surfaces_travel, float))
    low, high = observation_bounds(mapping.space.low, mapping.space.high,
                                   np.append(-travel, 0.0), np.append(travel, 1.0))
    offset = mapping.to_setpoint(np.zeros(k))
    params = kernels.ReachParams(
        mode=options.flight_mode, max_steps=options.max_steps,
        aviary_steps=options.aviary_steps, physics_steps=options.physics_steps,
        action_low=mapping.space.low.copy(), action_high=mapping.space.high.copy(),
        setpoint_offset=offset, setpoint_scale=mapping.to_setpoint(np.ones(k)) - offset,
        observation_low=low, observation_high=high, noise_std=options.observation_noise,
        start_velocity=np.asarray(start_velocity, float).reshape(1, 3).copy())
    return (params, spaces.Box(low, high, dtype=np.float64), mapping.space)


class FixedwingReachVectorEnv(FusedVectorEnv):
    """``num_envs`` worlds of Fixedwing-Reach, one aircraft each, on
    :class:`~pyflyt_like.batch.BatchedAviary`: one compiled call per :meth:`step` flies
    every world (actions, physics, targets, endings, rewards, observations, autoreset).

    **Task.** Targets are uniform in the box x, y in [-150, 150] m, z in [30, 80] m; one is
    reached within 10 m and the next is drawn at once. The aircraft spawns at (0, 0, 55) m,
    level, at a heading uniform in [-pi, pi), with the model's starting velocity (acrowing
    14 m/s, fixedwing 20 m/s) along its nose. Why 10 m: these aircraft turn with radii of
    tens of metres, so a target is met on a pass; 10 m is a few wingspans, crossed in under
    a second.

    **Reward** per step: 0.1 per metre of progress towards the target (negative moving
    away), +10 per target reached, -10 on a crash or on leaving the flight volume.

    **Endings.** Terminated on a crash (floor contact, below 2 m, or a non-finite state)
    or on leaving the box grown by 100 m at its sides and top (|x| or |y| > 250 m, z >
    180 m); truncated at ``max_duration_seconds``.

    **Observation** (float64): the target in the body frame (3) [m], its distance (1) [m],
    body rates (3) [rad/s], quaternion (4), body velocity (3) [m/s], position (3) [m],
    airspeed (1) [m/s], previous action (k), surface deflections [rad] (5) and throttle (1);
    plus ``observation_noise`` Gaussian noise, clipped to the space.

    **Action**: :func:`~pyflyt_like.envs.base.vehicle_actions.fixedwing_action_mapping`
    of ``flight_mode``; mode 1 (default): roll [-pi/3, pi/3] rad, pitch [-pi/6, pi/6] rad
    (positive = nose down), yaw rate [-1, 1] rad/s, each from [-1, 1], throttle from [0, 1].
    Held for ``120 / agent_hz`` control periods, after ``action_delay_steps`` agent steps
    (zeros before: wings level, motor off).

    Gymnasium 1.x semantics: ``NEXT_STEP`` autoreset (the step after an episode's end
    ignores that env's action and returns its new episode's first observation, reward 0),
    infos ``targets_reached`` (this episode) and ``distance`` [m] to the current target,
    (num_envs,) arrays with ``_key`` masks, every step.

    Randomness: the env's generator (``seed``) draws two streams per world
    (:mod:`pyflyt_like.batch.world_random`): spawns and targets from one, observation noise
    from the other, inside the compiled step. With ``randomize``, the restarting worlds'
    plants are drawn in Python (the engine's generator, seeded from the env's) just before
    the compiled step that restarts them, since the in-kernel reset flies the plant it is
    given.

    Args:
        num_envs: number of worlds, a positive int; the env's arrays (with the ring of
            ``action_delay_steps`` pending actions) and the engine's must fit in half this
            machine's memory together, else a ValueError gives the estimate before anything
            is allocated.
        seed: seed of the first reset if ``reset`` gets none.
        render_mode: None (the env does not render).
        **options: :class:`~.options.ReachOptions` (drone_model, flight_mode, agent_hz,
            physics_hz, max_duration_seconds, randomize, action_delay_steps,
            observation_noise).

    Raises:
        TypeError, ValueError: a bad argument, naming it.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, seed: int | None = None, render_mode: None = None,
                 **options: Any):
        if render_mode is not None:
            raise ValueError(f"render_mode must be None (Fixedwing-Reach-v0 does not render; "
                             f"use the PyBullet twin), got {render_mode!r}")
        self.render_mode = None
        self.num_envs = check_positive_int("num_envs", num_envs)
        options = self.options = reach_options({**options, "seed": seed})
        engine = dict(drone_model=options.drone_model, mode=options.flight_mode,
                      physics_hz=options.physics_hz, randomize=options.randomize)
        family = engine_family(**engine)  # the model, checked: the spaces need it
        model = family.model
        self.params, self.single_observation_space, self.single_action_space = \
            task_parameters(options, model.surfaces.travel, model.starting_velocity)
        w, k = self.num_envs, self.single_action_space.shape[0]
        size = self.single_observation_space.shape[0]
        aux_size, delay = model.surfaces.travel.shape[0] + 1, options.action_delay_steps
        # the env's arrays (the delay ring above all) and the engine's, before either exists
        #: The estimated peak memory [bytes] of the env and its engine.
        self.memory_estimate = check_task_memory(
            *num_envs_text(w, delay), family, num_envs=w, n_worlds=w, n_drones=1,
            world_arrays=lambda n: kernels.zeros_arrays(n, k, aux_size, size, delay),
            observation_space=self.single_observation_space,
            action_space=self.single_action_space)
        self.sim = BatchedAviary(n_worlds=w, n_drones=1, **engine)
        self.observation_space = batch_space(self.single_observation_space, w)
        self.action_space = batch_space(self.single_action_space, w)
        self.metadata = {**self.metadata, "render_fps": options.agent_hz}
        self.task = kernels.zeros_arrays(w, k, aux_size, size, delay)
        self._actions = np.zeros((w, k))
        self._observation = np.zeros((w, size))
        self._reward = np.zeros(w)
        self._seed = options.seed
        self._started = False
        self._bind_kernel(kernels.reach_rows, self.task, self.params,
                          options.aviary_steps * options.physics_steps)

    def reset(self, *, seed: int | list[int] | None = None,
              options: dict[str, Any] | None = None):
        """Start a new episode in every world.

        ``seed``: None, an int in [0, 2**63) or a list of num_envs such ints; it seeds the
        env's generator, from which every world's streams are drawn. ``options`` must be
        None (worlds restart by themselves).

        Raises:
            TypeError, ValueError: a bad ``seed`` or ``options``; the env is left as it was.
        """
        seeds = checked_vector_seed(seed, self.num_envs)
        if options is not None:
            raise ValueError(f"options must be None (Fixedwing-Reach-v0 restarts each world "
                             f"when its episode ends), got {options!r}")
        if seeds is None and self._seed is not None:
            seeds, self._seed = self._seed, None
        seed_vector_env(self, seeds)
        self.task.streams[:] = world_streams(self.np_random, self.num_envs)
        self.task.noise_streams[:] = world_streams(self.np_random, self.num_envs)
        if self.options.randomize:
            self.sim.rng = np.random.default_rng(int(self.np_random.integers(2**63)))
        self._restart_worlds(self._all)
        self._started = True
        return self._observation.copy(), self._infos()

    def step(self, actions):
        """Advance every world one agent step (worlds whose episode ended restart).

        ``actions``: (num_envs, k) numbers (clipped to the action space).

        Raises:
            TypeError, ValueError: bad ``actions`` (type, shape, NaN or inf); nothing changed.
            RuntimeError: before the first :meth:`reset`.
        """
        if not self._started:
            raise RuntimeError("step() called before reset(): call reset() first")
        self._actions[:] = as_float_array("actions", actions, self.action_space.shape)
        self._play()
        return (self._observation.copy(), self._reward.copy(), self._terminated.copy(),
                self._truncated.copy(), self._infos())

    def _infos(self) -> dict[str, np.ndarray]:
        return {"targets_reached": self.task.reached.copy(), "_targets_reached": self._all,
                "distance": self.task.distance.copy(), "_distance": self._all}
