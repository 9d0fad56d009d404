"""Geometric (SE(3)) controller: law sanity, inverse dynamics, and closed-loop tracking.

The closed loop uses its own rigid-body model (docs/geometric_control.md, no rotor limits):
``p' = v``, ``m v' = f R e_z - m g e_z``, ``R' = R hat(w)``, ``J w' = J w x w + tau``,
integrated by classical RK4 on (p, v, R, w) with (f, tau) held over each step (zero-order
hold, the controller runs once per step at 500 Hz). After each step R is projected back
onto SO(3) by its polar decomposition (SVD: R <- U V^T). The controller sees the state in the
Aviary layout (body rates, Euler angles, body-frame velocity, position).
"""

from __future__ import annotations

import math

import numpy as np
import pybullet
import pytest

from pyflyt_like.control.flatness import FlatReference, reference_to_flat_state
from pyflyt_like.control.geometric import (
    GeometricController,
    attitude_error,
    commanded_attitude,
    geometric_control_law,
    lee_control,
    rotation_from_euler,
)

from .test_flatness import figure_eight, reference_at

# Crazyflie 2.1 (the crazyflie21 parameter set).
MASS = 0.034
INERTIA = np.diag((16.571710e-6, 16.655602e-6, 29.261652e-6))
G = 9.81

# Gains (see docs/geometric_control.md): translational loop critically damped at 5 rad/s
# (kp = w^2, kv = 2 w); attitude loop per axis at w = 30 rad/s (roll, pitch) and 10 rad/s (yaw,
# whose rotor-drag authority is ~5x smaller) with damping 0.8: kr = J w^2, kw = 2 zeta w J.
POSITION_BANDWIDTH = 5.0
ATTITUDE_BANDWIDTH = np.array((30.0, 30.0, 10.0))
ATTITUDE_DAMPING = 0.8
GAINS = {
    "kp": np.full(3, POSITION_BANDWIDTH**2),
    "kv": np.full(3, 2.0 * POSITION_BANDWIDTH),
    "kr": np.diag(INERTIA) * ATTITUDE_BANDWIDTH**2,
    "kw": np.diag(INERTIA) * 2.0 * ATTITUDE_DAMPING * ATTITUDE_BANDWIDTH,
}
DT = 1.0 / 500.0


INERTIA_INVERSE = np.linalg.inv(INERTIA)
GRAVITY_VECTOR = np.array((0.0, 0.0, G))


def _hat(v):
    x, y, z = v
    return np.array(((0.0, -z, y), (z, 0.0, -x), (-y, x, 0.0)))


def _derivative(x, thrust, torque):
    _, v, rotation, omega = x
    acceleration = thrust / MASS * rotation[:, 2] - GRAVITY_VECTOR
    omega_dot = INERTIA_INVERSE @ (_hat(INERTIA @ omega) @ omega + torque)
    return v, acceleration, rotation @ _hat(omega), omega_dot


def rk4_step(x, thrust, torque, dt=DT):
    """One RK4 step of (p, v, R, w) with constant inputs, then R projected onto SO(3)."""
    def shifted(k, scale):
        return tuple(a + scale * b for a, b in zip(x, k))
    k1 = _derivative(x, thrust, torque)
    k2 = _derivative(shifted(k1, dt / 2), thrust, torque)
    k3 = _derivative(shifted(k2, dt / 2), thrust, torque)
    k4 = _derivative(shifted(k3, dt), thrust, torque)
    new = [a + dt / 6 * (b1 + 2 * b2 + 2 * b3 + b4) for a, b1, b2, b3, b4 in zip(x, k1, k2, k3, k4)]
    u, _, vt = np.linalg.svd(new[2])
    new[2] = u @ vt
    return tuple(new)


def euler_from_rotation(rotation):
    """Roll, pitch, yaw of R = Rz(yaw) Ry(pitch) Rx(roll)."""
    return np.array((math.atan2(rotation[2, 1], rotation[2, 2]),
                     -math.asin(max(-1.0, min(1.0, rotation[2, 0]))),
                     math.atan2(rotation[1, 0], rotation[0, 0])))


def aviary_state(x):
    """(4, 3) state in the Aviary layout from (p, v, R, w)."""
    p, v, rotation, omega = x
    return np.stack((omega, euler_from_rotation(rotation), rotation.T @ v, p))


