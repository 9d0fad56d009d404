"""The IMU model: with the "ideal" preset the accelerometer reads the closed-form specific
force (hover, free fall, a coordinated turn, a lever arm) and the gyroscope the body rates;
the mounting rotation, saturation, quantisation and the turn-on errors act as documented."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyflyt_like.common.rotations import euler_to_matrix, euler_to_quat
from pyflyt_like.sensors import imu, resolve_sensor, specific_force

G = 9.81
ZERO = np.zeros(3)
LEVEL = np.array([0.0, 0.0, 0.0, 1.0])


def _unit(config="ideal", physics_hz=240, seed=0):
    """(coefficients, state) of a freshly reset IMU."""
    params = resolve_sensor("imu", config, physics_hz)
    coefficients, state = params.coefficients, imu.zeros_state()
    imu.reset(coefficients, np.random.default_rng(seed).standard_normal(imu.RESET_DRAWS),
              state)
    return coefficients, state


def _read(coefficients, state, accel, quat, ang_vel, ang_accel, normals=None):
    accel_out, gyro_out = np.zeros(3), np.zeros(3)
    normals = np.zeros(imu.SAMPLE_DRAWS) if normals is None else normals
    imu.sample(coefficients, np.asarray(accel, float), np.asarray(quat, float),
               np.asarray(ang_vel, float), np.asarray(ang_accel, float), G, normals, state,
               accel_out, gyro_out)
    return accel_out, gyro_out


def test_hover_reads_plus_g_up_and_free_fall_reads_zero():
    c, s = _unit()
    accel, gyro = _read(c, s, ZERO, LEVEL, ZERO, ZERO)
    assert accel.tolist() == [0.0, 0.0, G] and gyro.tolist() == [0.0, 0.0, 0.0]
    accel, _ = _read(c, s, [0.0, 0.0, -G], LEVEL, ZERO, ZERO)
    assert accel.tolist() == [0.0, 0.0, 0.0]
    # Upside down at rest: gravity's reaction is along body -z.
    accel, _ = _read(c, s, ZERO, euler_to_quat(math.pi, 0.0, 0.0), ZERO, ZERO)
    np.testing.assert_allclose(accel, [0.0, 0.0, -G], atol=1e-12)


@pytest.mark.parametrize("bank_deg", [10.0, 30.0, 45.0, 60.0])
@pytest.mark.parametrize("heading_deg", [0.0, 70.0, -135.0])
def test_a_coordinated_turn_reads_g_over_cos_bank_along_body_z(bank_deg, heading_deg):
    """A level turn at bank phi and speed V: the centripetal acceleration g tan(phi) points
    to the turn's centre, the yaw rate is g tan(phi) / V, no side force."""
    phi, psi, speed = math.radians(bank_deg), math.radians(heading_deg), 20.0
    quat = np.array(euler_to_quat(phi, 0.0, psi))
    r = np.array(euler_to_matrix(phi, 0.0, psi)).reshape(3, 3)
    body_z = r[:, 2]
    horizontal = np.array([body_z[0], body_z[1], 0.0])
    accel = G * math.tan(phi) * horizontal / np.linalg.norm(horizontal)
    yaw_rate = -G * math.tan(phi) / speed  # a right bank turns right (clockwise from above)
    ang_vel = r.T @ np.array([0.0, 0.0, yaw_rate])
    c, s = _unit()
    measured, gyro = _read(c, s, accel, quat, ang_vel, ZERO)
    np.testing.assert_allclose(measured, [0.0, 0.0, G / math.cos(phi)], atol=1e-12)
    assert gyro.tolist() == ang_vel.tolist()


