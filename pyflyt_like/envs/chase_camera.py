"""Rendering for the envs: the render-mode check and the headless chase camera of rgb_array."""

from __future__ import annotations

from ..core.abstractions.camera import make_chase_camera

RENDER_MODES = ("human", "rgb_array")

__all__ = ["RENDER_MODES", "check_render_mode", "make_chase_camera"]


def check_render_mode(render_mode: object) -> str | None:
    """Return ``render_mode`` if it is None, "human" or "rgb_array", else raise."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {list(RENDER_MODES)}, got "
                         f"{render_mode!r}")
    return render_mode
