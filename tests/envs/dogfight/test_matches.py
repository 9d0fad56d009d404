"""pyflyt_like.envs.dogfight.matches: pilots against each other on both engines. The counts
add up, the scene alternates the sides (seen in the observations the pilots get), crashes
and dome exits are told apart, a reused batched env plays as a new one, and bad arguments
are refused by name. Short episodes keep the scene's part to a few seconds."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from pyflyt_like.envs.dogfight.matches import MatchResult, batched_matches, scene_matches
from pyflyt_like.envs.dogfight.pursuit_pilot import PursuitPilot
from pyflyt_like.envs.dogfight.vector_env import DogfightVectorEnv

SHORT = 2.0  # s, max_duration_seconds of the scene episodes that need not end by a fight
OWN = 24  # entries of an aircraft's own block (attitude vector and health, quaternions)
BLOCK = 12  # entries per other aircraft; its last one is the ally flag


def scripted(env):
    return PursuitPilot(env)


def constant(action):
    """A pilot factory whose pilot always gives ``action``."""
    def factory(env):
        return lambda observations: np.tile(action, (len(observations), 1))
    return factory


DIVE = constant([0.0, 1.0, 0.0, 1.0])  # wings level, full nose down, full throttle
CLIMB_AWAY = constant([0.0, -0.3, 0.0, 1.0])  # nose up, straight on: out of the dome


def teams_seen(observations: np.ndarray) -> set[int]:
    """The teams of the aircraft whose observations these are (team_size 2): the first
    other aircraft is uav_1 for uav_0 (an ally) and uav_0 for the others, so its ally
    flag is 1 exactly for team 0's aircraft."""
    first_flag = observations[:, OWN + BLOCK - 1]
    return {0 if flag == 1.0 else 1 for flag in first_flag}


class Recording:
    """A pilot factory that records, per call of its pilot, the env's step count, the
    number of aircraft and their teams; it flies them as the scripted pilot."""

    def __init__(self):
        self.made = 0
        self.calls: list[tuple[int, int, set[int]]] = []

    def __call__(self, env):
        self.made += 1
        pilot = PursuitPilot(env)

        def fly(observations):
            step = getattr(env, "step_count", -1)  # the scene's; the batched env has none
            self.calls.append((step, len(observations), teams_seen(observations)))
            return pilot(observations)
        return fly

    def episodes(self) -> list[list[tuple[int, int, set[int]]]]:
        """The calls split into episodes (a new one at step count 0)."""
        split: list[list] = []
        for call in self.calls:
            if call[0] == 0:
                split.append([])
            split[-1].append(call)
        return split


def assert_adds_up(result: MatchResult, episodes: int) -> None:
    assert result.episodes == episodes
    assert result.wins + result.draws + result.losses == episodes
    assert min(result.wins, result.draws, result.losses, result.own_crashes,
               result.own_dome_exits) >= 0
    assert result.mean_length_steps > 0
    assert result.score == (result.wins + result.draws / 2) / episodes
    shares = result.as_dict()
    json.dumps(shares)
    assert shares["win_share"] + shares["draw_share"] + shares["loss_share"] == \
        pytest.approx(1.0)


# ----------------------------------------------------------------- the scene
def test_the_scene_alternates_the_sides_and_calls_each_pilot_once_a_step():
    side_a, side_b = Recording(), Recording()
    result = scene_matches(side_a, side_b, team_size=2, episodes=3, seed=4,
                           max_duration_seconds=0.5)
    assert_adds_up(result, 3)
    assert side_a.made == side_b.made == 1  # one scene, one pilot each
    for recording, first_team in ((side_a, 0), (side_b, 1)):
        episodes = recording.episodes()
        assert len(episodes) == 3
        for k, calls in enumerate(episodes):
            team = first_team if k % 2 == 0 else 1 - first_team
            assert {frozenset(teams) for _, _, teams in calls} == {frozenset({team})}
            steps = [step for step, _, _ in calls]
            assert steps == list(range(len(steps)))  # one call a step
            assert all(1 <= n <= 2 for _, n, _ in calls)
            assert calls[0][1] == 2  # both aircraft stacked into one call
    assert result.mean_length_steps <= 15  # 0.5 s at 30 Hz


def test_a_pilot_that_dives_into_the_ground_crashes_and_loses_on_either_team():
    result = scene_matches(DIVE, scripted, episodes=2, seed=0, max_duration_seconds=10.0)
    assert (result.losses, result.own_crashes, result.own_dome_exits) == (2, 2, 0)
    flipped = scene_matches(scripted, DIVE, episodes=2, seed=0, max_duration_seconds=10.0)
    assert (flipped.wins, flipped.own_crashes) == (2, 0)


def test_a_pilot_that_flies_off_leaves_the_dome_and_loses():
    result = scene_matches(CLIMB_AWAY, scripted, episodes=2, seed=0, flight_dome_size=100.0,
                           max_duration_seconds=10.0)
    assert (result.losses, result.own_crashes, result.own_dome_exits) == (2, 0, 2)


