"""Fine-tuning a pretrained policy with PPO: the critic's warm-up leaves the actor alone, the
behaviour-cloning term pulls toward the reference on the right observations, its weight
decays as configured, and the KL target stops an update's epochs."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest

from tests.extras import require_extra

torch = require_extra("rl", "torch")

from pyflyt_like.training import PPOConfig, PPOPolicy, train_ppo  # noqa: E402
from pyflyt_like.training.algorithm import _reference_means  # noqa: E402

from .test_ppo import PointMassVec  # noqa: E402

BASE = PPOConfig(n_steps=16, total_steps=16 * 8 * 40, n_epochs=4, n_minibatches=2,
                 hidden_sizes=(16, 16), seed=3)


def _policy(seed: int) -> PPOPolicy:
    env = PointMassVec(8)
    return PPOPolicy.from_spaces(env.single_observation_space, env.single_action_space,
                                 BASE, seed=seed)


def _actor_state(policy: PPOPolicy) -> list[torch.Tensor]:
    return [p.detach().clone() for p in [*policy.actor.parameters(), policy.log_std]]


def test_the_critic_learns_alone_during_the_warm_up():
    config = dataclasses.replace(BASE, critic_warmup_iterations=3)
    policy = _policy(0)
    actor, critic = _actor_state(policy), copy.deepcopy(policy.critic.state_dict())
    seen = []

    def stop_after_three(row):
        seen.append(row)
        if row["iteration"] == 3:
            assert all(torch.equal(a, b) for a, b in zip(actor, _actor_state(policy)))
            assert any(not torch.equal(value, policy.critic.state_dict()[key])
                       for key, value in critic.items())
        return row["iteration"] < 4

    train_ppo(PointMassVec(8), config, stop_after_three, policy=policy)
    assert [row["actor_updated"] for row in seen] == [False, False, False, True]
    assert not all(torch.equal(a, b) for a, b in zip(actor, _actor_state(policy)))


def test_the_behaviour_cloning_weight_decays_linearly_after_the_warm_up():
    config = dataclasses.replace(BASE, critic_warmup_iterations=2, bc_coef=4.0,
                                 bc_decay_iterations=4)
    assert [config.bc_weight(i) for i in range(1, 9)] == [4.0, 4.0, 4.0, 3.0, 2.0, 1.0,
                                                          0.0, 0.0]
    constant = dataclasses.replace(BASE, bc_coef=0.5)
    assert constant.bc_weight(1) == constant.bc_weight(10_000) == 0.5


def test_reference_means_undo_the_learners_normalisation():
    policy = _policy(0)
    policy.update_obs_stats(torch.tensor([0.7], dtype=torch.float64),
                            torch.tensor([2.5], dtype=torch.float64), 1000.0)
    raw = torch.linspace(-3.0, 3.0, 50)[:, None]
    norm = policy.normalize(raw)
    reference = copy.deepcopy(policy)  # the same actor and statistics: the same means
    torch.testing.assert_close(_reference_means(reference, policy, norm), policy(raw))
    other = _policy(5)  # no statistics of its own: it must see the raw observations
    other.normalize_observations = False
    torch.testing.assert_close(_reference_means(other, policy, norm), other.actor(raw),
                               rtol=1e-5, atol=1e-5)


def test_behaviour_cloning_keeps_the_actor_near_its_reference():
    reference = _policy(7)
    probe = torch.linspace(-1.0, 1.0, 41)[:, None]

    def distance_after(bc_coef: float) -> tuple[float, float]:
        policy = _policy(7)  # starts as the reference
        config = dataclasses.replace(BASE, bc_coef=bc_coef, learning_rate=3e-3)
        _, history = train_ppo(PointMassVec(8), config, policy=policy, reference=reference)
        with torch.no_grad():
            gap = float((policy(probe) - reference(probe)).square().mean())
        return gap, history[-1]["bc_loss"]

    free, _ = distance_after(0.0)
    held, bc_loss = distance_after(50.0)
    assert held < 0.2 * free, (held, free)
    assert np.isfinite(bc_loss) and bc_loss < 0.2 * free


def test_the_kl_target_stops_an_updates_epochs():
    policy = _policy(0)
    tight = dataclasses.replace(BASE, learning_rate=1e-2, target_kl=1e-9, total_steps=16 * 8 * 3)
    _, history = train_ppo(PointMassVec(8), tight, policy=policy)
    assert [row["epochs"] for row in history] == [1, 1, 1]
    loose = dataclasses.replace(tight, target_kl=None)
    _, history = train_ppo(PointMassVec(8), loose, policy=_policy(0))
    assert [row["epochs"] for row in history] == [4, 4, 4]


@pytest.mark.parametrize(("fields", "error", "match"), [
    ({"critic_warmup_iterations": -1}, ValueError, "critic_warmup_iterations must be an int"),
    ({"critic_warmup_iterations": 2.0}, TypeError, "critic_warmup_iterations must be an int"),
    ({"critic_warmup_iterations": 2, "vf_coef": 0.0}, ValueError, "give vf_coef > 0"),
    ({"target_kl": 0.0}, ValueError, "target_kl"),
    ({"target_kl": "0.01"}, TypeError, "target_kl"),
    ({"bc_coef": -1.0}, ValueError, "bc_coef"),
    ({"bc_decay_iterations": True}, TypeError, "bc_decay_iterations"),
])
def test_bad_fine_tuning_fields_are_named(fields, error, match):
    with pytest.raises(error, match=match):
        dataclasses.replace(BASE, **fields)


def test_a_reference_is_checked_before_training():
    config = dataclasses.replace(BASE, bc_coef=1.0)
    with pytest.raises(ValueError, match="needs a reference policy"):
        train_ppo(PointMassVec(8), config)
    with pytest.raises(TypeError, match="reference must be None or a PPOPolicy"):
        train_ppo(PointMassVec(8), config, reference="imitation.pt")
    wide = PPOPolicy(2, 1, [-1.0], [1.0], hidden_sizes=(8,))
    with pytest.raises(ValueError, match="reference has obs_dim=2"):
        train_ppo(PointMassVec(8), config, reference=wide)
