"""Dogfight-v0 against its PyBullet twin, the PettingZoo scene: the same start, the same
actions for 2 s, the same observations, rewards and hits (one rule implementation, two
engines held together to 1e-12 m by tests/batch/fixedwing)."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.batch.fixedwing.reset import reset_world
from pyflyt_like.envs import MAFixedwingDogfightEnv
from pyflyt_like.envs.dogfight import kernels
from pyflyt_like.envs.dogfight.vector_env import DogfightVectorEnv

SECONDS = 2.0
TOLERANCE = 1e-6  # observations [m, m/s, rad] and rewards, after 2 s of hits and turns


def fly_both(pos, euler, actions_of, **options):
    """Fly the scene and a one-world Dogfight-v0 from the poses ``pos``/``euler`` (n, 3)
    with ``actions_of(step)`` (n, k); return their (observations, rewards, pair hits)."""
    scene = MAFixedwingDogfightEnv(**options)
    vector = DogfightVectorEnv(num_envs=scene.num_drones, opponent="self", **options)
    try:
        scene.spawn_poses = lambda rng: (pos, euler)
        scene.reset(seed=0)
        vector.reset(seed=0)
        state, plant, nominal, config = vector.sim.kernel_arguments
        reset_world(state, plant, nominal, config, vector.params.mode, 0, pos, euler,
                    vector.params.start_velocity)
        kernels.engagement_costs(state.pos[0], state.quat[0], vector.task.previous_cost[0])
        out = {"scene": ([], [], []), "vector": ([], [], [])}
        for step in range(int(SECONDS * scene.agent_hz)):
            actions = actions_of(step)
            observations, rewards, *_ = scene.step(
                {agent: actions[i] for i, agent in enumerate(scene.possible_agents)})
            out["scene"][0].append([observations[a] for a in scene.possible_agents])
            out["scene"][1].append([rewards[a] for a in scene.possible_agents])
            out["scene"][2].append(scene.pair_hits_total.copy())
            observation, reward, terminated, truncated, _ = vector.step(actions)
            assert not (terminated.any() or truncated.any())
            out["vector"][0].append(observation)
            out["vector"][1].append(reward)
            out["vector"][2].append(vector.task.pair_total[0].copy())
        return ({key: tuple(np.array(v) for v in value) for key, value in out.items()},
                scene.observation_space(scene.possible_agents[0]),
                vector.single_observation_space)
    finally:
        scene.close()
        vector.close()


@pytest.mark.parametrize("angle_representation", ["quaternion", "euler"])
def test_a_duel_with_hits_is_the_same_on_both_engines(angle_representation):
    # uav_0 10 m behind uav_1, both heading east at 60 m: uav_0 has uav_1 in its guns
    pos = np.array([[0.0, 0.0, 60.0], [10.0, 0.0, 60.0]])
    euler = np.zeros((2, 3))
    rng = np.random.default_rng(1)
    wiggle = rng.uniform(-0.05, 0.05, (60, 2, 4))

    def actions_of(step):
        actions = np.tile((0.0, 0.0, 0.0, 0.7), (2, 1)) + wiggle[step]
        actions[1, 0] += 0.3 * (step > 30)  # the target breaks right after 1 s
        return actions

    flights, scene_space, vector_space = fly_both(
        pos, euler, actions_of, team_size=1, damage_per_hit=0.001,
        angle_representation=angle_representation)
    np.testing.assert_array_equal(scene_space.low, vector_space.low)
    np.testing.assert_array_equal(scene_space.high, vector_space.high)
    scene, vector = flights["scene"], flights["vector"]
    assert scene[2][-1][0, 1] > 100  # hits scored: the comparison means something
    np.testing.assert_array_equal(scene[2], vector[2])
    np.testing.assert_allclose(vector[0], scene[0], rtol=0.0, atol=TOLERANCE)
    np.testing.assert_allclose(vector[1], scene[1], rtol=0.0, atol=TOLERANCE)


def test_two_against_two_with_random_actions_is_the_same_on_both_engines():
    rng = np.random.default_rng(2)
    pos = np.array([[0.0, 0.0, 60.0], [0.0, 30.0, 70.0], [40.0, 0.0, 65.0],
                    [40.0, 30.0, 55.0]])
    euler = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.3], [0.0, 0.0, np.pi],
                      [0.0, 0.0, np.pi - 0.3]])
    actions = rng.uniform((-1, -1, -1, 0), (1, 1, 1, 1), (60, 4, 4))
    flights, *_ = fly_both(pos, euler, lambda step: actions[step], team_size=2)
    scene, vector = flights["scene"], flights["vector"]
    np.testing.assert_array_equal(scene[2], vector[2])
    np.testing.assert_allclose(vector[0], scene[0], rtol=0.0, atol=TOLERANCE)
    np.testing.assert_allclose(vector[1], scene[1], rtol=0.0, atol=TOLERANCE)
