"""Fixed-shape target deltas (``padded_target_deltas``) and gymnasium's async vector envs."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env

from pyflyt_like.envs import TASKS, FlattenWaypointEnv

from .._env_checks import make

NAMES = sorted(TASKS)
# tasks with a Sequence observation: (targets per episode, width of a delta) by default
SEQUENCE_TASKS = {"Fixedwing-Waypoints": (4, 3), "QuadX-Gates": (5, 4),
                  "QuadX-Pole-Waypoints": (4, 3), "QuadX-Waypoints": (4, 3)}


def course(env):
    """The env's course of targets or gates (both count progress in ``index``)."""
    return env.gates if hasattr(env, "gates") else env.targets


@pytest.mark.parametrize("name", NAMES)
def test_every_task_runs_in_a_shared_memory_async_vector_env(name):
    options = {"padded_target_deltas": True} if name in SEQUENCE_TASKS else {}
    envs = gymnasium.make_vec(f"pyflyt_like/{name}-v0", num_envs=2,
                              vectorization_mode="async", **options)
    try:
        observations, _ = envs.reset(seed=0)
        for _ in range(2):
            observations, rewards, *_ = envs.step(envs.action_space.sample())
        assert envs.observation_space.contains(observations)
        assert rewards.shape == (2,) and np.all(np.isfinite(rewards))
    finally:
        envs.close()


def test_sequence_observations_need_the_option_or_no_shared_memory():
    env_id = "pyflyt_like/QuadX-Waypoints-v0"
    with pytest.raises(TypeError, match="shared_memory"):
        gymnasium.make_vec(env_id, num_envs=2, vectorization_mode="async")
    envs = gymnasium.make_vec(env_id, num_envs=2, vectorization_mode="async",
                              vector_kwargs={"shared_memory": False})
    try:
        observations, _ = envs.reset(seed=0)
        assert len(observations["target_deltas"]) == 2  # one (k, 3) array per env
        assert all(deltas.shape == (4, 3) for deltas in observations["target_deltas"])
    finally:
        envs.close()


@pytest.mark.parametrize("name", sorted(SEQUENCE_TASKS))
def test_padded_variant_passes_check_env_without_warnings(name):
    default = make(name)
    assert isinstance(default.observation_space["target_deltas"], spaces.Sequence)
    default.close()
    env = make(name, padded_target_deltas=True)
    try:
        assert env.observation_space["target_deltas"].shape == SEQUENCE_TASKS[name]
        assert env.observation_space["target_mask"] == spaces.MultiBinary(
            SEQUENCE_TASKS[name][0])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env, skip_render_check=True)
    finally:
        env.close()


@pytest.mark.parametrize("name", ["QuadX-Waypoints", "QuadX-Gates"])
def test_padded_deltas_are_the_sequence_rows_then_zeros_with_a_mask(name):
    plain, padded = make(name), make(name, padded_target_deltas=True)
    try:
        first, _ = plain.reset(seed=4)
        second, _ = padded.reset(seed=4)
        total = second["target_mask"].shape[0]
        np.testing.assert_array_equal(second["target_deltas"], first["target_deltas"])
        np.testing.assert_array_equal(second["target_mask"], np.ones(total, dtype=np.int8))
        # Two targets behind: the remaining rows come first, the rest are zeros and masked.
        for env in (plain, padded):
            course(env).index = 2
        first, second = plain.observe(), padded.observe()
        remaining = total - 2
        assert first["target_deltas"].shape[0] == remaining
        np.testing.assert_array_equal(second["target_deltas"][:remaining],
                                      first["target_deltas"])
        np.testing.assert_array_equal(second["target_deltas"][remaining:], 0.0)
        np.testing.assert_array_equal(second["target_mask"], [1] * remaining + [0, 0])
        assert padded.observation_space.contains(second)
    finally:
        plain.close()
        padded.close()


def test_flatten_wrapper_gives_the_same_vector_for_both_layouts():
    plain = FlattenWaypointEnv(make("QuadX-Waypoints"), context_length=3)
    padded = FlattenWaypointEnv(make("QuadX-Waypoints", padded_target_deltas=True),
                                context_length=3)
    try:
        assert plain.observation_space == padded.observation_space
        np.testing.assert_array_equal(plain.reset(seed=1)[0], padded.reset(seed=1)[0])
        for env in (plain, padded):
            env.unwrapped.targets.index = 2  # two remain: the third slot is padding
        np.testing.assert_array_equal(plain.observation(plain.unwrapped.observe()),
                                      padded.observation(padded.unwrapped.observe()))
    finally:
        plain.close()
        padded.close()


def test_padded_target_deltas_must_be_a_bool():
    with pytest.raises(TypeError, match="padded_target_deltas"):
        make("QuadX-Waypoints", padded_target_deltas="yes")