def simulate(controller, x, reference_of_time, duration):
    """Run the closed loop; return times, positions, rotations, commanded thrusts."""
    steps = round(duration / DT)
    times, positions, attitude_errors, thrusts = [], [], [], []
    for k in range(steps):
        t = k * DT
        thrust, torque = controller.compute(aviary_state(x), reference_of_time(t))
        times.append(t)
        positions.append(x[0])
        attitude_errors.append(np.linalg.norm(controller.attitude_error))
        thrusts.append(thrust)
        x = rk4_step(x, thrust, torque)
    return np.array(times), np.array(positions), np.array(attitude_errors), np.array(thrusts), x


def hover_state(position, rotation=None):
    return (np.asarray(position, dtype=float), np.zeros(3),
            np.eye(3) if rotation is None else rotation, np.zeros(3))


def _axis_angle(axis, angle):
    axis = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    k = _hat(axis)
    return np.eye(3) + math.sin(angle) * k + (1.0 - math.cos(angle)) * k @ k


def make_controller():
    return GeometricController(MASS, INERTIA, **GAINS, gravity=G)


# --- closed loop ---------------------------------------------------------------------------

FIGURE_EIGHT_PERIOD = 6.0


@pytest.mark.parametrize("yaw", [None, lambda t: (0.3 * t, 0.3, 0.0)], ids=["yaw 0", "yaw 0.3 t"])
def test_tracks_the_figure_eight(yaw):
    """Start at rest at p_d(0) (reference speed 1.5 m/s there); measure over the 2nd period.

    Measured RMS 8.5e-6 m (max 1.4e-5 m) with either yaw; without the w_d' feed-forward it
    would be 2.6e-4 m, without w_d and w_d' 6.1e-3 m, so the second bound checks that the
    feed-forward is right, not only that the loop is stable.
    """
    trajectory = figure_eight(a=1.0, b=0.5, period=FIGURE_EIGHT_PERIOD, yaw=yaw)
    controller = make_controller()
    start = reference_at(trajectory, 0.0).position
    times, positions, _, _, _ = simulate(controller, hover_state(start),
                                         lambda t: reference_at(trajectory, t),
                                         2 * FIGURE_EIGHT_PERIOD)
    wanted = np.array([trajectory(t)[0][0] for t in times])
    errors = np.linalg.norm(positions - wanted, axis=1)
    second_period = times >= FIGURE_EIGHT_PERIOD
    rms = math.sqrt(float(np.mean(errors[second_period] ** 2)))
    assert errors.max() > 0.05  # the start was off the reference
    assert rms < 0.02
    assert rms < 5e-5


@pytest.mark.parametrize(("axis", "yaw_offset"), [((1.0, 0.0, 0.0), 0.0), ((1.0, -1.0, 0.0), 1.0)],
                         ids=["roll 60 deg", "60 deg about (1,-1,0), yaw off by 1 rad"])
def test_recovers_from_a_60_degree_tilt(axis, yaw_offset):
    """Hover reference; start at rest at the reference position, tilted by 60 degrees.

    Measured (roll case / tilted-and-yawed case): |e_R| 8.1e-4 / 1.1e-3 at 1 s and
    2.2e-5 / 2.8e-5 at 2 s; peak position excursion 5.8 / 7.3 cm; position error
    1.1e-4 / 1.5e-4 m at 2 s.
    """
    target = np.array((0.0, 0.0, 1.0))
    rotation = _axis_angle((0.0, 0.0, 1.0), yaw_offset) @ _axis_angle(axis, math.radians(60))
    assert math.degrees(math.acos(rotation[2, 2])) == pytest.approx(60.0)
    controller = make_controller()
    times, positions, attitude_errors, _, x = simulate(
        controller, hover_state(target, rotation), lambda t: FlatReference(target), 4.0)
    errors = np.linalg.norm(positions - target, axis=1)
    assert attitude_errors[0] == pytest.approx(
        np.linalg.norm(attitude_error(rotation, np.eye(3))), rel=1e-3)
    assert np.max(attitude_errors[times >= 1.0]) < 2e-3
    assert np.max(attitude_errors[times >= 2.0]) < 1e-4
    assert np.max(errors) < 0.15
    assert np.max(errors[times >= 2.0]) < 1e-3
    _, _, final_rotation, final_omega = x
    assert math.degrees(math.acos(min(1.0, final_rotation[2, 2]))) < 0.01  # level
    assert np.linalg.norm(final_omega) < 1e-4
    assert np.linalg.norm(x[1]) < 1e-4


