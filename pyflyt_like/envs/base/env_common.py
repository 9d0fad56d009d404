"""What the single-agent :class:`AviaryEnv` and the multi-agent :class:`MAAviaryEnv` share.

The options every env takes and their checks, opening the aviary without leaking it on a
bad option, the agent rate, the rgb_array chase camera and closing.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from pyflyt_like.common.validation import (
    check_agent_hz,
    check_bool,
    check_finite,
    check_positive_float,
)
from pyflyt_like.core import Aviary
from pyflyt_like.core.abstractions.camera import make_chase_camera

from .rendering import DEFAULT_RENDER_RESOLUTION, check_render_mode, check_render_resolution
from .task_options import check_duration, episode_steps
from .vehicle_family import VehicleFamily

FAILURE_PENALTY = -100.0  # reward of a step that crashes or leaves the dome (PyFlyt's)


class AviaryEnvCommon:
    """Mixin of both env bases; put it first among their bases."""

    family: VehicleFamily  # the vehicle, what an action means, observation bounds
    metadata: dict[str, Any]

    def check_common_options(self, *, sparse_reward: bool, render_mode: str | None,
                             flight_dome_size: float, max_duration_seconds: float,
                             spawn_jitter: float, drone_options: dict[str, Any] | None) -> None:
        """Check the options every env takes and keep them as attributes."""
        self.sparse_reward = check_bool("sparse_reward", sparse_reward)
        self.render_mode = check_render_mode(render_mode)
        self.flight_dome_size = check_positive_float("flight_dome_size", flight_dome_size)
        self.max_duration_seconds = check_duration(max_duration_seconds)
        self.spawn_jitter = check_finite("spawn_jitter", spawn_jitter)
        if self.spawn_jitter < 0:
            raise ValueError(f"spawn_jitter must be a finite number >= 0, got {spawn_jitter!r}")
        if drone_options is not None and not isinstance(drone_options, dict):
            raise TypeError(f"drone_options must be a dict, got {drone_options!r}")

    def open_aviary(self, start_pos: np.ndarray, start_orn: np.ndarray,
                    drone_options: dict[str, Any] | None, build: Callable[[], None]) -> None:
        """Build ``self.aviary`` with one vehicle per (n, 3) pose, then run ``build``; a bad
        option found by ``build`` closes the aviary before the error propagates."""
        self.aviary = Aviary(start_pos=start_pos, start_orn=start_orn,
                             drone_type=self.family.drone_type,
                             drone_options=drone_options or {},
                             render=self.render_mode == "human", seed=0)
        try:
            build()
        except Exception:
            self.aviary.close()  # do not leak the PyBullet connection
            raise

    def set_agent_rate(self, agent_hz: int, control_hz: int) -> None:
        """Aviary steps per env step and the episode length in env steps for ``agent_hz``."""
        self.aviary_steps_per_action = check_agent_hz(agent_hz, control_hz)
        self.agent_hz = int(agent_hz)
        self.max_steps = episode_steps(self.max_duration_seconds, self.agent_hz)
        self.metadata = {**self.metadata, "render_fps": self.agent_hz}

    def warn_unused_render_resolution(self, render_resolution: object) -> None:
        """Warn when ``render_resolution`` was given (not None) but does nothing: only
        rgb_array frames have a resolution (the "human" GUI window has its own)."""
        if render_resolution is not None and self.render_mode != "rgb_array":
            warnings.warn(f"render_resolution={render_resolution!r} has no effect with "
                          f"render_mode={self.render_mode!r}; it sets the size of "
                          'render_mode="rgb_array" frames', UserWarning, stacklevel=2)

    def make_render_camera(self, drone, render_resolution: object = None) -> None:
        """The rgb_array chase camera behind ``drone`` (None for other render modes).

        Args:
            drone: the vehicle to follow.
            render_resolution: (height, width) of the frames [px]; None for (480, 480).
        """
        if render_resolution is None:
            render_resolution = DEFAULT_RENDER_RESOLUTION
        resolution = check_render_resolution(render_resolution)
        self._render_camera = (make_chase_camera(self.aviary, drone, resolution)
                               if self.render_mode == "rgb_array" else None)

    def render(self) -> np.ndarray | None:
        """For ``render_mode="rgb_array"``: an (H, W, 3) uint8 chase-camera frame (RGB; PyFlyt
        returns RGBA). None otherwise: in "human" mode the GUI window shows the world live,
        as Gymnasium specifies for that mode."""
        if self._render_camera is None:
            return None
        return self._render_camera.capture_rgb()

    def close(self) -> None:
        """Disconnect the aviary; safe to call twice."""
        self.aviary.close()
