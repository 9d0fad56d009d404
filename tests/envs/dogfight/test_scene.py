"""MAFixedwingDogfight: PettingZoo API, determinism, spaces, and scripted gun/death mechanics."""

from __future__ import annotations

import math

import numpy as np
import pybullet
import pytest

from pyflyt_like.envs import MAFixedwingDogfightEnv
from pyflyt_like.envs.base.aviary_env import FAILURE_PENALTY
from pyflyt_like.envs.dogfight.options import observation_layout
from pyflyt_like.rules.dogfight import DAMAGE_REWARD, WIN_REWARD

from .._ma_checks import (
    assert_aec_api_clean,
    assert_observations_in_space,
    assert_parallel_api_clean,
    seeded_rollout,
)

SPEED = 14.0  # m/s, the acrowing's spawn speed
ALTITUDE = 60.0  # m, where scripted duels are flown


@pytest.fixture
def env():
    environment = MAFixedwingDogfightEnv()
    environment.reset(seed=0)
    yield environment
    environment.close()


def place(env, agent: str, position, yaw: float = 0.0, speed: float = SPEED) -> None:
    """Put ``agent``'s aircraft at ``position`` [m], level, heading ``yaw``, flying at
    ``speed`` along its nose."""
    drone = env.drones[env.agent_index[agent]]
    client = env.aviary._client
    pybullet.resetBasePositionAndOrientation(
        drone.Id, list(position), pybullet.getQuaternionFromEuler((0.0, 0.0, yaw)),
        physicsClientId=client)
    velocity = (speed * math.cos(yaw), speed * math.sin(yaw), 0.0)
    pybullet.resetBaseVelocity(drone.Id, velocity, (0, 0, 0), physicsClientId=client)
    drone.update_state()


def duel(env, shooter: str, target: str, offset) -> None:
    """``target`` at ``offset`` [m] (ground frame) from ``shooter``, both heading +x; the
    other aircraft far out to the sides, out of everyone's way."""
    place(env, shooter, (0.0, 0.0, ALTITUDE))
    place(env, target, np.add((0.0, 0.0, ALTITUDE), offset))
    side = 60.0
    for agent in env.agents:
        if agent not in (shooter, target):
            place(env, agent, (0.0, side, ALTITUDE))
            side = -side


def level(env) -> dict:
    """Attitude-hold actions: wings level, nose level, no turn, cruise throttle."""
    return {agent: env.action_mappings[env.agent_index[agent]].to_action((0, 0, 0, 0.36))
            for agent in env.agents}


OPTION_SETS = [
    {},
    {"flatten_observation": False, "angle_representation": "euler"},
    {"team_size": 1},
    {"angle_representation": "euler", "sparse_reward": True},
    {"assisted_flight": False},
    {"assisted_flight": False, "flight_mode": -1, "team_size": 1, "sparse_reward": True},
]


@pytest.mark.parametrize("options", OPTION_SETS)
def test_parallel_api_test_passes_without_warnings(options):
    assert_parallel_api_clean(MAFixedwingDogfightEnv(**options), num_cycles=200)


@pytest.mark.parametrize("team_size", [1, 2])
def test_aec_conversion_passes_api_test(team_size):
    assert_aec_api_clean(MAFixedwingDogfightEnv(team_size=team_size), num_cycles=200)


def test_defaults_and_spaces(env):
    assert env.possible_agents == ["uav_0", "uav_1", "uav_2", "uav_3"]
    np.testing.assert_array_equal(env.team, (0, 0, 1, 1))
    assert all(d.drone_model == "acrowing" for d in env.drones)
    assert env.flight_mode == 1 and env.aviary_steps_per_action == 4
    assert (env.damage_per_hit, env.lethal_distance, env.lethal_angle_radians) == (
        0.003, 20.0, 0.07)
    assert env.metadata["name"] == "ma_fixedwing_dogfight_v0"
    # attitude 23 (3 + 4 + 3 + 3 + 4 action + 6 aux), own health, 3 x 12 per other aircraft
    assert env.observation_space("uav_0").shape == (60,)
    assert env.action_space("uav_0").shape == (4,)
    unassisted = MAFixedwingDogfightEnv(assisted_flight=False, flight_mode=-1)
    try:
        assert unassisted.flight_mode == -1 and unassisted.action_space("uav_0").shape == (6,)
        assert unassisted.drones[0].mode == -1
    finally:
        unassisted.close()


