"""Dogfight-v0: the VectorEnv's API, opponents, autoreset, endings and errors."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import pyflyt_like.envs  # noqa: F401  (registers the ids)
from pyflyt_like.batch.fixedwing.reset import reset_world
from pyflyt_like.envs import PursuitPilot
from pyflyt_like.envs.dogfight import kernels
from pyflyt_like.envs.dogfight.vector_env import DogfightVectorEnv
from pyflyt_like.rules.dogfight import FAILURE_REWARD, WIN_REWARD


def place(env: DogfightVectorEnv, world: int, pos, euler) -> None:
    """Put world ``world``'s aircraft at ``pos``/``euler`` (n, 3), as a fresh episode."""
    state, plant, nominal, config = env.sim.kernel_arguments
    reset_world(state, plant, nominal, config, env.params.mode, world, np.asarray(pos, float),
                np.asarray(euler, float), env.params.start_velocity)
    kernels.engagement_costs(state.pos[world], state.quat[world],
                             env.task.previous_cost[world])


LEVEL = np.array([0.0, 0.0, 0.0, 0.7])  # wings level, pitch level, 70 % throttle


def test_make_vec_gives_the_native_vector_env_with_the_scene_spaces():
    env = gymnasium.make_vec("pyflyt_like/Dogfight-v0", num_envs=6,
                             vectorization_mode="vector_entry_point", team_size=1)
    assert isinstance(env, DogfightVectorEnv) and env.n_worlds == 3
    observation, infos = env.reset(seed=3)
    assert observation.shape == (6, 36) and observation.dtype == np.float64
    assert env.observation_space.contains(observation)
    assert set(infos) == {"health", "received_hits", "dead", "team_win", "_health",
                          "_received_hits", "_dead", "_team_win"}
    assert not infos["_team_win"].any()
    for _ in range(20):
        observation, reward, terminated, truncated, infos = env.step(env.action_space.sample())
        assert env.observation_space.contains(observation)
        assert reward.shape == terminated.shape == truncated.shape == (6,)
    np.testing.assert_array_equal(terminated[0::2], terminated[1::2])  # world-level


def test_same_seed_same_rollout_and_worlds_draw_different_spawns():
    def rollout(seed):
        env = DogfightVectorEnv(num_envs=4, team_size=1)
        first, _ = env.reset(seed=seed)
        actions = np.random.default_rng(0).uniform(-1, 1, (30, 4, 4)).clip(
            env.single_action_space.low, env.single_action_space.high)
        return first, [env.step(a)[:2] for a in actions]

    first, steps = rollout(7)
    again, steps_again = rollout(7)
    np.testing.assert_array_equal(first, again)
    for (obs, reward), (obs_again, reward_again) in zip(steps, steps_again):
        np.testing.assert_array_equal(obs, obs_again)
        np.testing.assert_array_equal(reward, reward_again)
    assert not np.array_equal(first[0], first[2])  # world 0 and world 1 spawn apart
    assert not np.array_equal(rollout(8)[0], first)


def test_time_limit_truncates_the_world_and_the_next_step_restarts_it():
    env = DogfightVectorEnv(num_envs=2, team_size=1, max_duration_seconds=0.2)  # 6 steps
    env.reset(seed=0)
    actions = np.tile(LEVEL, (2, 1))
    for step in range(1, 7):
        observation, reward, terminated, truncated, infos = env.step(actions)
        assert truncated.all() == (step == 6) and not terminated.any()
    assert infos["_team_win"].all() and (infos["team_win"] == -1).all()
    observation, reward, terminated, truncated, infos = env.step(actions)
    assert (reward == 0).all() and not (terminated.any() or truncated.any())
    assert env.task.step_count[0] == 0 and not infos["_team_win"].any()
    np.testing.assert_allclose(observation[0, 10:13], env.sim.pos[0, 0])  # a new spawn


def test_a_kill_ends_the_world_with_the_team_win_and_the_win_reward():
    env = DogfightVectorEnv(num_envs=2, team_size=1, damage_per_hit=0.02)
    env.reset(seed=0)
    place(env, 0, [[0.0, 0.0, 60.0], [10.0, 0.0, 60.0]], np.zeros((2, 3)))
    actions = np.tile(LEVEL, (2, 1))
    for _ in range(30):
        observation, reward, terminated, truncated, infos = env.step(actions)
        if terminated.any():
            break
    assert terminated.all() and infos["_team_win"].all()
    assert (infos["team_win"] == 0).all()
    assert infos["dead"].tolist() == [False, True] and infos["health"][1] == 0.0
    assert reward[0] > WIN_REWARD and reward[1] < -WIN_REWARD
    assert (env.task.pair_total[0, 0, 1], env.task.pair_total[0, 1, 0]) == (50, 0)