def test_the_first_episode_is_recorded_for_tacview(tmp_path):
    path = tmp_path / "first.acmi"
    result = scene_matches(scripted, scripted, episodes=2, seed=1, record_first=path,
                           max_duration_seconds=0.5)
    assert_adds_up(result, 2)
    text = path.read_text(encoding="utf-8")
    assert "side A (red) vs side B (blue)" in text and "reset(seed=1)" in text
    assert list(tmp_path.iterdir()) == [path]  # the first episode only


def test_scripted_against_scripted_adds_up():
    assert_adds_up(scene_matches(scripted, scripted, episodes=2, seed=0,
                                 max_duration_seconds=10.0), 2)


# ----------------------------------------------------------------- the batched engine
def test_batched_counts_add_up_and_a_reused_env_plays_the_same():
    result = batched_matches(scripted, scripted, worlds=6, seed=3, max_duration_seconds=10.0)
    assert_adds_up(result, 6)
    env = DogfightVectorEnv(num_envs=6, team_size=1, opponent="scripted",
                            max_duration_seconds=10.0)
    opponent = env.opponent
    again = batched_matches(scripted, scripted, seed=3, env=env)
    assert again == result
    assert env.opponent is opponent  # restored
    assert batched_matches(scripted, scripted, worlds=6, seed=3, env=env) == result


@pytest.mark.parametrize("team_size", [1, 2])
def test_batched_crashes_and_dome_exits_are_told_apart(team_size):
    dived = batched_matches(DIVE, scripted, team_size=team_size, worlds=4, seed=0)
    assert (dived.losses, dived.own_crashes, dived.own_dome_exits) == (4, 4 * team_size, 0)
    fled = batched_matches(CLIMB_AWAY, scripted, team_size=team_size, worlds=4, seed=0,
                           flight_dome_size=100.0)
    assert (fled.losses, fled.own_crashes, fled.own_dome_exits) == (4, 0, 4 * team_size)
    won = batched_matches(scripted, DIVE, team_size=team_size, worlds=4, seed=0)
    assert (won.wins, won.own_crashes, won.own_dome_exits) == (4, 0, 0)


def test_side_b_flies_team_1_in_the_batched_engine():
    side_a, side_b = Recording(), Recording()
    batched_matches(side_a, side_b, team_size=2, worlds=2, seed=0, max_duration_seconds=0.2)
    assert {frozenset(teams) for _, _, teams in side_a.calls} == {frozenset({0})}
    assert {frozenset(teams) for _, _, teams in side_b.calls} == {frozenset({1})}
    assert {n for _, n, _ in side_a.calls} == {4}  # all envs, one call a step


# ----------------------------------------------------------------- errors
@pytest.mark.parametrize(("kwargs", "error", "named"), [
    (dict(episodes=0), ValueError, "episodes must be a positive integer"),
    (dict(episodes=1.0), TypeError, "episodes must be a positive integer"),
    (dict(episodes=True), TypeError, "episodes must be a positive integer"),
    (dict(episodes=1, team_size=0), ValueError, "team_size must be a positive integer"),
    (dict(episodes=1, team_size=129), ValueError, "team_size must be a positive integer <="),
    (dict(episodes=1, seed=-1), ValueError, "seed must be an integer in [0, 2**63)"),
    (dict(episodes=1, seed=None), TypeError, "seed must be an integer >= 0"),
    (dict(episodes=1, seed="0"), TypeError, "seed must be an integer >= 0"),
    (dict(episodes=2, seed=2**63 - 1), ValueError, "seed + episodes - 1 must be < 2**63"),
    (dict(episodes=1, flatten_observation=False), ValueError,
     "flatten_observation must be True"),
    (dict(episodes=1, record_first="replay.txt"), ValueError, "record_first must name an "),
    (dict(episodes=1, lethal_distance=-1.0), ValueError, "lethal_distance"),
])
def test_scene_matches_refuses_bad_arguments_by_name(kwargs, error, named):
    kwargs = {"seed": 0, **kwargs}
    with pytest.raises(error, match=re.escape(named)):
        scene_matches(scripted, scripted, **kwargs)


@pytest.mark.parametrize(("pilots", "error", "named"), [
    ((PursuitPilot, "scripted"), TypeError, "pilot_b must be a pilot factory"),
    ((None, scripted), TypeError, "pilot_a must be a pilot factory"),
    ((lambda env: 3, scripted), TypeError, r"pilot_a\(env\) must return a pilot"),
    ((scripted, constant([0.0, 0.0, 1.0])), ValueError,
     r"pilot_b's actions must have shape \(1, 4\)"),
    ((constant([0.0, np.nan, 0.0, 1.0]), scripted), ValueError,
     "pilot_a's actions must be finite"),
])
def test_bad_pilots_are_named(pilots, error, named):
    with pytest.raises(error, match=named):
        scene_matches(*pilots, episodes=1, seed=0, max_duration_seconds=0.1)
    with pytest.raises(error, match=named):
        batched_matches(*pilots, worlds=1, seed=0, max_duration_seconds=0.1)


