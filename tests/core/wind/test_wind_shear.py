"""The ``shear`` wind field: log and power law profiles against their closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyflyt_like.core.wind import WIND_FIELDS, ShearWind

V_REF = np.array([4.0, -3.0, 0.0])  # 5 m/s at the reference height
HEIGHTS = [0.05, 0.5, 2.0, 10.0, 37.0, 150.0]


def column(heights) -> np.ndarray:
    """(n, 3) positions [m] at the given heights, at scattered horizontal positions."""
    heights = np.asarray(heights, dtype=float)
    n = len(heights)
    return np.column_stack([np.linspace(-50, 50, n), np.linspace(20, -20, n), heights])


def test_registered_under_its_name():
    assert WIND_FIELDS["shear"] is ShearWind


@pytest.mark.parametrize("exponent", [None, 0.1, 0.3])
def test_power_law(exponent):
    options = {} if exponent is None else {"exponent": exponent}
    alpha = 1.0 / 7.0 if exponent is None else exponent
    wind = ShearWind(np.random.default_rng(0), reference_velocity=V_REF, reference_height=10.0,
                     law="power", **options)
    for z in HEIGHTS:
        expected = V_REF * (z / 10.0) ** alpha
        np.testing.assert_allclose(wind(0.0, column([z])), [expected], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(wind(0.0, column([10.0])), [V_REF], rtol=1e-12)
    np.testing.assert_allclose(wind.profile(np.array(HEIGHTS)),
                               (np.array(HEIGHTS) / 10.0) ** alpha, rtol=1e-12)


def test_power_law_is_zero_at_and_below_ground():
    wind = ShearWind(np.random.default_rng(0), reference_velocity=V_REF)
    np.testing.assert_array_equal(wind(0.0, column([0.0, -1.0, -0.001])), np.zeros((3, 3)))


@pytest.mark.parametrize("z0", [0.0002, 0.03, 0.5])
def test_log_law(z0):
    wind = ShearWind(np.random.default_rng(0), reference_velocity=V_REF, reference_height=20.0,
                     law="log", roughness_length=z0)
    for z in HEIGHTS:
        expected = V_REF * max(math.log(z / z0), 0.0) / math.log(20.0 / z0)
        np.testing.assert_allclose(wind(0.0, column([z])), [expected], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(wind(0.0, column([20.0])), [V_REF], rtol=1e-12)


def test_log_law_is_zero_at_and_below_roughness_length():
    wind = ShearWind(np.random.default_rng(0), reference_velocity=V_REF, law="log",
                     roughness_length=0.1)
    np.testing.assert_array_equal(wind(0.0, column([0.1, 0.05, 0.0, -2.0])), np.zeros((4, 3)))
    assert np.all(np.linalg.norm(wind(0.0, column([0.11])), axis=1) > 0.0)


@pytest.mark.parametrize("options", [dict(law="power"),
                                     dict(law="power", exponent=0.25),
                                     dict(law="log", roughness_length=0.03)])
@pytest.mark.parametrize("n", [1, 5])
def test_shapes_and_one_position_path_agrees_with_many(options, n):
    wind = ShearWind(np.random.default_rng(0), reference_velocity=V_REF, **options)
    heights = np.array([-1.0, 0.02, 1.0, 10.0, 80.0])[:n]
    many = wind(0.0, column(heights))
    assert many.shape == (n, 3)
    one_by_one = np.vstack([wind(0.0, column([z])) for z in heights])
    np.testing.assert_allclose(many, one_by_one, rtol=1e-14, atol=1e-15)
    assert np.all(many[:, 2] == 0.0)
    # The direction is that of the reference wind; only the speed changes with height.
    np.testing.assert_allclose(np.cross(many, V_REF), 0.0, atol=1e-12)


def test_monotone_in_height_and_independent_of_time_and_horizontal_position():
    wind = ShearWind(np.random.default_rng(0), reference_velocity=V_REF, law="log",
                     roughness_length=0.03)
    heights = np.linspace(0.0, 100.0, 201)
    speeds = np.linalg.norm(wind(0.0, column(heights)), axis=1)
    assert np.all(np.diff(speeds) >= 0.0) and speeds[-1] > speeds[0]
    shifted = column(heights)
    shifted[:, :2] += 1234.5
    np.testing.assert_array_equal(wind(99.0, shifted), wind(0.0, column(heights)))
