"""The Multirotor-* task rules on hand-made states: rewards, terminations, targets, starts,
the observation and the action scaling, against their closed forms. The rules are checked
as plain Python and compiled (the kernels' versions) on the same states."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyflyt_like.batch.obstacles import empty_pool
from pyflyt_like.common.multirotor_model import load_multirotor_model
from pyflyt_like.envs.multirotor_tasks import kernels
from pyflyt_like.envs.multirotor_tasks.actions import YAW_TURN, hover_centred_scaling
from pyflyt_like.rules import multirotor_tasks as rules

G = 9.81
UPRIGHT, UPSIDE_DOWN = 1.0, -1.0  # the body z axis's world z component
BOTH = pytest.mark.parametrize("step", [rules.score_step, kernels.score_step],
                               ids=["python", "compiled"])


def setpoints(model, mode, actions, yaw):
    scaling = hover_centred_scaling(model, mode, G)
    out = np.zeros((len(actions), scaling.size))
    for action, row in zip(np.asarray(actions, float), out, strict=True):
        kernels.to_setpoint(action, scaling.centre, scaling.below, scaling.above, yaw,
                            scaling.yaw_column, row)
    return out


@pytest.mark.parametrize("model_name", ["crazyflie21", "cf2x", "hexarotor"])
def test_zero_action_is_hover_and_unit_actions_reach_the_limits(model_name):
    model = load_multirotor_model(model_name, None, G)
    n = model.n_rotors
    weight = model.mass * G
    speeds = setpoints(model, -1, [[0.0] * n, [-1.0] * n, [1.0] * n], 0.0)
    np.testing.assert_allclose(speeds[0], model.hover_speed(G))
    np.testing.assert_allclose(speeds[1], model.min_speed)
    np.testing.assert_allclose(speeds[2], model.max_speed)
    actions = [[0.0] * 4, [-1.0] * 4, [1.0] * 4]
    rates = setpoints(model, 0, actions, 0.3)
    np.testing.assert_allclose(rates[0], (0, 0, 0, weight))
    np.testing.assert_allclose(rates[2, :3], model.rate_limits)
    np.testing.assert_allclose(rates[1, 3], n * model.kf * model.min_speed ** 2)
    np.testing.assert_allclose(rates[2, 3], n * model.kf * model.max_speed ** 2)
    attitude = setpoints(model, 1, actions, 0.3)
    tilt = model.position_pid["max_tilt"]
    np.testing.assert_allclose(attitude[0], (0, 0, 0.3, weight))  # zero holds the heading
    np.testing.assert_allclose(attitude[2, :3], (tilt, tilt, 0.3 + YAW_TURN))
    np.testing.assert_allclose(attitude[1, :3], (-tilt, -tilt, 0.3 - YAW_TURN))


def test_rotation_heading_and_up_axis_match_pybullet():
    pybullet = pytest.importorskip("pybullet")
    rng = np.random.default_rng(0)
    quat = rng.normal(size=(5, 4))
    quat /= np.linalg.norm(quat, axis=1, keepdims=True)
    size = 3 + 15 + 4
    high = np.full(size, 1e9)
    for q in quat:
        out = np.zeros(size)
        rules.observe(rules.HOVER, np.zeros(3), q, np.zeros(3), np.zeros(3), None, None,
                      np.zeros(3), np.zeros(9), 0.0, np.zeros(4), np.zeros(size), 0.0, -high,
                      high, out)
        matrix = np.reshape(pybullet.getMatrixFromQuaternion(q), (3, 3))
        np.testing.assert_allclose(out[3:12], matrix.ravel(), atol=1e-12)
        assert kernels.heading(q) == pytest.approx(pybullet.getEulerFromQuaternion(q)[2],
                                                   abs=1e-12)
        assert kernels.up_z_of(q) == pytest.approx(matrix[2, 2], abs=1e-12)


def play(step, task, pos, up_z=UPRIGHT, vel=(0, 0, 0), target=(0, 0, 0), curve=None,
         time=1.0, previous=0.0, crashed=False):
    """``step``'s (reward, terminated, distance, arrived, landed) of one hand-made state
    (no obstacle near: only Navigate reads the clearance)."""
    curve = np.zeros(9) if curve is None else np.asarray(curve, float)
    return step(task, np.asarray(pos, float), up_z, np.asarray(vel, float),
                np.asarray(target, float), curve, time, previous, crashed, math.inf)


HOVER_TARGET = (0.0, 0.0, 1.0)


@BOTH
def test_hover_reward_is_a_gaussian_of_the_distance_and_ends_outside_the_zone(step):
    results = [play(step, rules.HOVER, pos, up_z, target=HOVER_TARGET)
               for pos, up_z in (((0, 0, 1), UPRIGHT), ((0.5, 0, 1), UPRIGHT),
                                 ((0, 0, 2.6), UPRIGHT), ((0, 0, 1), UPSIDE_DOWN),
                                 ((0, 0, 0.04), UPRIGHT))]
    assert [r[0] for r in results[:2]] == pytest.approx([1.0, math.exp(-1.0)])
    assert [r[1] for r in results] == [False, False, True, True, True]
    assert results[1][2] == pytest.approx(0.5)


@BOTH
def test_reach_pays_progress_and_draws_no_target_itself(step):
    reward, terminated, distance, arrived, _ = play(step, rules.REACH, (0.2, 0, 1),
                                                    target=(1, 0, 1), previous=1.0)
    assert (reward, terminated, distance, arrived) == (pytest.approx(10 * 0.2), False,
                                                       pytest.approx(0.8), False)
    reward, terminated, _, arrived, _ = play(step, rules.REACH, (0, 0, 1.05),
                                             target=(0, 0, 1), previous=0.5)
    assert reward == pytest.approx(10 * 0.45 + 10) and arrived and not terminated
    for outside in ((2.1, 0, 1), (0, -2.1, 1), (0, 0, -0.6), (0, 0, 2.6)):
        assert play(step, rules.REACH, outside, target=(0, 0, 1))[1]


def test_reach_draws_a_new_target_in_the_box_on_arrival():
    task = kernels.zeros_arrays(1, 4, 22, 0)
    task.streams[:] = 12345
    task.target[0] = (0.0, 0.0, 1.0)
    task.distance[0] = 0.5
    params = _params(rules.REACH)
    pos, level = np.array([0.0, 0.0, 1.05]), np.array([0.0, 0.0, 0.0, 1.0])
    reward, terminated = kernels.score_world(pos, level, np.zeros(3), False, task, params, 0,
                                             tuple(empty_pool()))
    assert reward == pytest.approx(10 * 0.45 + 10) and not terminated
    assert task.reached[0] == 1 and not np.allclose(task.target[0], (0, 0, 1))
    assert np.all(task.target[0] >= rules.REACH_LOW) and np.all(task.target[0] <= rules.REACH_HIGH)
    assert task.distance[0] == pytest.approx(np.linalg.norm(task.target[0] - pos))


def _params(task: int, noise_std: float = 0.0) -> kernels.TaskParams:
    size = rules.FEATURE_SIZES[task] + 15 + 4
    high = np.full(size, 1e9)
    return kernels.TaskParams(
        task=task, mode=1, max_steps=500, physics_steps=10, agent_period=0.02,
        action_low=-np.ones(4), action_high=np.ones(4), setpoint_centre=np.zeros(4),
        setpoint_below=np.ones(4), setpoint_above=np.ones(4), yaw_column=2,
        observation_low=-high, observation_high=high, noise_std=noise_std,
        sensed=False, sectors=0, beams=0, max_range=0.0, level_size=0)


def _curve(amplitude=(0.8, 0.4, 0.1), period=7.0, phase=(0.3, 1.2, 2.0)) -> np.ndarray:
    omega = 2 * math.pi / period * np.array(rules.FREQUENCY_RATIOS)
    return np.concatenate((amplitude, omega, phase))


def _reference(curve: np.ndarray, t: float) -> np.ndarray:
    """The figure-eight's closed form at ``t`` [s]."""
    return np.array((0, 0, 1)) + curve[:3] * np.sin(curve[3:6] * t + curve[6:])


