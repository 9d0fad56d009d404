"""Scoring a trained policy: the returns of deterministic episodes of a single env."""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
import numpy as np

from pyflyt_like.common.validation import check_int, check_positive_int

from .policy import PPOPolicy

__all__ = ["evaluate_policy"]


def evaluate_policy(env_fn_or_env: gym.Env | Callable[[], gym.Env], policy: PPOPolicy,
                    episodes: int, seed: int, *, max_steps: int | None = None) -> np.ndarray:
    """Returns of ``episodes`` deterministic episodes of a single (non-vector) env.

    Args:
        env_fn_or_env: a ``gymnasium.Env`` (used as is, left open) or a no-argument callable
            making one (closed afterwards).
        policy: acts with ``deterministic=True``.
        episodes: number of episodes; episode i is reset with ``seed=seed + i``.
        seed: seed of the first episode.
        max_steps: stop an episode after this many steps (for envs without a time limit);
            None waits for ``terminated`` or ``truncated``.

    Returns:
        (episodes,) float64 undiscounted episode returns.
    """
    episodes = check_positive_int("episodes", episodes)
    seed = check_int("seed", seed)
    if max_steps is not None:
        max_steps = check_positive_int("max_steps", max_steps)
    owned = not isinstance(env_fn_or_env, gym.Env)
    env = env_fn_or_env() if owned else env_fn_or_env
    if not isinstance(env, gym.Env):
        raise TypeError(f"env_fn_or_env must be a gymnasium.Env or make one, got {env!r}")
    out = np.zeros(episodes)
    try:
        for i in range(episodes):
            obs, _ = env.reset(seed=seed + i)
            total, steps, ended = 0.0, 0, False
            while not ended:
                obs, reward, terminated, truncated, _ = env.step(policy.act(obs))
                total += float(reward)
                steps += 1
                ended = terminated or truncated or (max_steps is not None and steps >= max_steps)
            out[i] = total
    finally:
        if owned:
            env.close()
    return out
