"""MAQuadXHover: PettingZoo API (parallel and AEC), determinism, spaces, hover logic, failures."""

from __future__ import annotations

import numpy as np
import pybullet
import pytest

from pyflyt_like.envs import MAQuadXHoverEnv
from pyflyt_like.envs.base.aviary_env import FAILURE_PENALTY

from .._ma_checks import (
    assert_aec_api_clean,
    assert_observations_in_space,
    assert_parallel_api_clean,
    random_actions,
    seeded_rollout,
)


@pytest.fixture
def env():
    environment = MAQuadXHoverEnv()
    yield environment
    environment.close()


def place(env, agent: str, position, velocity=(0.0, 0.0, 0.0)) -> None:
    """Put ``agent``'s drone at ``position`` [m], level, moving at ``velocity`` [m/s]."""
    drone = env.drones[env.agent_index[agent]]
    client = env.aviary._client
    pybullet.resetBasePositionAndOrientation(drone.Id, list(position), (0, 0, 0, 1),
                                             physicsClientId=client)
    pybullet.resetBaseVelocity(drone.Id, list(velocity), (0, 0, 0), physicsClientId=client)
    drone.update_state()


def hold_actions(env) -> dict:
    """Flight-mode-7 actions that target every live drone's start point."""
    return {agent: env.action_mappings[i].to_action(
                (*env.start_pos[i, :2], 0.0, env.start_pos[i, 2]))
            for agent in env.agents for i in [env.agent_index[agent]]}


