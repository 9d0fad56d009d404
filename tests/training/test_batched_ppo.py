"""Seconds of PPO on the batched Multirotor-Hover: the return of the policy being trained
improves measurably over the untrained policy's."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from tests.extras import require_extra

torch = require_extra("rl", "torch")

import pyflyt_like.envs  # noqa: E402, F401  (registers the ids)
from pyflyt_like.training import PPOConfig, train_ppo  # noqa: E402

ENV_ID = "pyflyt_like/Multirotor-Hover-v0"
SECONDS = 1.0  # episode length: 50 agent steps of reward ≤ 1, so the maximum return is 50
NUM_ENVS = 1024
ITERATIONS = 20


@pytest.fixture
def two_threads():
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(threads)


# An acceptance check: 1024 envs run the threaded task kernel, whose cold compile (~1-3 min on
# 2 cores) no fast test needs. PPO's learning: tests/training/test_ppo.py; the batched Hover
# env: tests/envs/multirotor_tasks; PPO-style training on it through SB3: tests/integrations.
@pytest.mark.slow
def test_ppo_on_the_batched_hover_improves_the_return(two_threads):
    envs = gymnasium.make_vec(ENV_ID, num_envs=NUM_ENVS, vectorization_mode="vector_entry_point",
                              max_duration_seconds=SECONDS)
    config = PPOConfig(total_steps=NUM_ENVS * 32 * ITERATIONS, n_steps=32, n_epochs=5,
                       n_minibatches=4, learning_rate=1e-3, gamma=0.98, seed=0)
    _, history = train_ppo(envs, config)
    envs.close()
    assert len(history) == ITERATIONS
    returns = [(row["iteration"], row["mean_return"]) for row in history if row["n_episodes"]]
    # The first episodes are flown by the untrained (sampling) policy; every row averages
    # ~1000 episodes, whose mean has a standard error of ~0.3.
    first, last = returns[0][1], np.mean([value for _, value in returns[-2:]])
    print(f"mean return: iteration {returns[0][0]} {first:.2f}, last two rows {last:.2f}")
    # measured: 31.6 at iteration 2, ~36.9 at iterations 18-20
    assert last > first + 3.0
