"""Flatness map: R_d, omega_d, omega_dot_d against geometry and finite differences.

Trajectories have analytic derivatives up to snap. Each is sampled on a time grid; at each
sample R_d must be a proper rotation whose z axis is along a + g e_z and whose heading is the
reference yaw, omega_d must equal the body rate vee(R_d^T dR_d/dt) of the map's own R_d(t)
by central differences (h = 1e-4 s), and omega_dot_d the central difference of omega_d.

Tolerances: central differences with h = 1e-4 s are accurate to ~h^2 |d^3/dt^3| / 6, about
1e-8 of the rate magnitude on these trajectories (measured: below 5e-8); the checks use
1e-6 of the largest magnitude on the trajectory. The geometric checks use 1e-12.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from pyflyt_like.control.flatness import (
    FlatReference,
    desired_attitude,
    flat_outputs_to_reference,
    hat,
    reference_to_flat_state,
    vee,
)

G = 9.81
H = 1e-4
FD_TOLERANCE = 1e-6  # relative to the largest magnitude on the trajectory
GEOMETRY_TOLERANCE = 1e-12

# A trajectory maps t to (derivatives (5, 3): p, v, a, jerk, snap; (psi, psi', psi'')).
Trajectory = Callable[[float], tuple[np.ndarray, tuple[float, float, float]]]


def _sinusoids(terms: list[tuple[int, float, float, float]], t: float) -> np.ndarray:
    """Sum of K sin(w t + phi) + offset along axes; returns derivatives 0..4, shape (5, 3).

    ``terms`` holds (axis, K, w, phi); the k-th derivative of K sin(w t + phi) is
    K w^k sin(w t + phi + k pi / 2).
    """
    out = np.zeros((5, 3))
    for axis, amplitude, freq, phase in terms:
        for k in range(5):
            out[k, axis] += amplitude * freq**k * math.sin(freq * t + phase + k * math.pi / 2)
    return out


def circle(radius: float = 1.0, period: float = 4.0, height: float = 1.0,
           yaw: Callable[[float], tuple[float, float, float]] | None = None,
           vertical: float = 0.0) -> Trajectory:
    """Horizontal circle about the origin (optionally with a vertical oscillation)."""
    w = 2.0 * math.pi / period

    def trajectory(t: float) -> tuple[np.ndarray, tuple[float, float, float]]:
        terms = [(0, radius, w, math.pi / 2), (1, radius, w, 0.0), (2, vertical, 2 * w, 0.0)]
        derivatives = _sinusoids(terms, t)
        derivatives[0, 2] += height
        return derivatives, (yaw(t) if yaw else (0.4, 0.0, 0.0))

    return trajectory


def figure_eight(a: float = 1.0, b: float = 0.5, period: float = 6.0, height: float = 1.0,
                 yaw: Callable[[float], tuple[float, float, float]] | None = None) -> Trajectory:
    """x = a sin(w t), y = b sin(2 w t), z = height."""
    w = 2.0 * math.pi / period

    def trajectory(t: float) -> tuple[np.ndarray, tuple[float, float, float]]:
        derivatives = _sinusoids([(0, a, w, 0.0), (1, b, 2 * w, 0.0)], t)
        derivatives[0, 2] += height
        return derivatives, (yaw(t) if yaw else (0.0, 0.0, 0.0))

    return trajectory


def reference_at(trajectory: Trajectory, t: float) -> FlatReference:
    """The FlatReference of ``trajectory`` at time ``t``."""
    d, (psi, psi_dot, psi_ddot) = trajectory(t)
    return FlatReference(d[0], d[1], d[2], d[3], d[4], psi, psi_dot, psi_ddot)


def _map(trajectory: Trajectory, t: float):
    d, yaw = trajectory(t)
    return flat_outputs_to_reference(*d, *yaw, gravity=G)


CASES = {
    "circle, constant yaw": (circle(), 4.0),
    "circle, yaw = 0.3 t": (circle(yaw=lambda t: (0.3 * t, 0.3, 0.0)), 4.0),
    "circle with vertical oscillation, yaw = 0.3 t": (
        circle(vertical=0.3, yaw=lambda t: (0.3 * t, 0.3, 0.0)), 4.0),
    "figure-eight, constant yaw": (figure_eight(), 6.0),
    "figure-eight, yaw = 0.3 t": (figure_eight(yaw=lambda t: (0.3 * t, 0.3, 0.0)), 6.0),
    "figure-eight, yaw = 0.8 sin(2 t)": (figure_eight(
        yaw=lambda t: (0.8 * math.sin(2 * t), 1.6 * math.cos(2 * t), -3.2 * math.sin(2 * t))),
        6.0),
}


def _grid(period: float) -> np.ndarray:
    return np.linspace(0.0, period, 241)


def _body_rate_fd(trajectory: Trajectory, t: float) -> np.ndarray:
    """vee of the skew part of R_d(t)^T (R_d(t+h) - R_d(t-h)) / 2h."""
    rotation = _map(trajectory, t)[0]
    derivative = (_map(trajectory, t + H)[0] - _map(trajectory, t - H)[0]) / (2 * H)
    omega_hat = rotation.T @ derivative
    return vee(0.5 * (omega_hat - omega_hat.T))


@pytest.mark.parametrize("case", list(CASES))
def test_attitude_is_a_rotation_along_the_thrust_with_the_reference_heading(case):
    trajectory, period = CASES[case]
    for t in _grid(period):
        d, (psi, _, _) = trajectory(t)
        rotation, _, _, c = _map(trajectory, t)
        assert np.max(np.abs(rotation.T @ rotation - np.eye(3))) < GEOMETRY_TOLERANCE
        assert abs(np.linalg.det(rotation) - 1.0) < GEOMETRY_TOLERANCE
        force = d[2] + np.array((0.0, 0.0, G))
        assert c == pytest.approx(np.linalg.norm(force), rel=GEOMETRY_TOLERANCE)
        np.testing.assert_allclose(rotation[:, 2], force / np.linalg.norm(force),
                                   atol=GEOMETRY_TOLERANCE)
        # Heading: x_B lies in the vertical plane of x_C; its ZYX Euler yaw is psi.
        x_b = rotation[:, 0]
        assert abs(x_b @ np.array((-math.sin(psi), math.cos(psi), 0.0))) < GEOMETRY_TOLERANCE
        yaw_error = math.atan2(x_b[1], x_b[0]) - psi
        assert abs(math.remainder(yaw_error, 2 * math.pi)) < GEOMETRY_TOLERANCE


@pytest.mark.parametrize("case", list(CASES))
def test_body_rates_match_finite_differences_of_the_attitude(case):
    trajectory, period = CASES[case]
    grid = _grid(period)
    omega = np.array([_map(trajectory, t)[1] for t in grid])
    numeric = np.array([_body_rate_fd(trajectory, t) for t in grid])
    scale = np.max(np.linalg.norm(omega, axis=1))
    assert scale > 0.1  # the case exercises the rates
    assert np.max(np.abs(omega - numeric)) < FD_TOLERANCE * scale


@pytest.mark.parametrize("case", list(CASES))
def test_body_accelerations_match_finite_differences_of_the_rates(case):
    trajectory, period = CASES[case]
    grid = _grid(period)
    omega_dot = np.array([_map(trajectory, t)[2] for t in grid])
    numeric = np.array([(_map(trajectory, t + H)[1] - _map(trajectory, t - H)[1]) / (2 * H)
                        for t in grid])
    scale = np.max(np.linalg.norm(omega_dot, axis=1))
    assert scale > 0.1
    assert np.max(np.abs(omega_dot - numeric)) < FD_TOLERANCE * scale


def test_the_check_rejects_mellinger_kumar_yaw_rate():
    """Negative control: omega_z = psi' z_W . z_B (Mellinger & Kumar 2011) fails the check.

    The check must be able to fail: on the constant-yaw circle, omega_z of the body differs
    from that formula (zero) by ~0.1 rad/s, five orders above the tolerance.
    """
    trajectory, period = CASES["circle, constant yaw"]
    grid = _grid(period)
    worst, scale = 0.0, 0.0
    for t in grid:
        _, yaw = trajectory(t)
        rotation, omega, _, _ = _map(trajectory, t)
        mellinger_z = yaw[1] * rotation[2, 2]
        worst = max(worst, abs(mellinger_z - _body_rate_fd(trajectory, t)[2]))
        scale = max(scale, float(np.linalg.norm(omega)))
    assert worst > 1e3 * FD_TOLERANCE * scale


def test_hover_reference_is_level_with_zero_rates():
    rotation, omega, omega_dot, c = flat_outputs_to_reference(
        np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3), 0.7, 0.0, 0.0)
    expected = np.array(((math.cos(0.7), -math.sin(0.7), 0.0),
                         (math.sin(0.7), math.cos(0.7), 0.0), (0.0, 0.0, 1.0)))
    np.testing.assert_allclose(rotation, expected, atol=1e-15)
    assert c == pytest.approx(9.81)
    np.testing.assert_array_equal(omega, np.zeros(3))
    np.testing.assert_array_equal(omega_dot, np.zeros(3))


def test_pure_yaw_motion_gives_yaw_rate_and_acceleration():
    _, omega, omega_dot, _ = flat_outputs_to_reference(
        np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3), 1.0, 0.5, -2.0)
    np.testing.assert_allclose(omega, (0.0, 0.0, 0.5), atol=1e-15)
    np.testing.assert_allclose(omega_dot, (0.0, 0.0, -2.0), atol=1e-15)


def test_flat_reference_dataclass_matches_the_function():
    trajectory, _ = CASES["figure-eight, yaw = 0.8 sin(2 t)"]
    reference = reference_at(trajectory, 1.3)
    for got, want in zip(reference_to_flat_state(reference), _map(trajectory, 1.3)):
        np.testing.assert_array_equal(got, want)
    assert not reference.position.flags.writeable
    np.testing.assert_array_equal(FlatReference(position=(0, 0, 1)).snap, np.zeros(3))


def test_hat_and_vee_are_inverse_and_hat_is_the_cross_product():
    v, w = np.array((0.3, -1.2, 2.5)), np.array((-0.7, 0.4, 1.1))
    np.testing.assert_array_equal(vee(hat(v)), v)
    np.testing.assert_allclose(hat(v) @ w, np.cross(v, w), atol=1e-15)
    np.testing.assert_array_equal(hat(v), -hat(v).T)


def test_free_fall_reference_raises():
    with pytest.raises(ValueError, match="free fall"):
        flat_outputs_to_reference(np.zeros(3), np.zeros(3), (0.0, 0.0, -G), np.ones(3),
                                  np.zeros(3), 0.0, 0.0, 0.0, gravity=G)


def test_reference_rolled_ninety_degrees_raises():
    with pytest.raises(ValueError, match="heading"):
        flat_outputs_to_reference(np.zeros(3), np.zeros(3), (0.0, 5.0, -G), np.zeros(3),
                                  np.zeros(3), 0.0, 0.0, 0.0, gravity=G)
    with pytest.raises(ValueError, match="heading"):
        desired_attitude((0.0, 1.0, 0.0), 0.0)
    with pytest.raises(ValueError, match="force"):
        desired_attitude(np.zeros(3), 0.0)


@pytest.mark.parametrize(("name", "kwargs", "error"), [
    ("acceleration", {"acceleration": np.zeros(2)}, ValueError),
    ("jerk", {"jerk": (0.0, np.nan, 0.0)}, ValueError),
    ("snap", {"snap": "abc"}, TypeError),
    ("position", {"position": np.zeros((3, 1))}, ValueError),
    ("yaw", {"yaw": np.inf}, ValueError),
    ("yaw_rate", {"yaw_rate": (1.0, 2.0)}, ValueError),
    ("yaw_acceleration", {"yaw_acceleration": None}, TypeError),
    ("gravity", {"gravity": -9.81}, ValueError),
])
def test_bad_arguments_raise_naming_the_argument(name, kwargs, error):
    arguments = {"position": np.zeros(3), "velocity": np.zeros(3), "acceleration": np.zeros(3),
                 "jerk": np.zeros(3), "snap": np.zeros(3), "yaw": 0.0, "yaw_rate": 0.0,
                 "yaw_acceleration": 0.0}
    arguments.update(kwargs)
    with pytest.raises(error, match=name):
        flat_outputs_to_reference(**arguments)


def test_flat_reference_validates_its_fields():
    with pytest.raises(ValueError, match="velocity"):
        FlatReference(position=np.zeros(3), velocity=np.zeros(4))
    with pytest.raises(ValueError, match="yaw"):
        FlatReference(position=np.zeros(3), yaw=math.nan)
    with pytest.raises(TypeError, match="reference"):
        reference_to_flat_state({"position": np.zeros(3)})
