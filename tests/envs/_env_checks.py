"""Checks every Gymnasium task must pass; task test modules add their own task logic."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env

import pyflyt_like.envs  # noqa: F401  (registers the ids)


def make(name: str, **options) -> gymnasium.Env:
    """The raw env of task ``name`` (e.g. "QuadX-Hover") made through its registered id."""
    return gymnasium.make(f"pyflyt_like/{name}-v0", **options).unwrapped


def assert_checker_clean(name: str, **options) -> None:
    """gymnasium's check_env passes and emits no warning (render modes are tested apart:
    the checker would open the "human" GUI, which needs a display)."""
    env = make(name, **options)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env, skip_render_check=True)
    finally:
        env.close()


def rollout(env: gymnasium.Env, seed: int, steps: int, action_seed: int = 0) -> list:
    """(observation, reward, terminated, truncated) of ``steps`` random-action steps."""
    env.action_space.seed(action_seed)
    observation, _ = env.reset(seed=seed)
    record = [(observation, 0.0, False, False)]
    for _ in range(steps):
        observation, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        record.append((observation, reward, terminated, truncated))
        if terminated or truncated:
            observation, _ = env.reset()
            record.append((observation, 0.0, False, False))
    return record


def flatten(observation) -> np.ndarray:
    """All numbers of an observation (array or dict of arrays) as one vector."""
    if isinstance(observation, dict):
        return np.concatenate([np.ravel(observation[k]).astype(float) for k in sorted(observation)])
    return np.ravel(observation).astype(float)


def assert_deterministic(name: str, steps: int = 100, **options) -> None:
    """Same seed and actions replay bit for bit; a different seed starts elsewhere."""
    env = make(name, **options)
    try:
        first = rollout(env, seed=7, steps=steps)
        second = rollout(env, seed=7, steps=steps)
        assert len(first) == len(second)
        for (obs_a, r_a, *end_a), (obs_b, r_b, *end_b) in zip(first, second):
            np.testing.assert_array_equal(flatten(obs_a), flatten(obs_b))
            assert r_a == r_b and end_a == end_b
        other, _ = env.reset(seed=8)
        assert not np.array_equal(flatten(other), flatten(first[0][0]))
    finally:
        env.close()


def assert_observations_in_space(name: str, steps: int = 600, **options) -> None:
    """Random actions over many steps and resets never leave the observation space."""
    env = make(name, **options)
    try:
        for observation, reward, *_ in rollout(env, seed=3, steps=steps):
            assert env.observation_space.contains(observation)
            assert np.isfinite(reward)
    finally:
        env.close()


def assert_frame_ok(name: str, resolution=(120, 160), **options) -> None:
    """rgb_array frames are (H, W, 3) uint8 and show something (not one flat colour)."""
    env = make(name, render_mode="rgb_array", render_resolution=resolution, **options)
    try:
        env.reset(seed=0)
        env.step(env.action_space.sample())
        frame = env.render()
        assert frame.shape == (*resolution, 3) and frame.dtype == np.uint8
        assert frame.std() > 5.0 and len(np.unique(frame.reshape(-1, 3), axis=0)) > 20
    finally:
        env.close()