@BOTH
def test_track_rewards_closeness_to_the_reference_now(step):
    curve = _curve()
    now = _reference(curve, 2.5)
    results = [play(step, rules.TRACK, now + offset, curve=curve, time=2.5, target=np.zeros(3))
               for offset in ((0, 0, 0), (0.3, 0, 0), (1.2, 0, 0))]
    assert [r[0] for r in results[:2]] == pytest.approx([1.0, math.exp(-1.0)])
    assert [r[1] for r in results] == [False, False, True]
    assert results[2][2] == pytest.approx(1.2)


def test_track_observes_the_reference_ahead():
    curve, pos, time = _curve(), np.array([0.1, -0.2, 0.9]), 1.3
    size = 15 + 15 + 4
    high = np.full(size, 1e9)
    out = np.zeros(size)
    kernels.observe(rules.TRACK, pos, np.array([0.0, 0.0, 0.0, 1.0]), np.zeros(3),
                    np.zeros(3), None, None, np.zeros(3), curve, time, np.zeros(4),
                    np.zeros(size), 0.0, -high, high, out)
    for i in range(5):
        np.testing.assert_allclose(out[3 * i:3 * i + 3], _reference(curve, time + 0.1 * i) - pos,
                                   atol=1e-12)


def _starts(task: int, n: int = 2000):
    rng = np.random.default_rng(0)
    target, curve = np.zeros((n, 3)), np.zeros((n, 9))
    pos, euler = np.zeros((n, 3)), np.zeros((n, 3))
    for i in range(n):
        rules.start_episode(task, rng.random(rules.START_DRAWS), target[i], curve[i], pos[i],
                            euler[i])
    return target, curve, pos, euler


