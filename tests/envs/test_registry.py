"""The one list of env ids (pyflyt_like.envs.registry) and everything derived from it."""

from __future__ import annotations

import inspect
import subprocess
import sys

import gymnasium
import pytest

import pyflyt_like.envs as envs
from pyflyt_like.envs import registry
from pyflyt_like.integrations import rllib

ENTRY_POINTS = [(entry.id, kind, getattr(entry, kind)) for entry in registry.ENVS
                for kind in ("entry_point", "vector_entry_point", "parallel_entry_point")
                if getattr(entry, kind) is not None]


def test_every_id_is_listed_once_with_a_family_and_an_entry_point():
    ids = [entry.id for entry in registry.ENVS]
    assert len(ids) == len(set(ids)) == 17
    for entry in registry.ENVS:
        assert entry.id == registry.env_id(entry.name)
        assert entry.family in ("quadx", "fixedwing", "rocket", "multirotor")
        assert entry.entry_point or entry.vector_entry_point or entry.parallel_entry_point


@pytest.mark.parametrize(("env_id", "kind", "entry_point"), ENTRY_POINTS)
def test_every_entry_point_loads_a_class_of_its_kind(env_id, kind, entry_point):
    loaded = registry.load(entry_point)
    assert inspect.isclass(loaded) and loaded.__name__ == registry.attribute_name(entry_point)
    assert loaded.__module__ == entry_point.split(":")[0]  # defined there, not re-exported
    base = {"entry_point": gymnasium.Env, "vector_entry_point": gymnasium.vector.VectorEnv}
    if kind in base:
        assert issubclass(loaded, base[kind])
    else:
        from pettingzoo import ParallelEnv

        assert issubclass(loaded, ParallelEnv)


def test_gymnasium_registers_exactly_the_single_agent_and_vector_ids():
    registered = {env_id for env_id in gymnasium.registry
                  if env_id.startswith(f"{registry.NAMESPACE}/")}
    assert registered == {entry.id for entry in registry.ENVS if entry.is_gymnasium}
    for entry in registry.ENVS:
        if entry.is_gymnasium:
            spec = gymnasium.spec(entry.id)
            assert spec.entry_point == entry.entry_point
            assert spec.vector_entry_point == entry.vector_entry_point
            assert spec.kwargs == entry.kwargs


def test_the_derived_lists_read_the_registry():
    assert envs.TASKS == {entry.name: entry.entry_point.removeprefix("pyflyt_like.envs.")
                          for entry in registry.PYBULLET_TASKS}
    assert list(envs.TASKS) == ["QuadX-Hover", "QuadX-Waypoints", "QuadX-Pole-Balance",
                                "QuadX-Pole-Waypoints", "QuadX-Ball-In-Cup", "QuadX-Gates",
                                "Fixedwing-Waypoints", "Rocket-Landing"]
    assert envs.MULTIROTOR_TASKS == ("Hover", "Reach", "Track", "Land", "Navigate")
    assert [entry.kwargs["task"] for entry in registry.MULTIROTOR_TASKS] == list(
        envs.MULTIROTOR_TASKS)
    assert rllib.MULTI_AGENT_SCENES == {
        "pyflyt_like/MAQuadX-Hover-v0": "MAQuadXHoverEnv",
        "pyflyt_like/MAFixedwing-Dogfight-v0": "MAFixedwingDogfightEnv"}
    assert rllib.single_agent_ids() == (
        [f"pyflyt_like/{name}-v0" for name in envs.TASKS]
        + [f"pyflyt_like/Multirotor-{name}-v0" for name in envs.MULTIROTOR_TASKS]
        + ["pyflyt_like/Fixedwing-Reach-v0"])
    for class_name in rllib.MULTI_AGENT_SCENES.values():
        assert class_name in envs.__all__


def test_reading_the_registry_imports_no_env_module():
    code = ("import sys, pyflyt_like.envs.registry as r; "
            "print(sorted(m for m in sys.modules if m.startswith('pyflyt_like.envs.') "
            "and m not in ('pyflyt_like.envs._moved', 'pyflyt_like.envs.registry')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout.strip().splitlines()[-1]
    assert result == "[]"
