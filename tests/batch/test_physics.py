"""The batched engine's physics against closed-form answers."""

import math

import numpy as np
import pytest

from pyflyt_like.batch import BatchedAviary

from .quaternions import reference_matrix

G = 9.81


def rotors_off(integrator="semi_implicit", model="cf2x", **options):
    """A drone (min_speed 0) with its rotors stopped, at 500 Hz."""
    sim = BatchedAviary(drone_model=model, mode=-1, integrator=integrator, **options)
    sim.set_setpoints(np.zeros(sim.model.n_rotors))
    return sim


@pytest.mark.parametrize("integrator, offset", [("euler", -1), ("semi_implicit", 1),
                                                ("rk4", 0)])
def test_free_fall_follows_each_schemes_closed_form(integrator, offset):
    sim = rotors_off(integrator, start_pos=[(0.0, 0.0, 10.0)])
    n, dt = 500, sim.dt
    sim.step(n)
    # z_n = z0 - g dt^2 n (n + offset) / 2: explicit Euler lags the exact parabola by one
    # step (offset -1), the semi-implicit scheme leads it by one (+1), RK4 is exact (0)
    assert sim.pos[0, 0, 2] == pytest.approx(10.0 - 0.5 * G * dt**2 * n * (n + offset),
                                             abs=1e-9)
    assert sim.vel[0, 0, 2] == pytest.approx(-G * n * dt, abs=1e-9)
    assert np.abs(sim.pos[0, 0, :2]).max() == 0.0 and not sim.contact[0, 0]


@pytest.mark.parametrize("model", ["cf2x", "crazyflie21", "hexarotor", "racer"])
def test_rotors_at_hover_speed_hold_the_drone_still(model):
    sim = BatchedAviary(drone_model=model, mode=-1, start_pos=[(0.0, 0.0, 1.0)])
    sim.set_setpoints(np.full(sim.model.n_rotors, sim.hover_speed))
    sim.rotor_speed[:] = sim.hover_speed  # spun up: the hexarotor's lag would sink it first
    sim.step(1000)
    assert np.abs(sim.vel).max() < 1e-9
    assert np.abs(sim.pos - (0.0, 0.0, 1.0)).max() < 1e-9
    assert np.abs(sim.state[0, 0, 1]).max() < 1e-9  # level, not yawing


def test_motor_lag_step_response_is_the_exact_first_order_one():
    sim = BatchedAviary(drone_model="hexarotor", mode=-1, start_pos=[(0.0, 0.0, 5.0)])
    tau = sim.model.tau
    assert tau == 0.02
    command = np.full(6, 0.9 * sim.model.max_speed)
    sim.set_setpoints(command)
    for n in (1, 5, 10, 25, 50):
        sim.step(n - int(round(sim.elapsed_time[0] / sim.dt)))
        t = sim.elapsed_time[0]
        expected = command * (1.0 - math.exp(-t / tau))
        np.testing.assert_allclose(sim.rotor_speed[0, 0], expected, rtol=1e-12)


def test_descent_with_rotor_drag_reaches_its_terminal_velocity():
    """Constant rotor speeds below hover: m dv/dt = T - m g - c_z S v, with S the sum of
    the rotor speeds [rad/s], so v(t) = v_T (1 - exp(-t / tau)), v_T = (T - m g) / (c_z S),
    tau = m / (c_z S)."""
    sim = BatchedAviary(drone_model="cf2x", mode=-1, rotor_drag=True,
                        start_pos=[(0.0, 0.0, 500.0)])
    model = sim.model
    speed = 0.97 * sim.hover_speed
    sim.set_setpoints(np.full(4, speed))
    thrust = 4 * model.kf * speed**2
    damping = model.drag_coeff_z * 4 * speed * model.speed_to_rad_s
    terminal = (thrust - model.mass * G) / damping
    tau = model.mass / damping
    assert -4.0 < terminal < -1.0 and 2.0 < tau < 10.0  # a real descent, seconds to settle
    for seconds in (2.0, 5.0, 10.0, 40.0):
        sim.step(int(round((seconds - sim.elapsed_time[0]) / sim.dt)))
        expected = terminal * (1.0 - math.exp(-seconds / tau))
        assert sim.vel[0, 0, 2] == pytest.approx(expected, rel=1e-3)
    assert sim.vel[0, 0, 2] == pytest.approx(terminal, rel=1e-3)


def spin(integrator, seconds, omega, randomize=None):
    """A rotors-off hexarotor (I_x = I_y) without gravity spinning freely from body rates
    ``omega``."""
    sim = rotors_off(integrator, "hexarotor", gravity=0.0, randomize=randomize, seed=1)
    sim.ang_vel[:] = omega
    momenta = []
    for _ in range(int(round(seconds / (10 * sim.dt)))):
        sim.step(10)
        momenta.append(angular_momentum(sim))
    return sim, np.array(momenta)


def angular_momentum(sim):
    """World-frame angular momentum R J w of drone (0, 0)."""
    return reference_matrix(sim.quat[0, 0]) @ (sim.plant.inertia[0, 0] * sim.ang_vel[0, 0])


def test_axisymmetric_body_precesses_at_the_closed_form_rate():
    """Euler's equations for I_x = I_y: the transverse rate turns at Omega = (I_z - I_x) /
    I_x w_z in the body frame, w_x = w0 cos(Omega t), w_y = w0 sin(Omega t)."""
    sim, _ = spin("rk4", 2.0, (1.0, 0.0, 5.0))
    ix, _, iz = sim.model.inertia
    rate = (iz - ix) / ix * 5.0
    t = sim.elapsed_time[0]
    np.testing.assert_allclose(sim.ang_vel[0, 0], (math.cos(rate * t), math.sin(rate * t),
                                                   5.0), atol=1e-9)


def test_torque_free_tumbling_conserves_angular_momentum_rk4_better_than_euler():
    omega = (2.0, -1.0, 4.0)
    asymmetric = dict(inertia=(0.5, 2.0))  # distinct principal moments: a real tumble
    drift = {}
    for integrator in ("euler", "semi_implicit", "rk4"):
        _, momenta = spin(integrator, 2.0, omega, asymmetric)
        drift[integrator] = np.abs(momenta - momenta[0]).max() / np.linalg.norm(momenta[0])
    # measured: euler 1.2e-3, semi-implicit 1.1e-3, rk4 5e-12 relative drift over 2 s
    assert drift["rk4"] < 1e-8
    assert drift["rk4"] < 1e-4 * drift["euler"]
    assert drift["rk4"] < 1e-4 * drift["semi_implicit"]