@pytest.mark.parametrize(("step", "start"), [(rules.score_step, rules.start_episode),
                                             (kernels.score_step, kernels.start_episode)],
                         ids=["python", "compiled"])
def test_a_task_number_without_rules_is_marked_not_flown_as_another(step, start):
    """A task appended to TASK_NAMES without its branches is marked (NaN), on both paths,
    where it used to play Land's rules; check_task refuses it when a task is built."""
    unknown = len(rules.TASK_NAMES)
    reward, terminated, distance, *_ = play(step, unknown, (0, 0, 1))
    assert math.isnan(distance) and terminated and reward == rules.FAILURE_REWARD
    target = np.zeros(3)
    start(unknown, np.full(rules.START_DRAWS, 0.5), target, np.zeros(9), np.zeros(3),
          np.zeros(3))
    assert math.isnan(target[0])
    for task in range(len(rules.TASK_NAMES)):  # every named task has its branches
        assert not math.isnan(play(step, task, (0, 0, 1))[2])
        start(task, np.full(rules.START_DRAWS, 0.5), target, np.zeros(9), np.zeros(3),
              np.zeros(3))
        assert not math.isnan(target[0])


def test_check_task_refuses_a_task_number_without_rules(monkeypatch):
    for task in range(len(rules.TASK_NAMES)):
        rules.check_task(task)
    unknown = len(rules.TASK_NAMES)
    with pytest.raises(ValueError, match=rf"task number {unknown} has no branch in "
                                         r"start_episode"):
        rules.check_task(unknown)
    # a task with a start but no scoring is named for score_step
    real_start = rules.start_episode
    monkeypatch.setattr(rules, "start_episode", lambda task, *args: real_start(
        rules.HOVER, *args))
    with pytest.raises(ValueError, match=rf"task number {unknown} has no branch in "
                                         r"score_step"):
        rules.check_task(unknown)
    # the envs run the check when they are built: a named task without rules is refused
    monkeypatch.setattr(rules, "TASK_NAMES", (*rules.TASK_NAMES, "Hold"))
    from pyflyt_like.envs.multirotor_tasks.parameters import task_number
    with pytest.raises(ValueError, match=r"no branch in score_step"):
        task_number("Hold")


