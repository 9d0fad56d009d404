"""Scoring a trained policy: the returns of deterministic episodes of a single env."""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
import numpy as np

from pyflyt_like.common.validation import MAX_SEED, check_memory, check_positive_int, check_seed

from .policy import PPOPolicy

__all__ = ["evaluate_policy"]


def evaluate_policy(env_fn_or_env: gym.Env | Callable[[], gym.Env], policy: PPOPolicy,
                    episodes: int, seed: int | None, *, max_steps: int | None = None
                    ) -> np.ndarray:
    """Returns of ``episodes`` deterministic episodes of a single (non-vector) env.

    Args:
        env_fn_or_env: a ``gymnasium.Env`` (used as is, left open) or a no-argument callable
            making one (closed afterwards); its observation and action spaces must have the
            policy's shapes, (D,) and (A,).
        policy: acts with ``deterministic=True``.
        episodes: number of episodes; episode i is reset with ``seed=seed + i``.
        seed: seed of the first episode, an int in [0, 2**63 - episodes]; None resets every
            episode unseeded.
        max_steps: stop an episode after this many steps (for envs without a time limit);
            None waits for ``terminated`` or ``truncated``.

    Returns:
        (episodes,) float64 undiscounted episode returns.

    Raises:
        TypeError: ``env_fn_or_env`` is neither an env nor a callable (or the callable
            returns something else), ``policy`` is not a PPOPolicy, or a number is of the
            wrong kind.
        ValueError: ``episodes``, ``seed`` or ``max_steps`` out of range, or the env's
            spaces do not fit the policy. All checks run before an episode starts.
    """
    if not isinstance(policy, PPOPolicy):
        raise TypeError(f"policy must be a PPOPolicy, got {policy!r}")
    episodes = check_positive_int("episodes", episodes)
    check_memory(f"episodes={episodes}", 8 * episodes, hint="evaluate fewer episodes")
    seed = check_seed("seed", seed)
    if seed is not None and seed + episodes - 1 > MAX_SEED:
        raise ValueError(f"seed + episodes - 1 must be below 2**63 (episode i is reset with "
                         f"seed + i), got seed={seed}, episodes={episodes}")
    if max_steps is not None:
        max_steps = check_positive_int("max_steps", max_steps)
    owned = not isinstance(env_fn_or_env, gym.Env)
    if owned and not callable(env_fn_or_env):
        raise TypeError(f"env_fn_or_env must be a gymnasium.Env or a no-argument callable "
                        f"making one, got {env_fn_or_env!r}")
    env = env_fn_or_env() if owned else env_fn_or_env
    try:
        _check_env_fits(env, policy)
        out = np.zeros(episodes)
        for i in range(episodes):
            obs, _ = env.reset(seed=None if seed is None else seed + i)
            total, steps, ended = 0.0, 0, False
            while not ended:
                obs, reward, terminated, truncated, _ = env.step(policy.act(obs))
                total += float(reward)
                steps += 1
                ended = terminated or truncated or (max_steps is not None and steps >= max_steps)
            out[i] = total
    finally:
        if owned and isinstance(env, gym.Env):
            env.close()
    return out


def _check_env_fits(env: object, policy: PPOPolicy) -> None:
    """Raise unless ``env`` is a single Gymnasium env whose spaces have the policy's shapes."""
    if not isinstance(env, gym.Env):
        raise TypeError(f"env_fn_or_env must be a gymnasium.Env or make one (a single env, "
                        f"not a vector env), got {env!r}")
    for what, space, size in (("observation", env.observation_space, policy.obs_dim),
                              ("action", env.action_space, policy.act_dim)):
        shape = getattr(space, "shape", None)
        if shape != (size,):
            raise ValueError(f"env_fn_or_env's {what} space {space!r} does not fit the "
                             f"policy, which needs shape ({size},)")
