"""The batched VectorEnv of a multirotor task: W worlds stepped by one compiled call."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from pyflyt_like.batch.memory import engine_bytes
from pyflyt_like.common.multirotor_model import load_multirotor_model
from pyflyt_like.common.validation import check_memory, check_positive_int

from ..base.rendering import DEFAULT_RENDER_RESOLUTION, check_render_resolution
from ..base.vector_seeding import checked_vector_seed, seed_vector_env
from .actions import action_size, check_actions
from .backends.batched import BatchBackend
from .episodes import Episodes, estimated_bytes, single_spaces, task_class
from .options import TaskOptions, task_options

RESET_OPTIONS = ("reset_mask",)
"""The keys ``reset(options=...)`` accepts."""


class MultirotorVectorEnv(VectorEnv):
    """``num_envs`` episodes of a multirotor task on :class:`~pyflyt_like.batch.BatchedAviary`.

    Gymnasium 1.x semantics: batched spaces, ``NEXT_STEP`` autoreset (the step after an
    episode ends ignores that env's action and returns its reset observation, reward 0,
    ``terminated = truncated = False``), infos as dicts of (num_envs,) arrays with ``_key``
    masks, and ``reset(options={"reset_mask": mask})`` resetting only the masked envs.
    ``step()`` has no Python loop over envs.

    Args:
        task: "Hover", "Reach", "Track" or "Land".
        num_envs: number of worlds, a positive int; the env's arrays and the engine's must
            fit in half this machine's memory together, else a ValueError gives the estimate
            before anything is allocated.
        render_mode: None or "rgb_array" (a PyBullet view of world 0).
        render_resolution: (height, width) of frames [px].
        seed: seed of the first reset if ``reset`` gets none: None or an int in [0, 2**63)
            (checked here, so ``gymnasium.make_vec(..., seed=-1)`` fails at once).
        **options: the task options, see :class:`.options.TaskOptions` (``control_mode``,
            the old name of ``flight_mode``, is accepted for one release).

    Raises:
        TypeError, ValueError: a bad argument or option, naming it.
        FileNotFoundError: an unknown ``drone_model``.
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
        self.options = task_options({**options, "seed": seed})
        kind = task_class(task)
        _check_env_memory(self.num_envs, kind.feature_size, self.options)
        backend = BatchBackend(self.num_envs, self.options.drone_model,
                               self.options.flight_mode, self.options.physics_hz,
                               self.options.randomize)
        self.episodes = Episodes(kind(self.num_envs, 1.0 / self.options.agent_hz), backend,
                                 self.options, action_name="actions")
        self.single_observation_space, self.single_action_space = single_spaces(self.episodes)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._action_shape = self.action_space.shape
        self.metadata = {**self.metadata, "render_fps": self.options.agent_hz}
        self._seed = self.options.seed
        self._autoreset = np.zeros(self.num_envs, bool)
        self._all = np.ones(self.num_envs, bool)
        self._view = self._camera = None

    def reset(self, *, seed: int | list[int] | None = None,
              options: dict[str, Any] | None = None):
        """Reset all envs, or those of ``options["reset_mask"]`` ((num_envs,) bool).

        ``seed`` reseeds the env's one generator first: None, an int in [0, 2**63), or a
        list (or tuple) of num_envs such ints (as stable-baselines3 and ``SyncVectorEnv``
        pass; the generator is seeded from the whole list). The same seed gives the same
        rollouts for the same actions. ``options`` is None or a dict whose only key is
        ``"reset_mask"``.

        Raises:
            TypeError, ValueError: a bad ``seed``, ``options`` or mask, naming it; the env
                is left exactly as it was.
        """
        seeds = checked_vector_seed(seed, self.num_envs)
        mask = self._reset_mask_of(options)
        # everything is checked: from here on the env changes
        if seeds is None and self._seed is not None:
            seeds, self._seed = self._seed, None
        seed_vector_env(self, seeds)
        observation = self.episodes.reset(mask, self.np_random)
        self._autoreset &= ~mask
        return observation.copy(), self._infos()

    def _reset_mask_of(self, options: object) -> np.ndarray:
        """The (num_envs,) bool mask of checked reset ``options`` (all envs by default)."""
        if options is None:
            return self._all
        if not isinstance(options, dict):
            raise TypeError(f"options must be None or a dict with keys among "
                            f"{list(RESET_OPTIONS)}, got {options!r}")
        unknown = sorted(map(repr, set(options) - set(RESET_OPTIONS)))
        if unknown:
            raise ValueError(f"options has unknown key(s) {', '.join(unknown)}; the accepted "
                             f"keys are {list(RESET_OPTIONS)}")
        if "reset_mask" not in options:
            return self._all
        value = options["reset_mask"]
        try:
            mask = np.asarray(value)
            got = f"{mask.dtype} values of shape {mask.shape}"
        except ValueError:  # ragged nesting
            mask, got = None, repr(value)
        if mask is None or mask.dtype != bool or mask.shape != (self.num_envs,):
            raise ValueError(f"options['reset_mask'] must be a bool array of shape "
                             f"({self.num_envs},), got {got}")
        return mask

    def step(self, actions):
        """Advance every env one agent step; envs whose episode ended last step restart.

        ``actions``: (num_envs, k) numbers, each in [-1, 1] (clipped). A float32 or float64
        ndarray of that shape is used as it is; other numbers (ints, lists) are converted.

        Raises:
            TypeError: ``actions`` are not numbers (strings, bools, complex, ragged).
            ValueError: the wrong shape, or NaN or inf; the env is left exactly as it was.
            RuntimeError: before the first :meth:`reset`.
        """
        actions = check_actions("actions", actions, self._action_shape)
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


def _check_env_memory(num_envs: int, feature_size: int, options: TaskOptions) -> None:
    """Refuse ``num_envs`` whose arrays (the env's and its engine's together) would not
    fit, before any is allocated."""
    n_rotors = load_multirotor_model(options.drone_model).n_rotors
    k = action_size(options.flight_mode, n_rotors)
    delay = options.action_delay_steps
    check_memory(f"num_envs={num_envs}" + (f" with action_delay_steps={delay}" if delay else ""),
                 estimated_bytes(num_envs, feature_size, k, options)
                 + engine_bytes(num_envs, 1, n_rotors),
                 hint="use fewer envs" + (" or a shorter delay" if delay else ""))
