"""The batched VectorEnv of a multirotor task: W worlds stepped by one compiled call."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from pyflyt_like.common.validation import check_positive_int

from ..base.rendering import DEFAULT_RENDER_RESOLUTION, check_render_resolution
from .backends.batched import BatchBackend
from .episodes import Episodes, make_task, single_spaces
from .options import task_options


class MultirotorVectorEnv(VectorEnv):
    """``num_envs`` episodes of a multirotor task on :class:`~pyflyt_like.batch.BatchedAviary`.

    Gymnasium 1.x semantics: batched spaces, ``NEXT_STEP`` autoreset (the step after an
    episode ends ignores that env's action and returns its reset observation, reward 0,
    ``terminated = truncated = False``), infos as dicts of (num_envs,) arrays with ``_key``
    masks, and ``reset(options={"reset_mask": mask})`` resetting only the masked envs.
    ``step()`` has no Python loop over envs.

    Args:
        task: "Hover", "Reach", "Track" or "Land".
        num_envs: number of worlds.
        render_mode: None or "rgb_array" (a PyBullet view of world 0).
        render_resolution: (height, width) of frames [px].
        seed: seed of the first reset if ``reset`` gets none.
        **options: the task options, see :class:`.options.TaskOptions` (``control_mode``,
            the old name of ``flight_mode``, is accepted for one release).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["rgb_array"]}

    def __init__(self, task: str, num_envs: int = 1, render_mode: str | None = None,
                 render_resolution=DEFAULT_RENDER_RESOLUTION, seed: int | None = None,
                 **options: Any):
        self.num_envs = check_positive_int("num_envs", num_envs)
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array' (a view of world 0), "
                             f"got {render_mode!r}")
        self.render_mode = render_mode
        self._resolution = check_render_resolution(render_resolution)
        self.options = task_options(options)
        backend = BatchBackend(self.num_envs, self.options.drone_model,
                               self.options.flight_mode, self.options.physics_hz,
                               self.options.randomize)
        self.episodes = Episodes(make_task(task, self.num_envs, self.options), backend,
                                 self.options)
        self.single_observation_space, self.single_action_space = single_spaces(self.episodes)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.metadata = {**self.metadata, "render_fps": self.options.agent_hz}
        self._seed = seed
        self._autoreset = np.zeros(self.num_envs, bool)
        self._all = np.ones(self.num_envs, bool)
        self._view = self._camera = None

    def reset(self, *, seed: int | list[int] | None = None,
              options: dict[str, Any] | None = None):
        """Reset all envs, or those of ``options["reset_mask"]`` ((num_envs,) bool).

        ``seed`` reseeds the env's one generator first: an int, or a list of num_envs ints
        (as stable-baselines3 and ``SyncVectorEnv`` pass; the generator is seeded from the
        whole list). The same seed gives the same rollouts for the same actions.
        """
        if seed is None and self._seed is not None:
            seed, self._seed = self._seed, None
        if isinstance(seed, (list, tuple)):
            if len(seed) != self.num_envs or not all(
                    isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 0
                    for s in seed):
                raise TypeError(f"seed must be None, an int >= 0 or a list of {self.num_envs} "
                                f"ints >= 0, got {seed!r}")
            super().reset()
            self.np_random = np.random.Generator(np.random.PCG64(
                np.random.SeedSequence([int(s) for s in seed])))
        elif seed is not None and (isinstance(seed, bool)
                                   or not isinstance(seed, (int, np.integer))):
            raise TypeError(f"seed must be None, an int >= 0 or a list of {self.num_envs} "
                            f"ints >= 0, got {seed!r}")
        else:
            super().reset(seed=seed)
        mask = self._all
        if options is not None and "reset_mask" in options:
            mask = np.asarray(options["reset_mask"])
            if mask.dtype != bool or mask.shape != (self.num_envs,):
                raise ValueError(f"options['reset_mask'] must be a bool array of shape "
                                 f"({self.num_envs},), got {mask.dtype} {mask.shape}")
        observation = self.episodes.reset(mask, self.np_random)
        self._autoreset &= ~mask
        return observation.copy(), self._infos()

    def step(self, actions):
        """Advance every env one agent step; envs whose episode ended last step restart."""
        actions = np.asarray(actions)
        if actions.shape != self.action_space.shape:
            raise ValueError(f"actions must have shape {self.action_space.shape}, got "
                             f"{actions.shape}")
        observation, reward, terminated, truncated = self.episodes.step(
            actions, self.np_random, restart=self._autoreset)
        self._autoreset = terminated | truncated
        return (observation.copy(), reward.astype(np.float64), terminated, truncated,
                self._infos())

    def _infos(self) -> dict[str, np.ndarray]:
        infos = {}
        for key, value in self.episodes.task.info().items():
            infos[key] = value.copy()
            infos[f"_{key}"] = self._all
        return infos

    def render(self) -> np.ndarray | None:
        """For ``render_mode="rgb_array"``: an (H, W, 3) uint8 chase-camera frame of world 0,
        drawn by a PyBullet copy of its drone placed at world 0's pose."""
        if self.render_mode is None:
            return None
        if self._view is None:
            # PyBullet is loaded here, by the first frame, not by the VectorEnv itself
            from pyflyt_like.core.abstractions.camera import make_chase_camera

            from .backends.pybullet import PyBulletBackend

            self._view = PyBulletBackend(self.options.drone_model, self.options.flight_mode,
                                         self.options.physics_hz, None)
            self._camera = make_chase_camera(self._view.aviary, self._view.drone,
                                             self._resolution)
        sim = self.episodes.backend.sim
        self._view.show(sim.pos[0, 0], sim.quat[0, 0])
        return self._camera.capture_rgb()

    def close_extras(self, **kwargs: Any) -> None:
        if self._view is not None:
            self._view.close()
            self._view = None
