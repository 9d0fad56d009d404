"""Both PettingZoo scenes take every keyword PyFlyt 0.29's MA envs take, and refuse
non-numeric actions with an error naming the agent's action."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.envs import MAFixedwingDogfightEnv, MAQuadXHoverEnv

from ._ma_checks import assert_parallel_api_clean

# PyFlyt 0.29's MAQuadXHoverEnvV2 keywords, each given a value.
QUADX_HOVER_PYFLYT = dict(
    start_pos=np.array([[-1.0, -1.0, 1.0], [1.0, 1.0, 1.5]]), start_orn=np.zeros((2, 3)),
    sparse_reward=True, flight_mode=7, flight_dome_size=8.0, max_duration_seconds=5.0,
    angle_representation="euler", agent_hz=30, render_mode=None)
DOGFIGHT_PYFLYT = dict(
    team_size=1, spawn_min_radius=15.0, spawn_max_radius=40.0, spawn_min_height=25.0,
    spawn_max_height=45.0, damage_per_hit=0.01, lethal_distance=25.0,
    lethal_angle_radians=0.1, assisted_flight=False, aggressiveness=0.9, cooperativeness=0.1,
    sparse_reward=True, flatten_observation=True, flight_dome_size=300.0,
    max_duration_seconds=10.0, agent_hz=60, render_mode=None)
SCENES = [(MAQuadXHoverEnv, QUADX_HOVER_PYFLYT), (MAFixedwingDogfightEnv, DOGFIGHT_PYFLYT)]


def test_quadx_hover_takes_pyflyts_keywords_with_their_meaning():
    env = MAQuadXHoverEnv(**QUADX_HOVER_PYFLYT)
    try:
        assert env.possible_agents == ["uav_0", "uav_1"]
        assert env.flight_mode == 7 and env.flight_dome_size == 8.0
        assert env.aviary_steps_per_action == 4  # 120 Hz control / 30 Hz agents
        observations, _ = env.reset(seed=0)
        attitude = env.attitudes[0].size
        assert observations["uav_0"].shape == (attitude + 3,)
    finally:
        env.close()
    assert_parallel_api_clean(MAQuadXHoverEnv(**QUADX_HOVER_PYFLYT), num_cycles=60)


def test_dogfight_takes_pyflyts_keywords_with_their_meaning():
    env = MAFixedwingDogfightEnv(**DOGFIGHT_PYFLYT)
    try:
        assert env.possible_agents == ["uav_0", "uav_1"] and env.flight_mode == 0
        assert (env.spawn_radius_range, env.spawn_height_range) == ((15.0, 40.0), (25.0, 45.0))
        assert (env.aggressiveness, env.cooperativeness) == (0.9, 0.1)
        assert env.aviary_steps_per_action == 2
    finally:
        env.close()
    assert_parallel_api_clean(MAFixedwingDogfightEnv(**DOGFIGHT_PYFLYT), num_cycles=60)


@pytest.mark.parametrize("scene, options", SCENES, ids=["quadx-hover", "dogfight"])
@pytest.mark.parametrize("bad", ["strings", "text"])
def test_string_actions_are_refused_naming_the_agents_action(scene, options, bad):
    env = scene(**options)
    try:
        env.reset(seed=0)
        actions = {agent: env.action_space(agent).sample() for agent in env.agents}
        size = actions["uav_1"].shape[0]
        actions["uav_1"] = ["0"] * size if bad == "strings" else "abcd"
        with pytest.raises(TypeError, match=r"actions\['uav_1'\] must be a numeric array"):
            env.step(actions)
        # numpy float32 actions are numbers
        env.step({agent: env.action_space(agent).sample().astype(np.float32)
                  for agent in env.agents})
    finally:
        env.close()


@pytest.mark.parametrize("scene", [MAQuadXHoverEnv, MAFixedwingDogfightEnv])
def test_render_resolution_without_rgb_array_warns(scene):
    with pytest.warns(UserWarning, match="render_resolution=.* has no effect"):
        env = scene(render_resolution=(64, 64))
    env.close()
