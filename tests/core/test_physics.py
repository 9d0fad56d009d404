"""Physics of the core against closed-form answers (free fall, hover thrust, terminal
velocity, motor lag, ...).

Conventions used throughout: ``dt`` is the physics period; ``av.step()`` at the defaults is
two physics steps. PyBullet integrates with semi-implicit Euler (velocity first, then
position with the new velocity).
"""

from __future__ import annotations

import math

import numpy as np
import pybullet
import pytest

from pyflyt_like.core.abstractions import BoringBodies, Motors

from ._helpers import (
    AIR_DENSITY,
    DRAG_COEFS,
    GRAVITY,
    MASS,
    MOTOR_TAU,
    NORMAL_AREAS,
    THRUST_COEF,
    TORQUE_COEF,
    TORQUE_SIGNS,
    TOTAL_THRUST,
    fly,
    n_steps,
    spin_up_in_place,
    world_velocity,
)


def _motor_links(aviary, drone) -> list[int]:
    names = {}
    for joint in range(pybullet.getNumJoints(drone.Id, physicsClientId=aviary._client)):
        info = pybullet.getJointInfo(drone.Id, joint, physicsClientId=aviary._client)
        names[info[12].decode()] = joint
    return [names[f"motor{i}"] for i in range(4)]


def _motor_arms(aviary, drone) -> np.ndarray:
    """(4, 3) motor positions in the body frame, from the URDF joints."""
    return np.array([
        pybullet.getJointInfo(drone.Id, link, physicsClientId=aviary._client)[14]
        for link in _motor_links(aviary, drone)
    ])


def _inertia(aviary, drone) -> np.ndarray:
    return np.array(pybullet.getDynamicsInfo(drone.Id, -1, physicsClientId=aviary._client)[2])


def _rotation(aviary, body: int) -> np.ndarray:
    quaternion = pybullet.getBasePositionAndOrientation(body, physicsClientId=aviary._client)[1]
    return np.array(pybullet.getMatrixFromQuaternion(quaternion)).reshape(3, 3)


# ------------------------------------------------------------------------------ free fall
@pytest.mark.parametrize("physics_hz", [240, 480])
def test_free_fall_of_a_body_matches_closed_form(make_aviary, physics_hz):
    av = make_aviary([(0.0, 0.0, 1.0)], physics_hz=physics_hz)
    client = av._client
    shape = pybullet.createCollisionShape(pybullet.GEOM_SPHERE, radius=0.05,
                                          physicsClientId=client)
    z0 = 50.0
    ball = pybullet.createMultiBody(1.0, shape, basePosition=(5.0, 5.0, z0),
                                    physicsClientId=client)
    # The closed form has no drag: switch off PyBullet's default damping on our own body.
    pybullet.changeDynamics(ball, -1, linearDamping=0.0, angularDamping=0.0,
                            physicsClientId=client)
    av.register_all_new_bodies()
    dt = 1.0 / physics_hz
    for _ in range(n_steps(av, 1.0)):
        av.step()
        t = av.elapsed_time
        z = pybullet.getBasePositionAndOrientation(ball, physicsClientId=client)[0][2]
        vz = pybullet.getBaseVelocity(ball, physicsClientId=client)[0][2]
        # Semi-implicit Euler gets v exactly (constant acceleration) ...
        assert vz == pytest.approx(-GRAVITY * t, rel=1e-9)
        # ... and falls ahead of the exact parabola by exactly g*dt*t/2 (an O(dt) error):
        # z_k = z0 - g dt^2 k (k+1) / 2. Bound it by that plus float rounding.
        lag = (z0 - 0.5 * GRAVITY * t**2) - z
        assert 0.0 <= lag <= 0.5 * GRAVITY * dt * t * (1 + 1e-6) + 1e-9
    assert av.elapsed_time == pytest.approx(1.0, abs=1e-12)


# ------------------------------------------------------------------------------ motors
def test_motor_lag_reaches_one_minus_inv_e_at_tau_in_the_aviary(make_aviary):
    # physics 1000 Hz, control 100 Hz: one av.step() is 10 physics steps = 0.01 s = tau.
    av = make_aviary(physics_hz=1000, drone_options=dict(control_hz=100, noise=0.0))
    av.set_mode(-1)
    av.set_setpoint(0, np.ones(4))
    assert np.all(av.aux_state(0) == 0.0)
    for k in range(1, 4):
        av.step()
        assert av.elapsed_time == pytest.approx(k * MOTOR_TAU, abs=1e-12)
        # Exact discrete first-order lag: throttle(t) = 1 - exp(-t / tau) at every sample.
        np.testing.assert_allclose(av.aux_state(0), 1.0 - math.exp(-k), rtol=0, atol=1e-12)


