"""GNSS: the reading is the truth exactly ``latency`` samples late (ideal errors), the white
and Gauss-Markov noise sigmas come back within 5 % over long records, the fix flag waits
for time_to_fix, and the ring's push/pop."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.sensors import SensorSuite, gnss, resolve_sensor


def _unit(config, physics_hz=10, seed=0):
    params = resolve_sensor("gnss", config, physics_hz)
    coefficients = params.coefficients
    state, ring = gnss.zeros_state(), gnss.zeros_ring(params.latency)
    rng = np.random.default_rng(seed)
    gnss.reset(coefficients, rng.standard_normal(gnss.RESET_DRAWS), state, ring)
    return coefficients, state, ring, rng


def _truth(k):
    return np.array([0.5 * k, -2.0 * k, 10.0 + k]), np.array([k, 1.0, -0.25 * k])


@pytest.mark.parametrize("latency", [0, 1, 3, 7])
def test_the_reading_is_the_truth_exactly_latency_samples_late(latency):
    c, s, ring, _ = _unit({"preset": "ideal", "update_rate": 10, "latency": latency})
    pos_out, vel_out = np.zeros(3), np.zeros(3)
    for k in range(20):
        pos, vel = _truth(k)
        fix = gnss.sample(c, pos, vel, np.zeros(gnss.SAMPLE_DRAWS), s, ring, pos_out, vel_out)
        if k < latency:
            assert not fix and pos_out.tolist() == [0.0] * 3 and vel_out.tolist() == [0.0] * 3
        else:
            late_pos, late_vel = _truth(k - latency)
            assert fix and pos_out.tolist() == late_pos.tolist()
            assert vel_out.tolist() == late_vel.tolist()


def test_the_suite_delivers_latency_samples_late_at_the_gnss_rate():
    """Physics at 240 Hz, GNSS at 10 Hz (every 24 steps), 2 samples (0.2 s) late."""
    suite = SensorSuite({"gnss": {"preset": "ideal", "update_rate": 10, "latency": 2}}, 240,
                        seed=0)
    zero, level = np.zeros(3), np.array([0.0, 0.0, 0.0, 1.0])
    for step in range(24 * 6):
        pos = np.array([step / 240.0, 0.0, 1.0])
        reading = suite.update(pos, zero, zero, level, zero, zero)["gnss"]
        sample = step // 24
        assert reading["time"] == sample * 24 / 240.0
        if sample < 2:
            assert not reading["fix"]
        else:
            assert reading["fix"] and reading["position"][0] == (sample - 2) * 24 / 240.0


def test_time_to_fix():
    c, s, ring, _ = _unit({"preset": "ideal", "update_rate": 10, "time_to_fix": 0.3,
                           "latency": 1})
    fixes = [gnss.sample(c, *_truth(k), np.zeros(9), s, ring, np.zeros(3), np.zeros(3))
             for k in range(8)]
    # Measured with a fix from sample 3 (0.3 s) on; delivered one sample later.
    assert fixes == [False] * 4 + [True] * 4


def _record(config, samples, seed=0):
    c, s, ring, rng = _unit(config, seed=seed)
    pos_out, vel_out = np.zeros(3), np.zeros(3)
    zero = np.zeros(3)
    positions, velocities = np.empty((samples, 3)), np.empty((samples, 3))
    for k, normals in enumerate(rng.standard_normal((samples, gnss.SAMPLE_DRAWS))):
        gnss.sample(c, zero, zero, normals, s, ring, pos_out, vel_out)
        positions[k], velocities[k] = pos_out, vel_out
    return positions, velocities


def test_white_noise_sigmas_within_five_percent():
    config = {"preset": "ideal", "update_rate": 10, "horizontal_noise": 0.5,
              "vertical_noise": 0.8, "velocity_noise": 0.1}
    positions, velocities = _record(config, 20_000)
    sigma = np.std(positions, axis=0)
    assert sigma == pytest.approx([0.5, 0.5, 0.8], rel=0.05)
    assert np.std(velocities, axis=0) == pytest.approx([0.1] * 3, rel=0.05)
    print(f"white: position sigma {sigma}, velocity sigma {np.std(velocities, axis=0)}")
    # White: no correlation from one sample to the next.
    assert abs(np.corrcoef(positions[:-1, 0], positions[1:, 0])[0, 1]) < 0.03


def test_gauss_markov_stationary_sigma_within_five_percent():
    """tau = 1 s at 10 Hz over 100 000 samples (10 000 time constants)."""
    config = {"preset": "ideal", "update_rate": 10, "correlated_horizontal": 0.5,
              "correlated_vertical": 1.2, "correlated_time_constant": 1.0}
    positions, _ = _record(config, 100_000, seed=1)
    sigma = np.std(positions, axis=0)
    assert sigma == pytest.approx([0.5, 0.5, 1.2], rel=0.05)
    phi = np.exp(-0.1)
    for axis in range(3):
        lag_one = np.corrcoef(positions[:-1, axis], positions[1:, axis])[0, 1]
        assert lag_one == pytest.approx(phi, abs=0.01)
    print(f"Gauss-Markov: sigma {sigma} (configured 0.5, 0.5, 1.2)")


def test_push_and_pop_keep_a_ring():
    ring = gnss.zeros_ring(2)
    assert ring.shape == (3, gnss.RING_WIDTH)
    gnss.push(ring, 1, np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0]), True)
    pos, vel = np.zeros(3), np.zeros(3)
    assert gnss.pop(ring, 1, pos, vel)
    assert pos.tolist() == [1.0, 2.0, 3.0] and vel.tolist() == [4.0, 5.0, 6.0]
    assert not gnss.pop(ring, 0, pos, vel) and pos.tolist() == [0.0] * 3


@pytest.mark.parametrize(("physics_hz", "update_rate", "most"), [
    (240, 10, 100), (240, None, 2400), (500, 1, 10), (10_000, None, 100_000),
    (10**6, None, gnss.MAX_LATENCY_SAMPLES), (10**6, 20, 200)])
def test_the_latency_is_bounded_to_ten_seconds_and_a_hundred_thousand_samples(
        physics_hz, update_rate, most):
    assert gnss.most_latency(update_rate or physics_hz) == most
    config = {"preset": "ideal", "update_rate": update_rate}
    params = resolve_sensor("gnss", {**config, "latency": most}, physics_hz)
    assert params.latency == most
    assert params.latency * params.dt <= gnss.MAX_LATENCY_SECONDS + 1e-12
    assert gnss.zeros_ring(params.latency).nbytes <= (gnss.MAX_LATENCY_SAMPLES + 1) * 7 * 8
    with pytest.raises(ValueError, match=rf'sensors\["gnss"\]\["latency"\]={most + 1} '
                                         rf"samples .* more than the {most} allowed"):
        resolve_sensor("gnss", {**config, "latency": most + 1}, physics_hz)


def test_the_time_to_fix_is_bounded_and_its_bound_works():
    params = resolve_sensor("gnss", {"preset": "ideal", "update_rate": 10,
                                     "time_to_fix": gnss.MAX_TIME_TO_FIX}, 240)
    assert params.coefficients[gnss.FIX_SAMPLES] == 36_000
    with pytest.raises(ValueError, match=r'sensors\["gnss"\]\["time_to_fix"\] must be at '
                                         r"most 3600 \[s\]"):
        resolve_sensor("gnss", {"preset": "ideal", "time_to_fix": 3600.5}, 240)
