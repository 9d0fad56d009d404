"""Checks both PettingZoo scenes run: the ecosystem's API tests, warnings as errors."""

from __future__ import annotations

import warnings

import numpy as np
from pettingzoo.test import api_test, parallel_api_test
from pettingzoo.utils.conversions import parallel_to_aec


def assert_parallel_api_clean(env, num_cycles: int) -> None:
    """``parallel_api_test`` passes on ``env`` with no warning; the env is closed after."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            parallel_api_test(env, num_cycles=num_cycles)
    finally:
        env.close()


def assert_aec_api_clean(env, num_cycles: int) -> None:
    """``api_test`` passes on the AEC conversion of ``env`` with no warning; closes it after."""
    aec_env = parallel_to_aec(env)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            api_test(aec_env, num_cycles=num_cycles)
    finally:
        aec_env.close()


def random_actions(env) -> dict:
    """A random action for every live agent."""
    return {agent: env.action_space(agent).sample() for agent in env.agents}


def assert_observations_in_space(env, seed: int, steps: int) -> None:
    """Random actions over ``steps`` steps (resetting when everyone is gone) never give an
    observation outside its agent's space or a non-finite reward; the env is closed after."""
    try:
        observations, _ = env.reset(seed=seed)
        for step in range(steps):
            for agent, observation in observations.items():
                assert env.observation_space(agent).contains(observation), (step, agent)
            if not env.agents:
                observations, _ = env.reset()
                continue
            observations, rewards, *_ = env.step(random_actions(env))
            assert all(np.isfinite(r) for r in rewards.values())
    finally:
        env.close()


def seeded_rollout(env, seed: int, steps: int, action_seed: int) -> list:
    """``reset(seed)``'s (observations, infos), then each step's 5-tuple under random actions
    drawn from spaces seeded with ``action_seed``; stops early once every agent is gone."""
    record = [env.reset(seed=seed)]
    for agent in env.possible_agents:
        env.action_space(agent).seed(action_seed)
    for _ in range(steps):
        if not env.agents:
            break
        record.append(env.step(random_actions(env)))
    return record
