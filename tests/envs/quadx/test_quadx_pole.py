"""Task logic of QuadX-Pole-Balance and QuadX-Pole-Waypoints, and the pole's physics."""

from __future__ import annotations

import math

import numpy as np
import pybullet
import pytest

from pyflyt_like.envs.base.aviary_env import FAILURE_PENALTY
from pyflyt_like.envs.quadx.hover_reward import hover_reward
from pyflyt_like.envs.quadx.pole import FALLEN_LEAN, LEAN_PENALTY_GAIN, POLE_STATE_SIZE
from pyflyt_like.envs.targets.waypoints import TARGET_BONUS

from .._env_checks import make

GRAVITY = 9.81  # m/s^2


def hold(env, target) -> np.ndarray:
    """The normalised mode-7 action that holds the drone at ``target`` (x, y, z), yaw 0."""
    return env.action_mapping.to_action((target[0], target[1], 0.0, target[2]))


def quiet_balance_env(**options):
    """QuadX-Pole-Balance in mode 7 with no motor noise and no spawn jitter."""
    return make("QuadX-Pole-Balance", flight_mode=7, spawn_jitter=0.0,
                drone_options={"noise": 0.0}, **options)


def test_pole_on_a_fixed_drone_falls_like_a_rod_pivoting_about_its_end():
    env = make("QuadX-Pole-Balance", spawn_jitter=0.0)
    env.reset(seed=0)
    drone, pole = env.drone, env.pole
    # A zero-mass base is static in Bullet: the pivot stays put while the pole falls.
    pybullet.changeDynamics(drone.Id, -1, mass=0.0, physicsClientId=drone.client_id)
    env.aviary.set_armed(False)
    lean0 = 0.01
    pole.reset(lean=lean0, azimuth=0.7)
    growth = math.sqrt(3.0 * GRAVITY / (2.0 * pole.length))  # 1/s, small-angle rod on its end
    measured = []
    while pole.lean < 0.2:  # still a small angle
        env.aviary.step()
        pole.update()
        t = env.aviary.elapsed_time
        if pole.lean > 2 * lean0:
            measured.append(math.acosh(pole.lean / lean0) / t)
    assert len(measured) > 20
    # theta(t) = theta0 cosh(growth t): the fitted rate matches at every sample
    np.testing.assert_allclose(measured, growth, rtol=0.05)
    assert env.aviary.elapsed_time == pytest.approx(math.acosh(20.0) / growth, rel=0.05)
    env.close()


def test_pole_stands_upright_on_a_tilted_drone_and_lean_matches_a_set_tilt():
    env = make("QuadX-Pole-Balance", spawn_jitter=0.1)
    env.reset(seed=2)
    drone, pole = env.drone, env.pole
    assert np.hypot(*drone.state[1, :2]) > 0.01  # the spawn is tilted...
    assert pole.lean == pytest.approx(0.0, abs=1e-9)  # ...the pole is not
    np.testing.assert_allclose(pole.state[0:3], pole.mount, atol=1e-9)  # bottom on the mount
    np.testing.assert_allclose(pole.state[6:12], 0.0, atol=1e-12)  # at rest
    top_world = drone.rotation_matrix @ (pole.state[3:6] - pole.state[0:3])
    np.testing.assert_allclose(top_world, (0.0, 0.0, pole.length), atol=1e-9)

    pole.reset(lean=0.3, azimuth=1.0)
    assert pole.lean == pytest.approx(0.3, abs=1e-9)
    top_world = drone.rotation_matrix @ (pole.state[3:6] - pole.state[0:3])
    expected = pole.length * np.array([math.sin(0.3) * math.cos(1.0),
                                       math.sin(0.3) * math.sin(1.0), math.cos(0.3)])
    np.testing.assert_allclose(top_world, expected, atol=1e-9)
    with pytest.raises(ValueError, match="lean"):
        pole.reset(lean=float("nan"))
    env.close()


def test_observation_is_attitude_then_pole_state():
    env = quiet_balance_env(angle_representation="euler")
    observation, _ = env.reset(seed=0)
    attitude_size = env.attitude.attitude.size
    assert observation.shape == (attitude_size + POLE_STATE_SIZE,)
    np.testing.assert_array_equal(observation[attitude_size:], env.pole.state)
    waypoints = make("QuadX-Pole-Waypoints")
    observation, _ = waypoints.reset(seed=0)
    assert observation["attitude"].shape == (waypoints.attitude.attitude.size + POLE_STATE_SIZE,)
    assert observation["target_deltas"].shape == (4, 3)
    waypoints.close()
    env.close()


def test_pole_through_the_drone_is_never_a_collision():
    env = quiet_balance_env(pole_fall_ends_episode=False)
    env.reset(seed=0)
    drone, pole = env.drone, env.pole
    pole.reset(lean=3.0)  # hanging down through the drone's body
    overlap = pybullet.getClosestPoints(drone.Id, pole.Id, 0.0, physicsClientId=drone.client_id)
    assert overlap and min(point[8] for point in overlap) < -0.01  # the shapes interpenetrate
    action = hold(env, (0.0, 0.0, 1.0))
    for _ in range(40):
        _, reward, terminated, _, info = env.step(action)
        assert not env.aviary.contact_array[drone.Id, pole.Id]
        assert not terminated and "collision" not in info and reward != FAILURE_PENALTY
    env.close()


