"""Every registered task: checker-clean, deterministic, in-space observations, frames."""

from __future__ import annotations

import gymnasium
import pytest

from pyflyt_like.envs import TASKS

from .._env_checks import (
    assert_checker_clean,
    assert_deterministic,
    assert_frame_ok,
    assert_observations_in_space,
)

NAMES = sorted(TASKS)


def test_every_task_is_registered_under_the_namespace():
    for name in NAMES:
        assert f"pyflyt_like/{name}-v0" in gymnasium.registry


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("angle_representation", ["quaternion", "euler"])
@pytest.mark.parametrize("sparse_reward", [False, True])
def test_check_env_passes_without_warnings(name, angle_representation, sparse_reward):
    assert_checker_clean(name, angle_representation=angle_representation,
                         sparse_reward=sparse_reward)


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_episode_other_seed_other_start(name):
    assert_deterministic(name, steps=100)


@pytest.mark.parametrize("name", NAMES)
def test_observations_stay_in_space(name):
    assert_observations_in_space(name, steps=600)


@pytest.mark.parametrize("name", NAMES)
def test_rgb_array_frames(name):
    assert_frame_ok(name)
