"""The downward rangefinder: height / cos(tilt), invalid beyond its limits or pointing up
(reading the range clipped to [0, max_range]), noise on valid readings."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyflyt_like.common.rotations import euler_to_quat
from pyflyt_like.sensors import rangefinder, resolve_sensor

LEVEL = np.array([0.0, 0.0, 0.0, 1.0])


def _coefficients(config="ideal"):
    return resolve_sensor("range", config, 240).coefficients


def _read(c, z, quat=LEVEL, floor_z=0.0, normal=0.0):
    return rangefinder.sample(c, np.array([0.3, -2.0, z]), np.asarray(quat, float), floor_z,
                              np.array([normal]))


def test_ideal_reads_height_over_cos_tilt():
    c = _coefficients()
    assert _read(c, 2.0) == (2.0, True)
    for roll, pitch in ((0.5, 0.0), (0.0, -0.7), (0.3, 0.4)):
        quat = euler_to_quat(roll, pitch, 1.0)
        cos_tilt = math.cos(roll) * math.cos(pitch)
        distance, valid = _read(c, 2.0, quat)
        assert valid and distance == pytest.approx(2.0 / cos_tilt, rel=1e-12)
    assert _read(c, 3.0, floor_z=1.0) == (2.0, True)


def test_invalid_beyond_the_limits_or_pointing_up():
    c = _coefficients("default")  # 0.3 to 12 m
    assert _read(c, 15.0) == (12.0, False)
    assert _read(c, 0.2) == (pytest.approx(0.2), False)
    assert _read(c, -0.5) == (0.0, False)  # below the floor
    assert _read(c, 5.0, euler_to_quat(math.pi, 0.0, 0.0)) == (12.0, False)  # upside down
    assert _read(c, 5.0, euler_to_quat(math.pi / 2, 0.0, 0.0)) == (12.0, False)  # on its side
    distance, valid = _read(c, 11.0, euler_to_quat(0.5, 0.0, 0.0))  # 12.53 m along the beam
    assert (distance, valid) == (12.0, False)


def test_noise_on_valid_readings():
    c = _coefficients({"preset": "default", "noise": 0.05})
    assert _read(c, 2.0, normal=1.0) == (pytest.approx(2.05), True)
    assert _read(c, 20.0, normal=1.0) == (12.0, False)  # invalid: no noise, clipped
    rng = np.random.default_rng(0)
    readings = [_read(c, 2.0, normal=n)[0] for n in rng.standard_normal(20_000)]
    assert np.std(readings) == pytest.approx(0.05, rel=0.05)


def test_sample_range_takes_a_measured_distance():
    """The PyBullet path's entry: a ray-tested distance (inf: no hit) under the same rules."""
    c = _coefficients("default")  # 0.3 to 12 m
    assert rangefinder.sample_range(c, 2.0, np.array([0.0])) == (2.0, True)
    assert rangefinder.sample_range(c, math.inf, np.array([1.0])) == (12.0, False)
    assert rangefinder.sample_range(c, 0.2, np.array([1.0])) == (0.2, False)
    noisy = _coefficients({"preset": "default", "noise": 0.05})
    assert rangefinder.sample_range(noisy, 2.0, np.array([1.0])) == (pytest.approx(2.05), True)
    for z in (0.1, 2.0, 11.9, 15.0):  # agrees with the plane model for a level vehicle
        assert rangefinder.sample_range(noisy, z, np.array([0.7])) == _read(noisy, z,
                                                                             normal=0.7)
