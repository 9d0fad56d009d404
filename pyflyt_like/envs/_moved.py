"""The module paths of ``pyflyt_like.envs`` before it was laid out by family (and before its
families got one folder each), kept for one release.

:func:`install` puts a finder first on ``sys.meta_path``: importing an old path returns the
module at its new path (the same object, also registered under the old name) and emits a
``DeprecationWarning`` naming the new path. Remove this module, and its ``install()`` call in
the package ``__init__``, in the next release.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from types import ModuleType

_PACKAGE = "pyflyt_like.envs"

MOVED = {f"{_PACKAGE}.{old}": f"{_PACKAGE}.{new}" for old, new in {
    "attitude_observation": "base.attitude_observation",
    "aviary_env": "base.aviary_env",
    "chase_camera": "base.rendering",
    "env_common": "base.env_common",
    "ma_aviary_env": "base.ma_aviary_env",
    "vehicle_actions": "base.vehicle_actions",
    "vehicle_family": "base.vehicle_family",
    "quadx_base_env": "quadx.base",
    "quadx_hover_env": "quadx.hover",
    "quadx_waypoints_env": "quadx.waypoints",
    "quadx_pole_balance_env": "quadx.pole_balance",
    "quadx_pole_waypoints_env": "quadx.pole_waypoints",
    "quadx_ball_in_cup_env": "quadx.ball_in_cup",
    "quadx_gates_env": "quadx.gates",
    "gates": "quadx.gate_course",
    "pole": "quadx.pole",
    "mounted_cup": "quadx.mounted_cup",
    "tethered_ball": "quadx.tethered_ball",
    "hover_reward": "quadx.hover_reward",
    "fixedwing_base_env": "fixedwing.base",
    "fixedwing_waypoints_env": "fixedwing.waypoints",
    "rocket_base_env": "rocket.base",
    "rocket_landing_env": "rocket.landing",
    "waypoints": "targets.waypoints",
    "waypoint_task": "targets.waypoint_task",
    "target_deltas": "targets.deltas",
    "flatten_waypoint_env": "targets.flatten",
    "ma_quadx_hover_env": "quadx.ma_hover",
    "ma_fixedwing_dogfight_env": "dogfight.scene",
    # one folder per family (2026-12-07): the dogfight's PettingZoo scene beside its
    # batched VectorEnv, Fixedwing-Reach beside Fixedwing-Waypoints
    "multi_agent": "dogfight",
    "multi_agent.fixedwing_dogfight": "dogfight.scene",
    "multi_agent.acmi_recorder": "dogfight.scene_recorder",
    "multi_agent.pursuit_pilot": "dogfight.pursuit_pilot",
    "multi_agent.quadx_hover": "quadx.ma_hover",
    "dogfight.acmi_recorder": "dogfight.vector_recorder",
    "fixedwing_tasks": "fixedwing",
    "fixedwing_tasks.autopilot": "fixedwing.autopilot",
    "fixedwing_tasks.kernels": "fixedwing.kernels",
    "fixedwing_tasks.options": "fixedwing.options",
    "fixedwing_tasks.twin_env": "fixedwing.twin_env",
    "fixedwing_tasks.vector_env": "fixedwing.vector_env",
}.items()}
"""Old dotted module path -> the new one."""


def _importer_stacklevel() -> int:
    """``stacklevel`` of the frame whose import statement named the old path.

    Counted from the caller of this function, past this module's frames; ``warnings``
    itself skips importlib's frames when counting, so they are not counted here either.
    """
    frame, level = sys._getframe(1), 1
    while frame is not None:
        filename = frame.f_code.co_filename
        if "importlib" in filename and "_bootstrap" in filename:
            frame = frame.f_back
            continue
        if filename != __file__:
            return level
        frame, level = frame.f_back, level + 1
    return level


class _AliasLoader(importlib.abc.Loader):
    """Loads an old path as the module at its new path."""

    def __init__(self, new_name: str):
        self.new_name = new_name

    def create_module(self, spec) -> ModuleType:
        warnings.warn(f"{spec.name} has moved to {self.new_name}; import it from there (the "
                      f"old path goes in the next release)", DeprecationWarning,
                      stacklevel=_importer_stacklevel())
        # The new module keeps its own __name__ and __spec__: the import system sets module
        # attributes only where they are missing.
        return importlib.import_module(self.new_name)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module was executed under its new path."""


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds the old paths of :data:`MOVED`, and nothing else."""

    def find_spec(self, fullname: str, path=None, target=None):
        new_name = MOVED.get(fullname)
        if new_name is None:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(new_name))


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedModuleFinder())
