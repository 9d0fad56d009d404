"""PPOPolicy refuses bad construction arguments (sizes too big for memory included) and bad
observations, naming the argument."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

from tests.extras import require_extra

torch = require_extra("rl", "torch")

from pyflyt_like.training import PPOConfig, PPOPolicy  # noqa: E402

GOOD = dict(obs_dim=3, act_dim=2, action_low=-1.0, action_high=1.0, hidden_sizes=(8,), seed=0)


@pytest.mark.parametrize(("overrides", "error", "pattern"), [
    (dict(obs_dim=0), ValueError, "obs_dim"),
    (dict(obs_dim=-3), ValueError, "obs_dim"),
    (dict(obs_dim=3.0), TypeError, "obs_dim"),
    (dict(obs_dim="3"), TypeError, "obs_dim"),
    (dict(obs_dim=True), TypeError, "obs_dim"),
    (dict(act_dim=0), ValueError, "act_dim"),
    (dict(act_dim=None), TypeError, "act_dim"),
    (dict(act_dim=np.float32(2)), TypeError, "act_dim"),
    (dict(hidden_sizes=(8, 0)), ValueError, r"hidden_sizes\[1\]"),
    (dict(hidden_sizes="8"), TypeError, "hidden_sizes"),
    (dict(activation="sigmoid"), ValueError, "activation"),
    (dict(init_log_std=math.nan), ValueError, "init_log_std"),
    (dict(init_log_std=100.0), ValueError, "init_log_std"),
    (dict(init_log_std=-100.0), ValueError, "init_log_std"),
    (dict(init_log_std="0"), TypeError, "init_log_std"),
    (dict(normalize_observations=1), TypeError, "normalize_observations"),
    (dict(seed=-1), ValueError, "seed"),
    (dict(seed=1.5), TypeError, "seed"),
    (dict(seed="a"), TypeError, "seed"),
    (dict(seed=True), TypeError, "seed"),
    (dict(action_low="a"), TypeError, "action_low"),
    (dict(action_low=["-1", "-1"]), TypeError, "action_low"),
    (dict(action_low=True), TypeError, "action_low"),
    (dict(action_low=[True, -1.0]), TypeError, "action_low"),
    (dict(action_low=np.array([False, False])), TypeError, "action_low"),
    (dict(action_low=-1 + 0j), TypeError, "action_low"),
    (dict(action_low=None), TypeError, "action_low"),
    (dict(action_low=[[-1.0], [-1.0, -1.0]]), TypeError, "action_low"),
    (dict(action_low=[-1.0, -1.0, -1.0]), ValueError, r"action_low .*shape \(2,\)"),
    (dict(action_low=np.full((2, 2), -1.0)), ValueError, "action_low"),
    (dict(action_low=math.nan), ValueError, "action_low"),
    (dict(action_high=[1.0, math.nan]), ValueError, "action_high"),
    (dict(action_high="1"), TypeError, "action_high"),
    (dict(action_low=1.0, action_high=-1.0), ValueError, "action_low <= action_high"),
], ids=lambda v: repr(v) if isinstance(v, dict) else None)
def test_constructor_refuses_naming_the_argument(overrides, error, pattern):
    with pytest.raises(error, match=pattern):
        PPOPolicy(**{**GOOD, **overrides})


@pytest.mark.parametrize(("overrides", "pattern"), [
    (dict(hidden_sizes=(10**12,)), r"hidden_sizes=\(1000000000000,\) needs about .* GiB"),
    (dict(obs_dim=10**12), r"obs_dim=1000000000000, act_dim=2.* needs about .* GiB"),
    (dict(act_dim=10**12), r"act_dim=1000000000000.* needs about"),
    (dict(hidden_sizes=(10**5, 10**5, 10**5)), "needs about .* GiB"),
])
def test_sizes_too_big_for_memory_are_refused_before_allocating(overrides, pattern):
    with pytest.raises(ValueError, match=pattern):
        PPOPolicy(**{**GOOD, **overrides})


def test_infinite_and_numpy_bounds_are_accepted():
    policy = PPOPolicy(**{**GOOD, "action_low": np.array([-np.inf, -2], np.float64),
                          "action_high": [np.float32(np.inf), 3]})
    assert policy.action_low.tolist() == [-math.inf, -2.0]
    assert policy.action_high.tolist() == [math.inf, 3.0]


def test_from_spaces_refuses_a_config_of_another_kind():
    box = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
    with pytest.raises(TypeError, match="config must be a PPOConfig"):
        PPOPolicy.from_spaces(box, box, config={"hidden_sizes": (8,)})
    with pytest.raises(TypeError, match="observation space"):
        PPOPolicy.from_spaces(gym.spaces.Discrete(3), box, PPOConfig())


@pytest.fixture(scope="module")
def policy() -> PPOPolicy:
    return PPOPolicy(**GOOD)


@pytest.mark.parametrize(("obs", "error", "pattern"), [
    (np.zeros(4), ValueError, r"obs must have shape \(3,\) or \(N, 3\), got \(4,\)"),
    (np.zeros((2, 2, 3)), ValueError, "obs must have shape"),
    (np.zeros(()), ValueError, "obs must have shape"),
    (np.array([0.0, math.nan, 0.0]), ValueError, "obs must be finite"),
    (np.array([[0.0, 0.0, math.inf]]), ValueError, "obs must be finite"),
    (np.array(["0", "0", "0"]), TypeError, "obs must be a numeric array"),
    (np.array([True, False, True]), TypeError, "obs must be a numeric array"),
    (np.zeros(3, np.complex64), TypeError, "obs must be a numeric array"),
    (None, TypeError, "obs must be a numeric array"),
])
def test_act_refuses_bad_observations(policy, obs, error, pattern):
    with pytest.raises(error, match=pattern):
        policy.act(obs)


def test_act_refuses_a_non_bool_deterministic(policy):
    with pytest.raises(TypeError, match="deterministic"):
        policy.act(np.zeros(3), deterministic="no")