def episode_returns(env, seed: int, steps: int, policy) -> dict:
    """Sum of each agent's rewards over ``steps`` steps (or until every agent is gone)."""
    env.reset(seed=seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(steps):
        if not env.agents:
            break
        _, rewards, *_ = env.step(policy(env))
        for agent, reward in rewards.items():
            returns[agent] += reward
    return returns


@pytest.mark.parametrize("angle_representation", ["quaternion", "euler"])
@pytest.mark.parametrize("sparse_reward", [False, True])
def test_parallel_api_test_passes_without_warnings(angle_representation, sparse_reward):
    assert_parallel_api_clean(MAQuadXHoverEnv(angle_representation=angle_representation,
                                              sparse_reward=sparse_reward), num_cycles=400)


@pytest.mark.parametrize("flight_mode", [0, 7])
def test_aec_conversion_passes_api_test(flight_mode):
    assert_aec_api_clean(MAQuadXHoverEnv(flight_mode=flight_mode), num_cycles=300)


def test_defaults_match_the_reference(env):
    assert env.possible_agents == ["uav_0", "uav_1", "uav_2", "uav_3"]
    np.testing.assert_array_equal(np.abs(env.start_pos), np.ones((4, 3)))
    assert {tuple(p[:2]) for p in env.start_pos} == {(-1, -1), (1, -1), (-1, 1), (1, 1)}
    assert (env.flight_dome_size, env.max_duration_seconds, env.agent_hz) == (10.0, 30.0, 40)
    assert env.flight_mode == 0 and env.max_steps == 1200
    assert env.metadata["name"] == "ma_quadx_hover_v0" and env.metadata["is_parallelizable"]
    assert set(env.metadata["render_modes"]) == {"human", "rgb_array"}
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
    assert env.action_space("uav_0") is not env.action_space("uav_1")


def test_same_seed_same_rollout_other_seed_other_start(env):
    first = seeded_rollout(env, seed=4, steps=80, action_seed=11)
    second = seeded_rollout(env, seed=4, steps=80, action_seed=11)
    assert len(first) == len(second)
    np.testing.assert_equal(first, second)
    other, _ = env.reset(seed=5)
    assert not np.array_equal(other["uav_0"], first[0][0]["uav_0"])


@pytest.mark.parametrize("flight_mode", [0, 7])
def test_observations_stay_in_their_spaces_over_long_random_rollouts(flight_mode):
    assert_observations_in_space(
        MAQuadXHoverEnv(flight_mode=flight_mode, angle_representation="euler"), seed=1,
        steps=1500)


def test_observation_ends_with_the_offset_to_the_start_point(env):
    env.reset(seed=0)
    place(env, "uav_1", (1.5, -1.0, 2.0))
    observations = env.observations([1])
    np.testing.assert_allclose(observations[0][-3:], (-0.5, 0.0, -1.0))


def test_holding_the_start_points_beats_random_actions():
    env = MAQuadXHoverEnv(flight_mode=7)
    try:
        held = episode_returns(env, seed=2, steps=200, policy=hold_actions)
        assert env.agents == env.possible_agents  # nobody crashed while holding
        for drone, target in zip(env.drones, env.start_pos):
            assert np.linalg.norm(drone.state[3] - target) < 0.1
        flailing = episode_returns(env, seed=2, steps=200, policy=random_actions)
    finally:
        env.close()
    for agent in env.possible_agents:
        assert held[agent] > 150.0  # near the dense maximum of 1 per step
        assert held[agent] > flailing[agent] + 100.0


def test_sparse_reward_pays_one_per_step_at_the_start_point():
    env = MAQuadXHoverEnv(flight_mode=7, sparse_reward=True, spawn_jitter=0.0)
    try:
        env.reset(seed=0)
        for _ in range(40):
            _, rewards, *_ = env.step(hold_actions(env))
        assert rewards == dict.fromkeys(env.possible_agents, 1.0)
        place(env, "uav_3", env.start_pos[3] + (0.0, 0.0, 0.5))
        _, rewards, *_ = env.step(hold_actions(env))
        assert rewards["uav_3"] == 0.0 and rewards["uav_0"] == 1.0
    finally:
        env.close()


def test_hitting_the_floor_ends_that_agent_with_the_failure_penalty(env):
    env.reset(seed=0)
    place(env, "uav_2", (-1.0, 1.0, 0.05), velocity=(0.0, 0.0, -2.0))
    _, rewards, terminations, truncations, infos = env.step(random_actions(env))
    assert rewards["uav_2"] == FAILURE_PENALTY and terminations["uav_2"]
    assert infos["uav_2"] == {"collision": True}
    assert not terminations["uav_0"] and not any(truncations.values())
    assert env.agents == ["uav_0", "uav_1", "uav_3"]
    assert not env.aviary.armed[2]
    observations, rewards, *_ = env.step(random_actions(env))
    assert "uav_2" not in observations and "uav_2" not in rewards


def test_drones_touching_each_other_both_crash(env):
    env.reset(seed=0)
    place(env, "uav_0", (0.0, 0.0, 2.0))
    place(env, "uav_1", (0.05, 0.0, 2.0))
    _, rewards, terminations, _, infos = env.step(random_actions(env))
    for agent in ("uav_0", "uav_1"):
        assert terminations[agent] and infos[agent]["collision"]
        assert rewards[agent] == FAILURE_PENALTY


def test_leaving_the_dome_ends_that_agent_with_the_failure_penalty(env):
    env.reset(seed=0)
    place(env, "uav_0", (9.95, 0.0, 1.0), velocity=(10.0, 0.0, 0.0))
    _, rewards, terminations, _, infos = env.step(random_actions(env))
    assert rewards["uav_0"] == FAILURE_PENALTY and terminations["uav_0"]
    assert infos["uav_0"] == {"out_of_bounds": True}
    assert "uav_0" not in env.agents and len(env.agents) == 3


def test_episode_truncates_for_everyone_after_max_duration():
    env = MAQuadXHoverEnv(flight_mode=7, max_duration_seconds=0.5)
    try:
        env.reset(seed=0)
        for step in range(20):
            _, _, terminations, truncations, _ = env.step(hold_actions(env))
            assert all(truncations.values()) == (step == 19)
            assert not any(terminations.values())
        assert env.agents == []
        with pytest.raises(RuntimeError, match="reset"):
            env.step({})
    finally:
        env.close()


def test_reset_reuses_the_world(env):
    aviary = env.aviary
    env.reset(seed=0)
    bodies = pybullet.getNumBodies(physicsClientId=aviary._client)
    for _ in range(3):
        env.step(random_actions(env))
        env.reset()
        assert env.aviary is aviary and aviary.armed.all()
        assert pybullet.getNumBodies(physicsClientId=aviary._client) == bodies


def test_custom_start_points_set_the_number_of_agents():
    env = MAQuadXHoverEnv(start_pos=[[0.0, 0.0, 1.0], [2.0, 0.0, 1.0]])
    try:
        observations, infos = env.reset(seed=0)
        assert env.agents == ["uav_0", "uav_1"] and set(observations) == set(infos)
    finally:
        env.close()


def test_bad_options_and_actions_raise_clear_errors(env):
    with pytest.raises(ValueError, match="start_pos"):
        MAQuadXHoverEnv(start_pos=[[0.0, 0.0]])
    with pytest.raises(ValueError, match="agent_hz"):
        MAQuadXHoverEnv(agent_hz=7)
    with pytest.raises(ValueError, match="flight_mode"):
        MAQuadXHoverEnv(flight_mode=9)
    with pytest.raises(ValueError, match="render_mode"):
        MAQuadXHoverEnv(render_mode="video")
    with pytest.raises(TypeError, match="sparse_reward"):
        MAQuadXHoverEnv(sparse_reward="yes")
    env.reset(seed=0)
    actions = random_actions(env)
    with pytest.raises(ValueError, match="uav_9"):
        env.step({**actions, "uav_9": actions["uav_0"]})
    with pytest.raises(ValueError, match="no action for live agent 'uav_3'"):
        env.step({k: v for k, v in actions.items() if k != "uav_3"})
    with pytest.raises(ValueError, match="shape"):
        env.step({**actions, "uav_0": np.zeros(3)})
    with pytest.raises(TypeError, match="dict"):
        env.step(list(actions.values()))
    with pytest.raises(ValueError, match="agent must be one of"):
        env.observation_space("drone_0")


def test_rgb_array_frames():
    env = MAQuadXHoverEnv(render_mode="rgb_array", render_resolution=(96, 128))
    try:
        env.reset(seed=0)
        env.step(random_actions(env))
        frame = env.render()
        assert frame.shape == (96, 128, 3) and frame.dtype == np.uint8
        assert frame.std() > 5.0
    finally:
        env.close()
