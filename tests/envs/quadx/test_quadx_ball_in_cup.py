"""Task logic of QuadX-Ball-In-Cup: the string, the cup, the ball's events, the rewards."""

from __future__ import annotations

import math

import numpy as np
import pybullet
import pytest

from pyflyt_like.envs.base.aviary_env import FAILURE_PENALTY
from pyflyt_like.envs.quadx.ball_in_cup import (
    BALL_HIT_PENALTY,
    SUCCESS_BONUS,
    ball_in_cup_shaping,
)
from pyflyt_like.envs.quadx.mounted_cup import CUP_INNER_RADIUS, CUP_RIM_HEIGHT

from .._env_checks import make

GRAVITY = 9.81  # m/s^2
START = (0.0, 0.0, 4.0)  # m, the task's spawn point


def hovering_env(**options):
    """The env in mode 7 without noise or jitter, reset, holding its spawn point for 1 s."""
    env = make("QuadX-Ball-In-Cup", flight_mode=7, spawn_jitter=0.0,
               drone_options={"noise": 0.0}, **options)
    env.reset(seed=0)
    for _ in range(30):
        env.step(hold(env))
    return env


def hold(env, target=START) -> np.ndarray:
    """The mode-7 action that flies to ``target`` (x, y, z) with yaw 0."""
    return env.action_mapping.to_action((target[0], target[1], 0.0, target[2]))


def ball_world(env) -> tuple[np.ndarray, np.ndarray]:
    """Ground-frame position and velocity of the ball's centre."""
    link = pybullet.getLinkState(env.ball.body_id, 0, computeLinkVelocity=1,
                                 computeForwardKinematics=1, physicsClientId=env.ball.client)
    return np.array(link[0]), np.array(link[6])


def string_span(env) -> float:
    """Distance from the string's upper end to the ball's centre [m]."""
    return float(np.linalg.norm(ball_world(env)[0] - env.ball.attach_point_world()))


def set_ball(env, direction, distance, velocity=(0.0, 0.0, 0.0)) -> None:
    """Put the ball at ``distance`` from the string's upper end along the ground-frame
    ``direction``, moving at ``velocity`` relative to the drone, ground frame (the swivel
    turns to suit)."""
    ball, client = env.ball, env.ball.client
    direction = np.asarray(direction, dtype=float) / np.linalg.norm(direction)
    # The swivel's -z axis must point along ``direction``.
    axis = np.cross((0.0, 0.0, -1.0), direction)
    sine, cosine = np.linalg.norm(axis), -direction[2]
    axis = axis / sine if sine > 1e-9 else np.array([1.0, 0.0, 0.0])
    angle = math.atan2(sine, cosine)
    quaternion = (*(axis * math.sin(angle / 2)), math.cos(angle / 2))
    pybullet.resetBasePositionAndOrientation(ball.body_id, ball.attach_point_world().tolist(),
                                             quaternion, physicsClientId=client)
    velocity = np.asarray(velocity, dtype=float)
    radial = float(velocity @ direction)
    lateral = velocity - radial * direction
    spin = np.cross(direction, lateral) / distance  # omega x (distance * direction) = lateral
    pybullet.resetBaseVelocity(ball.body_id, env.drone.world_velocity.tolist(), spin.tolist(),
                               physicsClientId=client)
    pybullet.resetJointState(ball.body_id, 0, distance, radial, physicsClientId=client)


def test_cup_constants_match_its_urdf():
    env = make("QuadX-Ball-In-Cup", spawn_jitter=0.0)
    env.reset(seed=0)
    client, cup = env.cup.client, env.cup
    floor = env.drone.state[3] + cup.mount_point
    for angle in np.linspace(0.0, 2 * np.pi, 12, endpoint=False):
        direction = np.array([math.cos(angle), math.sin(angle), 0.0])
        start = floor + (0.0, 0.0, 0.02)
        hit = pybullet.rayTest(start.tolist(), (start + 0.1 * direction).tolist(),
                               physicsClientId=client)[0]
        assert hit[0] == cup.body_id
        assert hit[2] * 0.1 == pytest.approx(CUP_INNER_RADIUS, abs=1e-4)  # a stave's face
    stave = floor + (0.0265, 0.0, 0.0)  # the middle of the stave on +x
    top = pybullet.rayTest((stave + (0.0, 0.0, 0.1)).tolist(), stave.tolist(),
                           physicsClientId=client)[0]
    assert top[0] == cup.body_id and top[3][2] - floor[2] == pytest.approx(CUP_RIM_HEIGHT,
                                                                            abs=1e-4)
    env.close()


