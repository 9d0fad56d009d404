"""Bad input to Fixedwing-Reach raises early, clear exceptions naming the argument the user
gave, on both engines; sizes are refused with the estimate before anything is built."""

from __future__ import annotations

import tracemalloc

import gymnasium
import numpy as np
import pytest

import pyflyt_like.common.validation as validation
from pyflyt_like.envs.base.task_options import MAX_ACTION_DELAY_STEPS, MAX_DURATION_SECONDS
from pyflyt_like.envs.fixedwing.vector_env import FixedwingReachVectorEnv


def make_vec(num_envs: int, **options) -> FixedwingReachVectorEnv:
    return gymnasium.make_vec("pyflyt_like/Fixedwing-Reach-v0", num_envs=num_envs,
                              vectorization_mode="vector_entry_point", **options)


def make_twin(**options) -> gymnasium.Env:
    return gymnasium.make("pyflyt_like/Fixedwing-Reach-v0", **options)


# every real-valued option at the extremes: a ValueError or TypeError naming it, never an
# OverflowError from the step count (1e308 s) nor a silent acceptance
BAD_REALS = [(1e308, ValueError), (float("inf"), ValueError), (float("nan"), ValueError),
             (-1.0, ValueError), (True, TypeError), ("5", TypeError), (None, TypeError)]
BAD_OPTIONS = [
    *[(dict(max_duration_seconds=value), error, "max_duration_seconds")
      for value, error in BAD_REALS if value is not None],  # None: the default
    (dict(max_duration_seconds=0.0), ValueError, "max_duration_seconds"),
    (dict(max_duration_seconds=1e308), ValueError,
     r"max_duration_seconds must be at most 3600 s"),
    (dict(max_duration_seconds=MAX_DURATION_SECONDS + 1.0), ValueError,
     "max_duration_seconds"),
    *[(dict(observation_noise=value), error, "observation_noise")
      for value, error in BAD_REALS if value != 1e308],  # any finite noise is clipped
    (dict(action_delay_steps=MAX_ACTION_DELAY_STEPS + 1), ValueError,
     r"action_delay_steps must be an int in \[0, 1000\]"),
    (dict(action_delay_steps=10**18), ValueError, "action_delay_steps"),
    (dict(action_delay_steps=2.0), TypeError, "action_delay_steps"),
    (dict(physics_hz=10**12), ValueError, r"physics_hz must be a positive integer <= 2400"),
    (dict(physics_hz=240.0), TypeError, "physics_hz"),
    (dict(agent_hz=10**12), ValueError, "agent_hz"),
    (dict(agent_hz=30.0), TypeError, "agent_hz"),
    (dict(seed=2**63), ValueError, "seed"),
]


def _option_id(case) -> str:
    (name, value), = case[0].items()
    return f"{name}={value!r}"[:40]


@pytest.mark.parametrize(("options", "error", "match"), BAD_OPTIONS,
                         ids=[_option_id(case) for case in BAD_OPTIONS])
def test_bad_options_raise_naming_the_option_on_both_engines(options, error, match):
    with pytest.raises(error, match=match):
        make_vec(2, **options)
    with pytest.raises(error, match=match):
        make_twin(**options)


@pytest.mark.parametrize(("num_envs", "error"), [
    (0, ValueError), (-2, ValueError), (2.0, TypeError), (True, TypeError), ("2", TypeError),
    (None, TypeError)])
def test_bad_num_envs_is_named(num_envs, error):
    with pytest.raises(error, match="num_envs"):
        FixedwingReachVectorEnv(num_envs=num_envs)


# ---------------------------------------------------------------------------------- sizes
@pytest.mark.parametrize(("options", "match"), [
    # the engine's own check named n_worlds, which the user never passed
    (dict(num_envs=10**12), r"^num_envs=1000000000000 needs about .* GiB, more than the "
                            r".* GiB allowed.*use fewer envs$"),
    # the ring of pending actions alone was 31 GiB, allocated after the engine (8 s), and
    # ended in a MemoryError
    (dict(num_envs=2**20, action_delay_steps=1000),
     r"^num_envs=1048576 with action_delay_steps=1000 needs about 3\d(\.\d)? GiB.*use fewer "
     r"envs or a shorter delay$"),
])
def test_a_size_too_large_is_refused_naming_num_envs_before_anything_is_built(
        monkeypatch, options, match):
    monkeypatch.setattr(validation, "memory_limit_bytes", lambda: 16 * 2**30)
    FixedwingReachVectorEnv(num_envs=2).close()  # modules loaded outside the trace
    tracemalloc.start()
    with pytest.raises(ValueError, match=match):
        FixedwingReachVectorEnv(**options)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 4 * 2**20  # nothing sized by num_envs was allocated


def test_the_delay_ring_counts_in_the_estimate(monkeypatch):
    # 2**14 envs fit in 128 MiB without delay (~100 MiB); the ring of 1001 x 4 actions per
    # env is 500 MiB on top
    monkeypatch.setattr(validation, "memory_limit_bytes", lambda: 128 * 2**20)
    FixedwingReachVectorEnv(num_envs=2**14).close()
    with pytest.raises(ValueError, match=r"action_delay_steps=1000 needs about 0\.[5-6]\d* GiB"):
        FixedwingReachVectorEnv(num_envs=2**14, action_delay_steps=1000)


def test_the_largest_options_are_accepted():
    envs = make_vec(2, max_duration_seconds=MAX_DURATION_SECONDS,
                    action_delay_steps=MAX_ACTION_DELAY_STEPS, observation_noise=1e308)
    try:
        assert envs.unwrapped.params.max_steps == MAX_DURATION_SECONDS * 30
        observations, _ = envs.reset(seed=0)
        observations, *_ = envs.step(np.zeros(envs.action_space.shape))
        assert np.isfinite(observations).all()  # the noise is clipped to the space
    finally:
        envs.close()
