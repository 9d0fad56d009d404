"""The ``constant`` wind field: one velocity everywhere, at all times."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.core.wind import WIND_FIELDS, ConstantWind


def positions(n: int) -> np.ndarray:
    """(n, 3) positions [m] spread over space and height."""
    return np.column_stack([np.arange(n) * 3.0 - 4.0, np.arange(n) * -2.0, np.arange(n) + 0.5])


def test_registered_under_its_name():
    assert WIND_FIELDS["constant"] is ConstantWind


@pytest.mark.parametrize("n", [1, 5])
def test_value_and_shape(n):
    wind = ConstantWind(np.random.default_rng(0), velocity=[2.0, -1.5, 0.25])
    for time in (0.0, 0.5, 1e4):
        out = wind(time, positions(n))
        assert out.shape == (n, 3)
        np.testing.assert_array_equal(out, np.tile([2.0, -1.5, 0.25], (n, 1)))


def test_default_is_one_metre_per_second_along_x():
    out = ConstantWind(np.random.default_rng(0))(0.0, positions(1))
    np.testing.assert_array_equal(out, [[1.0, 0.0, 0.0]])


def test_output_is_a_new_array_each_call():
    wind = ConstantWind(np.random.default_rng(0), velocity=(3.0, 0.0, 0.0))
    first = wind(0.0, positions(1))
    first[:] = 99.0  # a caller scribbling on the result must not change the field
    np.testing.assert_array_equal(wind(0.1, positions(1)), [[3.0, 0.0, 0.0]])


def test_does_not_consume_randomness():
    rng = np.random.default_rng(5)
    wind = ConstantWind(rng, velocity=(1.0, 1.0, 0.0))
    for step in range(10):
        wind(step / 240, positions(2))
    assert rng.standard_normal() == np.random.default_rng(5).standard_normal()
