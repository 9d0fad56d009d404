"""The ``gust`` wind field: a 1 - cos discrete gust on a base wind."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyflyt_like.core.wind import WIND_FIELDS, DiscreteGustWind

BASE = np.array([1.0, 0.0, 0.0])
AMPLITUDE = np.array([2.0, -1.0, 0.5])
START, DURATION = 2.0, 4.0


def make() -> DiscreteGustWind:
    return DiscreteGustWind(np.random.default_rng(0), amplitude=AMPLITUDE, start_time=START,
                            duration=DURATION, base_velocity=BASE)


def at(wind: DiscreteGustWind, time: float) -> np.ndarray:
    return wind(time, np.zeros((1, 3)))[0]


def test_registered_under_its_name():
    assert WIND_FIELDS["gust"] is DiscreteGustWind


def test_start_mid_end_and_outside():
    wind = make()
    np.testing.assert_allclose(at(wind, START), BASE, atol=1e-12)             # start
    np.testing.assert_allclose(at(wind, START + DURATION / 4), BASE + AMPLITUDE / 2,
                               atol=1e-12)                                    # quarter: half way
    np.testing.assert_allclose(at(wind, START + DURATION / 2), BASE + AMPLITUDE,
                               atol=1e-12)                                    # mid: the peak
    np.testing.assert_allclose(at(wind, START + DURATION), BASE, atol=1e-12)  # end
    for outside in (0.0, START - 1e-9, START + DURATION + 1e-9, 100.0):
        np.testing.assert_array_equal(at(wind, outside), BASE)


def test_profile_matches_closed_form():
    wind = make()
    for time in np.linspace(0.0, 8.0, 161):
        inside = START <= time <= START + DURATION
        shape = 0.5 * (1.0 - math.cos(2.0 * math.pi * (time - START) / DURATION))
        expected = BASE + AMPLITUDE * (shape if inside else 0.0)
        np.testing.assert_allclose(at(wind, time), expected, atol=1e-12)


@pytest.mark.parametrize("n", [1, 5])
def test_shape_and_uniform_in_space(n):
    wind = make()
    pos = np.column_stack([np.arange(n), -np.arange(n), np.arange(n) * 10.0 + 1.0])
    out = wind(START + 1.0, pos)
    assert out.shape == (n, 3)
    np.testing.assert_array_equal(out, np.tile(out[0], (n, 1)))
    assert wind(0.0, pos).shape == (n, 3)


def test_base_defaults_to_zero_and_results_are_new_arrays():
    wind = DiscreteGustWind(np.random.default_rng(0), amplitude=[0.0, 3.0, 0.0], start_time=0.0,
                            duration=1.0)
    peak = wind(0.5, np.zeros((1, 3)))
    np.testing.assert_allclose(peak, [[0.0, 3.0, 0.0]], atol=1e-12)
    peak[:] = -7.0
    np.testing.assert_allclose(wind(0.5, np.zeros((1, 3))), [[0.0, 3.0, 0.0]], atol=1e-12)
    np.testing.assert_array_equal(wind(2.0, np.zeros((1, 3))), [[0.0, 0.0, 0.0]])
