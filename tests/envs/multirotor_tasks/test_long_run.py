"""The long run: every Multirotor task over 16 384 envs for 3 000 steps of uniformly random
actions, with no NaN or inf anywhere in what the policy sees and no exception."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.envs import MULTIROTOR_TASKS

from ._factories import make_vec

NUM_ENVS = 16_384
STEPS = 3_000


@pytest.mark.slow
@pytest.mark.parametrize("task", MULTIROTOR_TASKS)
def test_random_actions_over_many_envs_and_steps_stay_finite(task):
    envs = make_vec(task, NUM_ENVS)
    rng = np.random.default_rng(0)
    try:
        observations, _ = envs.reset(seed=0)
        assert np.isfinite(observations).all()
        episodes_ended = 0
        for step in range(STEPS):
            actions = rng.uniform(-1.0, 1.0, envs.action_space.shape).astype(np.float32)
            observations, rewards, terminated, truncated, infos = envs.step(actions)
            assert np.isfinite(observations).all(), f"non-finite observation at step {step}"
            assert np.isfinite(rewards).all(), f"non-finite reward at step {step}"
            episodes_ended += int(terminated.sum() + truncated.sum())
        assert envs.observation_space.contains(observations)
        assert all(np.isfinite(value).all() for value in infos.values())
        assert episodes_ended > NUM_ENVS  # the autoreset ran, many times over
    finally:
        envs.close()
