"""Recording a chase-camera video of a mission, headless, to an MP4 file.

Needs the optional ``video`` extra (``pip install "pyflyt_like[video]"``: imageio with its
ffmpeg plugin). Frames come from a tracking :class:`~pyflyt_like.core.abstractions.Camera`
behind the first vehicle, rendered by PyBullet's TinyRenderer, so no display is needed.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..core.abstractions.camera import make_chase_camera

VIDEO_FPS = 30
VIDEO_RESOLUTION = (360, 480)  # height, width [pixels]
INSTALL_HINT = 'recording video needs the video extra: pip install "pyflyt_like[video]"'


def check_video_support() -> None:
    """Raise ImportError with the install hint when the encoder is missing."""
    try:
        import imageio.v2  # noqa: F401
        import imageio_ffmpeg  # noqa: F401
    except ImportError:
        raise ImportError(INSTALL_HINT) from None


class VideoRecorder:
    """Captures chase-camera frames of one drone at ``VIDEO_FPS`` and writes an MP4.

    Args:
        aviary: the running aviary.
        drone: the vehicle to follow.
    """

    def __init__(self, aviary, drone):
        check_video_support()
        self.camera = make_chase_camera(aviary, drone, VIDEO_RESOLUTION, camera_fps=VIDEO_FPS)
        self.aviary = aviary
        self.frames: list[np.ndarray] = []
        self._next_time = 0.0

    def capture(self) -> None:
        """Grab a frame if one is due at the aviary's current time."""
        if self.aviary.elapsed_time + 1e-9 >= self._next_time:
            self.frames.append(self.camera.capture_rgb())
            self._next_time += 1.0 / VIDEO_FPS

    def write(self, path: str | Path) -> Path:
        """Encode the frames to ``path`` (MP4, H.264) atomically; return the path."""
        import imageio.v2 as imageio

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = path.with_name(f".{path.stem}.partial{path.suffix}")
        try:
            with imageio.get_writer(staging, fps=VIDEO_FPS, codec="libx264",
                                    macro_block_size=8) as writer:
                for frame in self.frames:
                    writer.append_data(frame)
            os.replace(staging, path)
        finally:
            staging.unlink(missing_ok=True)
        return path
