"""The batched VectorEnv of a multirotor task: W worlds stepped by one compiled call."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from pyflyt_like.batch import BatchedAviary
from pyflyt_like.batch.arrays import WORLD_FIELDS
from pyflyt_like.batch.sensors import sensing_switches
from pyflyt_like.batch.world_random import world_streams
from pyflyt_like.common.validation import check_positive_int

from ..base.fused_vector_env import FusedVectorEnv
from ..base.rendering import DEFAULT_RENDER_RESOLUTION, check_render_resolution
from ..base.task_memory import check_task_memory, engine_family, num_envs_text
from ..base.vector_seeding import checked_vector_seed, seed_vector_env
from . import kernels
from .actions import check_actions
from .navigate_world import navigate_pool, navigate_settings, with_navigate_lidar
from .options import task_options
from .parameters import task_infos, task_number, task_parameters

RESET_OPTIONS = ("reset_mask",)
"""The keys ``reset(options=...)`` accepts."""


class MultirotorVectorEnv(FusedVectorEnv):
    """``num_envs`` episodes of a multirotor task on :class:`~pyflyt_like.batch.BatchedAviary`.

    Gymnasium 1.x semantics: batched spaces, ``NEXT_STEP`` autoreset (the step after an
    episode ends ignores that env's action and returns its reset observation, reward 0,
    ``terminated = truncated = False``), infos as dicts of (num_envs,) arrays with ``_key``
    masks, and ``reset(options={"reset_mask": mask})`` resetting only the masked envs.
    ``step()`` is one compiled call (:func:`.kernels.task_rows`: every world's action,
    physics, reward, endings, observation and autoreset; :class:`.FusedVectorEnv`) and the
    copies it returns.

    Args:
        task: "Hover", "Reach", "Track", "Land" or "Navigate" (a forest of the
            ``world_*`` options, observed through a LiDAR: docs/vector_tasks.md).
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
        self.task_name, number = task, task_number(task)
        options = self.options = with_navigate_lidar(number,
                                                     task_options({**options, "seed": seed}))
        self.navigate = navigate_settings(number, options)
        # the controllers run at the physics rate (unless the YAML's mode_hz says
        # otherwise), as in the PyBullet twin
        engine = dict(drone_model=options.drone_model, mode=options.flight_mode,
                      physics_hz=options.physics_hz, control_hz=options.physics_hz,
                      randomize=options.randomize, sensors=options.sensors)
        family = engine_family(**engine)  # the model, checked: the spaces need it
        self.params, self.single_observation_space, self.single_action_space = \
            task_parameters(number, options, family.model, family.options.gravity)
        w, k = self.num_envs, self.single_action_space.shape[0]
        size, delay = self.single_observation_space.shape[0], options.action_delay_steps
        # the env's arrays (the delay ring above all) and the engine's, before either exists
        #: The estimated peak memory [bytes] of the env and its engine.
        self.memory_estimate = check_task_memory(
            *num_envs_text(w, delay), family, num_envs=w, n_worlds=w, n_drones=1,
            world_arrays=lambda n: kernels.zeros_arrays(n, k, size, delay),
            observation_space=self.single_observation_space,
            action_space=self.single_action_space)
        self.sim = BatchedAviary(n_worlds=w, n_drones=1, **engine,
                                 world=navigate_pool(self.navigate) if self.navigate else None)
        self.observation_space = batch_space(self.single_observation_space, w)
        self.action_space = batch_space(self.single_action_space, w)
        self._action_shape = self.action_space.shape
        self.metadata = {**self.metadata, "render_fps": options.agent_hz}
        self.task = kernels.zeros_arrays(w, k, size, delay)
        self._infos = task_infos(task, self.task)
        self._observation = np.zeros((w, size), np.float32)
        self._reward = np.zeros(w)
        self._actions = np.zeros((w, k))  # the bound kernel's type: C-contiguous float64
        self._seed = options.seed
        self._started = False
        self._view = self._camera = None
        config = self.sim.kernel_arguments[3]
        pool = tuple(getattr(config, name) for name in WORLD_FIELDS) if self.navigate else None
        sensing = sensing_switches(self.sim.sensor_params, bool(self.navigate))
        stages = (pool, sensing, True if self.params.sensed else None,
                  True if self.params.sectors else None)  # kernels.task_rows: what they do
        self._bind_kernel(kernels.task_rows, self.task, self.params, self.params.physics_steps,
                          stages)

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
        if seeds is not None or not self._started:
            seed_vector_env(self, seeds)
            self.task.streams[:] = world_streams(self.np_random, self.num_envs)
            self.task.noise_streams[:] = world_streams(self.np_random, self.num_envs)
            if self.options.sensors:  # drawn after the others: the episodes stay the same
                state = self._kernel_arguments[0]
                state.sensor_streams[:] = world_streams(self.np_random, self.num_envs)
            if self.options.randomize:
                self.sim.rng = np.random.default_rng(int(self.np_random.integers(2**63)))
        self._restart_worlds(mask)
        self._started = True
        return self._observation.copy(), self._info_arrays()

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
        if not self._started:
            raise RuntimeError("step() called before reset(): call reset() first")
        if not np.isfinite(actions).all():
            raise ValueError("actions must be finite (no NaN or inf)")
        self._actions[:] = actions
        self._play()
        return (self._observation.copy(), self._reward.copy(), self._terminated.copy(),
                self._truncated.copy(), self._info_arrays())

    def set_curriculum_level(self, level) -> None:
        """Navigate's curriculum: the episodes that start from now on fly among the forests
        of ``level`` (an int in [0, curriculum_levels), the same for every env, or a
        (num_envs,) array of them; level ``i`` has ``(i + 1) / curriculum_levels`` of the
        final density, ``curriculum_levels - 1`` the task's own).

        Raises:
            ValueError: not Navigate, or a level out of range; TypeError: not ints.
        """
        if not self.navigate:
            raise ValueError(f"set_curriculum_level is Navigate's; {self.task_name} has no "
                             f"curriculum")
        levels = self.navigate["curriculum_levels"]
        values = np.asarray(level)
        if values.dtype.kind not in "iu" or values.shape not in ((), (self.num_envs,)):
            raise TypeError(f"level must be an int or a ({self.num_envs},) int array, got "
                            f"{level!r}")
        if values.min() < 0 or values.max() >= levels:
            raise ValueError(f"level must be in [0, {levels}) (curriculum_levels={levels}), "
                             f"got {level!r}")
        self.task.level[:] = values

    def _info_arrays(self) -> dict[str, np.ndarray]:
        infos = {}
        for key, value in self._infos.items():
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

            from .pybullet_drone import PyBulletDrone

            self._view = PyBulletDrone(self.options.drone_model, self.options.flight_mode,
                                       self.options.physics_hz, None)
            self._camera = make_chase_camera(self._view.aviary, self._view.drone,
                                             self._resolution)
        sim = self.sim
        self._view.show(sim.pos[0, 0], sim.quat[0, 0])
        return self._camera.capture_rgb()

    def close_extras(self, **kwargs: Any) -> None:
        if self._view is not None:
            self._view.close()
            self._view = None