def test_spawn_on_a_circle_heading_outwards_and_vary_with_the_seed(env):
    observations, infos = env.reset(seed=3)
    first = np.array([d.state[3] for d in env.drones])
    radii = np.hypot(first[:, 0], first[:, 1])
    assert np.all((radii >= 10.0 - 1e-9) & (radii <= 50.0 + 1e-9))  # PyFlyt's defaults
    assert np.all((first[:, 2] >= 20.0 - 1e-9) & (first[:, 2] <= 50.0 + 1e-9))
    bearings = np.arctan2(first[:, 1], first[:, 0])
    yaws = np.array([d.state[1, 2] for d in env.drones])
    np.testing.assert_allclose(np.angle(np.exp(1j * (yaws - bearings))), 0.0, atol=1e-6)
    assert infos["uav_0"] == {"health": 1.0, "received_hits": 0, "dealt_hits": 0,
                              "dead": False, "team_win": None}
    env.reset(seed=4)
    assert not np.allclose(first, [d.state[3] for d in env.drones])
    env.reset(seed=3)
    np.testing.assert_array_equal(first, [d.state[3] for d in env.drones])


def test_structured_observation_holds_the_same_numbers_as_the_flat_one():
    flat_env = MAFixedwingDogfightEnv(flatten_observation=True)
    dict_env = MAFixedwingDogfightEnv(flatten_observation=False)
    try:
        flat, _ = flat_env.reset(seed=5)
        structured, _ = dict_env.reset(seed=5)
        space = dict_env.observation_space("uav_1")
        assert set(space.spaces) == {"self", "others"}
        assert space["self"].shape == (24,) and space["others"].feature_space.shape == (12,)
        for agent in flat_env.possible_agents:
            observation = structured[agent]
            assert observation["others"].shape == (3, 12)
            np.testing.assert_array_equal(
                flat[agent], np.concatenate((observation["self"], observation["others"].ravel())))
            assert observation in dict_env.observation_space(agent)
    finally:
        flat_env.close()
        dict_env.close()


@pytest.mark.parametrize("aggressiveness, cooperativeness", [(0.0, 0.0), (1.0, 0.0), (0.5, 1.0),
                                                             (0.25, 0.5)])
def test_aggressiveness_and_cooperativeness_weigh_the_hit_rewards(aggressiveness,
                                                                  cooperativeness):
    """uav_0 hits uav_2 for one step: own, teammate and victim rewards by the documented
    weights (sparse reward, so only the hits count)."""
    env = MAFixedwingDogfightEnv(sparse_reward=True, aggressiveness=aggressiveness,
                                 cooperativeness=cooperativeness)
    try:
        env.reset(seed=0)
        duel(env, "uav_0", "uav_2", (10.0, 0.0, 0.0))
        _, rewards, _, _, infos = env.step(level(env))
        unit = DAMAGE_REWARD * 0.003 * infos["uav_0"]["dealt_hits"]
        received = -(1.0 - aggressiveness) * unit
        assert rewards["uav_0"] == pytest.approx(unit)
        assert rewards["uav_1"] == pytest.approx(cooperativeness * unit)
        assert rewards["uav_2"] == pytest.approx(received)
        assert rewards["uav_3"] == pytest.approx(cooperativeness * received)
    finally:
        env.close()


def test_same_seed_same_rollout():
    env = MAFixedwingDogfightEnv()
    try:
        np.testing.assert_equal(seeded_rollout(env, seed=9, steps=60, action_seed=5),
                                seeded_rollout(env, seed=9, steps=60, action_seed=5))
    finally:
        env.close()


