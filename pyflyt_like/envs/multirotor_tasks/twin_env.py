"""The PyBullet twin of a multirotor task: a single gymnasium.Env on the Aviary."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np

from pyflyt_like.batch.obstacles import empty_pool, layout_world
from pyflyt_like.batch.world_random import world_streams
from pyflyt_like.common.validation import check_seed
from pyflyt_like.core.abstractions.camera import make_chase_camera
from pyflyt_like.sensors.config import sensor_periods

from ..base.rendering import DEFAULT_RENDER_RESOLUTION, check_render_mode, check_render_resolution
from . import kernels
from .actions import check_actions
from .navigate_world import navigate_pool, navigate_settings, with_navigate_lidar
from .options import task_options
from .parameters import task_infos, task_number, task_parameters
from .pybullet_drone import PyBulletDrone


class MultirotorTwinEnv(gymnasium.Env):
    """One episode at a time of a multirotor task on PyBullet, with the spaces, observation,
    reward, termination and truncation of :class:`MultirotorVectorEnv`: it calls the same
    compiled rules with one world and draws its starts, targets and noise from the same
    streams, so the same seed gives the same episodes on both engines and a policy trained
    on the batched engine flies here unchanged.

    Args:
        task: "Hover", "Reach", "Track", "Land" or "Navigate" (each episode among the
            forest layout the VectorEnv's draw gives, spawned in PyBullet; the curriculum's
            last level, the task's own density).
        render_mode: None, "rgb_array" (chase camera) or "human" (PyBullet's GUI).
        render_resolution: (height, width) of rgb_array frames [px].
        **options: the task options, see :class:`.options.TaskOptions`; ``randomize``
            takes ``mass`` and ``inertia`` here (``control_mode``, the old name of
            ``flight_mode``, is accepted for one release); ``seed`` seeds the first reset
            that gets none, as in the VectorEnv.

    Raises:
        TypeError, ValueError: a bad argument or option, naming it.
        FileNotFoundError: an unknown ``drone_model``.
    """

    metadata = {"render_modes": ["human", "rgb_array"]}

    def __init__(self, task: str, render_mode: str | None = None,
                 render_resolution=DEFAULT_RENDER_RESOLUTION, **options: Any):
        self.render_mode = check_render_mode(render_mode)
        resolution = check_render_resolution(render_resolution)
        self.task_name, number = task, task_number(task)
        self.options = with_navigate_lidar(number, task_options(options))
        self.navigate = navigate_settings(number, self.options)
        self._pool = navigate_pool(self.navigate) if self.navigate else empty_pool()
        self._pool_arrays = tuple(self._pool)  # numba spreads a plain tuple, not a NamedTuple
        #: The PyBullet engine of the one world (the VectorEnv's ``sim`` is its batched one).
        self.sim = PyBulletDrone(self.options.drone_model, self.options.flight_mode,
                                 self.options.physics_hz, self.options.randomize,
                                 render=self.render_mode == "human",
                                 sensors=self.options.sensors)
        self.params, self.observation_space, self.action_space = task_parameters(
            number, self.options, self.sim.model, self.sim.gravity)
        k, size = self.action_space.shape[0], self.observation_space.shape[0]
        self.task = kernels.zeros_arrays(1, k, size, self.options.action_delay_steps)
        if self.navigate:  # the task's own forests (the curriculum's last level)
            self.task.level[:] = self.navigate["curriculum_levels"] - 1
        self._infos = task_infos(task, self.task)
        self._action = np.zeros((1, k))
        self._setpoint = np.zeros(k)
        self._observation = np.zeros(size, np.float32)
        self._sensor_periods = sensor_periods(self.options.sensor_params)
        self.metadata = {**self.metadata, "render_fps": self.options.agent_hz}
        self._camera = (make_chase_camera(self.sim.aviary, self.sim.drone, resolution)
                        if self.render_mode == "rgb_array" else None)
        self._seed = self.options.seed
        self._started = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start a new episode; ``seed`` (None or an int in [0, 2**63)) reseeds the env's
        generator first. ``options`` must be None or empty: the twin takes no reset options.

        Raises:
            TypeError, ValueError: a bad ``seed`` or ``options``, naming it; the env is left
                exactly as it was.
        """
        seed = check_seed("seed", seed)
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"options must be None or an empty dict (the twin takes no reset "
                            f"options), got {options!r}")
        if options:
            raise ValueError(f"options has unknown key(s) "
                             f"{', '.join(sorted(map(repr, options)))}; the twin takes no "
                             f"reset options (its reset restarts its one world)")
        if seed is None and self._seed is not None:
            seed, self._seed = self._seed, None
        super().reset(seed=seed)
        # the VectorEnv's order of draws, for one world: the same seed, the same episode
        self.task.streams[:] = world_streams(self.np_random, 1)
        self.task.noise_streams[:] = world_streams(self.np_random, 1)
        task, params, sim = self.task, self.params, self.sim
        kernels.draw_start(task, params, 0, self._pool_arrays)
        if self.navigate:
            sim.use_world(layout_world(self._pool, int(task.layout[0])))
        sim.reset(task.start_pos[0, 0], task.start_euler[0, 0],
                  int(self.np_random.integers(2**31)), self.np_random)
        kernels.start_task(sim.pos, task, params, 0)
        self._observe()
        self._started = True
        return self._observation.copy(), self._info()

    def step(self, action):
        """Fly ``action`` ((k,) numbers in [-1, 1], clipped) for one agent step.

        Raises:
            TypeError: ``action`` is not numbers (strings, bools, complex, ragged).
            ValueError: the wrong shape, or NaN or inf; the env is left exactly as it was.
            RuntimeError: before the first :meth:`reset`.
        """
        action = check_actions("action", action, self.action_space.shape)
        if not self._started:
            raise RuntimeError("step() called before reset(): call reset() first")
        self._action[0] = action
        task, params, sim = self.task, self.params, self.sim
        if not kernels.clip_actions(self._action, task, params):
            raise ValueError("action must be finite (no NaN or inf)")
        kernels.setpoint_of(sim.quat, task, params, 0, self._setpoint)
        sim.step(self._setpoint, params.physics_steps)
        reward, terminated = kernels.score_world(sim.pos, sim.quat, sim.vel,
                                                 sim.crashed, task, params, 0,
                                                 self._pool_arrays)
        self._observe()
        truncated = (not terminated) and bool(task.step_count[0] >= params.max_steps)
        return (self._observation.copy(), float(reward), bool(terminated), truncated,
                self._info())

    def _observe(self) -> None:
        sim = self.sim
        sensed = self.params.sensed
        kernels.observe_world(sim.pos, sim.quat, sim.vel, sim.ang_vel,
                              sim.sensed if sensed else None,
                              self._sensor_periods if sensed else None, sim.ranges,
                              self.task, self.params, 0, self._observation)

    def _info(self) -> dict[str, Any]:
        return {key: value[0].item() for key, value in self._infos.items()}

    def render(self) -> np.ndarray | None:
        """rgb_array: an (H, W, 3) uint8 chase-camera frame; None otherwise."""
        return None if self._camera is None else self._camera.capture_rgb()

    @property
    def world(self) -> PyBulletDrone:
        """Deprecated name of :attr:`sim` (a "world" is an obstacle ``World``)."""
        warnings.warn("MultirotorTwinEnv.world is now MultirotorTwinEnv.sim (the old name "
                      "goes in the next release)", DeprecationWarning, stacklevel=2)
        return self.sim

    def close(self) -> None:
        self.sim.close()
