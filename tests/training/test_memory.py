"""The memory estimates of the policy and of a training run count what torch allocates."""

from __future__ import annotations

import pytest

from tests.extras import require_extra

torch = require_extra("rl", "torch")

from pyflyt_like.training import PPOPolicy  # noqa: E402
from pyflyt_like.training.memory import (  # noqa: E402
    parameter_count,
    policy_memory_bytes,
    sizes_text,
    training_memory_bytes,
)
from pyflyt_like.training.rollout import RolloutBuffers  # noqa: E402


@pytest.mark.parametrize(("obs_dim", "act_dim", "hidden"), [
    (1, 1, (1,)), (3, 2, (8,)), (25, 4, (64, 64)), (7, 3, (5, 6, 7)),
])
def test_parameter_count_is_the_policys_and_the_bytes_its_tensors(obs_dim, act_dim, hidden):
    policy = PPOPolicy(obs_dim, act_dim, -1.0, 1.0, hidden_sizes=hidden, seed=0)
    assert parameter_count(obs_dim, act_dim, hidden) == sum(p.numel()
                                                            for p in policy.parameters())
    tensors = [*policy.parameters(), *policy.buffers()]
    actual = sum(t.numel() * t.element_size() for t in tensors)
    assert policy_memory_bytes(obs_dim, act_dim, hidden) == actual


def test_training_estimate_covers_the_rollout_buffers_and_grows_with_every_size():
    n_steps, n_envs, obs_dim, act_dim, hidden = 32, 64, 10, 3, (16, 16)
    buffers = RolloutBuffers.allocate(n_steps, n_envs, obs_dim, act_dim)
    allocated = sum(t.numel() * t.element_size() for t in vars(buffers).values())
    estimate = training_memory_bytes(n_steps, n_envs, obs_dim, act_dim, hidden, 4)
    assert allocated < estimate < 10 * allocated
    for bigger in ((64, n_envs, obs_dim, act_dim, hidden, 4),
                   (n_steps, 128, obs_dim, act_dim, hidden, 4),
                   (n_steps, n_envs, 20, act_dim, hidden, 4),
                   (n_steps, n_envs, obs_dim, 6, hidden, 4),
                   (n_steps, n_envs, obs_dim, act_dim, (32, 16), 4),
                   (n_steps, n_envs, obs_dim, act_dim, hidden, 1)):
        assert training_memory_bytes(*bigger) > estimate


def test_sizes_text_shortens_long_tuples():
    assert sizes_text((64, 64)) == "(64, 64)"
    assert sizes_text((1,)) == "(1,)"
    assert sizes_text(tuple(range(1, 11))) == "(1, 2, 3, 4, 5, 6, ... 10 layers)"
