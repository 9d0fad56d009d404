"""Fixedwing-Reach-v0 against its PyBullet twin: the same seed gives the same spawn and
targets; the same actions for 2 s give the same observations and rewards (one rule
implementation, two engines held together to 1e-12 m by tests/batch/fixedwing)."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from pyflyt_like.envs.fixedwing.twin_env import FixedwingReachTwinEnv
from pyflyt_like.envs.fixedwing.vector_env import FixedwingReachVectorEnv

SECONDS = 2.0
TOLERANCE = 1e-6  # observations [m, m/s, rad] and rewards after 2 s of random flying


def fly_both(actions: np.ndarray, seed: int, **options):
    """Fly the twin and a one-world VectorEnv from ``reset(seed=seed)`` with ``actions``
    (T, k); return their (observations (T + 1, size), rewards (T,), targets (T + 1, 3))."""
    twin = FixedwingReachTwinEnv(**options)
    vector = FixedwingReachVectorEnv(num_envs=1, **options)
    try:
        assert twin.observation_space == vector.single_observation_space
        assert twin.action_space == vector.single_action_space
        out = {"twin": ([], [], []), "vector": ([], [], [])}
        observation, _ = twin.reset(seed=seed)
        out["twin"][0].append(observation)
        out["twin"][2].append(twin.target)
        observation, _ = vector.reset(seed=seed)
        out["vector"][0].append(observation[0])
        out["vector"][2].append(vector.task.target[0].copy())
        for action in actions:
            observation, reward, terminated, truncated, _ = twin.step(action)
            assert not (terminated or truncated)
            out["twin"][0].append(observation)
            out["twin"][1].append(reward)
            out["twin"][2].append(twin.target)
            observation, reward, terminated, truncated, _ = vector.step(action[None])
            assert not (terminated.any() or truncated.any())
            out["vector"][0].append(observation[0])
            out["vector"][1].append(reward[0])
            out["vector"][2].append(vector.task.target[0].copy())
        return {key: tuple(np.array(v) for v in value) for key, value in out.items()}
    finally:
        twin.close()
        vector.close()


@pytest.mark.parametrize("options", [
    {},
    {"flight_mode": 0, "drone_model": "fixedwing"},
    {"flight_mode": -1, "agent_hz": 60, "action_delay_steps": 3, "observation_noise": 0.1},
], ids=["default", "mode0-fixedwing", "mode-1-delay-noise"])
def test_the_same_actions_fly_the_same_on_both_engines(options):
    twin = FixedwingReachTwinEnv(**options)
    k, hz = twin.action_space.shape[0], twin.options.agent_hz
    low, high = twin.action_space.low, twin.action_space.high
    twin.close()
    rng = np.random.default_rng(7)
    # gentle random commands about a cruise throttle: 2 s in the air, no ending
    actions = np.clip(rng.uniform(-0.4, 0.4, (int(SECONDS * hz), k)) + 0.5 * (low == 0.0),
                      low, high)
    flights = fly_both(actions, seed=11, **options)
    twin, vector = flights["twin"], flights["vector"]
    np.testing.assert_array_equal(twin[2], vector[2])  # same stream: same targets
    np.testing.assert_allclose(vector[0], twin[0], rtol=0.0, atol=TOLERANCE)
    np.testing.assert_allclose(vector[1], twin[1], rtol=0.0, atol=TOLERANCE)
    assert np.ptp(twin[0][:, 14:17], axis=0).max() > 20.0  # it flew: the check means something


def test_a_target_reached_is_redrawn_the_same_on_both_engines():
    """Aim the spawn at its first target (the target moved to 40 m ahead on both engines)
    and fly level: both reach it on the same step and draw the same next target."""
    twin = FixedwingReachTwinEnv()
    vector = FixedwingReachVectorEnv(num_envs=1)
    try:
        twin.reset(seed=5)
        vector.reset(seed=5)
        heading = twin.task.spawn_euler[0, 0, 2]
        ahead = np.array([40.0 * np.cos(heading), 40.0 * np.sin(heading), 55.0])
        for task in (twin.task, vector.task):
            task.target[0] = ahead
            task.distance[0] = 40.0
        action = np.array([0.0, 0.0, 0.0, 0.5])
        for _ in range(int(SECONDS * 30)):
            o_twin, r_twin, *_, i_twin = twin.step(action)
            o_vec, r_vec, *_, i_vec = vector.step(action[None])
            assert abs(r_twin - r_vec[0]) < TOLERANCE
            np.testing.assert_allclose(o_vec[0], o_twin, rtol=0.0, atol=TOLERANCE)
        assert i_twin["targets_reached"] == i_vec["targets_reached"][0] == 1
        np.testing.assert_array_equal(twin.target, vector.task.target[0])
    finally:
        twin.close()
        vector.close()


def test_the_twin_passes_gymnasium_check_env():
    env = FixedwingReachTwinEnv()
    try:
        check_env(env, skip_render_check=True)
    finally:
        env.close()


def test_the_twin_refuses_what_pybullet_cannot_randomise():
    with pytest.raises(ValueError, match="thrust"):
        FixedwingReachTwinEnv(randomize={"thrust": (0.9, 1.1)})
    env = FixedwingReachTwinEnv(randomize={"mass": (0.9, 1.1), "inertia": (0.9, 1.1)})
    try:
        env.reset(seed=0)
        mass = env.aviary.getDynamicsInfo(env.drone.Id, -1)[0]
        assert mass != pytest.approx(env._mass, rel=1e-9)
        assert env.step(env.action_space.sample())[0].shape == env.observation_space.shape
    finally:
        env.close()
