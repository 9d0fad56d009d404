"""How the Multirotor bad-input tests make their envs: through gymnasium, as users do.

(test_multirotor_vector_env.py keeps its own copies: its deprecation test checks that the
warning names the line in that file that made the env.)"""

from __future__ import annotations

import gymnasium

from pyflyt_like.envs.multirotor_tasks.vector_env import MultirotorVectorEnv


def make_vec(task: str, num_envs: int, **options) -> MultirotorVectorEnv:
    return gymnasium.make_vec(f"pyflyt_like/Multirotor-{task}-v0", num_envs=num_envs,
                              vectorization_mode="vector_entry_point", **options)


def make_twin(task: str, **options) -> gymnasium.Env:
    return gymnasium.make(f"pyflyt_like/Multirotor-{task}-v0", **options)