def test_ball_hangs_taut_at_string_length_while_hovering():
    env = hovering_env()
    length = env.ball.string_length
    assert length == pytest.approx(0.3)
    for _ in range(30):
        observation, reward, terminated, *_ = env.step(hold(env))
        assert string_span(env) == pytest.approx(length, abs=2e-3)  # string stays taut
    assert not terminated
    ball, _ = ball_world(env)
    np.testing.assert_allclose(ball[:2], env.ball.attach_point_world()[:2], atol=1e-3)
    # Body-frame ball state at the end of the observation: straight below, at rest.
    np.testing.assert_allclose(observation[-6:], (0, 0, -0.01 - length, 0, 0, 0), atol=3e-3)
    assert reward == pytest.approx(0.0, abs=0.01)  # hanging is the bottom of the shaping
    env.close()


def ballistic_error(env, velocity, steps) -> tuple[np.ndarray, float]:
    """Throw the ball from rest below the hovering drone at ``velocity`` relative to it; return
    the largest deviation per axis from free flight over ``steps`` env steps [m] and the
    shortest string span seen [m]."""
    set_ball(env, (0.0, 0.0, -1.0), env.ball.string_length, velocity)
    start, start_velocity = ball_world(env)
    dt = env.aviary.physics_period
    error, shortest = np.zeros(3), env.ball.string_length
    for step in range(1, steps + 1):
        env.step(hold(env))
        t = step / env.agent_hz
        # Free flight as PyBullet integrates it: semi-implicit Euler falls g dt t / 2 more.
        drop = 0.5 * GRAVITY * (t * t + dt * t)
        error = np.maximum(error, np.abs(ball_world(env)[0] - start - start_velocity * t
                                         + (0.0, 0.0, drop)))
        shortest = min(shortest, string_span(env))
    return error, shortest


def test_slack_string_lets_a_ball_thrown_straight_up_fly_freely():
    env = hovering_env()
    # 2 m/s up: 0.2 m rise and back within 0.27 s (8 steps), the string slack throughout.
    error, shortest = ballistic_error(env, (0.0, 0.0, 2.0), steps=8)
    assert shortest < 0.45 * env.ball.string_length  # well inside the string's reach
    assert error.max() < 2e-4  # not held back: a rod would keep the span at 0.3 m
    env.close()


def test_slack_string_lets_a_ball_thrown_up_and_sideways_fly_freely():
    env = hovering_env()
    error, shortest = ballistic_error(env, (0.6, -0.3, 1.8), steps=8)
    assert shortest < 0.7 * env.ball.string_length
    # Sideways the swivel turns, and Bullet integrates that rotation explicitly: the ball
    # drifts off the parabola by an error of first order in the physics step (7 mm over
    # the 0.18 m flown sideways at 240 Hz; 1.6 mm at 960 Hz). No string force is involved.
    assert error[:2].max() < 8e-3 and error[2] < 3e-3
    env.close()


def test_ball_thrown_into_the_drone_from_below_costs_500():
    env = hovering_env()
    # 3.5 m/s straight up would rise 0.62 m: it strikes the drone's underside 0.3 m above.
    set_ball(env, (0.0, 0.0, -1.0), env.ball.string_length, (0.0, 0.0, 3.5))
    for _ in range(10):
        _, reward, terminated, truncated, info = env.step(hold(env))
        if terminated:
            break
    assert terminated and not truncated
    assert info == {"ball_hit": True} and reward == BALL_HIT_PENALTY
    env.close()


def test_ball_landing_on_the_drone_from_above_is_harmless():
    env = hovering_env()
    # 3 cm above the drone's top, beside the cup (its wall ends 0.028 m off the axis).
    drop = env.drone.state[3] + (0.042, 0.0, 0.01 + 0.012 + 0.03)
    offset = drop - env.ball.attach_point_world()
    set_ball(env, offset, float(np.linalg.norm(offset)))
    touched = False
    for _ in range(10):
        _, _, terminated, _, info = env.step(hold(env))
        touched |= bool(env.aviary.contact_array[env.ball.body_id, env.drone.Id])
        assert not terminated and info == {}
    assert touched
    env.close()


