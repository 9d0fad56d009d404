"""Fixtures shared by the training tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def dogfight_policies(tmp_path_factory) -> dict[int, Path]:
    """Small untrained dogfight policies for team sizes 1 and 2, saved; by team size.
    Needs torch: only tests that skip without it use this."""
    from pyflyt_like.envs.dogfight.scene import MAFixedwingDogfightEnv
    from pyflyt_like.training import PPOConfig, PPOPolicy

    folder = tmp_path_factory.mktemp("policies")
    paths = {}
    for team_size in (1, 2):
        env = MAFixedwingDogfightEnv(team_size=team_size)
        try:
            agent = env.possible_agents[0]
            policy = PPOPolicy.from_spaces(env.observation_space(agent),
                                           env.action_space(agent),
                                           PPOConfig(hidden_sizes=(8,), seed=team_size))
        finally:
            env.close()
        paths[team_size] = folder / f"team_size_{team_size}.pt"
        policy.save(paths[team_size])
    return paths