def test_the_lever_arm_adds_the_rotation_of_the_mounting_point():
    # A pure spin at w about z: a point r off the axis accelerates -w^2 r towards it.
    config = {"preset": "ideal", "mounting_position": [0.1, 0.0, 0.0]}
    c, s = _unit(config)
    accel, _ = _read(c, s, ZERO, LEVEL, [0.0, 0.0, 2.0], ZERO)
    np.testing.assert_allclose(accel, [-0.4, 0.0, G], atol=1e-12)
    # General: w_dot x r + w x (w x r) on top of the centre of mass's specific force.
    r = np.array([0.1, -0.05, 0.02])
    w, w_dot = np.array([0.3, -0.2, 1.0]), np.array([0.5, 0.1, -0.4])
    quat = np.array(euler_to_quat(0.2, -0.1, 0.7))
    a = np.array([1.0, -2.0, 0.5])
    rot = np.array(euler_to_matrix(0.2, -0.1, 0.7)).reshape(3, 3)
    expected = rot.T @ (a + [0.0, 0.0, G]) + np.cross(w_dot, r) + np.cross(w, np.cross(w, r))
    c, s = _unit({"preset": "ideal", "mounting_position": r.tolist()})
    accel, gyro = _read(c, s, a, quat, w, w_dot)
    np.testing.assert_allclose(accel, expected, atol=1e-12)
    assert gyro.tolist() == w.tolist()  # rates are the same everywhere on a rigid body
    out = np.zeros(3)
    specific_force(a, quat, w, w_dot, r, G, out)
    assert out.tolist() == accel.tolist()


def test_the_mounting_orientation_turns_readings_into_the_sensor_frame():
    # Sensor x along body y (yaw +90 deg): v_s = R_bs^T v_b.
    c, s = _unit({"preset": "ideal", "mounting_orientation": [0.0, 0.0, math.pi / 2]})
    accel, gyro = _read(c, s, [1.0, 0.0, 0.0], LEVEL, [0.3, 0.0, 0.0], ZERO)
    np.testing.assert_allclose(accel, [0.0, -1.0, G], atol=1e-12)
    np.testing.assert_allclose(gyro, [0.0, -0.3, 0.0], atol=1e-12)


def test_saturation_then_quantisation():
    config = {"preset": "ideal", "accelerometer_range": 20.0,
              "accelerometer_resolution": 0.5, "gyroscope_resolution": 0.1}
    c, s = _unit(config)
    accel, gyro = _read(c, s, [30.0, -50.0, 0.0], LEVEL, [0.26, -0.24, 0.04], ZERO)
    assert accel.tolist() == [20.0, -20.0, 10.0]  # 9.81 rounds to 10.0
    np.testing.assert_allclose(gyro, [0.3, -0.2, 0.0], atol=1e-15)


def test_white_noise_and_bias_random_walk_use_the_discrete_sigmas():
    """sigma_d = N / sqrt(dt); the walk steps by K sqrt(W dt) after every W-th reading (W = 2
    at 100 Hz: 20 ms), from the draws after the white noise's, which only then are read."""
    config = {"preset": "ideal", "update_rate": 100, "accelerometer_noise_density": 0.002,
              "accelerometer_random_walk": 0.01, "gyroscope_noise_density": 0.001,
              "gyroscope_random_walk": 0.003}
    c, s = _unit(config, physics_hz=200)
    assert c[imu.WALK_SAMPLES] == 2
    step = math.sqrt(2 * 0.01)
    # accel white 1..3, gyro white 4..6; the walk's (accel 7..9, gyro 10..12) unread
    assert imu.sample_draws(c, s) == imu.WHITE_DRAWS
    accel, gyro = _read(c, s, ZERO, LEVEL, ZERO, ZERO, np.arange(1.0, 13.0))
    np.testing.assert_allclose(accel, [0.02, 0.04, G + 0.06], rtol=1e-12)
    np.testing.assert_allclose(gyro, [0.04, 0.05, 0.06], rtol=1e-12)
    assert s[imu.BIAS_WALK:imu.BIAS_WALK + 3].tolist() == [0.0, 0.0, 0.0]
    # the second reading: no white noise, the walk still 0, then the walk steps
    assert imu.sample_draws(c, s) == imu.SAMPLE_DRAWS
    accel, gyro = _read(c, s, ZERO, LEVEL, ZERO, ZERO,
                        np.concatenate((np.zeros(6), np.arange(7.0, 13.0))))
    assert accel.tolist() == [0.0, 0.0, G] and gyro.tolist() == [0.0, 0.0, 0.0]
    assert imu.sample_draws(c, s) == imu.WHITE_DRAWS
    accel, gyro = _read(c, s, ZERO, LEVEL, ZERO, ZERO, np.full(12, np.nan))  # walk unread
    assert np.isnan(accel).all()  # the white draws are read
    accel, gyro = _read(c, s, ZERO, LEVEL, ZERO, ZERO, np.zeros(12))
    np.testing.assert_allclose(accel, 0.01 * step * np.array([7.0, 8.0, 9.0]) + [0, 0, G],
                               rtol=1e-12)
    np.testing.assert_allclose(gyro, 0.003 * step * np.array([10.0, 11.0, 12.0]), rtol=1e-12)


