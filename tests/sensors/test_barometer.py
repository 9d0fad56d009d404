"""The barometer: the ISA troposphere against hand-computed values, the firmware's inverse,
the ground altitude option, and the white noise and drift sigmas."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.sensors import (
    barometer,
    isa_altitude,
    isa_pressure,
    isa_temperature,
    resolve_sensor,
)


def _unit(config="ideal", physics_hz=240, seed=0):
    params = resolve_sensor("baro", config, physics_hz)
    coefficients, state = params.coefficients, barometer.zeros_state()
    rng = np.random.default_rng(seed)
    barometer.reset(coefficients, rng.standard_normal(barometer.RESET_DRAWS), state)
    return coefficients, state, rng


@pytest.mark.parametrize(("altitude", "pressure", "temperature", "tolerance"), [
    (0.0, 101325.0, 288.15, 1e-9),
    # By hand: T = 281.65 K, p = 101325 (281.65 / 288.15)^5.25588 = 89874.6 Pa.
    (1000.0, 89874.6, 281.65, 0.05),
    (5000.0, 54019.9, 255.65, 0.05),
    (11000.0, 22632.06, 216.65, 0.05),  # the tropopause (U.S. Standard Atmosphere 1976)
    # Below sea level, the Dead Sea shore: 101325 (290.75 / 288.15)^5.25588 = 106223.4 Pa.
    (-400.0, 106223.4, 290.75, 0.05),
])
def test_isa_matches_hand_computed_values(altitude, pressure, temperature, tolerance):
    assert isa_pressure(altitude) == pytest.approx(pressure, abs=tolerance)
    assert isa_temperature(altitude) == pytest.approx(temperature, abs=1e-9)
    assert isa_altitude(isa_pressure(altitude)) == pytest.approx(altitude, abs=1e-6)


def test_ideal_reads_the_isa_pressure_and_its_altitude():
    c, s, _ = _unit()
    out = np.zeros(2)
    for z in (0.0, 1.5, 120.0, 2500.0):
        barometer.sample(c, z, np.zeros(barometer.SAMPLE_DRAWS), s, out)
        assert out[0] == isa_pressure(z)
        assert out[1] == pytest.approx(z, abs=1e-6)
    c, s, _ = _unit({"preset": "ideal", "ground_altitude": 1000.0})
    barometer.sample(c, 0.0, np.zeros(2), s, out)
    assert out[0] == pytest.approx(89874.6, abs=0.05)
    assert out[1] == pytest.approx(1000.0, abs=1e-6)  # above sea level, as the firmware's


def test_white_noise_and_drift_have_their_sigmas():
    rate = 20
    config = {"preset": "ideal", "update_rate": rate, "pressure_noise": 3.0}
    c, s, rng = _unit(config, physics_hz=rate)
    out = np.zeros(2)
    pressures = []
    for normals in rng.standard_normal((20_000, 2)):
        barometer.sample(c, 10.0, normals, s, out)
        pressures.append(out[0])
    assert np.std(pressures) == pytest.approx(3.0, rel=0.05)
    assert np.mean(pressures) == pytest.approx(isa_pressure(10.0), abs=0.1)
    # The drift alone: a Gauss-Markov process of stationary sigma 10 Pa.
    config = {"preset": "ideal", "update_rate": rate, "drift_sigma": 10.0,
              "drift_time_constant": 1.0}
    c, s, rng = _unit(config, physics_hz=rate)
    drift = []
    for normals in rng.standard_normal((100_000, 2)):
        barometer.sample(c, 0.0, normals, s, out)
        drift.append(out[0] - barometer.SEA_LEVEL_PRESSURE)
    drift = np.array(drift)
    assert np.std(drift) == pytest.approx(10.0, rel=0.05)
    lag_one = np.corrcoef(drift[:-1], drift[1:])[0, 1]
    assert lag_one == pytest.approx(np.exp(-1.0 / rate), abs=0.01)


def test_a_noisy_altitude_follows_the_noisy_pressure():
    c, s, _ = _unit({"preset": "ideal", "pressure_noise": 12.0})
    out = np.zeros(2)
    barometer.sample(c, 0.0, np.array([1.0, 0.0]), s, out)  # +12 Pa: about 1 m lower
    assert out[0] == barometer.SEA_LEVEL_PRESSURE + 12.0
    assert out[1] == pytest.approx(isa_altitude(101337.0)) and -1.1 < out[1] < -0.9