@pytest.mark.parametrize("options", [{}, {"angle_representation": "euler",
                                          "assisted_flight": False}])
def test_observations_stay_in_their_spaces_over_long_random_rollouts(options):
    assert_observations_in_space(MAFixedwingDogfightEnv(**options), seed=2, steps=800)


@pytest.mark.parametrize("agent_hz, hits_per_step", [(30, 8), (60, 4)])
def test_a_shooter_behind_its_enemy_removes_damage_per_hit_each_physics_step(agent_hz,
                                                                            hits_per_step):
    env = MAFixedwingDogfightEnv(agent_hz=agent_hz, sparse_reward=True, aggressiveness=0.0,
                                 cooperativeness=0.0)
    try:
        env.reset(seed=0)
        duel(env, "uav_0", "uav_2", (10.0, 0.0, 0.0))
        damage = 0.003 * hits_per_step
        for step in range(1, 4):
            _, rewards, terminations, _, infos = env.step(level(env))
            assert infos["uav_0"]["dealt_hits"] == hits_per_step
            assert infos["uav_2"]["received_hits"] == hits_per_step
            expected = 1.0 - 0.003 * hits_per_step * step
            assert infos["uav_2"]["health"] == pytest.approx(expected, abs=1e-12)
            assert infos["uav_0"]["health"] == 1.0 and infos["uav_0"]["received_hits"] == 0
            assert rewards["uav_0"] == pytest.approx(DAMAGE_REWARD * damage)
            assert rewards["uav_2"] == pytest.approx(-DAMAGE_REWARD * damage)
            assert rewards["uav_1"] == rewards["uav_3"] == 0.0
            assert not any(terminations.values())
    finally:
        env.close()


@pytest.mark.parametrize("offset", [
    (10.0, 1.0, 0.0),  # 0.0997 rad off the nose: outside the 0.07 rad cone
    (10.0, 0.0, -1.0),  # below the nose by the same angle
    (25.0, 0.0, 0.0),  # on the nose but beyond the 20 m lethal distance
    (-10.0, 0.0, 0.0),  # behind the shooter
])
def test_no_hit_outside_the_cone_or_beyond_the_lethal_distance(env, offset):
    duel(env, "uav_0", "uav_2", offset)
    for _ in range(3):
        _, _, _, _, infos = env.step(level(env))
        assert infos["uav_0"]["dealt_hits"] == 0 and infos["uav_2"]["health"] == 1.0


def test_teammates_never_damage_each_other(env):
    duel(env, "uav_0", "uav_1", (10.0, 0.0, 0.0))
    for _ in range(3):
        _, _, _, _, infos = env.step(level(env))
        assert all(info["health"] == 1.0 and info["dealt_hits"] == 0 for info in infos.values())


def test_a_destroyed_aircraft_leaves_the_agents_and_its_infos_say_dead():
    env = MAFixedwingDogfightEnv(damage_per_hit=0.05)  # 20 hits kill: during the 3rd step
    try:
        env.reset(seed=0)
        duel(env, "uav_0", "uav_2", (10.0, 0.0, 0.0))
        for _ in range(2):
            env.step(level(env))
        _, rewards, terminations, _, infos = env.step(level(env))
        assert terminations == {"uav_0": False, "uav_1": False, "uav_2": True, "uav_3": False}
        assert infos["uav_2"]["dead"] and infos["uav_2"]["health"] == 0.0
        assert infos["uav_2"]["received_hits"] == 4  # shot down on the 2nd of 4 aviary steps
        assert infos["uav_0"]["team_win"] is None and not infos["uav_0"]["dead"]
        assert env.agents == ["uav_0", "uav_1", "uav_3"]
        assert not env.aviary.armed[2]
        observations, *_ = env.step(level(env))
        assert "uav_2" not in observations
        # uav_2's block in uav_0's observation (its 2nd other aircraft): zeros, enemy flag 0
        block = observations["uav_0"][24 + 12:24 + 24]
        np.testing.assert_array_equal(block, np.zeros(12))
    finally:
        env.close()