def test_ball_dropped_into_the_cup_is_a_success():
    env = hovering_env()
    mouth = env.drone.state[3] + env.cup.mouth
    drop = mouth + (0.0, 0.0, 0.08)  # 8 cm above the cup's mouth, at rest
    offset = drop - env.ball.attach_point_world()
    set_ball(env, offset, float(np.linalg.norm(offset)))
    rewards = []
    for _ in range(15):
        _, reward, terminated, _, info = env.step(hold(env))
        rewards.append(reward)
        if terminated:
            break
    assert terminated and info == {"env_complete": True} and reward == SUCCESS_BONUS
    # A fall of 8 cm + 2.3 cm into the cup takes ~0.14 s: 4 to 5 steps at 30 Hz.
    assert 4 <= len(rewards) <= 6
    # Above the mouth the dense reward is near its top (0.80 at the mouth itself).
    assert 0.6 < rewards[0] < 0.8
    env.close()


def test_sparse_reward_is_only_the_success_bonus():
    env = hovering_env(sparse_reward=True)
    assert env.step(hold(env))[1] == 0.0
    inside = env.drone.state[3] + env.cup.mount_point + (0.0, 0.0, 0.015)
    offset = inside - env.ball.attach_point_world()
    set_ball(env, offset, float(np.linalg.norm(offset)))  # placed resting in the cup
    _, reward, terminated, _, info = env.step(hold(env))
    assert terminated and info == {"env_complete": True} and reward == SUCCESS_BONUS
    env.close()


def test_ball_on_the_floor_is_not_a_collision():
    env = hovering_env()
    low = (0.0, 0.0, 0.2)  # the ball hangs 0.31 m below the drone: it must rest on the floor
    touched_floor = False
    for _ in range(150):
        _, _, terminated, truncated, info = env.step(hold(env, low))
        assert not terminated and not truncated and info == {}
        touched_floor |= bool(env.aviary.contact_array[env.ball.body_id, env.aviary.planeId])
    assert touched_floor
    assert env.drone.state[3, 2] == pytest.approx(0.2, abs=0.03)
    assert ball_world(env)[0][2] == pytest.approx(env.ball.ball_radius, abs=2e-3)
    assert string_span(env) < env.ball.string_length - 0.05  # slack
    env.close()


def test_drone_hitting_the_floor_is_a_collision():
    env = make("QuadX-Ball-In-Cup", start_pos=(0.0, 0.0, 1.0), spawn_jitter=0.0)
    env.reset(seed=0)
    # Ball held out to the side so that the drone does not land on it; mode 0 with zero
    # thrust: drone and ball fall together, the ball (lower by its radius) touches first.
    set_ball(env, (1.0, 0.0, 0.0), env.ball.string_length)
    ball_landed = False
    for _ in range(60):
        _, reward, terminated, _, info = env.step(np.zeros(4))
        ball_landed |= bool(env.aviary.contact_array[env.ball.body_id, env.aviary.planeId])
        if terminated:
            break
    assert ball_landed and info.get("collision") and reward == FAILURE_PENALTY
    env.close()


def test_cup_hitting_the_floor_is_a_collision():
    env = make("QuadX-Ball-In-Cup", spawn_jitter=0.0)
    env.reset(seed=0)
    drone, client = env.drone, env.drone.client_id
    # Upside down with the cup's rim 2 mm above the floor and the ball lying off to one side.
    height = CUP_RIM_HEIGHT + env.cup.mount_point[2] + 0.002
    pybullet.resetBasePositionAndOrientation(drone.Id, (0.0, 0.0, height), (1.0, 0.0, 0.0, 0.0),
                                             physicsClientId=client)
    drone.update_state()
    env.cup.reset()
    set_ball(env, (1.0, 0.0, 0.0), env.ball.string_length)
    _, reward, terminated, _, info = env.step(np.zeros(4))
    assert terminated and info.get("collision") and reward == FAILURE_PENALTY
    assert not env.aviary.contact_array[drone.Id, env.aviary.planeId]  # the cup touched
    env.close()


