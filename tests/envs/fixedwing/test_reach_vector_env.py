"""Fixedwing-Reach-v0's VectorEnv: spaces, NEXT_STEP autoreset, seeding, infos, errors."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from pyflyt_like.envs.fixedwing.vector_env import FixedwingReachVectorEnv
from pyflyt_like.rules import fixedwing_reach as rules

N = 4


@pytest.fixture
def envs():
    env = FixedwingReachVectorEnv(num_envs=N, seed=3)
    yield env
    env.close()


def test_spaces_and_shapes(envs):
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert envs.single_action_space.shape == (4,)
    assert envs.single_observation_space.shape == (28,)  # 18 + 4 actions + 6 aux
    assert envs.observation_space.shape == (N, 28)
    observation, info = envs.reset()
    assert observation.shape == (N, 28) and observation.dtype == np.float64
    assert all(envs.single_observation_space.contains(row) for row in observation)
    observation, reward, terminated, truncated, info = envs.step(envs.action_space.sample())
    assert observation.shape == (N, 28) and reward.shape == (N,)
    assert terminated.dtype == bool and truncated.shape == (N,)
    assert set(info) == {"targets_reached", "_targets_reached", "distance", "_distance"}
    assert info["_distance"].all() and (info["distance"] > 0).all()
    for mode, size in ((0, 4), (-1, 6)):
        env = FixedwingReachVectorEnv(num_envs=2, flight_mode=mode)
        assert env.single_action_space.shape == (size,)
        assert env.single_observation_space.shape == (18 + size + 6,)
        env.close()


def test_the_same_seed_gives_the_same_rollout():
    def rollout(seed):
        env = FixedwingReachVectorEnv(num_envs=N, observation_noise=0.5)
        rng = np.random.default_rng(0)
        out = [env.reset(seed=seed)[0]]
        for _ in range(20):
            out.append(env.step(rng.uniform(0.0, 1.0, (N, 4)))[0])
        env.close()
        return np.array(out)

    np.testing.assert_array_equal(rollout(1), rollout(1))
    assert not np.array_equal(rollout(1)[0], rollout(2)[0])
    env = FixedwingReachVectorEnv(num_envs=N)
    first = env.reset(seed=[1, 2, 3, 4])[0]
    np.testing.assert_array_equal(first, env.reset(seed=[1, 2, 3, 4])[0])
    env.close()


def test_autoreset_is_next_step():
    # a 0.1 s episode: truncated on the third step, restarted on the fourth
    env = FixedwingReachVectorEnv(num_envs=2, max_duration_seconds=0.1, seed=0)
    first, _ = env.reset()
    action = np.tile([0.0, 0.0, 0.0, 0.5], (2, 1))
    for _ in range(2):
        _, _, terminated, truncated, _ = env.step(action)
        assert not (terminated.any() or truncated.any())
    _, _, terminated, truncated, info = env.step(action)
    assert truncated.all() and not terminated.any()
    observation, reward, terminated, truncated, info = env.step(action)
    assert (reward == 0.0).all() and not (terminated.any() or truncated.any())
    assert (info["targets_reached"] == 0).all()
    np.testing.assert_allclose(observation[:, 14:17], [[0.0, 0.0, rules.SPAWN_Z]] * 2)
    env.close()


def test_a_crash_terminates_with_the_failure_reward():
    env = FixedwingReachVectorEnv(num_envs=2, seed=0)
    env.reset()
    dive = np.tile([0.0, 1.0, 0.0, 1.0], (2, 1))  # pitch +pi/6: nose down, full throttle
    for _ in range(300):
        _, reward, terminated, _, _ = env.step(dive)
        if terminated.all():
            break
    assert terminated.all()
    assert (env.task.ending == rules.CRASH).all()
    assert (reward < rules.FAILURE_REWARD + 1.0).all()
    env.close()


def test_randomize_redraws_the_plant_of_restarting_worlds():
    env = FixedwingReachVectorEnv(num_envs=3, randomize={"mass": (0.8, 1.2)}, seed=0,
                                  max_duration_seconds=1 / 30)
    env.reset()
    before = env.sim.plant.mass.copy()
    env.step(np.zeros((3, 4)))  # truncated: the next step restarts every world
    np.testing.assert_array_equal(env.sim.plant.mass, before)
    env.step(np.zeros((3, 4)))
    assert (env.sim.plant.mass != before).all()
    env.close()


@pytest.mark.parametrize(("kwargs", "error", "name"), [
    ({"num_envs": 0}, ValueError, "num_envs"),
    ({"drone_model": "cf2x"}, ValueError, "drone_model"),
    ({"flight_mode": 2}, ValueError, "flight_mode"),
    ({"flight_mode": True}, ValueError, "flight_mode"),
    ({"agent_hz": 7}, ValueError, "agent_hz"),
    ({"physics_hz": 250}, ValueError, "physics_hz"),
    ({"max_duration_seconds": -1.0}, ValueError, "max_duration_seconds"),
    ({"randomize": {"wings": (1, 2)}}, ValueError, "randomize"),
    ({"action_delay_steps": -1}, ValueError, "action_delay_steps"),
    ({"action_delay_steps": 1.5}, TypeError, "action_delay_steps"),
    ({"observation_noise": -0.1}, ValueError, "observation_noise"),
    ({"seed": -1}, ValueError, "seed"),
    ({"render_mode": "human"}, ValueError, "render_mode"),
    ({"colour": "red"}, TypeError, "colour"),
])
def test_bad_arguments_are_named(kwargs, error, name):
    with pytest.raises(error, match=name):
        FixedwingReachVectorEnv(**{"num_envs": 2, **kwargs})


def test_bad_calls_are_named(envs):
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.zeros((N, 4)))
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="actions"):
        envs.step(np.zeros((N, 3)))
    with pytest.raises(ValueError, match="actions"):
        envs.step(np.full((N, 4), np.nan))
    with pytest.raises((TypeError, ValueError), match="seed"):
        envs.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="options"):
        envs.reset(options={"reset_mask": np.ones(N, bool)})