@pytest.mark.parametrize(("rate", "samples"), [(500, 10), (400, 8), (240, 4), (200, 4),
                                                (100, 2), (60, 1), (50, 1), (10, 1)])
def test_the_walk_steps_every_w_samples_within_20_ms(rate, samples):
    """W = the most samples within imu.WALK_INTERVAL (20 ms), at least 1; the step's
    sigma K sqrt(W dt) keeps the walk's variance K^2 t at the steps."""
    params = resolve_sensor("imu", "bmi088", rate)  # every physics step
    c = params.coefficients
    assert imu.walk_samples(1.0 / rate) == samples == c[imu.WALK_SAMPLES]
    assert samples / rate <= imu.WALK_INTERVAL or samples == 1
    assert c[imu.WALK] == pytest.approx(params.accelerometer_random_walk
                                        * math.sqrt(samples / rate), rel=1e-15)
    assert c[imu.BLOCK + imu.WALK] == pytest.approx(params.gyroscope_random_walk
                                                    * math.sqrt(samples / rate), rel=1e-15)


def test_turn_on_errors_are_drawn_at_reset_with_the_configured_sigmas():
    params = resolve_sensor("imu", "bmi088", 240)
    c = params.coefficients
    rng = np.random.default_rng(1)
    draws = 4000
    biases, scales, angles = [], [], []
    state = imu.zeros_state()
    for _ in range(draws):
        imu.reset(c, rng.standard_normal(imu.RESET_DRAWS), state)
        accel = state[:imu.STATE_BLOCK]
        matrix = accel[imu.MATRIX:imu.MATRIX + 9].reshape(3, 3)
        biases.append(accel[imu.BIAS_ON:imu.BIAS_ON + 3].copy())
        scales.append(np.diag(matrix) - 1.0)
        angles.append(matrix[~np.eye(3, dtype=bool)] / np.repeat(np.diag(matrix), 2))
        walk = imu.STATE_BLOCK + imu.BIAS_WALK
        assert state[walk:walk + 3].tolist() == [0.0, 0.0, 0.0]
        assert state[imu.WALK_COUNT] == 0.0
    assert np.std(biases) == pytest.approx(params.accelerometer_turn_on_bias, rel=0.05)
    assert np.std(scales) == pytest.approx(params.accelerometer_scale_factor, rel=0.05)
    assert np.std(angles) == pytest.approx(params.accelerometer_misalignment, rel=0.05)
    # The gyroscope's turn-on bias, with its own sigma.
    assert np.max(np.abs(state[imu.STATE_BLOCK + imu.BIAS_ON:][:3])) < 5 * (
        params.gyroscope_turn_on_bias)


def test_scale_factor_and_misalignment_multiply_the_true_vector():
    c, s = _unit({"preset": "ideal", "gyroscope_scale_factor": 0.01,
                  "gyroscope_misalignment": 0.002})
    gyro_block = s[imu.STATE_BLOCK:]
    matrix = gyro_block[imu.MATRIX:imu.MATRIX + 9].reshape(3, 3)
    rates = np.array([0.5, -1.0, 2.0])
    _, gyro = _read(c, s, ZERO, LEVEL, rates, ZERO)
    np.testing.assert_allclose(gyro, matrix @ rates, rtol=1e-14)
    assert not np.allclose(matrix, np.eye(3))