def test_motors_component_is_an_exact_first_order_lag(make_aviary):
    av = make_aviary()
    drone = av.drones[0]
    av.set_armed(False)  # the aviary must not touch this drone; we drive our own Motors
    dt = av.physics_period
    taus = np.array([0.01, 0.02, 0.05, 3 * dt])
    commands = np.array([1.0, -0.5, 0.8, 2.0])  # 2.0 is outside [-1, 1]: clipped to 1
    max_rpm = np.array([1000.0, 2000.0, 3000.0, 4000.0])
    motors = Motors(av, dt, np.random.default_rng(0), drone.Id, _motor_links(av, drone),
                    tau=taus, max_rpm=max_rpm, thrust_coef=np.full(4, THRUST_COEF),
                    torque_coef=TORQUE_COEF * TORQUE_SIGNS, thrust_unit=np.tile([0, 0, 1.0],
                                                                                (4, 1)),
                    noise_ratio=np.zeros(4))
    target = np.clip(commands, -1.0, 1.0)
    for k in range(1, 31):
        motors.physics_update(commands)
        expected = target * (1.0 - np.exp(-k * dt / taus))
        np.testing.assert_allclose(motors.get_states(), expected, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(motors.rpm, expected * max_rpm, rtol=1e-12, atol=1e-12)
    # tau = 0.01 s = 2.4 dt is not on the grid; the 3*dt motor is: at k = 3, 1 - 1/e.
    motors.reset()
    for _ in range(3):
        motors.physics_update(commands)
    assert motors.get_states()[3] == pytest.approx(1.0 - math.exp(-1.0), abs=1e-12)
    assert np.all(motors.get_states()[:3] != 0.0)
    motors.reset()
    assert np.all(motors.get_states() == 0.0)


def test_motor_noise_is_zero_mean(make_aviary):
    av = make_aviary()
    drone = av.drones[0]
    av.set_armed(False)
    dt = av.physics_period
    ratio, command = 0.02, 0.5
    motors = Motors(av, dt, np.random.default_rng(0), drone.Id, _motor_links(av, drone),
                    tau=np.full(4, MOTOR_TAU), max_rpm=np.full(4, 1000.0),
                    thrust_coef=np.full(4, THRUST_COEF), torque_coef=TORQUE_COEF * TORQUE_SIGNS,
                    thrust_unit=np.tile([0, 0, 1.0], (4, 1)), noise_ratio=np.full(4, ratio))
    pwm = np.full(4, command)
    for _ in range(100):  # settle: exp(-100 dt / tau) ~ 1e-18
        motors.physics_update(pwm)
    samples = []
    for _ in range(4000):
        motors.physics_update(pwm)
        samples.append(motors.get_states())
    samples = np.array(samples)
    # The throttle is an AR(1) process with pole a = exp(-dt/tau) = 0.66 and innovation
    # std command*ratio = 0.01, so its std is 0.01 / sqrt(1 - a^2) = 0.0133 and 4000 samples
    # x 4 motors hold ~3300 independent ones: the mean's std is ~2.3e-4. 0.003 is > 10 sigma,
    # while a noise mean of n_motors (PyFlyt's defect) would shift the mean by ~0.1.
    a = math.exp(-dt / MOTOR_TAU)
    predicted_std = command * ratio / math.sqrt(1.0 - a * a)
    assert abs(samples.mean() - command) < 0.003
    assert 0.5 * predicted_std < samples.std() < 2.0 * predicted_std


def test_max_rpm_and_coefficients_follow_the_reference(make_aviary):
    motors = make_aviary(drone_options=dict(noise=0.0)).drones[0].motors
    # max_rpm = sqrt(total_thrust / (n_motors * thrust_coef)).
    np.testing.assert_allclose(motors.max_rpm, math.sqrt(TOTAL_THRUST / (4 * THRUST_COEF)),
                               rtol=1e-12)
    np.testing.assert_allclose(motors.thrust_coef, THRUST_COEF, rtol=1e-12)
    np.testing.assert_allclose(motors.torque_coef, TORQUE_COEF * TORQUE_SIGNS, rtol=1e-12)


@pytest.mark.parametrize("throttles", [
    (0.3, 0.0, 0.0, 0.0),
    (0.0, 0.3, 0.0, 0.0),
    (0.0, 0.0, 0.3, 0.0),
    (0.0, 0.0, 0.0, 0.3),
    (0.2, 0.2, 0.35, 0.35),  # pure yaw: diagonal pairs cancel roll and pitch
    (0.5, 0.5, 0.5, 0.5),
    (-0.3, 0.0, 0.0, 0.0),  # reversed: thrust and torque change sign with the rpm
], ids=["m0", "m1", "m2", "m3", "yaw", "all", "m0-reversed"])
def test_thrust_and_torque_per_motor_are_coef_times_rpm_squared(make_aviary, throttles):
    av = make_aviary([(0.0, 0.0, 2.0)], drone_options=dict(noise=0.0))
    drone = av.drones[0]
    throttles = np.array(throttles)
    av.set_mode(-1)
    av.set_setpoint(0, throttles)
    spin_up_in_place(av)  # drone at rest, level, throttles = commands (residual ~1e-11)
    np.testing.assert_allclose(av.aux_state(0), throttles, rtol=1e-9, atol=1e-12)

    rpm = throttles * drone.motors.max_rpm
    signed_square = rpm * np.abs(rpm)
    thrust = THRUST_COEF * signed_square  # N per motor along body z
    yaw_torque = TORQUE_COEF * TORQUE_SIGNS * signed_square  # N m per motor about body z
    arms = _motor_arms(av, drone)
    torque = np.cross(arms, np.outer(thrust, [0.0, 0.0, 1.0])).sum(axis=0)
    torque[2] += yaw_torque.sum()
    inertia = _inertia(av, drone)
    assert drone.mass == pytest.approx(MASS)

    av.step()  # two physics steps from rest under constant loads
    t = 2 * av.physics_period
    expected_rates = t * torque / inertia
    expected_climb = t * (thrust.sum() / MASS - GRAVITY)
    # From rest the only error sources are second order: the gyroscopic term acts on rates
    # that are ~t*acceleration (< 1e-3 relative here), and the drone tilts by < 0.005 rad
    # within the step (cos error < 1.3e-5). 0.5 % covers both.
    tolerance = 5e-3 * np.abs(expected_rates).max() + 1e-9
    np.testing.assert_allclose(av.state(0)[0], expected_rates, rtol=0, atol=tolerance)
    assert world_velocity(av, 0)[2] == pytest.approx(expected_climb, rel=5e-3)


def test_hover_throttle_is_the_closed_form(make_aviary):
    drone = make_aviary(drone_options=dict(noise=0.0)).drones[0]
    # 4 kf (h max_rpm)^2 = h^2 T_max = m g  =>  h = sqrt(m g / T_max).
    assert drone.hover_throttle == pytest.approx(math.sqrt(MASS * GRAVITY / TOTAL_THRUST),
                                                 rel=1e-12)


def test_hover_at_hover_throttle_holds_altitude(make_aviary):
    av = make_aviary([(0.0, 0.0, 1.0)], drone_options=dict(noise=0.0))
    drone = av.drones[0]
    av.set_mode(-1)
    av.set_setpoint(0, np.full(4, drone.hover_throttle))
    spin_up_in_place(av)
    states = fly(av, 5.0)[:, 0]
    # With the throttles settled, thrust equals weight up to the lag residual ~1e-11 and
    # float rounding (drift ~1e-11 g t^2 / 2 ~ 1e-9 m), and all torques cancel by symmetry.
    # A thrust error of 1e-5 relative would already move it 1e-5 g t^2 / 2 = 1.2 mm in 5 s;
    # allow 0.1 mm.
    assert np.abs(states[:, 3, 2] - 1.0).max() < 1e-4
    assert np.abs(states[:, 3, :2]).max() < 1e-6
    assert np.abs(states[:, 1]).max() < 1e-6
    assert np.abs(states[:, 2, 2]).max() < 1e-4


def test_spin_up_sag_matches_the_discrete_lag(make_aviary):
    av = make_aviary([(0.0, 0.0, 2.0)], drone_options=dict(noise=0.0))
    drone = av.drones[0]
    av.set_mode(-1)
    av.set_setpoint(0, np.full(4, drone.hover_throttle))
    steps = n_steps(av, 0.1)
    for _ in range(steps):
        av.step()
    dt = av.physics_period
    k = np.arange(1, 2 * steps + 1)  # physics steps; the throttle advances before it acts
    a = math.exp(-dt / MOTOR_TAU)
    # throttle_k = h (1 - a^k), so the weight not carried is m g (2 a^k - a^2k).
    expected = -GRAVITY * dt * np.sum(2 * a**k - a ** (2 * k))  # ~ -0.127 m/s
    # Drag (0.19 v^2 m/s^2) acts on |v| < 0.13 m/s for 0.1 s: < 0.3 % of the sag.
    assert world_velocity(av, 0)[2] == pytest.approx(expected, rel=0.01)


# ------------------------------------------------------------------------------ drag
def test_boring_bodies_apply_per_axis_quadratic_drag(make_aviary):
    orientation = (0.3, -0.2, 0.9)
    av = make_aviary([(0.0, 0.0, 5.0)], [orientation])
    drone = av.drones[0]
    av.set_armed(False)
    cd = np.array([[0.8, 1.1, 1.3]])
    area = np.array([[0.01, 0.02, 0.03]])
    drag = BoringBodies(av, av.physics_period, av.np_random, drone.Id, [-1], cd, area)
    rotation = _rotation(av, drone.Id)
    air = np.array([3.0, -2.0, 1.0])  # ground frame, body velocity minus wind
    drag.state_update(rotation.T, air)  # PyFlyt's convention: ground-to-body
    drag.physics_update()
    pybullet.stepSimulation(physicsClientId=av._client)
    v_body = rotation.T @ air
    force_body = -0.5 * AIR_DENSITY * area[0] * cd[0] * v_body * np.abs(v_body)
    expected = av.physics_period * (rotation @ force_body / MASS - [0.0, 0.0, GRAVITY])
    # One step from rest under constant forces: exact up to rounding.
    np.testing.assert_allclose(world_velocity(av, 0), expected, rtol=1e-9, atol=1e-12)


def _fall_with_motors_off(av, seconds):
    av.set_mode(-1)
    av.set_setpoint(0, np.zeros(4))
    return fly(av, seconds)[:, 0]


def _check_terminal_velocity(av, states):
    drone = av.drones[0]
    # Level and motors off: only gravity and the body-z drag act on the vertical axis.
    v_t = math.sqrt(2 * drone.mass * GRAVITY / (AIR_DENSITY * NORMAL_AREAS[2] * DRAG_COEFS[2]))
    times = np.arange(1, len(states) + 1) * (2 * av.physics_period)
    closed_form = -v_t * np.tanh(GRAVITY * times / v_t)  # exact quadratic-drag solution
    assert np.abs(states[:, 1, :2]).max() < 1e-6
    late = times >= 1.0
    # Past 1 s the integrator's O(dt) error (~dt/2 * dv/dt, plus one step of drag lag) is
    # < 0.2 % of v; allow 1 %. At 4 s tanh(5.5) = 0.99997: the drone is at v_t.
    np.testing.assert_allclose(states[late, 2, 2], closed_form[late], rtol=0.01)
    assert states[-1, 2, 2] == pytest.approx(-v_t, rel=0.005)


def test_terminal_velocity_of_the_drag_body(make_aviary):
    # Only BoringBodies may slow the fall: PyBullet's default damping (0.04 (1+|v|) v per unit
    # mass, which would give v_t = 6.41 m/s here) must be off for drones.
    av = make_aviary([(0.0, 0.0, 40.0)], drone_options=dict(noise=0.0))
    _check_terminal_velocity(av, _fall_with_motors_off(av, 4.0))


# ------------------------------------------------------------------------------ rigid body
def _torque_free_spin(av) -> tuple[float, float]:
    """Spin a disarmed drone for 1 s; return relative changes of |L| (world) and energy."""
    drone = av.drones[0]
    client = av._client
    av.set_armed(False)  # torque-free: no motors, no drag; gravity acts at the centre of mass
    inertia = np.diag(_inertia(av, drone))
    pybullet.resetBaseVelocity(drone.Id, (0, 0, 0), (3.0, 1.0, 6.0), physicsClientId=client)

    def momentum_and_energy():
        rotation = _rotation(av, drone.Id)
        omega = np.array(pybullet.getBaseVelocity(drone.Id, physicsClientId=client)[1])
        world_inertia = rotation @ inertia @ rotation.T
        return world_inertia @ omega, 0.5 * omega @ world_inertia @ omega

    momentum, energy = momentum_and_energy()
    for _ in range(n_steps(av, 1.0)):
        av.step()
    new_momentum, new_energy = momentum_and_energy()
    return (float(np.linalg.norm(new_momentum - momentum) / np.linalg.norm(momentum)),
            float(new_energy / energy - 1.0))


def test_torque_free_spin_conserves_angular_momentum(make_aviary):
    av = make_aviary([(0.0, 0.0, 50.0)], drone_options=dict(noise=0.0))
    drift, energy_drift = _torque_free_spin(av)
    # The gyroscopic term is integrated explicitly: an O(dt) drift, |w| dt ~ 0.03 rad per
    # step at |w| = 6.8 rad/s, which amounts to < 1 % in 1 s. Allow 2 %. PyBullet's default
    # angular damping (if it were left on) would remove ~24 % in that second.
    assert drift < 0.02
    assert abs(energy_drift) < 0.02