def test_the_last_kill_ends_the_episode_with_team_win():
    env = MAFixedwingDogfightEnv(team_size=1, damage_per_hit=0.05)
    try:
        env.reset(seed=0)
        duel(env, "uav_1", "uav_0", (10.0, 0.0, 0.0))
        ended = False
        for _ in range(5):
            _, rewards, terminations, _, infos = env.step(level(env))
            if any(terminations.values()):
                ended = True
                break
        assert ended and terminations == {"uav_0": True, "uav_1": True}
        assert infos["uav_0"]["team_win"] == 1 and infos["uav_1"]["team_win"] == 1
        assert infos["uav_0"]["dead"] and not infos["uav_1"]["dead"]
        assert rewards["uav_1"] > WIN_REWARD and rewards["uav_0"] < -WIN_REWARD
        assert env.agents == []
    finally:
        env.close()


def test_hitting_the_ground_ends_that_agent_with_the_failure_penalty(env):
    duel(env, "uav_0", "uav_2", (0.0, 40.0, 0.0))
    place(env, "uav_3", (50.0, 0.0, 0.15), yaw=0.0)
    pybullet.resetBaseVelocity(env.drones[3].Id, (SPEED, 0.0, -8.0), (0, 0, 0),
                               physicsClientId=env.aviary._client)
    _, rewards, terminations, _, infos = env.step(level(env))
    assert rewards["uav_3"] == FAILURE_PENALTY and terminations["uav_3"]
    assert infos["uav_3"]["collision"] and infos["uav_3"]["dead"]
    assert infos["uav_3"]["team_win"] is None  # uav_2 still flies for team 1
    assert env.agents == ["uav_0", "uav_1", "uav_2"]


def test_leaving_the_dome_ends_that_agent_with_the_failure_penalty(env):
    place(env, "uav_1", (0.0, 799.8, ALTITUDE), yaw=math.pi / 2)
    _, rewards, terminations, _, infos = env.step(level(env))
    assert rewards["uav_1"] == FAILURE_PENALTY and terminations["uav_1"]
    assert infos["uav_1"]["out_of_bounds"] and infos["uav_1"]["dead"]
    assert "uav_1" not in env.agents and len(env.agents) == 3


def test_observation_holds_the_enemy_in_the_own_body_frame(env):
    place(env, "uav_0", (0.0, 0.0, ALTITUDE), yaw=math.pi / 2)  # heading +y
    place(env, "uav_2", (0.0, 10.0, ALTITUDE + 2.0), yaw=math.pi / 2)
    observation = env.step(level(env))[0]["uav_0"]
    block = observation[24 + 12:24 + 24]  # uav_2 is uav_0's 2nd other aircraft
    own, enemy = env.drones[0], env.drones[2]
    expected = own.rotation_matrix.T @ (enemy.state[3] - own.state[3])
    np.testing.assert_allclose(block[:3], expected, atol=1e-9)
    np.testing.assert_allclose(block[:3], (10.0, 0.0, 2.0), atol=0.3)  # ahead, above
    # Both fly the same manoeuvre: same velocity and attitude.
    np.testing.assert_allclose(block[3:6], 0.0, atol=1e-6)
    np.testing.assert_allclose(np.abs(block[6:10]), (0, 0, 0, 1), atol=1e-6)  # same attitude
    assert block[10] == 1.0 and block[11] == 0.0  # full health, enemy
    assert observation[24 + 11] == 1.0  # uav_1 is an ally


