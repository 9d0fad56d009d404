"""The sensors' schedule (pyflyt_like.sensors.schedule): a sensor of period p samples the
reset state and the state after every physics step k with k % p == 0, told by a countdown;
samples_within counts what the next calls will sample without changing the countdown.
Checked as plain Python and compiled (the engines' version)."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.compiled.sensor_models import sample_due as compiled_sample_due
from pyflyt_like.sensors.schedule import sample_due, samples_within

PERIODS = np.array([0, 1, 2, 3, 5, 7, 50], np.int64)


def test_a_sensor_samples_after_every_step_that_its_period_divides():
    countdown = np.zeros(PERIODS.size)
    for k in range(120):
        sampled = [sample_due(PERIODS, countdown, s, k == 0) for s in range(PERIODS.size)]
        assert sampled == [p > 0 and k % p == 0 for p in PERIODS]


def test_the_compiled_schedule_is_the_same():
    from numba import njit

    @njit(cache=False)
    def run(periods, countdown, steps, out):
        for k in range(steps):
            for s in range(periods.shape[0]):
                out[k, s] = compiled_sample_due(periods, countdown, s, k == 0)

    out = np.zeros((120, PERIODS.size), np.bool_)
    run(PERIODS, np.zeros(PERIODS.size), 120, out)
    k = np.arange(120)[:, None]
    np.testing.assert_array_equal(out, (PERIODS > 0) & (k % np.maximum(PERIODS, 1) == 0))


def test_a_reset_restarts_the_schedule():
    countdown = np.zeros(PERIODS.size)
    for k in range(13):  # part-way through every period
        [sample_due(PERIODS, countdown, s, k == 0) for s in range(PERIODS.size)]
    assert [sample_due(PERIODS, countdown, s, True) for s in range(PERIODS.size)] == [
        p > 0 for p in PERIODS]


@pytest.mark.parametrize("start", [0, 1, 4, 13, 49, 50, 51])
@pytest.mark.parametrize("calls", [0, 1, 3, 50, 256])
def test_samples_within_counts_the_samples_the_next_calls_take(start, calls):
    countdown = np.zeros(PERIODS.size)
    for k in range(start):
        [sample_due(PERIODS, countdown, s, k == 0) for s in range(PERIODS.size)]
    at_reset = start == 0
    before = countdown.copy()
    predicted = [samples_within(PERIODS, countdown, s, at_reset, calls)
                 for s in range(PERIODS.size)]
    np.testing.assert_array_equal(countdown, before)  # counting leaves it as it was
    counted = np.zeros(PERIODS.size, int)
    for k in range(start, start + calls):
        counted += [sample_due(PERIODS, countdown, s, k == 0) for s in range(PERIODS.size)]
    np.testing.assert_array_equal(predicted, counted)
    # the multiples of each period in [start, start + calls), as the modulo tells them
    expected = [0 if p == 0 else len(range(-(-start // p) * p, start + calls, p))
                for p in PERIODS]
    np.testing.assert_array_equal(predicted, expected)
