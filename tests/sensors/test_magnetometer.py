"""The magnetometer: the Earth field from intensity, declination and inclination (ENU), the
ideal reading R^T B, the hard-iron bias and the noise."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyflyt_like.common.rotations import euler_to_matrix, euler_to_quat
from pyflyt_like.sensors import earth_field, magnetometer, resolve_sensor


def test_the_earth_field_points_north_and_down_in_enu():
    np.testing.assert_allclose(earth_field(50.0, 0.0, 0.0), [0.0, 50.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(earth_field(50.0, 90.0, 0.0), [50.0, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(earth_field(50.0, 0.0, 90.0), [0.0, 0.0, -50.0], atol=1e-12)
    b = earth_field(48.0, 3.0, 63.0)
    assert np.linalg.norm(b) == pytest.approx(48.0)
    assert math.degrees(math.atan2(b[0], b[1])) == pytest.approx(3.0)
    assert math.degrees(math.atan2(-b[2], math.hypot(b[0], b[1]))) == pytest.approx(63.0)


def test_ideal_reads_the_field_in_the_body_frame():
    params = resolve_sensor("mag", "ideal", 240)
    c, s, out = params.coefficients, magnetometer.zeros_state(), np.zeros(3)
    magnetometer.reset(c, np.zeros(3), s)
    b = earth_field(params.field_intensity, params.declination, params.inclination)
    rng = np.random.default_rng(0)
    for roll, pitch, yaw in rng.uniform(-math.pi, math.pi, (20, 3)):
        r = np.array(euler_to_matrix(roll, pitch, yaw)).reshape(3, 3)
        magnetometer.sample(c, np.array(euler_to_quat(roll, pitch, yaw)), np.zeros(3), s, out)
        np.testing.assert_allclose(out, r.T @ b, atol=1e-12)
    level = np.array([0.0, 0.0, 0.0, 1.0])
    magnetometer.sample(c, level, np.zeros(3), s, out)
    assert out.tolist() == b.tolist()


def test_hard_iron_and_noise_add_to_the_reading():
    config = {"preset": "ideal", "hard_iron": [1.0, -2.0, 3.0], "hard_iron_sigma": 0.5,
              "noise": 0.2}
    params = resolve_sensor("mag", config, 240)
    c, s, out = params.coefficients, magnetometer.zeros_state(), np.zeros(3)
    magnetometer.reset(c, np.array([1.0, 2.0, -1.0]), s)
    assert s.tolist() == [0.5, 1.0, -0.5]
    b = earth_field(params.field_intensity, params.declination, params.inclination)
    level = np.array([0.0, 0.0, 0.0, 1.0])
    magnetometer.sample(c, level, np.zeros(3), s, out)
    np.testing.assert_allclose(out, b + [1.5, -1.0, 2.5], atol=1e-12)
    rng = np.random.default_rng(1)
    readings = []
    for normals in rng.standard_normal((20_000, 3)):
        magnetometer.sample(c, level, normals, s, out)
        readings.append(out.copy())
    assert np.std(readings, axis=0) == pytest.approx([0.2] * 3, rel=0.05)
