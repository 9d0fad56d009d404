"""evaluate_policy refuses a wrong env, env maker or policy, and bad counts and seeds, before
an episode starts; an env it made is closed even then."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from tests.extras import require_extra

torch = require_extra("rl", "torch")

from pyflyt_like.training import PPOPolicy, evaluate_policy  # noqa: E402
from tests.training.test_ppo import PointMassEnv, PointMassVec  # noqa: E402


class ClosingPointMass(PointMassEnv):
    """PointMassEnv that records whether it was reset and closed."""

    def __init__(self, obs_dim: int = 1):
        super().__init__()
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (obs_dim,), np.float32)
        self.resets, self.closed = 0, False

    def reset(self, *, seed=None, options=None):
        self.resets += 1
        return super().reset(seed=seed, options=options)

    def close(self):
        self.closed = True


@pytest.fixture(scope="module")
def policy() -> PPOPolicy:
    return PPOPolicy(obs_dim=1, act_dim=1, action_low=-1.0, action_high=1.0,
                     hidden_sizes=(8,), seed=0)


@pytest.mark.parametrize(("env", "pattern"), [
    (3, "env_fn_or_env must be a gymnasium.Env or a no-argument callable making one, got 3"),
    (None, "env_fn_or_env must be a gymnasium.Env or a no-argument callable"),
    ("Pendulum-v1", "env_fn_or_env must be a gymnasium.Env or a no-argument callable"),
    (PointMassVec(2), "env_fn_or_env must be a gymnasium.Env or a no-argument callable"),
    (lambda: 3, r"env_fn_or_env must be a gymnasium.Env or make one \(a single env, not a "
                r"vector env\), got 3"),
    (lambda: None, "env_fn_or_env must be a gymnasium.Env or make one"),
    (lambda: PointMassVec(2), "env_fn_or_env must be a gymnasium.Env or make one"),
    (PointMassEnv, None),  # a class is a callable making one: accepted
], ids=["int", "none", "str", "vector-env", "makes-int", "makes-none", "makes-vector",
        "class"])
def test_env_fn_or_env_must_be_an_env_or_make_one(policy, env, pattern):
    if pattern is None:
        assert evaluate_policy(env, policy, episodes=1, seed=0, max_steps=3).shape == (1,)
        return
    with pytest.raises(TypeError, match=pattern):
        evaluate_policy(env, policy, episodes=1, seed=0)


@pytest.mark.parametrize("bad_policy", [None, "policy.pt", object(), lambda obs: obs])
def test_policy_must_be_a_ppo_policy(bad_policy):
    env = ClosingPointMass()
    with pytest.raises(TypeError, match="policy must be a PPOPolicy"):
        evaluate_policy(env, bad_policy, episodes=1, seed=0)
    assert env.resets == 0


def test_an_env_whose_spaces_do_not_fit_the_policy_is_refused_and_closed(policy):
    made = []

    def make():
        made.append(ClosingPointMass(obs_dim=3))
        return made[-1]

    with pytest.raises(ValueError, match=r"observation space .* does not fit the policy, "
                                         r"which needs shape \(1,\)"):
        evaluate_policy(make, policy, episodes=1, seed=0)
    assert made[0].closed and made[0].resets == 0
    given = ClosingPointMass(obs_dim=3)
    with pytest.raises(ValueError, match="observation space"):
        evaluate_policy(given, policy, episodes=1, seed=0)
    assert not given.closed  # not ours to close


def test_an_action_space_that_does_not_fit_is_refused(policy):
    env = ClosingPointMass()
    env.action_space = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
    with pytest.raises(ValueError, match=r"action space .* needs shape \(1,\)"):
        evaluate_policy(env, policy, episodes=1, seed=0)


@pytest.mark.parametrize(("kwargs", "error", "pattern"), [
    (dict(episodes=0), ValueError, "episodes"),
    (dict(episodes=-1), ValueError, "episodes"),
    (dict(episodes=2.0), TypeError, "episodes"),
    (dict(episodes="2"), TypeError, "episodes"),
    (dict(episodes=True), TypeError, "episodes"),
    (dict(episodes=10**15), ValueError, r"episodes=1000000000000000 needs about .* GiB"),
    (dict(seed=-1), ValueError, "seed"),
    (dict(seed=1.5), TypeError, "seed"),
    (dict(seed="a"), TypeError, "seed"),
    (dict(seed=True), TypeError, "seed"),
    (dict(seed=2**63 - 1, episodes=2), ValueError, r"seed \+ episodes - 1 must be below 2\*\*63"),
    (dict(max_steps=0), ValueError, "max_steps"),
    (dict(max_steps=2.5), TypeError, "max_steps"),
    (dict(max_steps=False), TypeError, "max_steps"),
])
def test_counts_and_seeds_are_checked_before_an_episode(policy, kwargs, error, pattern):
    env = ClosingPointMass()
    with pytest.raises(error, match=pattern):
        evaluate_policy(env, policy, **{"episodes": 1, "seed": 0, **kwargs})
    assert env.resets == 0


def test_seed_none_runs_unseeded_episodes(policy):
    returns = evaluate_policy(ClosingPointMass(), policy, episodes=3, seed=None, max_steps=5)
    assert returns.shape == (3,) and np.isfinite(returns).all()