# --- the law at and around the reference ---------------------------------------------------

def test_hover_at_the_reference_gives_weight_and_zero_torque():
    controller = make_controller()
    state = np.zeros((4, 3))
    state[1, 2] = 0.6
    state[3] = (0.5, -0.2, 1.0)
    thrust, torque = controller.compute(state, FlatReference(state[3], yaw=0.6))
    assert thrust == pytest.approx(MASS * G, rel=1e-14)
    np.testing.assert_allclose(torque, np.zeros(3), atol=1e-18)
    np.testing.assert_allclose(controller.attitude_error, np.zeros(3), atol=1e-15)


def test_on_the_reference_the_output_is_the_inverse_dynamics():
    """At the flat state (p, v, R_d, w_d) the law returns f = m c, tau = J w_d' + w_d x J w_d."""
    trajectory = figure_eight(yaw=lambda t: (0.8 * math.sin(2 * t), 1.6 * math.cos(2 * t),
                                             -3.2 * math.sin(2 * t)))
    for t in (0.4, 1.7, 3.1, 5.2):
        reference = reference_at(trajectory, t)
        rotation_d, omega_d, omega_dot_d, c = reference_to_flat_state(reference, G)
        thrust, torque = lee_control(reference.position, reference.velocity, rotation_d, omega_d,
                                     reference, **GAINS, mass=MASS, inertia=INERTIA, gravity=G)
        assert thrust == pytest.approx(MASS * c, rel=1e-12)
        expected = INERTIA @ omega_dot_d + np.cross(omega_d, INERTIA @ omega_d)
        np.testing.assert_allclose(torque, expected, rtol=0, atol=1e-12 * np.abs(expected).max())
        # The bare law with the same R_d agrees.
        bare = geometric_control_law(reference.position, reference.velocity, rotation_d, omega_d,
                                     reference.position, reference.velocity,
                                     reference.acceleration, rotation_d, omega_d, omega_dot_d,
                                     **GAINS, mass=MASS, inertia=INERTIA, gravity=G)
        assert bare[0] == pytest.approx(thrust, rel=1e-14)
        np.testing.assert_allclose(bare[1], torque, rtol=0, atol=1e-14)


def test_thrust_is_the_commanded_force_along_the_body_z_axis():
    rotation = _axis_angle((0.3, 1.0, 0.0), 0.4)
    position, velocity = np.array((0.1, -0.2, 0.9)), np.array((0.3, 0.0, -0.1))
    reference = FlatReference((0.0, 0.0, 1.0), acceleration=(0.5, 0.0, 0.2))
    thrust, _ = lee_control(position, velocity, rotation, np.zeros(3), reference, **GAINS,
                            mass=MASS, inertia=INERTIA, gravity=G)
    force = MASS * (reference.acceleration + GAINS["kp"] * (reference.position - position)
                    + GAINS["kv"] * (reference.velocity - velocity) + (0.0, 0.0, G))
    assert thrust == pytest.approx(force @ rotation[:, 2], rel=1e-14)


def test_desired_attitude_follows_the_commanded_force():
    """A position error to +x tilts R_d so that its z axis is along F (not along a_d + g)."""
    controller = make_controller()
    state = np.zeros((4, 3))
    state[3] = (-0.1, 0.0, 1.0)
    controller.compute(state, FlatReference((0.0, 0.0, 1.0)))
    force = MASS * np.array((GAINS["kp"][0] * 0.1, 0.0, G))
    np.testing.assert_allclose(controller.rotation_d[:, 2], force / np.linalg.norm(force),
                               atol=1e-15)
    np.testing.assert_allclose(controller.position_error, (0.1, 0.0, 0.0))
    controller.reset()
    np.testing.assert_array_equal(controller.rotation_d, np.eye(3))