def test_cup_stays_on_its_mount_in_hard_manoeuvres():
    env = make("QuadX-Ball-In-Cup", spawn_jitter=0.0)
    env.reset(seed=0)
    env.action_space.seed(1)
    client = env.cup.client
    for _ in range(60):
        _, _, terminated, *_ = env.step(env.action_space.sample())
        position, quaternion = pybullet.getBasePositionAndOrientation(env.cup.body_id,
                                                                      physicsClientId=client)
        drone = env.drone
        mount = drone.rotation_matrix.T @ (np.array(position) - drone.state[3])
        np.testing.assert_allclose(mount, env.cup.mount_point + (0, 0, 0.016), atol=1e-3)
        relative = pybullet.getDifferenceQuaternion(drone.quaternion, quaternion)
        assert abs(relative[3]) > math.cos(0.01 / 2)  # within 0.01 rad
        if terminated:
            break
    env.close()


def test_reset_hangs_the_ball_at_rest_below_a_jittered_drone():
    env = make("QuadX-Ball-In-Cup")  # default spawn jitter tilts the drone
    env.reset(seed=3)
    env.action_space.seed(0)
    for _ in range(40):
        env.step(env.action_space.sample())
    observation, _ = env.reset(seed=5)
    ball, velocity = ball_world(env)
    attach = env.ball.attach_point_world()
    np.testing.assert_allclose(ball, attach - (0.0, 0.0, env.ball.string_length), atol=1e-9)
    np.testing.assert_allclose(velocity, 0.0, atol=1e-12)
    np.testing.assert_allclose(observation[-3:], 0.0, atol=1e-12)
    again, _ = env.reset(seed=5)
    np.testing.assert_array_equal(observation, again)
    env.close()


def test_shaping_rises_along_the_swing_and_peaks_at_the_mouth():
    attach, mouth, length = np.array([0, 0, -0.01]), np.array([0, 0, 0.045]), 0.3

    def at(angle):  # ball on the full string, ``angle`` up from hanging straight down
        return attach + length * np.array([math.sin(angle), 0.0, -math.cos(angle)])

    swing = [ball_in_cup_shaping(at(a), attach, mouth, length)
             for a in np.linspace(0.0, np.pi, 13)]
    assert swing[0] == pytest.approx(0.0)
    assert all(b > a for a, b in zip(swing, swing[1:]))
    top = ball_in_cup_shaping(mouth, attach, mouth, length)
    assert top == pytest.approx(0.5 + 0.25 * (1 + 0.055 / 0.3))
    assert top > swing[-1]
    for step in ((0.01, 0, 0), (0, 0, 0.01), (0, 0, -0.01)):
        assert ball_in_cup_shaping(mouth + step, attach, mouth, length) < top


@pytest.mark.parametrize("options, success", [
    ({}, True),
    ({"goal_reach_distance": 3.5}, True),  # the drone holds (0, 0, 4): 3 m from (0, 0, 1)
    ({"goal_reach_distance": 1.0}, False),
    ({"goal_reach_velocity": 1e-6}, False),
])
def test_pyflyt_goal_reach_options_gate_the_success(options, success):
    env = hovering_env(sparse_reward=True, **options)
    inside = env.drone.state[3] + env.cup.mount_point + (0.0, 0.0, 0.015)
    offset = inside - env.ball.attach_point_world()
    set_ball(env, offset, float(np.linalg.norm(offset)))  # placed resting in the cup
    for _ in range(3):
        _, reward, terminated, _, info = env.step(hold(env))
    assert terminated is success and info.get("env_complete", False) is success
    assert reward == (SUCCESS_BONUS if success else 0.0)
    if not success:
        assert env.cup.holds(env.ball.position)  # still caught, just not at the goal
    env.close()


@pytest.mark.parametrize("name", ["goal_reach_distance", "goal_reach_velocity"])
def test_bad_goal_reach_options_raise_naming_them(name):
    with pytest.raises(TypeError, match=name):
        make("QuadX-Ball-In-Cup", **{name: "1.0"})
    with pytest.raises(ValueError, match=name):
        make("QuadX-Ball-In-Cup", **{name: -1.0})