def test_reset_restores_an_upright_pole_at_rest_and_replays_the_episode():
    env = make("QuadX-Pole-Balance", flight_mode=7, pole_fall_ends_episode=False)
    first, _ = env.reset(seed=5)
    action = hold(env, (0.0, 0.0, 1.0))
    first_steps = [env.step(action)[0] for _ in range(60)]
    assert env.pole.lean > 0.5  # fallen, swinging under the drone
    again, _ = env.reset(seed=5)
    assert env.pole.lean == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(env.pole.state[6:], 0.0, atol=1e-12)
    np.testing.assert_array_equal(again, first)
    replay = [env.step(action)[0] for _ in range(60)]
    np.testing.assert_array_equal(np.array(replay), np.array(first_steps))
    # the pole's velocity after one step comes from this episode only, not the last one
    env.reset(seed=5)
    assert np.abs(env.step(action)[0][-6:]).max() < 0.05
    env.close()


def test_dense_reward_is_hover_reward_minus_lean():
    env = quiet_balance_env()
    env.reset(seed=0)
    action = hold(env, (0.0, 0.0, 1.0))
    for _ in range(80):  # without noise the pole stays exactly up
        _, upright, terminated, _, _ = env.step(action)
    assert not terminated and env.pole.lean < 1e-6
    # the 5 g pole sags the altitude loop a few cm, hence not quite 1
    assert upright == pytest.approx(hover_reward(env.drone.state, False), abs=1e-6)
    assert upright > 0.9
    env.pole.reset(lean=0.3)
    _, leaning, *_ = env.step(action)
    assert upright > leaning
    # one step (25 ms) of falling grows 0.3 rad by ~1 %
    assert leaning == pytest.approx(hover_reward(env.drone.state, False)
                                    - LEAN_PENALTY_GAIN * env.pole.lean, abs=1e-9)
    assert upright - leaning == pytest.approx(LEAN_PENALTY_GAIN * 0.3, abs=0.03)
    env.close()


def test_sparse_balance_rewards_hover_with_the_pole_up_only():
    env = quiet_balance_env(sparse_reward=True)
    env.reset(seed=0)
    action = hold(env, (0.0, 0.0, 1.0))
    rewards = [env.step(action)[1] for _ in range(80)]
    assert rewards[-1] == 1.0
    env.pole.reset(lean=0.2)
    assert env.step(action)[1] == 0.0
    env.close()


def test_fallen_pole_ends_balance_episode_unless_told_otherwise():
    env = make("QuadX-Pole-Balance", flight_mode=7)  # noise topples the unbalanced pole
    env.reset(seed=0)
    action = hold(env, (0.0, 0.0, 1.0))
    steps, terminated = 0, False
    while not terminated and steps < 200:
        _, reward, terminated, _, info = env.step(action)
        steps += 1
    assert info == {"pole_fell": True} and reward == FAILURE_PENALTY
    assert env.pole.lean > FALLEN_LEAN and steps / env.agent_hz < 2.0
    env.close()

    env = make("QuadX-Pole-Balance", flight_mode=7, pole_fall_ends_episode=False)
    env.reset(seed=0)
    outcomes = [env.step(action) for _ in range(steps + 5)]
    assert not any(terminated for _, _, terminated, *_ in outcomes)
    assert outcomes[steps - 1][4].get("pole_fell") and outcomes[steps - 1][1] > FAILURE_PENALTY
    env.close()
    with pytest.raises(TypeError, match="pole_fall_ends_episode"):
        make("QuadX-Pole-Balance", pole_fall_ends_episode="yes")


def test_pole_waypoints_reward_subtracts_the_lean():
    env = make("QuadX-Pole-Waypoints", flight_mode=7, spawn_jitter=0.0,
               drone_options={"noise": 0.0})
    env.reset(seed=0)
    action = hold(env, (0.0, 0.0, 1.0))  # hold still: waypoint shaping ~ 0.1 / distance
    for _ in range(60):
        _, upright, *_ = env.step(action)
    env.pole.reset(lean=0.5)
    _, leaning, *_ = env.step(action)
    assert upright - leaning == pytest.approx(LEAN_PENALTY_GAIN * 0.5, abs=0.03)
    env.close()


def test_scripted_mode7_pilot_collects_the_first_target_while_the_pole_falls():
    env = make("QuadX-Pole-Waypoints", flight_mode=7)
    env.reset(seed=0)
    fell_at = reached_at = None
    for step in range(env.max_steps):
        target = env.targets.current
        _, reward, terminated, truncated, info = env.step(hold(env, target))
        if info.get("pole_fell") and fell_at is None:
            fell_at = step
        if info["num_targets_reached"] == 1:
            reached_at = step
            break
        assert not (terminated or truncated)
    assert reached_at is not None and reward > TARGET_BONUS - 5.0
    # a mode-7 pilot ignores the pole: it topples within a second, long before the target
    assert fell_at is not None and fell_at / env.agent_hz < 1.0 < reached_at / env.agent_hz
    env.close()
