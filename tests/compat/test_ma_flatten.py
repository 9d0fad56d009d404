"""PyFlyt-style use of the dogfight's ``flatten_observation`` option: a flat Box per agent by
default, PyFlyt's Dict of "self" and "others" when False, through a random episode."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.envs import MAFixedwingDogfightEnv


@pytest.mark.parametrize("flatten_observation", [True, False])
def test_random_dogfight_with_either_observation_layout(flatten_observation):
    env = MAFixedwingDogfightEnv(team_size=1, flatten_observation=flatten_observation,
                                 max_duration_seconds=2.0)
    observations, infos = env.reset(seed=42)
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(i)
    steps = 0
    while env.agents:
        actions = {agent: env.action_space(agent).sample() for agent in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)
        for agent, observation in observations.items():
            assert observation in env.observation_space(agent)
            if flatten_observation:
                assert observation.ndim == 1
            else:
                assert set(observation) == {"self", "others"}
                assert observation["others"].shape == (1, 12)  # one other aircraft
            assert np.isfinite(rewards[agent])
        steps += 1
    assert steps == 60  # 2 s at 30 Hz, then truncated: spawned 20 m up or more, no crash
    env.close()
