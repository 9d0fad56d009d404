"""Recording a chase-camera video of a mission, headless, to an MP4 file.

Needs the optional ``video`` extra (``pip install "pyflyt_like[video]"``: imageio with its
ffmpeg plugin). Frames come from a tracking :class:`~pyflyt_like.core.abstractions.Camera`
behind the first vehicle, rendered by PyBullet's TinyRenderer, so no display is needed.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from pyflyt_like.common.atomic_files import check_file_destination

from ..core.abstractions.camera import make_chase_camera
from .output_files import ReportError

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


def check_video_path(path: str | os.PathLike, name: str = "video") -> Path:
    """Check, before recording, that an MP4 can be written to ``path``; return it as a Path.

    ``name`` is how the path is called in messages (``--video`` for the command).

    Raises:
        ValueError: ``path`` does not end in ``.mp4`` or is an existing folder.
        ImportError: the video extra is not installed (the message says how to install it).
        ReportError: its folder does not exist, is not a folder, or is not writable.
    """
    path = check_file_destination(path, ".mp4", name, ReportError)
    check_video_support()
    return path


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
        """Encode the frames to ``path`` (MP4, H.264) atomically; return the path.

        Raises:
            ReportError: the file cannot be written (its folder vanished, the disk is full).
        """
        import imageio.v2 as imageio  # the optional video extra, checked in __init__

        path = Path(path)
        staging = path.with_name(f".{path.stem}.partial{path.suffix}")
        try:
            with imageio.get_writer(staging, fps=VIDEO_FPS, codec="libx264",
                                    macro_block_size=8) as writer:
                for frame in self.frames:
                    writer.append_data(frame)
            os.replace(staging, path)
        except OSError as error:
            raise ReportError(f"cannot write the video {path}: "
                              f"{error.strerror or error}") from None
        finally:
            staging.unlink(missing_ok=True)
        return path