def test_starts_stay_in_their_ranges():
    target, _, pos, euler = _starts(rules.HOVER)
    assert np.all(target == HOVER_TARGET) and np.all(np.abs(pos - HOVER_TARGET) <= 0.3)
    assert np.all(np.abs(euler[:, :2]) <= 0.1) and np.all(np.abs(euler[:, 2]) <= math.pi / 4)
    target, _, pos, euler = _starts(rules.REACH)
    for points in (target, pos):
        assert np.all(points >= rules.REACH_LOW) and np.all(points <= rules.REACH_HIGH)
    assert not np.allclose(target, pos)  # drawn apart
    target, _, pos, euler = _starts(rules.LAND)
    assert np.all(target == (0, 0, rules.TOUCHDOWN_HEIGHT))
    assert np.all(pos >= rules.LAND_LOW) and np.all(pos <= rules.LAND_HIGH)
    assert np.all(np.abs(euler[:, :2]) <= 0.1)


def test_track_starts_on_random_figure_eights_near_their_first_point():
    target, curve, pos, euler = _starts(rules.TRACK)
    assert np.all(curve[:, :3] >= rules.AMPLITUDE_LOW)
    assert np.all(curve[:, :3] <= rules.AMPLITUDE_HIGH)
    periods = 2 * math.pi / curve[:, 3]
    assert periods.min() >= 6.0 and periods.max() <= 10.0
    np.testing.assert_allclose(curve[:, 4], 2 * curve[:, 3])
    np.testing.assert_allclose(curve[:, 5], curve[:, 3])
    assert np.all((curve[:, 6:] >= 0) & (curve[:, 6:] < 2 * math.pi))
    first = np.array([_reference(c, 0.0) for c in curve])
    np.testing.assert_allclose(target, first, atol=1e-12)
    assert np.all(np.abs(pos - first) <= 0.1)
    assert np.all(euler[:, :2] == 0.0) and np.all(np.abs(euler[:, 2]) <= math.pi / 4)


LAND_POINT = (0.0, 0.0, 0.05)  # the touchdown point: the pad's centre, centre of mass at 5 cm


def land(step, pos, vel, previous=None, up_z=UPRIGHT):
    """Land's (reward, terminated, distance, arrived, landed) at ``pos``, ``vel``; the last
    step's distance defaults to this one's (no progress)."""
    if previous is None:
        previous = math.dist(pos, LAND_POINT)
    return play(step, rules.LAND, pos, up_z=up_z, vel=vel, target=LAND_POINT,
                previous=previous)


@BOTH
def test_land_pays_progress_less_the_speed_above_the_approach_envelope(step):
    pos = (0.3, 0.4, 1.05)  # 1.118 m from the touchdown point: 1.218 m/s allowed
    d = math.sqrt(1.25)
    slow = land(step, pos, (0, 0, -0.5), previous=d + 0.02)
    fast = land(step, pos, (0.6, 0, -2.0), previous=d + 0.02)
    assert slow == (pytest.approx(10 * 0.02), False, pytest.approx(d), False, False)
    assert fast[0] == pytest.approx(10 * 0.02 - (math.hypot(0.6, 2.0) - (d + 0.1)))
    assert not fast[1]


