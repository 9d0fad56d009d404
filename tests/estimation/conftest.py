"""Shared recordings of the synthetic figure-eight (pyflyt_like.estimation.reference_flight),
made once per session: recording is cheap, but each filter run reads the same stream."""

from __future__ import annotations

import pytest

from pyflyt_like.estimation import reference_flight as figure_eight

#: Flight length [s] and the settling time [s] excluded from the RMS errors.
DURATION, SETTLE = 90.0, 10.0


@pytest.fixture(scope="session")
def real_flight():
    """90 s through BMI088 + GNSS 0.5 m + default barometer and magnetometer, seed 0."""
    return figure_eight.record(figure_eight.REAL_SENSORS, DURATION, seed=0)


@pytest.fixture(scope="session")
def ideal_flight():
    """30 s through the "ideal" presets."""
    return figure_eight.record(figure_eight.IDEAL_SENSORS, 30.0, seed=0)
