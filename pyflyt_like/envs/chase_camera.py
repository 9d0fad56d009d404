"""Rendering for the envs: render-mode checks and the headless chase camera of rgb_array."""

from __future__ import annotations

from ..core.abstractions.camera import Camera

RENDER_MODES = ("human", "rgb_array")
RENDER_FOV_DEGREES = 60.0  # vertical field of view of rgb_array frames


def check_render_mode(render_mode: object) -> str | None:
    """Return ``render_mode`` if it is None, "human" or "rgb_array", else raise."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {list(RENDER_MODES)}, got "
                         f"{render_mode!r}")
    return render_mode


def make_chase_camera(aviary, drone, render_resolution) -> Camera:
    """A third-person camera behind ``drone``; frames are ``render_resolution`` (h, w) px."""
    return Camera(aviary, aviary.physics_period, aviary.np_random, drone.Id, -1,
                  use_gimbal=False, camera_FOV_degrees=RENDER_FOV_DEGREES,
                  camera_angle_degrees=0.0, camera_resolution=render_resolution,
                  is_tracking_camera=True)
