"""Task logic of QuadX-Hover and QuadX-Waypoints, and the shared option checks."""

from __future__ import annotations

import numpy as np
import pybullet
import pytest

from pyflyt_like.envs.base.aviary_env import FAILURE_PENALTY
from pyflyt_like.envs.targets.waypoints import TARGET_BONUS

from .._env_checks import make


def hold_position(env, target) -> np.ndarray:
    """The normalised mode-7 action that flies to ``target`` (x, y, z) with yaw 0."""
    return env.action_mapping.to_action((target[0], target[1], 0.0, target[2]))


def place(env, position, velocity=(0.0, 0.0, 0.0)) -> None:
    """Teleport the drone (between env steps) and refresh its state."""
    drone = env.drone
    pybullet.resetBasePositionAndOrientation(drone.Id, list(position), (0, 0, 0, 1),
                                             physicsClientId=drone.client_id)
    pybullet.resetBaseVelocity(drone.Id, list(velocity), (0, 0, 0),
                               physicsClientId=drone.client_id)
    drone.update_state()


def test_hover_reward_is_one_at_the_hover_point_and_falls_with_distance():
    env = make("QuadX-Hover", flight_mode=7, spawn_jitter=0.0, drone_options={"noise": 0.0})
    env.reset(seed=0)
    action = hold_position(env, (0.0, 0.0, 1.0))
    rewards = [env.step(action)[1] for _ in range(40)]
    assert rewards[-1] == pytest.approx(1.0, abs=0.02)
    place(env, (0.3, 0.0, 1.0))
    _, reward, *_ = env.step(hold_position(env, (0.3, 0.0, 1.0)))
    assert reward == pytest.approx(0.7, abs=0.03)  # 1 - 0.3 m
    env.close()


def test_sparse_hover_rewards_only_steps_near_the_hover_point():
    env = make("QuadX-Hover", flight_mode=7, sparse_reward=True, spawn_jitter=0.0)
    env.reset(seed=0)
    rewards = [env.step(hold_position(env, (0.0, 0.0, 1.0)))[1] for _ in range(40)]
    assert rewards[-1] == 1.0
    place(env, (0.5, 0.0, 1.0))
    assert env.step(hold_position(env, (0.5, 0.0, 1.0)))[1] == 0.0
    env.close()


def test_leaving_the_dome_terminates_with_out_of_bounds():
    env = make("QuadX-Hover", flight_mode=7)
    env.reset(seed=0)
    place(env, (0.0, 0.0, 3.5))
    _, reward, terminated, truncated, info = env.step(hold_position(env, (0.0, 0.0, 3.5)))
    assert terminated and not truncated and info == {"out_of_bounds": True}
    assert reward == FAILURE_PENALTY
    env.close()


def test_floor_contact_terminates_with_collision():
    env = make("QuadX-Hover")  # mode 0: zero thrust drops the drone 1 m onto the floor
    env.reset(seed=0)
    steps, terminated = 0, False
    while not terminated and steps < 100:
        _, reward, terminated, _, info = env.step(np.zeros(4))
        steps += 1
    assert info.get("collision") and reward == FAILURE_PENALTY
    assert 0.4 < steps / env.agent_hz < 0.6  # free fall of ~0.95 m takes 0.44 s (+ motor lag)
    env.close()


def test_episode_is_truncated_after_max_duration():
    env = make("QuadX-Hover", flight_mode=7, max_duration_seconds=2.0)
    env.reset(seed=0)
    action = hold_position(env, (0.0, 0.0, 1.0))
    ends = [env.step(action)[2:4] for _ in range(80)]
    assert ends[-1] == (False, True) and all(e == (False, False) for e in ends[:-1])
    env.close()


def test_infos_are_fresh_dicts():
    env = make("QuadX-Hover")
    _, info_a = env.reset(seed=0)
    *_, info_b = env.step(env.action_space.sample())
    *_, info_c = env.step(env.action_space.sample())
    assert info_a is not info_b and info_b is not info_c
    env.close()


def test_scripted_position_pilot_completes_waypoints_and_collects_every_bonus():
    env = make("QuadX-Waypoints", flight_mode=7)
    observation, _ = env.reset(seed=3)
    assert observation["target_deltas"].shape == (4, 3)
    bonuses, info = 0, {}
    for _ in range(env.max_steps):
        target = env.targets.current
        observation, reward, terminated, truncated, info = env.step(hold_position(env, target))
        bonuses += reward > TARGET_BONUS / 2
        if terminated or truncated:
            break
    assert info.get("env_complete") and info["num_targets_reached"] == 4 and bonuses == 4
    assert terminated and observation["target_deltas"].shape == (0, 3)
    env.close()


def test_target_deltas_are_in_the_body_frame():
    env = make("QuadX-Waypoints", use_yaw_targets=True)
    observation, _ = env.reset(seed=1)
    drone = env.drone
    expected = drone.rotation_matrix.T @ (env.targets.positions[0] - drone.state[3])
    np.testing.assert_allclose(observation["target_deltas"][0, :3], expected, atol=1e-9)
    assert observation["target_deltas"].shape == (4, 4)
    env.close()


@pytest.mark.filterwarnings("ignore:.*render_mode")
@pytest.mark.parametrize("options, message", [
    ({"agent_hz": 7}, "agent_hz"),
    ({"agent_hz": 0}, "agent_hz"),
    ({"render_mode": "video"}, "render_mode"),
    ({"angle_representation": "matrix"}, "angle_representation"),
    ({"flight_mode": 9}, "flight_mode"),
    ({"flight_dome_size": -1.0}, "flight_dome_size"),
    ({"max_duration_seconds": 0}, "max_duration_seconds"),
    ({"spawn_jitter": -0.1}, "spawn_jitter"),
    ({"sparse_reward": "yes"}, "sparse_reward"),
    ({"drone_options": {"nosie": 0.0}}, "nosie"),
])
def test_bad_options_raise_naming_the_option(options, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make("QuadX-Hover", **options)


def test_bad_actions_raise():
    env = make("QuadX-Hover")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action"):
        env.step(np.zeros(3))
    with pytest.raises(ValueError, match="action"):
        env.step(np.array([0.0, 0.0, np.nan, 0.5]))
    env.close()


@pytest.mark.parametrize("mode", [-1, 0, 1, 2, 3, 4, 5, 6, 7])
def test_action_mapping_round_trips_and_spans_the_limits(mode):
    env = make("QuadX-Hover", flight_mode=mode)
    mapping = env.action_mapping
    np.testing.assert_allclose(mapping.to_setpoint(env.action_space.low), mapping.low)
    np.testing.assert_allclose(mapping.to_setpoint(env.action_space.high), mapping.high)
    action = env.action_space.sample()
    np.testing.assert_allclose(mapping.to_action(mapping.to_setpoint(action)), action)
    env.close()


def test_human_render_mode_without_a_display_raises_a_clear_error(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(RuntimeError, match="rgb_array"):
        make("QuadX-Hover", render_mode="human")
