"""The self-play league: an opponent is fixed for its whole episode and credited with it,
worlds of several aircraft get one member, PFSP draws as its weights say, the win gate opens
only above its threshold, snapshots are frozen, and PPO's log-probabilities are those of the
policy that acted."""

from __future__ import annotations

import numpy as np
import pytest

from tests.extras import require_extra

torch = require_extra("rl", "torch")

from pyflyt_like.envs import PursuitPilot  # noqa: E402
from pyflyt_like.envs.dogfight.vector_env import DogfightVectorEnv  # noqa: E402
from pyflyt_like.training import PPOConfig, PPOPolicy  # noqa: E402
from pyflyt_like.training.league import League, LeagueEnv, LeagueMember, WinGate  # noqa: E402
from pyflyt_like.training.rollout import EnvCursor, RolloutBuffers, collect_rollout  # noqa: E402


class CountingPilot:
    """A pilot that flies as ``pilot`` does and counts the rows it was asked for."""

    def __init__(self, pilot):
        self.pilot, self.rows = pilot, 0

    def __call__(self, observations):
        self.rows += observations.shape[0]
        return self.pilot(observations)


def _short_duels(worlds: int, team_size: int = 1) -> DogfightVectorEnv:
    # short episodes, so that many end (by time or by a kill) within a few hundred steps
    return DogfightVectorEnv(num_envs=worlds * team_size, team_size=team_size,
                             opponent=lambda obs: obs, max_duration_seconds=4.0)


def test_each_world_keeps_its_opponent_for_the_whole_episode_and_credits_it():
    env = _short_duels(16)
    league = League(16, 1, np.random.default_rng(0), power=0.0)  # uniform draws
    pilots = [CountingPilot(PursuitPilot(env, follow_distance=f)) for f in (10.0, 20.0, 35.0)]
    for index, pilot in enumerate(pilots):
        league.add(f"pilot-{index}", pilot)
    wrapped = LeagueEnv(env, league)
    me = PursuitPilot(env)
    observations, _ = wrapped.reset(seed=1)
    restarting = np.zeros(16, bool)  # the next step restarts the world (actions ignored)
    episodes = np.zeros(3, np.int64)
    acted = np.zeros(3, np.int64)
    for _ in range(400):
        before = league.assigned.copy()
        acted += np.bincount(before, minlength=3)
        observations, _, terminated, truncated, infos = wrapped.step(me(observations))
        ended = terminated | truncated
        np.testing.assert_array_equal(ended, infos["_team_win"])
        changed = league.assigned != before
        assert not (changed & ~ended).any()  # a world changes its opponent only as it ends
        episodes += np.bincount(before[ended], minlength=3)
        assert not (ended & restarting).any()
        restarting = ended
    assert episodes.sum() > 30  # the check saw many episode ends (48 measured)
    assert [m.games for m in league.members] == episodes.tolist()
    assert [p.rows for p in pilots] == acted.tolist()


def test_a_world_of_two_aircraft_is_flown_by_one_member():
    league = League(3, 2, np.random.default_rng(0))
    league.add("a", lambda obs: np.full((len(obs), 4), 1.0))
    league.add("b", lambda obs: np.full((len(obs), 4), 2.0))
    league.assigned[:] = [1, 0, 1]
    actions = league(np.zeros((6, 5)))
    np.testing.assert_array_equal(actions[:, 0], [2.0, 2.0, 1.0, 1.0, 2.0, 2.0])


def test_results_are_credited_to_the_member_of_the_world():
    league = League(4, 1, np.random.default_rng(0))
    for name in "abc":
        league.add(name, lambda obs: obs)
    league.assigned[:] = [0, 1, 1, 2]
    league.record(np.array([True, True, True, False]), np.array([0, 1, -1, 0]))
    assert [(m.wins, m.draws, m.losses) for m in league.members] == [(1, 0, 0), (0, 1, 1),
                                                                     (0, 0, 0)]
    assert league.assigned[3] == 2  # a world still in its episode keeps its member


def test_pfsp_draws_members_as_their_weights_say():
    league = League(20_000, 1, np.random.default_rng(3), power=2.0, prior_games=0.0,
                    min_weight=0.05)
    for name in "abc":
        league.add(name, lambda obs: obs)
    a, b, _ = league.members
    a.wins = 100  # mastered: the least weight
    b.wins, b.draws = 50, 50  # half won (a draw is no win): (1 - 1/2)^2
    weights = league.weights()
    np.testing.assert_allclose(weights, np.array([0.05, 0.25, 0.25]) / 0.55)
    league.assign(np.ones(20_000, bool))
    shares = np.bincount(league.assigned, minlength=3) / 20_000
    np.testing.assert_allclose(shares, weights, atol=4 * np.sqrt(0.5 * 0.5 / 20_000))


