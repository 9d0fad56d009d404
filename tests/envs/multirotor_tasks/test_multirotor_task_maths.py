"""The Multirotor-* task definitions on hand-made states: rewards, terminations, targets and
the action scaling, against their closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyflyt_like.common.multirotor_model import load_multirotor_model
from pyflyt_like.envs.multirotor_tasks.actions import YAW_TURN, HoverCentredScaling
from pyflyt_like.envs.multirotor_tasks.kinematics import Kinematics, quat_to_rotation
from pyflyt_like.envs.multirotor_tasks.tasks.hover import HoverTask
from pyflyt_like.envs.multirotor_tasks.tasks.land import LandTask
from pyflyt_like.envs.multirotor_tasks.tasks.lissajous import Lissajous
from pyflyt_like.envs.multirotor_tasks.tasks.reach import ReachTask
from pyflyt_like.envs.multirotor_tasks.tasks.track import TrackTask

G = 9.81


def kinematics(pos, vel=None, upside_down=None) -> Kinematics:
    pos = np.atleast_2d(np.asarray(pos, float))
    n = len(pos)
    rot = np.tile(np.eye(3), (n, 1, 1))
    if upside_down is not None:
        rot[np.asarray(upside_down)] = np.diag((1.0, -1.0, -1.0))
    vel = np.zeros((n, 3)) if vel is None else np.atleast_2d(np.asarray(vel, float))
    return Kinematics(pos, rot, vel, np.zeros((n, 3)), np.arctan2(rot[:, 1, 0], rot[:, 0, 0]))


@pytest.mark.parametrize("model_name", ["crazyflie21", "cf2x", "hexarotor"])
def test_zero_action_is_hover_and_unit_actions_reach_the_limits(model_name):
    model = load_multirotor_model(model_name, None, G)
    n = model.n_rotors
    weight = model.mass * G
    out = np.zeros((3, n))
    speeds = HoverCentredScaling(model, -1, G)(
        np.array([[0.0] * n, [-1.0] * n, [1.0] * n]), np.zeros(3), out)
    np.testing.assert_allclose(speeds[0], model.hover_speed(G))
    np.testing.assert_allclose(speeds[1], model.min_speed)
    np.testing.assert_allclose(speeds[2], model.max_speed)
    heading = np.array([0.3, 0.3, 0.3])
    actions = np.array([[0.0] * 4, [-1.0] * 4, [1.0] * 4])
    rates = HoverCentredScaling(model, 0, G)(actions, heading, np.zeros((3, 4)))
    np.testing.assert_allclose(rates[0], (0, 0, 0, weight))
    np.testing.assert_allclose(rates[2, :3], model.rate_limits)
    np.testing.assert_allclose(rates[1, 3], n * model.kf * model.min_speed ** 2)
    np.testing.assert_allclose(rates[2, 3], n * model.kf * model.max_speed ** 2)
    attitude = HoverCentredScaling(model, 1, G)(actions, heading, np.zeros((3, 4)))
    tilt = model.position_pid["max_tilt"]
    np.testing.assert_allclose(attitude[0], (0, 0, 0.3, weight))  # zero holds the heading
    np.testing.assert_allclose(attitude[2, :3], (tilt, tilt, 0.3 + YAW_TURN))
    np.testing.assert_allclose(attitude[1, :3], (-tilt, -tilt, 0.3 - YAW_TURN))


def test_rotation_matrices_match_pybullet():
    pybullet = pytest.importorskip("pybullet")
    rng = np.random.default_rng(0)
    quat = rng.normal(size=(5, 4))
    quat /= np.linalg.norm(quat, axis=1, keepdims=True)
    yaw = np.zeros(5)
    rot = quat_to_rotation(quat, np.zeros((5, 3, 3)), yaw)
    for q, r, heading in zip(quat, rot, yaw, strict=True):
        np.testing.assert_allclose(r, np.reshape(pybullet.getMatrixFromQuaternion(q), (3, 3)),
                                   atol=1e-12)
        assert heading == pytest.approx(pybullet.getEulerFromQuaternion(q)[2], abs=1e-12)


def test_hover_reward_is_a_gaussian_of_the_distance_and_ends_outside_the_zone():
    task = HoverTask(4, 0.02)
    state = kinematics([(0, 0, 1), (0.5, 0, 1), (0, 0, 2.6), (0, 0, 1)], upside_down=[3])
    reward, terminated = task.evaluate(state, np.ones(4), None)
    np.testing.assert_allclose(reward[:2], (1.0, math.exp(-1.0)))
    assert terminated.tolist() == [False, False, True, True]
    np.testing.assert_allclose(task.features(state, None)[1], (-0.5, 0, 0))


def test_hover_starts_near_the_target():
    task = HoverTask(500, 0.02)
    start, attitude = task.reset(np.ones(500, bool), np.random.default_rng(0))
    assert np.all(np.abs(start - (0, 0, 1)) <= 0.3)
    assert np.all(np.abs(attitude[:, :2]) <= 0.1) and np.all(np.abs(attitude[:, 2]) <= math.pi / 4)


def test_reach_pays_progress_and_draws_a_new_target_on_arrival():
    task = ReachTask(2, 0.02)
    rng = np.random.default_rng(0)
    task.reset(np.ones(2, bool), rng)
    task.target[:] = ((1.0, 0.0, 1.0), (0.0, 0.0, 1.0))
    task.start(kinematics([(0, 0, 1), (0, 0, 1.5)]), np.ones(2, bool))
    reward, terminated = task.evaluate(kinematics([(0.2, 0, 1), (0, 0, 1.05)]), np.ones(2), rng)
    assert reward[0] == pytest.approx(10 * 0.2)
    assert reward[1] == pytest.approx(10 * 0.45 + 10)  # progress plus the arrival bonus
    assert task.reached.tolist() == [0, 1] and not terminated.any()
    assert not np.allclose(task.target[1], (0, 0, 1))  # a fresh target, inside the box
    assert np.all(task.target[1] >= (-1, -1, 0.5)) and np.all(task.target[1] <= (1, 1, 1.5))
    assert task.distance[1] == pytest.approx(np.linalg.norm(task.target[1] - (0, 0, 1.05)))
    _, terminated = task.evaluate(kinematics([(2.1, 0, 1), (0, 0, 1)]), np.ones(2), rng)
    assert terminated.tolist() == [True, False]


def test_track_observes_the_reference_ahead_and_rewards_closeness():
    task = TrackTask(3, 0.02)
    task.reset(np.ones(3, bool), np.random.default_rng(1))
    reference = task.reference
    time = np.array([0.0, 1.0, 2.5])
    now = reference.positions(time[:, None])[:, 0]
    state = kinematics(now + ((0, 0, 0), (0.3, 0, 0), (1.2, 0, 0)))
    features = task.features(state, time).reshape(3, 5, 3)
    for i in range(5):
        t = time + 0.1 * i
        expected = reference.centre + reference.amplitude * np.sin(
            reference.omega * t[:, None] + reference.phase)
        np.testing.assert_allclose(features[:, i], expected - state.pos, atol=1e-12)
    reward, terminated = task.evaluate(state, time, None)
    np.testing.assert_allclose(reward[:2], (1.0, math.exp(-1.0)))
    assert terminated.tolist() == [False, False, True]


def test_lissajous_draws_stay_in_their_ranges():
    curve = Lissajous(1000)
    curve.draw(np.random.default_rng(2), np.ones(1000, bool))
    assert np.all(curve.amplitude >= (0.5, 0.25, 0.0)) and np.all(curve.amplitude <= (1, 0.5, 0.2))
    periods = 2 * math.pi / curve.omega[:, 0]
    assert periods.min() >= 6.0 and periods.max() <= 10.0
    np.testing.assert_allclose(curve.omega[:, 1], 2 * curve.omega[:, 0])


def test_land_rewards_a_soft_touchdown_on_the_pad_only():
    task = LandTask(4, 0.02)
    task.reset(np.ones(4, bool), np.random.default_rng(0))
    above = [(0, 0, 0.1), (0, 0, 0.1), (0.5, 0, 0.1), (0, 0, 1)]
    task.start(kinematics(above), np.ones(4, bool))
    down = kinematics([(0, 0, 0.05), (0, 0, 0.05), (0.5, 0, 0.05), (0, 0, 0.9)],
                      vel=[(0, 0, -0.2), (0, 0, -1.5), (0, 0, -0.2), (0, 0, -0.2)])
    reward, terminated = task.evaluate(down, np.ones(4), None)
    progress = 10 * 0.05
    assert reward[0] == pytest.approx(progress + 10 * (1 - 0.2))
    assert reward[1] == pytest.approx(progress)  # too fast for a bonus
    assert reward[2] == pytest.approx(10 * (math.hypot(0.5, 0.05) - 0.5))  # off the pad: no bonus
    assert terminated.tolist() == [True, True, True, False]
    assert task.landed.tolist() == [True, False, False, False]