@BOTH
def test_land_bonus_is_graded_by_offset_and_speed(step):
    # offset 0.1 m at 0.2 m/s: on the envelope (1/s * 0.1 m + 0.1 m/s), so no cost
    reward, terminated, distance, _, landed = land(step, (0.1, 0, 0.05), (0, 0, -0.2),
                                                  previous=0.12)
    assert reward == pytest.approx(10 * 0.02 + 50 * (1 - 0.5 * 0.1 / 0.2) * (1 - 0.5 * 0.2 / 0.3))
    assert terminated and landed and distance == pytest.approx(0.1)
    # centred, below the touchdown height: 0.11 m/s allowed at 0.01 m, so no cost
    reward, *_, landed = land(step, (0, 0, 0.04), (0, 0, -0.1))
    assert reward == pytest.approx(50 * (1 - 0.5 * 0.1 / 0.3)) and landed


@BOTH
def test_land_is_soft_below_0_3_m_per_s_counting_every_axis(step):
    centre = (0, 0, 0.05)  # 0.1 m/s allowed at the touchdown point
    soft = land(step, centre, (0, 0, -0.29))
    hard = land(step, centre, (0, 0, -0.31))
    assert soft[4] and not hard[4] and soft[1] and hard[1]
    assert soft[0] == pytest.approx(-(0.29 - 0.1) + 50 * (1 - 0.5 * 0.29 / 0.3))
    assert hard[0] == pytest.approx(-(0.31 - 0.1) + 10 * (1 - 0.31))  # the smaller bonus
    assert land(step, centre, (0.2, 0, -0.2))[4]  # 0.283 m/s
    assert not land(step, centre, (0, 0.25, -0.2))[4]  # 0.320 m/s: sideways counts too
    reward, terminated, *_, landed = land(step, centre, (0, 0, -1.5))
    assert reward == pytest.approx(-(1.5 - 0.1)) and terminated and not landed  # no bonus


@BOTH
def test_land_is_on_the_pad_within_0_2_m_horizontally(step):
    vel = (0, 0, -0.2)  # within the envelope on both sides of the edge
    on = land(step, (0.19, 0, 0.05), vel)
    off = land(step, (0, -0.21, 0.05), vel)
    diagonal = land(step, (0.15, 0.1, 0.05), vel)  # 0.180 m
    assert on[4] and diagonal[4] and not off[4]
    assert on[0] == pytest.approx(50 * (1 - 0.5 * 0.19 / 0.2) * (1 - 0.5 * 0.2 / 0.3))
    assert off[0] == 0.0 and off[1]  # a touchdown off the pad ends with nothing


@BOTH
def test_land_ends_at_touchdown_upside_down_or_outside(step):
    assert not land(step, (0, 0, 0.051), (0, 0, -0.1))[1]
    assert land(step, (0, 0, 0.05), (0, 0, -0.1))[1]
    for pos, up_z in (((0, 0, 1), UPSIDE_DOWN), ((3.1, 0, 1), UPRIGHT),
                      ((0, -3.1, 1), UPRIGHT), ((0, 0, 4.1), UPRIGHT)):
        reward, terminated, *_, landed = land(step, pos, (0, 0, 0), up_z=up_z)
        assert terminated and not landed and reward == 0.0
    assert not land(step, (2.9, -2.9, 3.9), (0, 0, 0))[1]


def test_noise_is_added_before_clipping_to_the_bounds():
    size = 3 + 15 + 4
    low, high = -np.ones(size), np.ones(size)
    noise = np.full(size, 2.0)
    out = np.zeros(size)
    rules.observe(rules.HOVER, np.array([0.0, 0.0, 0.5]), np.array([0.0, 0.0, 0.0, 1.0]),
                  np.zeros(3), np.zeros(3), None, None, np.zeros(3), np.zeros(9), 0.0,
                  np.zeros(4), noise, 0.1, low, high, out)
    np.testing.assert_allclose(out[:3], (0.2, 0.2, -0.3))  # target - pos + 0.1 * 2
    assert out[3] == 1.0  # R00 = 1 plus 0.2, clipped
