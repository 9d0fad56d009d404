"""Gymnasium tasks (registered as ``pyflyt_like/<Name>-v0`` on import) and PettingZoo scenes.

Every class is importable from here and loaded on first use (PEP 562), so
``import pyflyt_like.envs`` costs only the registration: it loads neither PyBullet,
PettingZoo nor numba. The ids and their entry points are listed in :mod:`.registry`; the
modules are laid out by family, one folder each (``base``, ``targets``, ``quadx``,
``multirotor_tasks``, ``fixedwing``, ``rocket``, ``dogfight``).
"""

from gymnasium.envs.registration import register

from . import _moved, registry

TASKS = {entry.name: registry.relative_entry_point(entry.entry_point)
         for entry in registry.PYBULLET_TASKS}
"""Name of each PyBullet task -> its entry point, ``"module:Class"`` within this package."""

MULTIROTOR_TASKS = tuple(registry.MULTIROTOR_TASK_NAMES)
"""The batched Multirotor tasks ("Hover", ...), each registered as
``pyflyt_like/Multirotor-<task>-v0``."""

# class (or function) name -> its entry point, for the lazy exports below
_EXPORTS = {
    "FlattenWaypointEnv": "pyflyt_like.envs.targets.flatten:FlattenWaypointEnv",
    "DogfightRecorder": "pyflyt_like.envs.dogfight.scene_recorder:DogfightRecorder",
    "PursuitPilot": "pyflyt_like.envs.dogfight.pursuit_pilot:PursuitPilot",
    "DogfightVectorEnv": "pyflyt_like.envs.dogfight.vector_env:DogfightVectorEnv",
    "DogfightVectorRecorder": "pyflyt_like.envs.dogfight.vector_recorder:DogfightVectorRecorder",
    "MatchResult": "pyflyt_like.envs.dogfight.matches:MatchResult",
    "scene_matches": "pyflyt_like.envs.dogfight.matches:scene_matches",
    "batched_matches": "pyflyt_like.envs.dogfight.matches:batched_matches",
    "round_robin": "pyflyt_like.envs.dogfight.round_robin:round_robin",
    "FixedwingReachVectorEnv":
        "pyflyt_like.envs.fixedwing.vector_env:FixedwingReachVectorEnv",
    "FixedwingReachTwinEnv": "pyflyt_like.envs.fixedwing.twin_env:FixedwingReachTwinEnv",
    **{registry.attribute_name(entry_point): entry_point for entry_point in (
        *(entry.parallel_entry_point for entry in registry.MULTI_AGENT_SCENES),
        *(entry.entry_point for entry in registry.PYBULLET_TASKS),
        registry.MULTIROTOR_VECTOR,
        registry.MULTIROTOR_TWIN,
    )},
    "to_sb3_vec_env": "pyflyt_like.integrations.sb3:to_sb3_vec_env",  # needs the rl extra
}

__all__ = ["MULTIROTOR_TASKS", "TASKS", *_EXPORTS]

for _entry in registry.ENVS:
    if _entry.is_gymnasium:
        register(id=_entry.id, entry_point=_entry.entry_point,
                 vector_entry_point=_entry.vector_entry_point, kwargs=dict(_entry.kwargs))

_moved.install()


def __getattr__(name: str):
    """Load an exported class on first access (PEP 562)."""
    if name in _EXPORTS:
        return registry.load(_EXPORTS[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