def test_hitting_the_ground_is_a_failure():
    env = DogfightVectorEnv(num_envs=2, team_size=1)
    env.reset(seed=0)
    # uav_0 1.5 m above the ground, nose down 30 degrees; uav_1 far away and level
    place(env, 0, [[0.0, 0.0, 1.5], [300.0, 0.0, 60.0]], [[0.0, 0.5, 0.0], [0.0, 0.0, 0.0]])
    for _ in range(15):  # 0.5 s: at 7 m/s down it meets the ground within 0.3 s
        observation, reward, terminated, truncated, infos = env.step(np.tile(LEVEL, (2, 1)))
        if terminated.any():
            break
    assert reward[0] == FAILURE_REWARD and infos["dead"][0]
    assert terminated.all() and (infos["team_win"] == 1).all()


def test_an_aircraft_out_of_play_earns_nothing_until_its_world_ends():
    env = DogfightVectorEnv(num_envs=4, team_size=2)  # one 2v2 world
    env.reset(seed=0)
    place(env, 0, [[0.0, 0.0, 1.5], [0.0, 100.0, 60.0], [300.0, 0.0, 60.0],
                   [300.0, 100.0, 60.0]], [[0.0, 0.5, 0.0]] + [[0.0, 0.0, 0.0]] * 3)
    actions = np.tile(LEVEL, (4, 1))
    for _ in range(15):
        _, reward, terminated, _, infos = env.step(actions)
        if infos["dead"][0]:
            break
    assert reward[0] == FAILURE_REWARD and infos["dead"][0] and not terminated.any()
    _, reward, terminated, _, infos = env.step(actions)
    assert reward[0] == 0.0 and infos["dead"][0] and not terminated.any()


def test_scripted_and_callable_opponents_fly_the_other_team():
    seen = []

    def frozen(observations):
        seen.append(observations.copy())
        return np.tile(LEVEL, (observations.shape[0], 1))

    env = DogfightVectorEnv(num_envs=3, team_size=1, opponent=frozen)
    assert env.n_worlds == 3
    env.reset(seed=0)
    start = env.sim.pos[:, 1].copy()
    env.step(env.action_space.sample())
    assert seen[0].shape == (3, 36)
    np.testing.assert_allclose(seen[0][:, 10:13], start)  # team 1's own observations
    scripted = DogfightVectorEnv(num_envs=4, team_size=2, opponent="scripted")
    assert isinstance(scripted.opponent, PursuitPilot)
    scripted.reset(seed=0)
    for _ in range(10):
        scripted.step(scripted.action_space.sample())


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(ValueError, match="num_envs must be a multiple of 2"):
        DogfightVectorEnv(num_envs=3, team_size=1)
    with pytest.raises(ValueError, match="opponent"):
        DogfightVectorEnv(num_envs=2, opponent="random")
    with pytest.raises(ValueError, match="drone_model"):
        DogfightVectorEnv(num_envs=4, drone_model="crazyflie21")
    with pytest.raises(ValueError, match="lethal_angle_radians"):
        DogfightVectorEnv(num_envs=4, lethal_angle_radians=2.0)
    with pytest.raises(ValueError, match="agent_hz"):
        DogfightVectorEnv(num_envs=4, agent_hz=7)
    env = DogfightVectorEnv(num_envs=2, team_size=1)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros((2, 4)))
    env.reset(seed=0)
    with pytest.raises(ValueError, match="actions"):
        env.step(np.full((2, 4), np.nan))
    with pytest.raises(ValueError, match="actions"):
        env.step(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="options"):
        env.reset(options={"reset_mask": np.ones(2, bool)})
    bad = DogfightVectorEnv(num_envs=1, team_size=1, opponent=lambda obs: np.zeros((5, 4)))
    bad.reset(seed=0)
    with pytest.raises(ValueError, match="opponent"):
        bad.step(np.zeros((1, 4)))
