"""The PyBullet twin of a multirotor task: a single gymnasium.Env on the Aviary."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from pyflyt_like.common.validation import check_seed
from pyflyt_like.core.abstractions.camera import make_chase_camera

from ..base.rendering import DEFAULT_RENDER_RESOLUTION, check_render_mode, check_render_resolution
from .actions import check_actions
from .backends.pybullet import PyBulletBackend
from .episodes import Episodes, make_task, single_spaces
from .options import task_options

_ALL = np.ones(1, bool)


class MultirotorTwinEnv(gymnasium.Env):
    """One episode at a time of a multirotor task on PyBullet, with the same spaces,
    observation, reward, termination and truncation as :class:`MultirotorVectorEnv` (one
    shared implementation), so a policy trained on the batched engine flies here unchanged.

    Args:
        task: "Hover", "Reach", "Track" or "Land".
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
        self.options = task_options(options)
        episode_task = make_task(task, 1, self.options)
        backend = PyBulletBackend(self.options.drone_model, self.options.flight_mode,
                                  self.options.physics_hz, self.options.randomize,
                                  render=self.render_mode == "human")
        self.episodes = Episodes(episode_task, backend, self.options, action_name="action")
        self.observation_space, self.action_space = single_spaces(self.episodes)
        self._action_shape = self.action_space.shape
        self.metadata = {**self.metadata, "render_fps": self.options.agent_hz}
        self._camera = (make_chase_camera(backend.aviary, backend.drone, resolution)
                        if self.render_mode == "rgb_array" else None)
        self._seed = self.options.seed

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
        observation = self.episodes.reset(_ALL, self.np_random)
        return observation[0].copy(), self._info()

    def step(self, action):
        """Fly ``action`` ((k,) numbers in [-1, 1], clipped) for one agent step.

        Raises:
            TypeError: ``action`` is not numbers (strings, bools, complex, ragged).
            ValueError: the wrong shape, or NaN or inf; the env is left exactly as it was.
            RuntimeError: before the first :meth:`reset`.
        """
        action = check_actions("action", action, self._action_shape)
        observation, reward, terminated, truncated = self.episodes.step(action[None],
                                                                        self.np_random)
        return (observation[0].copy(), float(reward[0]), bool(terminated[0]),
                bool(truncated[0]), self._info())

    def _info(self) -> dict[str, Any]:
        return {key: value[0].item() for key, value in self.episodes.task.info().items()}

    def render(self) -> np.ndarray | None:
        """rgb_array: an (H, W, 3) uint8 chase-camera frame; None otherwise."""
        return None if self._camera is None else self._camera.capture_rgb()

    def close(self) -> None:
        self.episodes.backend.close()