def test_commanded_attitude_fallbacks():
    rotation = _axis_angle((1.0, 0.0, 0.0), 0.3)
    # No force: keep the current body z axis.
    rotation_d = commanded_attitude(np.zeros(3), 0.0, rotation, MASS)
    np.testing.assert_allclose(rotation_d[:, 2], rotation[:, 2], atol=1e-15)
    # Force along y_C (90 degree roll): x_B from x_C instead, still a proper rotation.
    rotation_d = commanded_attitude((0.0, 1.0, 0.0), 0.0, rotation, MASS)
    np.testing.assert_allclose(rotation_d, ((1, 0, 0), (0, 0, 1), (0, -1, 0)), atol=1e-15)



def test_rate_error_obeys_lees_closed_loop_dynamics_off_the_reference():
    """With the law's torque, J d(e_w)/dt = -K_R e_R - K_w e_w (Lee et al. 2010), anywhere.

    The derivative of e_w = w - R^T R_d w_d is taken by central differences along
    R(s) = R exp(s hat(w)), w(s) = w + s w', R_d(s) = R_d exp(s hat(w_d)), w_d(s) = w_d + s w_d',
    where w' follows from the rigid-body dynamics under the law's torque. This checks the
    gyroscopic and feed-forward terms where they matter, away from R = R_d.
    """
    rng = np.random.default_rng(3)
    h = 1e-5
    for _ in range(5):
        rotation = _axis_angle(rng.normal(size=3), rng.uniform(0.2, 2.5))
        rotation_d = _axis_angle(rng.normal(size=3), rng.uniform(0.2, 2.5))
        omega, omega_d, omega_dot_d = rng.normal(scale=3.0, size=(3, 3))
        _, torque = geometric_control_law(np.zeros(3), np.zeros(3), rotation, omega, np.zeros(3),
                                          np.zeros(3), np.zeros(3), rotation_d, omega_d,
                                          omega_dot_d, **GAINS, mass=MASS, inertia=INERTIA,
                                          gravity=G)
        omega_dot = INERTIA_INVERSE @ (np.cross(INERTIA @ omega, omega) + torque)

        def rate_error(s, rotation=rotation, rotation_d=rotation_d, omega=omega,
                       omega_d=omega_d, omega_dot=omega_dot, omega_dot_d=omega_dot_d):
            r = rotation @ _axis_angle(omega, s * np.linalg.norm(omega))
            r_d = rotation_d @ _axis_angle(omega_d, s * np.linalg.norm(omega_d))
            return omega + s * omega_dot - r.T @ r_d @ (omega_d + s * omega_dot_d)

        e_w_dot = (rate_error(h) - rate_error(-h)) / (2 * h)
        e_r = attitude_error(rotation, rotation_d)
        restoring = -GAINS["kr"] * e_r - GAINS["kw"] * rate_error(0.0)
        np.testing.assert_allclose(INERTIA @ e_w_dot, restoring, rtol=0,
                                   atol=1e-7 * np.abs(restoring).max())

# --- attitude error ------------------------------------------------------------------------

def test_attitude_error_is_zero_at_the_desired_attitude():
    rotation = _axis_angle((0.2, -0.5, 0.9), 2.1)
    np.testing.assert_allclose(attitude_error(rotation, rotation), np.zeros(3), atol=1e-16)


def test_attitude_error_is_antisymmetric_and_sin_of_the_angle_about_the_axis():
    rotation_d = _axis_angle((0.2, -0.5, 0.9), 2.1)
    for axis, angle in (((1.0, 0.0, 0.0), 0.1), ((0.3, 0.4, -0.5), 1.2), ((0, 1, 1), 2.8)):
        unit = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
        rotation = rotation_d @ _axis_angle(unit, angle)  # error rotation in the body frame
        e_r = attitude_error(rotation, rotation_d)
        np.testing.assert_allclose(e_r, math.sin(angle) * unit, atol=1e-15)
        np.testing.assert_allclose(attitude_error(rotation_d, rotation), -e_r, atol=1e-15)


# --- state layout --------------------------------------------------------------------------

def test_euler_convention_is_pybullets():
    for euler in ((0.3, -0.4, 2.0), (-1.2, 0.7, -0.3), (0.0, 1.5, 0.0)):
        expected = np.reshape(pybullet.getMatrixFromQuaternion(
            pybullet.getQuaternionFromEuler(euler)), (3, 3))
        np.testing.assert_allclose(rotation_from_euler(euler), expected, atol=1e-15)


