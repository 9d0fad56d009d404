"""The fused VectorEnvs' shared bookkeeping (pyflyt_like.envs.base.fused_vector_env): the
public per-world ``ended`` and ``restarting`` views, read-only, following the autoreset."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import pyflyt_like.envs  # noqa: F401 (registers the ids)
from pyflyt_like.envs.base.fused_vector_env import FusedVectorEnv

# (id, num_envs, options that end episodes within a few steps, envs per world)
FUSED = [("pyflyt_like/Multirotor-Hover-v0", 6, {"max_duration_seconds": 0.1}, 1),
         ("pyflyt_like/Fixedwing-Reach-v0", 4, {"max_duration_seconds": 0.2}, 1),
         ("pyflyt_like/Dogfight-v0", 4, {"team_size": 1, "max_duration_seconds": 0.2}, 2)]


@pytest.mark.parametrize(("env_id", "num_envs", "options", "per_world"), FUSED,
                         ids=[case[0].split("/")[1] for case in FUSED])
def test_ended_and_restarting_follow_the_autoreset(env_id, num_envs, options, per_world):
    envs = gymnasium.make_vec(env_id, num_envs=num_envs,
                              vectorization_mode="vector_entry_point", **options)
    fused = envs.unwrapped
    assert isinstance(fused, FusedVectorEnv)
    envs.reset(seed=3)
    assert not fused.ended.any() and not fused.restarting.any()
    for view in (fused.ended, fused.restarting):
        with pytest.raises(ValueError):
            view[0] = True  # read-only
    actions = np.zeros(envs.action_space.shape, envs.action_space.dtype)
    seen_end = False
    for _ in range(12):
        restarting = fused.restarting.copy()
        _, reward, terminated, truncated, _ = envs.step(actions)
        ended = (terminated | truncated)[::per_world]  # one row per world
        np.testing.assert_array_equal(fused.ended, ended)
        np.testing.assert_array_equal(fused.restarting, ended)
        assert not ended[restarting].any()  # a restarting world starts, it does not end
        assert (reward.reshape(-1, per_world)[restarting] == 0.0).all()
        seen_end |= bool(ended.any())
    assert seen_end
    envs.close()
