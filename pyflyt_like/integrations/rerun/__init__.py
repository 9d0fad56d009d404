"""Rerun recordings of flights (the ``viz`` extra: ``pip install "pyflyt_like[viz]"``).

- :class:`AviaryRecorder`: any :class:`~pyflyt_like.core.Aviary`, step by step;
- :class:`MissionRecorder` (``pyflyt-like fly MISSION.yaml --rerun [FILE.rrd]``) and
  :func:`replay_flight_logs` (``pyflyt-like replay LOG.csv --rerun FILE.rrd``);
- :class:`RerunRecorder` / :class:`RerunParallelRecorder`: episodes of the Gymnasium tasks
  and the PettingZoo scenes;
- :class:`BatchedRecorder`: chosen worlds of the batched engine side by side, in bulk.

See docs/rerun.md. Importing this package needs nothing; the first use of one of these
names imports ``rerun`` and raises ImportError naming the viz extra where it is missing.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from ._sdk import INSTALL_HINT, TESTED_VERSIONS

_EXPORTS = {
    "AviaryRecorder": "aviary_recorder",
    "MissionRecorder": "mission_recorder",
    "replay_flight_logs": "mission_recorder",
    "read_flight_log": "mission_recorder",
    "RerunRecorder": "env_recorders",
    "RerunParallelRecorder": "env_recorders",
    "BatchedRecorder": "batch_recorder",
    "log_batch": "batch_recorder",
    "default_blueprint": "layout",
    "load_vehicle_shapes": "geometry",
    "read_rrd": "reading",
}

__all__ = ["INSTALL_HINT", "TESTED_VERSIONS", *_EXPORTS]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
