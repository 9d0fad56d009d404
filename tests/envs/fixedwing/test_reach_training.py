"""A short PPO run on Fixedwing-Reach-v0 improves the return of the untrained policy."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.envs.fixedwing.vector_env import FixedwingReachVectorEnv

torch = pytest.importorskip("torch", reason='needs the rl extra: pip install "pyflyt_like[rl]"')

OPTIONS = dict(max_duration_seconds=10.0, agent_hz=10)  # short episodes, 100 steps each
ENVS = 128


def mean_return(policy, seed: int) -> float:
    """Mean return of the first episode of ENVS worlds under the deterministic policy."""
    env = FixedwingReachVectorEnv(num_envs=ENVS, **OPTIONS)
    observation, _ = env.reset(seed=seed)
    total, running = np.zeros(ENVS), np.ones(ENVS, bool)
    while running.any():
        observation, reward, terminated, truncated, _ = env.step(policy.act(observation))
        total += np.where(running, reward, 0.0)
        running &= ~(terminated | truncated)
    env.close()
    return float(total.mean())


@pytest.mark.slow
def test_a_short_training_improves_the_return():
    from pyflyt_like.training import PPOConfig, PPOPolicy, train_ppo

    torch.set_num_threads(2)
    env = FixedwingReachVectorEnv(num_envs=ENVS, **OPTIONS)
    config = PPOConfig(n_steps=64, total_steps=ENVS * 64 * 60, n_epochs=4, n_minibatches=4,
                       learning_rate=1e-3, gamma=0.99, seed=0)
    space = env.single_action_space
    untrained = PPOPolicy(env.single_observation_space.shape[0], space.shape[0], space.low,
                          space.high, hidden_sizes=config.hidden_sizes,
                          activation=config.activation, init_log_std=config.init_log_std,
                          seed=0)
    policy, history = train_ppo(env, config)
    env.close()
    before, after = mean_return(untrained, 123), mean_return(policy, 123)
    # the untrained policy glides (throttle 0) into a crash: -10 and little progress
    assert after > before + 5.0, (before, after, [row["mean_return"] for row in history])