def test_bad_options_raise_clear_errors():
    with pytest.raises(ValueError, match="flight_mode"):
        MAFixedwingDogfightEnv(assisted_flight=True, flight_mode=0)
    with pytest.raises(ValueError, match="flight_mode"):
        MAFixedwingDogfightEnv(assisted_flight=False, flight_mode=1)
    with pytest.raises(TypeError, match="assisted_flight"):
        MAFixedwingDogfightEnv(assisted_flight="yes")
    with pytest.raises(ValueError, match="team_size"):
        MAFixedwingDogfightEnv(team_size=0)
    with pytest.raises(ValueError, match="lethal_angle_radians"):
        MAFixedwingDogfightEnv(lethal_angle_radians=2.0)
    with pytest.raises(ValueError, match="damage_per_hit"):
        MAFixedwingDogfightEnv(damage_per_hit=-0.1)
    with pytest.raises(ValueError, match="flight_dome_size"):
        MAFixedwingDogfightEnv(spawn_max_radius=900.0)
    with pytest.raises(ValueError, match="spawn_min_height must be > 0"):
        MAFixedwingDogfightEnv(spawn_min_height=0.0)
    with pytest.raises(ValueError, match="spawn_max_radius .* must be >= spawn_min_radius"):
        MAFixedwingDogfightEnv(spawn_min_radius=60.0, spawn_max_radius=50.0)
    with pytest.raises(TypeError, match="spawn_min_radius"):
        MAFixedwingDogfightEnv(spawn_min_radius="10")
    with pytest.raises(ValueError, match="aggressiveness must be within"):
        MAFixedwingDogfightEnv(aggressiveness=1.5)
    with pytest.raises(TypeError, match="cooperativeness"):
        MAFixedwingDogfightEnv(cooperativeness=None)
    with pytest.raises(TypeError, match="flatten_observation must be a bool"):
        MAFixedwingDogfightEnv(flatten_observation="yes")
    with pytest.raises(ValueError, match="agent_hz"):
        MAFixedwingDogfightEnv(agent_hz=50)


def test_rgb_array_frames():
    env = MAFixedwingDogfightEnv(render_mode="rgb_array", render_resolution=(96, 128))
    try:
        env.reset(seed=0)
        env.step(level(env))
        frame = env.render()
        assert frame.shape == (96, 128, 3) and frame.dtype == np.uint8
        assert frame.std() > 5.0
    finally:
        env.close()


@pytest.mark.parametrize("options", [{}, {"angle_representation": "euler", "team_size": 1},
                                     {"assisted_flight": False, "flight_mode": -1}])
def test_observation_layout_finds_each_quantity_in_the_observation(options):
    env = MAFixedwingDogfightEnv(**options)
    observations = env.reset(seed=3)[0]
    observations = env.step({agent: env.action_space(agent).sample() for agent in env.agents})[0]
    act_dim = env.action_space("uav_0").shape[0]
    layout = observation_layout(env.angle_representation, act_dim, env.num_drones)
    try:
        for agent, row in observations.items():
            assert row.shape == (layout.size,)
            drone = env.drones[env.agent_index[agent]]
            np.testing.assert_allclose(row[layout.position], drone.state[3], atol=1e-5)
            np.testing.assert_allclose(row[layout.velocity], drone.state[2], atol=1e-5)
            angles = row[layout.angles]
            assert angles.shape == ((4,) if env.angle_representation == "quaternion" else (3,))
            assert row[layout.throttle] == pytest.approx(drone.aux_state[-1], abs=1e-6)
            assert row[layout.health] == 1.0
            blocks = layout.other_blocks(row[None, :])[0]
            assert blocks.shape == (env.num_drones - 1, layout.block)
            others = [j for j in range(env.num_drones) if j != env.agent_index[agent]]
            allies = [float(env.team[j] == env.team[env.agent_index[agent]]) for j in others]
            np.testing.assert_array_equal(blocks[:, -1], allies)
            relative = drone.rotation_matrix.T @ (env.drones[others[0]].state[3]
                                                  - drone.state[3])
            np.testing.assert_allclose(blocks[0, 0:3], relative, atol=1e-4)
    finally:
        env.close()