def test_state_with_euler_or_rotation_gives_the_same_command():
    rotation = _axis_angle((0.3, -0.2, 1.0), 0.9)
    x = (np.array((0.2, 0.1, 0.8)), np.array((0.5, -0.3, 0.1)), rotation,
         np.array((0.4, -0.1, 0.2)))
    state = aviary_state(x)
    reference = reference_at(figure_eight(), 0.7)
    controller = make_controller()
    from_euler = controller.compute(state, reference)
    from_rotation = controller.compute(state, reference, rotation=rotation)
    assert from_euler[0] == pytest.approx(from_rotation[0], rel=1e-14)
    np.testing.assert_allclose(from_euler[1], from_rotation[1], rtol=0, atol=1e-17)
    direct = lee_control(x[0], x[1], rotation, x[3], reference, **GAINS, mass=MASS,
                         inertia=INERTIA, gravity=G)
    assert direct[0] == pytest.approx(from_rotation[0], rel=1e-14)
    np.testing.assert_allclose(direct[1], from_rotation[1], rtol=0, atol=1e-17)


# --- bad input -----------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "kwargs", "error"), [
    ("mass", {"mass": 0.0}, ValueError),
    ("mass", {"mass": "heavy"}, TypeError),
    ("inertia", {"inertia": np.diag((1.0, -1.0, 1.0))}, ValueError),
    ("inertia", {"inertia": np.array(((1.0, 0.5, 0), (0, 1, 0), (0, 0, 1)))}, ValueError),
    ("inertia", {"inertia": np.eye(2)}, ValueError),
    ("kp", {"kp": (1.0, 1.0)}, ValueError),
    ("kv", {"kv": (1.0, 0.0, 1.0)}, ValueError),
    ("kr", {"kr": (1.0, np.nan, 1.0)}, ValueError),
    ("kw", {"kw": -np.ones(3)}, ValueError),
    ("gravity", {"gravity": -1.0}, ValueError),
])
def test_constructor_rejects_bad_parameters(name, kwargs, error):
    arguments = {"mass": MASS, "inertia": INERTIA, **GAINS, "gravity": G}
    arguments.update(kwargs)
    with pytest.raises(error, match=name):
        GeometricController(**arguments)
    with pytest.raises(error, match=name):
        lee_control(np.zeros(3), np.zeros(3), np.eye(3), np.zeros(3),
                    FlatReference(np.zeros(3)), **arguments)


def test_compute_rejects_bad_state_reference_and_rotation():
    controller = make_controller()
    reference = FlatReference(np.zeros(3))
    with pytest.raises(ValueError, match="state"):
        controller.compute(np.zeros((3, 3)), reference)
    with pytest.raises(ValueError, match="state"):
        controller.compute(np.full((4, 3), np.inf), reference)
    with pytest.raises(TypeError, match="reference"):
        controller.compute(np.zeros((4, 3)), np.zeros(3))
    with pytest.raises(ValueError, match="rotation"):
        controller.compute(np.zeros((4, 3)), reference, rotation=2 * np.eye(3))
    with pytest.raises(ValueError, match="rotation"):
        controller.compute(np.zeros((4, 3)), reference, rotation=-np.eye(3))


@pytest.mark.parametrize("name", ["position", "velocity", "rotation", "omega", "position_d",
                                  "velocity_d", "acceleration_d", "rotation_d", "omega_d",
                                  "omega_dot_d"])
def test_bare_law_names_bad_arguments(name):
    arguments = {"position": np.zeros(3), "velocity": np.zeros(3), "rotation": np.eye(3),
                 "omega": np.zeros(3), "position_d": np.zeros(3), "velocity_d": np.zeros(3),
                 "acceleration_d": np.zeros(3), "rotation_d": np.eye(3), "omega_d": np.zeros(3),
                 "omega_dot_d": np.zeros(3)}
    arguments[name] = np.full(arguments[name].shape, np.nan)
    with pytest.raises(ValueError, match=name):
        geometric_control_law(**arguments, **GAINS, mass=MASS, inertia=INERTIA, gravity=G)
