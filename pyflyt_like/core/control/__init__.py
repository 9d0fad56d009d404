"""PyFlyt-style path of the control laws, which live in :mod:`pyflyt_like.control` (a package
that imports neither pybullet nor numba, so both engines share it).

``pyflyt_like.core.control`` and its submodules (``pyflyt_like.core.control.geometric``, ...)
are the same objects as ``pyflyt_like.control`` and its submodules.
"""

import sys
from importlib import import_module

from pyflyt_like.control import *  # noqa: F403
from pyflyt_like.control import __all__  # noqa: F401

for _name in ("allocation", "fixedwing_attitude", "fixedwing_autopilot", "flatness",
              "geometric", "mixers", "multirotor_cascade", "pid", "quadx_cascade", "tecs"):
    sys.modules[f"{__name__}.{_name}"] = import_module(f"pyflyt_like.control.{_name}")
