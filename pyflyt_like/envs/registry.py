"""Every environment id of the package, listed once, with its entry points as strings.

The package's ``__init__`` registers the Gymnasium ids from here; the RLlib integration, the
env-page generator, the Multirotor episodes (task lookup) and the tests read the same lists.
Entry points are ``"module:attribute"`` strings, as Gymnasium takes them, so that reading the
registry imports no env module (and neither PyBullet, PettingZoo nor numba): :func:`load`
imports one when it is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

from pyflyt_like.rules import multirotor_tasks as multirotor_rules

__all__ = ["BATCHED_FIXEDWING_TASKS", "ENVS", "MULTIROTOR_TASKS", "MULTIROTOR_TASK_NAMES",
           "MULTI_AGENT_SCENES", "PYBULLET_TASKS", "EnvEntry", "env_id", "load"]

NAMESPACE = "pyflyt_like"
PACKAGE = "pyflyt_like.envs"


@dataclass(frozen=True)
class EnvEntry:
    """One registered id.

    Attributes:
        id: e.g. ``"pyflyt_like/QuadX-Hover-v0"``.
        family: the vehicle the env flies: ``"quadx"``, ``"fixedwing"``, ``"rocket"`` or
            ``"multirotor"`` (any multirotor model of the package).
        entry_point: the single-agent ``gymnasium.Env`` (``gymnasium.make``), or None.
        vector_entry_point: the native ``gymnasium.vector.VectorEnv``
            (``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``), or None.
        parallel_entry_point: the PettingZoo ``ParallelEnv`` (a multi-agent scene), or None.
        kwargs: keyword arguments every entry point gets (before the user's).
    """

    id: str
    family: str
    entry_point: str | None = None
    vector_entry_point: str | None = None
    parallel_entry_point: str | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The id without namespace and version, e.g. ``"QuadX-Hover"``."""
        return self.id.removeprefix(f"{NAMESPACE}/").rsplit("-v", 1)[0]

    @property
    def is_gymnasium(self) -> bool:
        """Whether Gymnasium registers the id (single-agent or vector entry point)."""
        return self.entry_point is not None or self.vector_entry_point is not None


def _entry(module: str, attribute: str) -> str:
    return f"{PACKAGE}.{module}:{attribute}"


def env_id(name: str) -> str:
    """The id of ``name``, e.g. ``"QuadX-Hover"`` -> ``"pyflyt_like/QuadX-Hover-v0"``."""
    return f"{NAMESPACE}/{name}-v0"


# The PyBullet tasks with PyFlyt's names and options (docs/envs.md), in the docs' order.
PYBULLET_TASKS = tuple(EnvEntry(env_id(name), family, entry_point=_entry(module, cls))
                       for name, family, module, cls in (
    ("QuadX-Hover", "quadx", "quadx.hover", "QuadXHoverEnv"),
    ("QuadX-Waypoints", "quadx", "quadx.waypoints", "QuadXWaypointsEnv"),
    ("QuadX-Pole-Balance", "quadx", "quadx.pole_balance", "QuadXPoleBalanceEnv"),
    ("QuadX-Pole-Waypoints", "quadx", "quadx.pole_waypoints", "QuadXPoleWaypointsEnv"),
    ("QuadX-Ball-In-Cup", "quadx", "quadx.ball_in_cup", "QuadXBallInCupEnv"),
    ("QuadX-Gates", "quadx", "quadx.gates", "QuadXGatesEnv"),
    ("Fixedwing-Waypoints", "fixedwing", "fixedwing.waypoints", "FixedwingWaypointsEnv"),
    ("Rocket-Landing", "rocket", "rocket.landing", "RocketLandingEnv"),
))

MULTIROTOR_TASK_NAMES = multirotor_rules.TASK_NAMES
"""The Multirotor tasks (their rules: :mod:`pyflyt_like.rules.multirotor_tasks`, one
implementation for both engines)."""

MULTIROTOR_TWIN = _entry("multirotor_tasks.twin_env", "MultirotorTwinEnv")
MULTIROTOR_VECTOR = _entry("multirotor_tasks.vector_env", "MultirotorVectorEnv")

# Multirotor-<task>: the batched VectorEnv (vector_entry_point) and its PyBullet twin.
MULTIROTOR_TASKS = tuple(
    EnvEntry(env_id(f"Multirotor-{task}"), "multirotor", entry_point=MULTIROTOR_TWIN,
             vector_entry_point=MULTIROTOR_VECTOR, kwargs={"task": task})
    for task in MULTIROTOR_TASK_NAMES)

# Tasks on the batched fixed-wing engine, twins of a PyBullet env or scene.
BATCHED_FIXEDWING_TASKS = (
    EnvEntry(env_id("Dogfight"), "fixedwing",
             vector_entry_point=_entry("dogfight.vector_env", "DogfightVectorEnv")),
    EnvEntry(env_id("Fixedwing-Reach"), "fixedwing",
             entry_point=_entry("fixedwing.twin_env", "FixedwingReachTwinEnv"),
             vector_entry_point=_entry("fixedwing.vector_env",
                                       "FixedwingReachVectorEnv")),
)

# PettingZoo scenes; Gymnasium does not register them, RLlib does under these ids.
MULTI_AGENT_SCENES = (
    EnvEntry(env_id("MAQuadX-Hover"), "quadx",
             parallel_entry_point=_entry("quadx.ma_hover", "MAQuadXHoverEnv")),
    EnvEntry(env_id("MAFixedwing-Dogfight"), "fixedwing",
             parallel_entry_point=_entry("dogfight.scene",
                                         "MAFixedwingDogfightEnv")),
)

ENVS = PYBULLET_TASKS + MULTIROTOR_TASKS + BATCHED_FIXEDWING_TASKS + MULTI_AGENT_SCENES
"""Every id, each once."""


def relative_entry_point(entry_point: str) -> str:
    """``"module:Class"`` within :mod:`pyflyt_like.envs` of a full entry point."""
    return entry_point.removeprefix(f"{PACKAGE}.")


def attribute_name(entry_point: str) -> str:
    """The class (or function) name of an entry point, e.g. ``"QuadXHoverEnv"``."""
    return entry_point.rsplit(":", 1)[1]


def load(entry_point: str) -> Any:
    """Import the module of ``entry_point`` (``"package.module:attribute"``) and return the
    attribute."""
    module, _, attribute = entry_point.partition(":")
    return getattr(import_module(module), attribute)
