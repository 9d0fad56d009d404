"""PursuitPilot: shapes, dtypes, errors, vectorisation, and that it actually wins dogfights."""

from __future__ import annotations

import types

import numpy as np
import pytest

from pyflyt_like.envs.dogfight.pursuit_pilot import PursuitPilot, rotation_errors
from pyflyt_like.envs.dogfight.scene import MAFixedwingDogfightEnv

FAST_SEED = 5  # an episode the pilot wins by shooting the random opponent down in ~9 s


@pytest.fixture
def make_env():
    """Factory of dogfight envs, closed after the test."""
    made: list[MAFixedwingDogfightEnv] = []

    def factory(**kwargs) -> MAFixedwingDogfightEnv:
        env = MAFixedwingDogfightEnv(**kwargs)
        made.append(env)
        return env

    yield factory
    for env in made:
        env.close()


def play(env: MAFixedwingDogfightEnv, pilot: PursuitPilot | None, seed: int,
         pilot_agents: tuple[str, ...] = ("uav_0",)) -> dict:
    """One episode: ``pilot_agents`` flown by ``pilot`` (or random if None), the rest random.

    Returns the last team_win, uav_0's hits dealt, and whether anybody collided."""
    observations, _ = env.reset(seed=seed)
    for k, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(seed + 1000 * k)
    dealt, collided, team_win = 0, False, None
    while env.agents:
        flown = {a: observations[a] for a in env.agents if a in pilot_agents}
        actions = pilot.act_dict(flown) if pilot is not None else {}
        for agent in env.agents:
            actions.setdefault(agent, env.action_space(agent).sample())
        observations, _, _, _, infos = env.step(actions)
        for info in infos.values():
            collided |= bool(info.get("collision"))
            team_win = info["team_win"]
        dealt += infos["uav_0"]["dealt_hits"] if "uav_0" in infos else 0
    return {"team_win": team_win, "dealt": dealt, "collided": collided}


# ----------------------------------------------------------------- shapes and dtypes
@pytest.mark.parametrize(("team_size", "flight_mode", "angles"),
                         [(1, 1, "quaternion"), (2, 1, "euler"), (1, 0, "quaternion"),
                          (2, 0, "euler")])
def test_actions_have_the_action_space_shape_and_float32(make_env, team_size, flight_mode,
                                                         angles):
    env = make_env(team_size=team_size, assisted_flight=flight_mode == 1,
                   flight_mode=flight_mode, angle_representation=angles)
    pilot = PursuitPilot(env)
    observations, _ = env.reset(seed=0)
    batch = np.stack([observations[a] for a in env.agents])
    space = env.action_space("uav_0")
    assert pilot.obs_dim == env.observation_space("uav_0").shape[0]
    assert pilot.act_dim == space.shape[0]

    actions = pilot(batch)
    assert actions.shape == (2 * team_size, space.shape[0])
    assert actions.dtype == np.float32
    assert np.all(actions >= space.low) and np.all(actions <= space.high)
    # float32 observations (the vector env's) give the same actions, and one row works alone
    np.testing.assert_allclose(pilot(batch.astype(np.float32)), actions, atol=1e-4)
    single = pilot(batch[0])
    assert single.shape == (space.shape[0],) and single.dtype == np.float32
    np.testing.assert_array_equal(single, actions[0])

    by_agent = pilot.act_dict(observations)
    assert list(by_agent) == list(observations)
    for k, agent in enumerate(observations):
        np.testing.assert_array_equal(by_agent[agent], actions[k])
    assert pilot.act_dict({}) == {}
    env.step(by_agent)  # the env takes them as they are


def test_a_large_batch_of_arbitrary_observations_gives_finite_actions_in_bounds(make_env):
    env = make_env(team_size=2)
    pilot = PursuitPilot(env)
    space = env.observation_space("uav_0")
    space.seed(0)
    batch = np.stack([space.sample() for _ in range(2000)])
    batch[:100, pilot.layout.others:] = 0.0  # nobody else in play: fly home
    actions = pilot(batch)
    action_space = env.action_space("uav_0")
    assert actions.shape == (2000, 4) and np.all(np.isfinite(actions))
    assert np.all(actions >= action_space.low) and np.all(actions <= action_space.high)
    # row by row the same as the batch (no coupling between aircraft)
    for k in (0, 1, 500, 1999):
        np.testing.assert_array_equal(pilot(batch[k]), actions[k])


