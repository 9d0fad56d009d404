"""Gymnasium tasks (registered as ``pyflyt_like/<Name>-v0`` on import) and PettingZoo scenes.

The task classes (``QuadXHoverEnv``, ...) are importable from here; each is loaded on first
use, so ``import pyflyt_like.envs`` costs only the registration.
"""

from importlib import import_module

from gymnasium.envs.registration import register

from .flatten_waypoint_env import FlattenWaypointEnv
from .ma_fixedwing_dogfight_env import MAFixedwingDogfightEnv
from .ma_quadx_hover_env import MAQuadXHoverEnv

TASKS = {
    "QuadX-Hover": "quadx_hover_env:QuadXHoverEnv",
    "QuadX-Waypoints": "quadx_waypoints_env:QuadXWaypointsEnv",
    "QuadX-Pole-Balance": "quadx_pole_balance_env:QuadXPoleBalanceEnv",
    "QuadX-Pole-Waypoints": "quadx_pole_waypoints_env:QuadXPoleWaypointsEnv",
    "QuadX-Ball-In-Cup": "quadx_ball_in_cup_env:QuadXBallInCupEnv",
    "QuadX-Gates": "quadx_gates_env:QuadXGatesEnv",
    "Fixedwing-Waypoints": "fixedwing_waypoints_env:FixedwingWaypointsEnv",
    "Rocket-Landing": "rocket_landing_env:RocketLandingEnv",
}

# Multirotor-<task>: a batched VectorEnv (vector_entry_point) and its PyBullet twin
MULTIROTOR_TASKS = ("Hover", "Reach", "Track", "Land")

# class name -> module of that class, for the lazy exports below
_TASK_MODULES = dict(reversed(entry.split(":")) for entry in TASKS.values())
_TASK_MODULES |= {"MultirotorVectorEnv": "multirotor_tasks.vector_env",
                  "MultirotorTwinEnv": "multirotor_tasks.twin_env",
                  "to_sb3_vec_env": "sb3_vec_env"}  # the last needs stable-baselines3

__all__ = ["MULTIROTOR_TASKS", "TASKS", "FlattenWaypointEnv", "MAFixedwingDogfightEnv",
           "MAQuadXHoverEnv", *_TASK_MODULES]

for _name, _entry_point in TASKS.items():
    register(id=f"pyflyt_like/{_name}-v0", entry_point=f"pyflyt_like.envs.{_entry_point}")

for _task in MULTIROTOR_TASKS:
    register(id=f"pyflyt_like/Multirotor-{_task}-v0",
             entry_point="pyflyt_like.envs.multirotor_tasks.twin_env:MultirotorTwinEnv",
             vector_entry_point="pyflyt_like.envs.multirotor_tasks.vector_env:"
                                "MultirotorVectorEnv",
             kwargs={"task": _task})


def __getattr__(name: str):
    """Load a task class on first access (PEP 562)."""
    if name in _TASK_MODULES:
        return getattr(import_module(f".{_TASK_MODULES[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_TASK_MODULES))