def test_a_pursuit_pilot_itself_is_not_a_factory():
    env = DogfightVectorEnv(num_envs=1, team_size=1, opponent="scripted")
    with pytest.raises(TypeError, match="lambda env: PursuitPilot"):
        batched_matches(PursuitPilot(env), scripted, seed=0, env=env)


def test_batched_matches_refuses_bad_arguments_by_name():
    with pytest.raises(TypeError, match="worlds is required"):
        batched_matches(scripted, scripted, seed=0)
    with pytest.raises(ValueError, match="worlds must be a positive integer"):
        batched_matches(scripted, scripted, worlds=0, seed=0)
    with pytest.raises(ValueError, match="seed must be an integer in"):
        batched_matches(scripted, scripted, worlds=1, seed=-3)
    with pytest.raises(ValueError, match="team_size must be a positive integer"):
        batched_matches(scripted, scripted, worlds=1, seed=0, team_size=0)
    with pytest.raises(ValueError, match="agent_hz"):
        batched_matches(scripted, scripted, worlds=1, seed=0, agent_hz=7)
    env = DogfightVectorEnv(num_envs=2, team_size=1, opponent="scripted")
    with pytest.raises(ValueError, match=r"worlds \(3\) must be env's number of worlds \(2\)"):
        batched_matches(scripted, scripted, worlds=3, seed=0, env=env)
    with pytest.raises(ValueError, match=r"team_size \(2\) must be env's team_size \(1\)"):
        batched_matches(scripted, scripted, team_size=2, seed=0, env=env)
    with pytest.raises(TypeError, match="cannot be given with env"):
        batched_matches(scripted, scripted, seed=0, env=env, lethal_distance=5.0)
    with pytest.raises(TypeError, match="env must be None or a DogfightVectorEnv"):
        batched_matches(scripted, scripted, seed=0, env="Dogfight-v0")
    self_play = DogfightVectorEnv(num_envs=2, team_size=1, opponent="self")
    with pytest.raises(ValueError, match="not opponent='self'"):
        batched_matches(scripted, scripted, seed=0, env=self_play)


def test_a_match_result_must_add_up():
    with pytest.raises(ValueError, match="wins \\+ draws \\+ losses"):
        MatchResult(episodes=3, wins=1, draws=1, losses=0, own_crashes=0, own_dome_exits=0,
                    mean_length_steps=10.0)
    result = MatchResult(episodes=4, wins=1, draws=2, losses=1, own_crashes=3,
                         own_dome_exits=1, mean_length_steps=12.5)
    assert result.score == 0.5
    assert result.as_dict() == dict(episodes=4, wins=1, draws=2, losses=1, own_crashes=3,
                                    own_dome_exits=1, mean_length_steps=12.5,
                                    win_share=0.25, draw_share=0.5, loss_share=0.25,
                                    score=0.5)


# ----------------------------------------------------------------- round-robin
def test_a_round_robin_plays_every_pairing_both_ways_and_adds_up():
    from pyflyt_like.envs.dogfight.round_robin import round_robin

    players = {"near": lambda env: PursuitPilot(env),
               "far": lambda env: PursuitPilot(env, follow_distance=35.0),
               "diver": DIVE}
    names, wins, draws = round_robin(players, worlds=4, seed=3, max_duration_seconds=5.0)
    assert names == ("near", "far", "diver")
    assert (np.diag(wins) == 0).all() and (np.diag(draws) == 0).all()
    games = wins + wins.T + draws + draws.T
    np.testing.assert_array_equal(games, 8 * (1 - np.eye(3, dtype=int)))  # 4 worlds x 2 orders
    assert wins[2].sum() == 0 and wins[0, 2] == wins[1, 2] == 8  # the diver always crashes
    # each order of a pairing is batched_matches' own result
    near_first, far_first = (batched_matches(players[a], players[b], worlds=4, seed=3,
                                             max_duration_seconds=5.0)
                             for a, b in (("near", "far"), ("far", "near")))
    assert draws[0, 1] == near_first.draws and draws[1, 0] == far_first.draws
    assert wins[0, 1] == near_first.wins + far_first.losses


def test_a_round_robin_needs_two_named_players():
    from pyflyt_like.envs.dogfight.round_robin import round_robin

    with pytest.raises(ValueError, match="players must map at least two names"):
        round_robin({"alone": lambda env: PursuitPilot(env)}, worlds=2, seed=0)
    with pytest.raises(ValueError, match="worlds"):
        round_robin({"a": lambda env: PursuitPilot(env), "b": lambda env: PursuitPilot(env)},
                    worlds=0, seed=0)