def test_rotation_errors_match_the_attitude_controller():
    from pyflyt_like.control.fixedwing_attitude import attitude_error, desired_rotation
    rng = np.random.default_rng(0)
    angles = rng.uniform(-3.0, 3.0, (50, 2, 3))
    angles[0] = ((np.pi, 0.0, 0.0), (0.0, 0.0, 0.0))  # upside down: the full error
    rotations = np.stack([desired_rotation(*a[0]) for a in angles])
    desired = np.stack([desired_rotation(*a[1]) for a in angles])
    expected = np.stack([attitude_error(r, d) for r, d in zip(rotations, desired)])
    np.testing.assert_allclose(rotation_errors(rotations, desired), expected, atol=1e-9)
    assert np.linalg.norm(expected[0]) == pytest.approx(np.pi)


# ----------------------------------------------------------------- errors
def test_unsupported_options_raise_value_errors_naming_them(make_env):
    with pytest.raises(ValueError, match="flatten_observation"):
        PursuitPilot(make_env(team_size=1, flatten_observation=False))
    with pytest.raises(ValueError, match="mode -1"):
        PursuitPilot(make_env(team_size=1, assisted_flight=False, flight_mode=-1))
    env = make_env(team_size=1)
    with pytest.raises(TypeError, match="'angle_representation'"):
        PursuitPilot(types.SimpleNamespace(flatten_observation=True, flight_mode=1))
    with pytest.raises(ValueError, match="num_drones"):
        PursuitPilot(types.SimpleNamespace(
            flatten_observation=True, flight_mode=1, angle_representation="quaternion",
            team_size=1, num_drones=3, flight_dome_size=800.0, lethal_distance=20.0,
            lethal_angle_radians=0.07))
    with pytest.raises(ValueError, match="max_airspeed"):
        PursuitPilot(env, min_airspeed=20.0, max_airspeed=15.0)
    with pytest.raises(ValueError, match="floor_altitude"):
        PursuitPilot(env, floor_altitude=-1.0)
    with pytest.raises(ValueError, match="lead_time_limits"):
        PursuitPilot(env, lead_time_limits=(1.0, 0.5))


def test_bad_observations_raise(make_env):
    env = make_env(team_size=1)
    pilot = PursuitPilot(env)
    dim = pilot.obs_dim
    with pytest.raises(ValueError, match=rf"\(N, {dim}\)"):
        pilot(np.zeros((3, dim + 1)))
    with pytest.raises(ValueError, match="finite"):
        pilot(np.full((1, dim), np.nan))
    with pytest.raises(TypeError, match="numeric"):
        pilot(np.array([["a"] * dim]))
    with pytest.raises(TypeError, match="dict"):
        pilot.act_dict([np.zeros(dim)])


# ----------------------------------------------------------------- flying
def test_one_episode_against_random_the_pilot_shoots_the_opponent_down(make_env):
    env = make_env(team_size=1)
    random_play = play(env, None, FAST_SEED)
    pilot_play = play(env, PursuitPilot(env), FAST_SEED)
    assert pilot_play["dealt"] > random_play["dealt"]
    assert pilot_play["team_win"] == 0
    assert not pilot_play["collided"]


@pytest.mark.slow
def test_the_pilot_beats_random_and_never_hits_the_ground_against_itself(make_env):
    env = make_env(team_size=1)
    pilot = PursuitPilot(env)
    wins = sum(play(env, pilot, seed)["team_win"] == 0 for seed in range(20))
    assert wins >= 19
    for seed in range(10):
        result = play(env, pilot, seed, pilot_agents=("uav_0", "uav_1"))
        assert not result["collided"], f"seed {seed}: a collision in pilot vs pilot"