def test_the_win_gate_opens_only_above_its_threshold():
    gate = WinGate(threshold=0.6, min_games=10)
    assert not gate.passes(LeagueMember("a", print, "scripted", wins=6, losses=4))  # 0.6
    assert gate.passes(LeagueMember("a", print, "scripted", wins=7, losses=3))
    assert not gate.passes(LeagueMember("a", print, "scripted", wins=6, draws=4))  # no win
    assert not gate.passes(LeagueMember("a", print, "scripted", wins=9))  # too few games
    league = League(2, 1, np.random.default_rng(0))
    league.add("teacher", lambda obs: obs)
    policy = PPOPolicy(3, 1, [-1.0], [1.0], hidden_sizes=(4,), seed=0)
    assert league.promote_if_ready(gate, "snapshot-1", policy) is None
    league.incumbent.wins, league.incumbent.losses = 7, 3
    member = league.promote_if_ready(gate, "snapshot-1", policy)
    assert member is league.incumbent and member.kind == "snapshot"
    assert league.promote_if_ready(gate, "snapshot-2", policy) is None  # not yet played
    with pytest.raises(ValueError, match="threshold must be in"):
        WinGate(threshold=1.0)
    with pytest.raises(ValueError, match="min_games"):
        WinGate(min_games=0)


def test_a_snapshot_is_frozen_when_the_learner_trains_on():
    policy = PPOPolicy(3, 2, [-1.0, -1.0], [1.0, 1.0], hidden_sizes=(8,), seed=0)
    league = League(1, 1, np.random.default_rng(0))
    member = league.add_policy("snapshot-1", policy)
    observations = np.random.default_rng(1).normal(size=(5, 3))
    before = member.pilot(observations).copy()
    with torch.no_grad():
        for parameter in policy.actor.parameters():
            parameter.add_(1.0)
    np.testing.assert_array_equal(member.pilot(observations), before)
    assert not np.array_equal(policy.act(observations), before)


def test_ppo_log_probabilities_are_those_of_the_acting_learner():
    env = _short_duels(8)
    config = PPOConfig(hidden_sizes=(16, 16), seed=0)
    learner = PPOPolicy.from_spaces(env.single_observation_space, env.single_action_space,
                                    config)
    league = League(8, 1, np.random.default_rng(0))
    league.add_policy("snapshot-0", learner)  # the opponent is an older copy ...
    with torch.no_grad():
        for parameter in learner.actor.parameters():
            parameter.mul_(1.5)  # ... that no longer acts as the learner does
    wrapped = LeagueEnv(env, league)
    buffers = RolloutBuffers.allocate(32, 8, learner.obs_dim, learner.act_dim)
    cursor = EnvCursor.reset(wrapped, 0)
    collect_rollout(wrapped, learner, buffers, cursor, torch.Generator().manual_seed(0),
                    reward_scale=1.0, track_obs_stats=False)
    with torch.no_grad():
        log_prob, _, _, _ = learner.log_prob_entropy_value(
            buffers.observations.view(-1, learner.obs_dim),
            buffers.actions.view(-1, learner.act_dim))
    torch.testing.assert_close(log_prob, buffers.log_probs.view(-1), rtol=1e-5, atol=1e-4)


def test_bad_league_arguments_are_named():
    with pytest.raises(ValueError, match="n_worlds"):
        League(0, 1, np.random.default_rng(0))
    league = League(2, 1, np.random.default_rng(0))
    with pytest.raises(RuntimeError, match="no members"):
        league.weights()
    league.add("a", lambda obs: obs)
    with pytest.raises(ValueError, match="name must be a str no member has"):
        league.add("a", lambda obs: obs)
    with pytest.raises(TypeError, match="pilot must map"):
        league.add("b", "pursuit")
    with pytest.raises(ValueError, match="kind must be one of"):
        league.add("b", lambda obs: obs, kind="exploiter")
    with pytest.raises(ValueError, match="league is sized for 2 worlds"):
        LeagueEnv(_short_duels(4), league)
    with pytest.raises(ValueError, match="not opponent='self'"):
        LeagueEnv(DogfightVectorEnv(num_envs=4, team_size=1), league)
