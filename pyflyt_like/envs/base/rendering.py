"""The render options every env takes: the render-mode and render-resolution checks.

The rgb_array frames come from :func:`pyflyt_like.core.abstractions.camera.make_chase_camera`.
This module imports no PyBullet: the batched VectorEnv checks its resolution here and loads
PyBullet only to draw its first frame.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

RENDER_MODES = ("human", "rgb_array")
DEFAULT_RENDER_RESOLUTION = (480, 480)  # (height, width) [px] of rgb_array frames (PyFlyt's)


def check_render_mode(render_mode: object) -> str | None:
    """Return ``render_mode`` if it is None, "rgb_array", or "human" with a display, else raise.

    Raises:
        ValueError: for any other value.
        RuntimeError: for "human" where PyBullet's GUI cannot open (Linux without an X
            display), instead of PyBullet ending the process.
    """
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {list(RENDER_MODES)}, got "
                         f"{render_mode!r}")
    # pyflyt_like.core loads PyBullet, so it is imported only where a render mode is checked
    from pyflyt_like.core.utils.display import display_available

    if render_mode == "human" and not display_available():
        raise RuntimeError('render_mode="human" opens PyBullet\'s GUI window, which needs a '
                           "display, and none was found (DISPLAY is not set); use "
                           'render_mode="rgb_array" to get frames headless, or None')
    return render_mode


def check_render_resolution(render_resolution: object) -> tuple[int, int]:
    """Return ``render_resolution`` as (height, width) if it is two positive ints, else raise.

    Checked here, not by the camera, so that the error names the env's option.
    """
    if isinstance(render_resolution, (str, bytes)) or not isinstance(
            render_resolution, (Sequence, np.ndarray)) or len(render_resolution) != 2 or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v > 0
            for v in render_resolution):
        raise ValueError("render_resolution must be (height, width), two positive ints [px], "
                         f"got {render_resolution!r}")
    return int(render_resolution[0]), int(render_resolution[1])
