"""Whether PyBullet's GUI can open here: on Linux it needs an X display."""

from __future__ import annotations

import os
import sys


def display_available() -> bool:
    """False on Linux without ``DISPLAY`` (PyBullet's GUI would then end the process)."""
    return not sys.platform.startswith("linux") or bool(os.environ.get("DISPLAY"))
