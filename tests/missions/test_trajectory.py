"""Minimum-snap trajectories: interpolation, continuity, optimality, timing, yaw, holds, errors."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from pyflyt_like.missions import (
    DEFAULT_MIN_SEGMENT_DURATION,
    MinimumSnapTrajectory,
    allocate_durations,
    solve_minimum_derivative,
)

RNG_SEED = 7


def _random_mission(n_waypoints: int, seed: int, t_min: float = 0.5, t_max: float = 3.0):
    rng = np.random.default_rng(seed)
    waypoints = rng.uniform(-10.0, 10.0, (n_waypoints, 3))
    durations = np.exp(rng.uniform(np.log(t_min), np.log(t_max), n_waypoints - 1))
    return waypoints, durations


def _long_mission():
    """50 waypoints spread over 200 m, durations log-uniform in 0.1 .. 30 s."""
    rng = np.random.default_rng(RNG_SEED)
    waypoints = rng.uniform(-100.0, 100.0, (50, 3))
    durations = np.exp(rng.uniform(np.log(0.1), np.log(30.0), 49))
    durations[[3, 4]] = [0.1, 30.0]  # make sure both extremes sit next to each other
    return waypoints, durations


MISSIONS = {
    "two": (np.array([[0.0, 0.0, 1.0], [2.0, -1.0, 3.0]]), np.array([2.5])),
    "five": _random_mission(5, 1),
    "twelve": _random_mission(12, 2, 0.2, 8.0),
    "long": _long_mission(),
}


def _derivative_scales(trajectory: MinimumSnapTrajectory, max_order: int) -> np.ndarray:
    """max |d^n p/dt^n| over a dense sampling, per order, shape (max_order + 1,)."""
    poly = trajectory.position_polynomial
    times = np.concatenate([np.linspace(0.0, trajectory.duration, 20001), poly.breaks])
    values = poly.derivatives(times, max_order)
    return np.max(np.abs(values), axis=(1, 2))


def _joint_limits(trajectory: MinimumSnapTrajectory, max_order: int):
    poly = trajectory.position_polynomial
    joints = poly.breaks[1:-1]
    return (poly.derivatives(joints, max_order, side="left"),
            poly.derivatives(joints, max_order, side="right"))


def _closed_form(p0: float, p1: float, duration: float, t: np.ndarray) -> np.ndarray:
    """The rest-to-rest septic and its derivatives 0..4 at ``t``: shape (5, k)."""
    tau = t / duration
    coefficients = np.zeros(8)
    coefficients[4:] = [35.0, -84.0, 70.0, -20.0]
    out = []
    poly = np.polynomial.Polynomial(coefficients)
    for n in range(5):
        out.append((p1 - p0) * poly.deriv(n)(tau) / duration**n + (p0 if n == 0 else 0.0))
    return np.array(out)


# -- interpolation and continuity ---------------------------------------------------------


@pytest.mark.parametrize("name", list(MISSIONS))
def test_passes_through_every_waypoint_at_its_time(name):
    waypoints, durations = MISSIONS[name]
    trajectory = MinimumSnapTrajectory(waypoints, durations)
    np.testing.assert_allclose(trajectory.waypoint_times,
                               np.concatenate([[0.0], np.cumsum(durations)]), rtol=1e-14)
    scale = np.max(np.abs(waypoints))
    reached = trajectory.evaluate_many(trajectory.waypoint_times).position
    assert np.max(np.abs(reached - waypoints)) <= 1e-9 * scale
    arriving = trajectory.position_polynomial.derivatives(trajectory.waypoint_times, 0,
                                                          side="left")[0]
    assert np.max(np.abs(arriving - waypoints)) <= 1e-9 * scale
    for k in (0, len(waypoints) // 2, len(waypoints) - 1):
        point = trajectory.evaluate(float(trajectory.waypoint_times[k]))
        assert np.max(np.abs(point.position - waypoints[k])) <= 1e-9 * scale


@pytest.mark.parametrize("name", ["five", "twelve", "long"])
def test_position_to_snap_continuous_at_every_interior_joint(name):
    waypoints, durations = MISSIONS[name]
    trajectory = MinimumSnapTrajectory(waypoints, durations)
    left, right = _joint_limits(trajectory, 4)
    scales = _derivative_scales(trajectory, 4)
    for order in range(5):
        jump = np.max(np.abs(left[order] - right[order]))
        assert jump <= 1e-9 * scales[order], (order, jump, scales[order])


@pytest.mark.parametrize("name", ["five", "twelve"])
def test_optimum_is_c6_at_free_joints(name):
    """Euler-Lagrange: the minimum-snap optimum also has continuous 5th and 6th derivatives.

    Only continuity up to snap is imposed, so this holds only if the QP was really solved.
    """
    waypoints, durations = MISSIONS[name]
    trajectory = MinimumSnapTrajectory(waypoints, durations)
    left, right = _joint_limits(trajectory, 7)
    scales = _derivative_scales(trajectory, 7)
    for order in (5, 6):
        assert np.max(np.abs(left[order] - right[order])) <= 1e-7 * scales[order]
    # ...but not the 7th: a spline of degree 7 with a continuous 7th derivative is one cubic.
    assert np.max(np.abs(left[7] - right[7])) > 1e-3 * scales[7]


def test_derivatives_are_derivatives_of_position():
    waypoints, durations = MISSIONS["five"]
    trajectory = MinimumSnapTrajectory(waypoints, durations)
    times = np.linspace(0.05, trajectory.duration - 0.05, 97)
    step = 1e-4
    samples = [trajectory.evaluate_many(times + k * step) for k in (-1, 1)]
    centre = trajectory.evaluate_many(times)
    pairs = [("position", "velocity"), ("velocity", "acceleration"),
             ("acceleration", "jerk"), ("jerk", "snap")]
    for value, derivative in pairs:
        numeric = (getattr(samples[1], value) - getattr(samples[0], value)) / (2 * step)
        exact = getattr(centre, derivative)
        assert np.max(np.abs(numeric - exact)) <= 1e-5 * np.max(np.abs(exact)), derivative


@pytest.mark.parametrize("name", list(MISSIONS))
def test_rest_at_start_and_end(name):
    waypoints, durations = MISSIONS[name]
    trajectory = MinimumSnapTrajectory(waypoints, durations)
    scales = _derivative_scales(trajectory, 3)
    for t, where in ((0.0, 0), (trajectory.duration, -1)):
        point = trajectory.evaluate(t)
        np.testing.assert_allclose(point.position, waypoints[where], rtol=0, atol=1e-12 * scales[0])
        for order, value in enumerate((point.velocity, point.acceleration, point.jerk), start=1):
            assert np.max(np.abs(value)) <= 1e-10 * scales[order]
    # Outside [0, duration]: at rest at the first / last waypoint, snap included.
    outside = trajectory.evaluate_many(np.array([-5.0, -1e-9, trajectory.duration + 1e-9, 1e6]))
    np.testing.assert_array_equal(outside.position[:2], waypoints[[0, 0]])
    np.testing.assert_allclose(outside.position[2:], waypoints[[-1, -1]], rtol=0,
                               atol=1e-12 * scales[0])
    for field in ("velocity", "acceleration", "jerk", "snap", "yaw_rate", "yaw_acceleration"):
        assert not np.any(getattr(outside, field)), field


def test_two_waypoints_match_closed_form_septic():
    p0 = np.array([0.5, -2.0, 1.0])
    p1 = np.array([3.0, 1.5, 1.0])
    duration = 2.7
    trajectory = MinimumSnapTrajectory(np.array([p0, p1]), [duration])
    times = np.linspace(0.0, duration, 301)
    samples = trajectory.evaluate_many(times)
    got = [samples.position, samples.velocity, samples.acceleration, samples.jerk, samples.snap]
    for axis in range(3):
        expected = _closed_form(p0[axis], p1[axis], duration, times)
        for order in range(5):
            scale = max(1.0, np.max(np.abs(expected[order])))
            assert np.max(np.abs(got[order][:, axis] - expected[order])) <= 1e-10 * scale


# -- optimality ---------------------------------------------------------------------------


def test_snap_cost_matches_quadrature():
    waypoints, durations = MISSIONS["five"]
    trajectory = MinimumSnapTrajectory(waypoints, durations)
    nodes, weights = np.polynomial.legendre.leggauss(8)  # exact for degree-6 integrands
    breaks = trajectory.position_polynomial.breaks
    total = 0.0
    for start, end in zip(breaks[:-1], breaks[1:]):
        times = start + (nodes + 1.0) * (end - start) / 2.0
        snap = trajectory.evaluate_many(times).snap
        total += np.sum(weights * np.sum(snap**2, axis=1)) * (end - start) / 2.0
    assert trajectory.snap_cost() == pytest.approx(total, rel=1e-10)


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_pinning_interior_derivatives_off_optimum_raises_cost(order):
    waypoints, durations = MISSIONS["five"]
    optimum = solve_minimum_derivative(durations, waypoints, r=4)
    best = float(np.sum(optimum.derivative_cost(4)))
    rng = np.random.default_rng(order)
    for joint in (1, 2, 3):
        at_optimum = optimum.derivatives(optimum.breaks[joint:joint + 1], order)[order, 0]
        same = solve_minimum_derivative(durations, waypoints, 4, {(joint, order): at_optimum})
        assert float(np.sum(same.derivative_cost(4))) == pytest.approx(best, rel=1e-9)
        for _ in range(3):
            delta = rng.normal(size=3) * 0.05 * (np.max(np.abs(at_optimum)) + 1.0)
            pinned = solve_minimum_derivative(durations, waypoints, 4,
                                              {(joint, order): at_optimum + delta})
            # The pinned trajectory is feasible (waypoints, rest, C^4) and honours the pin...
            got = pinned.derivatives(pinned.breaks[joint:joint + 1], order)[order, 0]
            np.testing.assert_allclose(got, at_optimum + delta, rtol=1e-8, atol=1e-10)
            np.testing.assert_allclose(pinned.derivatives(pinned.breaks, 0)[0], waypoints,
                                       atol=1e-9)
            joints = pinned.breaks[1:-1]
            left = pinned.derivatives(joints, 4, side="left")
            right = pinned.derivatives(joints, 4, side="right")
            scale = np.max(np.abs(pinned.derivatives(np.linspace(0, pinned.breaks[-1], 999), 4)),
                           axis=(1, 2))
            assert np.all(np.max(np.abs(left - right), axis=(1, 2)) <= 1e-9 * scale)
            # ...and costs more than the optimum.
            assert float(np.sum(pinned.derivative_cost(4))) > best * (1.0 + 1e-9)


def _septic_cost_form(duration: float) -> tuple[np.ndarray, np.ndarray]:
    """(E, G): septic coefficients in t are ``E @ ends`` (ends = derivatives 0..3 at 0 then
    at T) and its snap cost is ``c @ G @ c`` -- built independently of the implementation."""
    basis = [np.polynomial.Polynomial.basis(k) for k in range(8)]
    rows = [[b.deriv(n)(at) for b in basis] for at in (0.0, duration) for n in range(4)]
    snaps = [b.deriv(4) for b in basis]
    gram = np.array([[(a * b).integ()(duration) for b in snaps] for a in snaps])
    return np.linalg.inv(np.array(rows)), gram


def test_three_waypoints_match_numerical_minimisation():
    waypoints = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 0.5], [3.0, 1.0, -1.0]])
    durations = np.array([1.3, 2.1])
    trajectory = MinimumSnapTrajectory(waypoints, durations)

    forms = [_septic_cost_form(duration) for duration in durations]

    def cost(free: np.ndarray, axis: int) -> float:
        middle = np.concatenate([[waypoints[1, axis]], free])
        ends = [np.concatenate([[waypoints[0, axis], 0, 0, 0], middle]),
                np.concatenate([middle, [waypoints[2, axis], 0, 0, 0]])]
        total = 0.0
        for (to_coefficients, gram), end in zip(forms, ends):
            coefficients = to_coefficients @ end
            total += coefficients @ gram @ coefficients
        return float(total)

    joint = trajectory.evaluate(float(durations[0]))
    numeric_total = 0.0
    for axis in range(3):
        result = minimize(cost, np.zeros(3), args=(axis,), method="BFGS",
                          options={"gtol": 1e-10, "maxiter": 500})
        numeric_total += result.fun
        ours = np.array([joint.velocity[axis], joint.acceleration[axis], joint.jerk[axis]])
        np.testing.assert_allclose(ours, result.x, rtol=1e-4, atol=1e-6)
        assert cost(ours, axis) <= result.fun * (1.0 + 1e-9)
    assert trajectory.snap_cost() == pytest.approx(numeric_total, rel=1e-7)


# -- time allocation ----------------------------------------------------------------------


def test_durations_from_scalar_speed_are_distance_over_speed():
    waypoints = np.array([[0, 0, 1], [3, 4, 1], [3, 4, 13], [0, 0, 1]], dtype=float)
    trajectory = MinimumSnapTrajectory(waypoints, speed=2.0)
    np.testing.assert_allclose(trajectory.segment_durations, [2.5, 6.0, 6.5], rtol=1e-14)
    assert trajectory.duration == pytest.approx(15.0, rel=1e-14)


def test_durations_from_per_segment_speed_and_minimum():
    waypoints = np.array([[0, 0, 0], [10, 0, 0], [10, 0.01, 0]], dtype=float)
    durations = allocate_durations(waypoints, [5.0, 1.0])
    np.testing.assert_allclose(durations, [2.0, DEFAULT_MIN_SEGMENT_DURATION])
    durations = allocate_durations(waypoints, [5.0, 1.0], min_segment_duration=0.005)
    np.testing.assert_allclose(durations, [2.0, 0.01])


def test_acceleration_aware_durations_are_trapezoidal():
    speed, accel = 2.0, 1.0  # ramp: 2 s and 2 m from rest
    long = allocate_durations(np.array([[0, 0, 0], [10, 0, 0]], float), speed, accel)
    np.testing.assert_allclose(long, [10.0 / speed + speed / accel])
    short = allocate_durations(np.array([[0, 0, 0], [1, 0, 0]], float), speed, accel)
    np.testing.assert_allclose(short, [2.0 * np.sqrt(1.0 / accel)])
    # Interior waypoints are passed at speed: only the ends at rest pay the ramp.
    line = np.array([[0, 0, 0], [10, 0, 0], [20, 0, 0], [30, 0, 0]], float)
    np.testing.assert_allclose(allocate_durations(line, speed, accel), [6.0, 5.0, 6.0])
    # A hold makes its waypoint a resting end.
    trajectory = MinimumSnapTrajectory(line, speed=speed, max_acceleration=accel,
                                       hold_times=[0, 1.0, 0, 0])
    np.testing.assert_allclose(trajectory.segment_durations, [7.0, 6.0, 6.0])


# -- holds --------------------------------------------------------------------------------


def test_hold_stops_and_stays_at_the_waypoint():
    waypoints = np.array([[0, 0, 1], [2, 1, 1], [4, 0, 2], [5, 3, 1]], dtype=float)
    holds = np.array([0.5, 0.0, 2.0, 1.5])
    trajectory = MinimumSnapTrajectory(waypoints, [2.0, 1.5, 3.0], hold_times=holds,
                                       yaw=[0.0, 1.0, 2.0, 0.5])
    np.testing.assert_allclose(trajectory.waypoint_times, [0.0, 2.5, 4.0, 9.0])
    np.testing.assert_allclose(trajectory.departure_times, [0.5, 2.5, 6.0, 10.5])
    assert trajectory.duration == pytest.approx(10.5)
    for k in (0, 2, 3):
        # [arrival, departure): at the departure instant the next segment (snap step) starts.
        times = np.linspace(trajectory.waypoint_times[k], trajectory.departure_times[k], 51,
                            endpoint=False)
        held = trajectory.evaluate_many(times)
        np.testing.assert_allclose(held.position, np.broadcast_to(waypoints[k], (51, 3)),
                                   atol=1e-12)
        np.testing.assert_allclose(held.yaw, trajectory.yaw_waypoints[k], atol=1e-12)
        for field in ("velocity", "acceleration", "jerk", "snap", "yaw_rate",
                      "yaw_acceleration"):
            assert np.max(np.abs(getattr(held, field))) <= 1e-9, (k, field)
    # Arriving at and leaving the hold is smooth: velocity..jerk reach zero continuously.
    for t in (trajectory.waypoint_times[2], trajectory.departure_times[2]):
        left, right = (trajectory.position_polynomial.derivatives(np.array([t]), 3, side=s)
                       for s in ("left", "right"))
        np.testing.assert_allclose(left[:, 0], right[:, 0], atol=1e-9)
    # The vehicle does move between holds.
    moving = trajectory.evaluate(3.25)
    assert np.linalg.norm(moving.velocity) > 0.1


def test_hold_matches_two_separate_rest_to_rest_trajectories():
    waypoints = np.array([[0, 0, 0], [1, 2, 0], [3, 2, 1], [2, 0, 0], [0, 1, 1]], dtype=float)
    durations = np.array([1.0, 2.0, 1.5, 2.5])
    trajectory = MinimumSnapTrajectory(waypoints, durations, hold_times=[0, 0, 3.0, 0, 0])
    first = MinimumSnapTrajectory(waypoints[:3], durations[:2])
    second = MinimumSnapTrajectory(waypoints[2:], durations[2:])
    times = np.linspace(0.0, 3.0, 31)
    np.testing.assert_allclose(trajectory.evaluate_many(times).position,
                               first.evaluate_many(times).position, atol=1e-12)
    np.testing.assert_allclose(trajectory.evaluate_many(times + 6.0).position,
                               second.evaluate_many(times).position, atol=1e-12)


# -- yaw ----------------------------------------------------------------------------------


def _angle_difference(a, b):
    return (np.asarray(a) - np.asarray(b) + np.pi) % (2 * np.pi) - np.pi


def test_yaw_passes_through_its_waypoints_and_is_smooth():
    waypoints, durations = MISSIONS["five"]
    yaw = np.array([0.3, 2.0, -2.5, 1.0, -0.2])
    trajectory = MinimumSnapTrajectory(waypoints, durations, yaw=yaw)
    samples = trajectory.evaluate_many(trajectory.waypoint_times)
    assert np.max(np.abs(_angle_difference(samples.yaw, yaw))) <= 1e-12
    assert np.all((samples.yaw >= -np.pi) & (samples.yaw < np.pi))
    assert samples.yaw_rate[0] == 0.0 and abs(samples.yaw_rate[-1]) <= 1e-12
    assert abs(samples.yaw_acceleration[0]) <= 1e-12 and abs(samples.yaw_acceleration[-1]) <= 1e-9
    joints = trajectory.yaw_polynomial.breaks[1:-1]
    left = trajectory.yaw_polynomial.derivatives(joints, 3, side="left")
    right = trajectory.yaw_polynomial.derivatives(joints, 3, side="right")
    np.testing.assert_allclose(left, right, atol=1e-9)
    # yaw_rate is the derivative of the (unwrapped) yaw.
    times = np.linspace(0.1, trajectory.duration - 0.1, 50)
    step = 1e-5
    ahead, behind = (trajectory.evaluate_many(times + s) for s in (step, -step))
    numeric = _angle_difference(ahead.yaw, behind.yaw) / (2 * step)
    np.testing.assert_allclose(numeric, trajectory.evaluate_many(times).yaw_rate, atol=1e-5)


def test_yaw_takes_the_short_way_round():
    trajectory = MinimumSnapTrajectory([[0, 0, 1], [1, 0, 1]], [2.0], yaw=[3.0, -3.0])
    samples = trajectory.evaluate_many(np.linspace(0.0, 2.0, 401))
    assert np.min(np.abs(samples.yaw)) >= 3.0 - 1e-12  # through +-pi, never near 0
    assert np.all(samples.yaw_rate >= 0.0)  # 3.0 -> pi -> -pi -> -3.0 increases
    np.testing.assert_allclose(trajectory.yaw_waypoints, [3.0, 2.0 * np.pi - 3.0])
    assert np.max(np.abs(samples.yaw_rate)) < 0.3  # 0.28 rad in 2 s, not 6 rad
    assert trajectory.evaluate(1.0).yaw == pytest.approx(-np.pi, abs=1e-12)


def test_default_yaw_is_zero():
    trajectory = MinimumSnapTrajectory(*MISSIONS["five"])
    samples = trajectory.evaluate_many(np.linspace(0, trajectory.duration, 50))
    assert not np.any(samples.yaw) and not np.any(samples.yaw_rate)


# -- evaluation API -----------------------------------------------------------------------


def test_evaluate_matches_evaluate_many_and_returns_shapes():
    waypoints, durations = MISSIONS["twelve"]
    trajectory = MinimumSnapTrajectory(waypoints, durations, yaw=np.linspace(-3, 3, 12))
    times = np.concatenate([[-1.0], np.linspace(0, trajectory.duration, 37),
                            trajectory.waypoint_times, [trajectory.duration + 2.0]])
    many = trajectory.evaluate_many(times)
    assert many.position.shape == (times.size, 3) and many.yaw.shape == (times.size,)
    for i, t in enumerate(times):
        point = trajectory.evaluate(float(t))
        for field in ("position", "velocity", "acceleration", "jerk", "snap"):
            value = getattr(point, field)
            assert value.shape == (3,)
            np.testing.assert_allclose(value, getattr(many, field)[i], rtol=1e-12, atol=1e-9)
        assert abs(_angle_difference(point.yaw, many.yaw[i])) <= 1e-12
        assert point.yaw_rate == pytest.approx(many.yaw_rate[i], rel=1e-12, abs=1e-12)
    assert trajectory.evaluate_many([]).position.shape == (0, 3)
    with pytest.raises(ValueError):
        trajectory.waypoint_times[0] = 1.0  # read-only


def test_repeated_waypoint_allowed_with_explicit_durations():
    waypoints = np.array([[0, 0, 0], [1, 1, 1], [1, 1, 1], [2, 0, 0]], dtype=float)
    trajectory = MinimumSnapTrajectory(waypoints, [1.0, 1.0, 1.0])
    reached = trajectory.evaluate_many(trajectory.waypoint_times).position
    np.testing.assert_allclose(reached, waypoints, atol=1e-12)


# -- errors -------------------------------------------------------------------------------

GOOD = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0]], dtype=float)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (dict(waypoints=[[0, 0, 0]], durations=[]), ValueError, "at least 2"),
        (dict(waypoints=np.zeros((3, 2)), durations=[1, 1]), ValueError, r"waypoints .*\(n, 3\)"),
        (dict(waypoints=[[0, 0, np.nan], [1, 0, 0]], durations=[1]), ValueError,
         "waypoints .*finite"),
        (dict(waypoints=[[0, 0, np.inf], [1, 0, 0]], speed=1.0), ValueError, "waypoints .*finite"),
        (dict(waypoints="abc", durations=[1]), TypeError, "waypoints"),
        (dict(waypoints=None, durations=[1]), TypeError, "waypoints"),
        (dict(waypoints=GOOD, durations=[1.0]), ValueError, r"durations .*\(2,\)"),
        (dict(waypoints=GOOD, durations=[1.0, 0.0]), ValueError, "durations .*strictly positive"),
        (dict(waypoints=GOOD, durations=[-1.0, 1.0]), ValueError, "durations .*strictly positive"),
        (dict(waypoints=GOOD, durations=[np.nan, 1.0]), ValueError, "durations .*finite"),
        (dict(waypoints=GOOD), ValueError, "exactly one of durations"),
        (dict(waypoints=GOOD, durations=[1, 1], speed=1.0), ValueError, "exactly one"),
        (dict(waypoints=GOOD, speed=0.0), ValueError, "speed"),
        (dict(waypoints=GOOD, speed=-2.0), ValueError, "speed"),
        (dict(waypoints=GOOD, speed=np.nan), ValueError, "speed"),
        (dict(waypoints=GOOD, speed=np.inf), ValueError, "speed"),
        (dict(waypoints=GOOD, speed=[1.0, 0.0]), ValueError, "speed"),
        (dict(waypoints=GOOD, speed=[1.0, np.nan]), ValueError, "speed"),
        (dict(waypoints=GOOD, speed=[1.0, 1.0, 1.0]), ValueError, r"speed .*\(2,\)"),
        (dict(waypoints=GOOD, speed=True), TypeError, "speed"),
        (dict(waypoints=GOOD, speed="fast"), TypeError, "speed"),
        (dict(waypoints=GOOD, speed=1.0, max_acceleration=0.0), ValueError, "max_acceleration"),
        (dict(waypoints=GOOD, speed=1.0, max_acceleration=np.nan), ValueError,
         "max_acceleration"),
        (dict(waypoints=GOOD, durations=[1, 1], max_acceleration=1.0), ValueError,
         "max_acceleration"),
        (dict(waypoints=GOOD, speed=1.0, min_segment_duration=0.0), ValueError,
         "min_segment_duration"),
        (dict(waypoints=GOOD, speed=1.0, min_segment_duration=np.nan), ValueError,
         "min_segment_duration"),
        (dict(waypoints=[[0, 0, 0], [1, 0, 0], [1, 0, 0]], speed=1.0), ValueError,
         "waypoints 1 and 2 are the same point"),
        (dict(waypoints=GOOD, durations=[1, 1], yaw=[0.0, 1.0]), ValueError, r"yaw .*\(3,\)"),
        (dict(waypoints=GOOD, durations=[1, 1], yaw=[0.0, np.nan, 1.0]), ValueError,
         "yaw .*finite"),
        (dict(waypoints=GOOD, durations=[1, 1], hold_times=[0, -1, 0]), ValueError,
         "hold_times .*>= 0"),
        (dict(waypoints=GOOD, durations=[1, 1], hold_times=[0, 1]), ValueError,
         r"hold_times .*\(3,\)"),
        (dict(waypoints=GOOD, durations=[1, 1], hold_times=[0, np.nan, 0]), ValueError,
         "hold_times .*finite"),
    ],
)
def test_bad_construction_raises_naming_the_argument(kwargs, error, match):
    with pytest.raises(error, match=match):
        MinimumSnapTrajectory(**kwargs)


@pytest.mark.parametrize(
    ("method", "value", "error", "match"),
    [
        ("evaluate", np.nan, ValueError, "t must be finite"),
        ("evaluate", np.inf, ValueError, "t must be finite"),
        ("evaluate", "1.0", TypeError, "t must be a real number"),
        ("evaluate", np.array([1.0]), TypeError, "evaluate_many"),
        ("evaluate", True, TypeError, "t must be a real number"),
        ("evaluate_many", [0.0, np.nan], ValueError, "times .*finite"),
        ("evaluate_many", np.zeros((2, 2)), ValueError, r"times .*\(n,\)"),
        ("evaluate_many", 1.0, ValueError, r"times .*\(n,\)"),
        ("evaluate_many", "abc", TypeError, "times"),
    ],
)
def test_bad_evaluation_raises_naming_the_argument(method, value, error, match):
    trajectory = MinimumSnapTrajectory(GOOD, [1.0, 1.0])
    with pytest.raises(error, match=match):
        getattr(trajectory, method)(value)


def test_bad_lower_level_arguments_raise():
    waypoints, durations = MISSIONS["five"]
    with pytest.raises(ValueError, match="interior joint"):
        solve_minimum_derivative(durations, waypoints, 4, {(0, 1): np.zeros(3)})
    with pytest.raises(ValueError, match="order must be in 1..4"):
        solve_minimum_derivative(durations, waypoints, 4, {(1, 5): np.zeros(3)})
    with pytest.raises(ValueError, match="shape"):
        solve_minimum_derivative(durations, waypoints, 4, {(1, 1): np.zeros(2)})
    with pytest.raises(ValueError, match="durations"):
        solve_minimum_derivative(np.array([1.0, 0.0, 1.0, 1.0]), waypoints)
    with pytest.raises(ValueError, match="values"):
        solve_minimum_derivative(durations, waypoints[:-1])
    with pytest.raises(ValueError, match="rest"):
        allocate_durations(GOOD, 1.0, 1.0, rest=[True, False])
