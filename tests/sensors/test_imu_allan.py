"""Allan deviation of long static IMU records (allantools): each datasheet preset's noise
densities come back within 10 % at tau = 1 s, and the bias random walk alone rises with
slope +1/2 (ADEV = K sqrt(tau / 3)), also where it steps only every W samples (500 Hz: W =
10, imu.WALK_INTERVAL).

The records are made by the model's own per-sample function, compiled with numba as the
batched engine compiles it (a 2 h record at 100 Hz is 720 000 samples: too many for the
plain-Python function within the test's time)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

from pyflyt_like.compiled.jit import compile_shared
from pyflyt_like.compiled.rotations import cross, quat_to_matrix, transpose_times_vector
from pyflyt_like.sensors import imu, load_kalibr_imu, noise, resolve_sensor
from tests.extras import require_extra

allantools = require_extra("test", "allantools")

_saturate_quantise = compile_shared(noise.saturate_quantise)
_specific_force = compile_shared(imu.specific_force, quat_to_matrix, transpose_times_vector,
                                 cross)
_measure = compile_shared(imu.measure, _saturate_quantise)
_sample = compile_shared(imu.sample, _specific_force, _measure, transpose_times_vector)

G = 9.81
CHUNK = 100_000  # samples drawn at once (memory)
SENSORS = (("accelerometer", slice(0, 3)), ("gyroscope", slice(3, 6)))


@njit(cache=False)
def _static_chunk(coefficients, normals, state, average, record):
    """Samples of a level IMU at rest, one per row of ``normals``, into ``record`` (n /
    average, 6): each row the mean of ``average`` consecutive samples."""
    zero = np.zeros(3)
    quat = np.array([0.0, 0.0, 0.0, 1.0])
    accel, gyro = np.zeros(3), np.zeros(3)
    for row in range(record.shape[0]):
        for a in range(6):
            record[row, a] = 0.0
        for k in range(row * average, (row + 1) * average):
            _sample(coefficients, zero, quat, zero, zero, G, normals[k], state, accel, gyro)
            for a in range(3):
                record[row, a] += accel[a] / average
                record[row, 3 + a] += gyro[a] / average


def static_record(config, rate: int, seconds: float, seed: int = 0, average: int = 1):
    """A static record (n, 6) [accel m/s^2, gyro rad/s] of ``seconds`` at ``rate`` Hz,
    each row the mean of ``average`` samples (rows at ``rate / average`` Hz: the Allan
    deviation at multiples of the row period is the samples'), and the resolved
    parameters."""
    params = resolve_sensor("imu", config, rate)
    coefficients = params.coefficients.copy()
    rng = np.random.default_rng(seed)
    state = imu.zeros_state()
    imu.reset(coefficients, rng.standard_normal(imu.RESET_DRAWS), state)
    n = int(seconds * rate) // average * average
    record = np.empty((n // average, 6))
    chunk = CHUNK // average * average
    for start in range(0, n, chunk):
        stop = min(start + chunk, n)
        _static_chunk(coefficients, rng.standard_normal((stop - start, imu.SAMPLE_DRAWS)),
                      state, average, record[start // average:stop // average])
    return record, params


def adev(series: np.ndarray, rate: int, taus) -> tuple[np.ndarray, np.ndarray]:
    taus_out, deviation, _, _ = allantools.oadev(series, rate=rate, data_type="freq",
                                                 taus=np.asarray(taus, float))
    return taus_out, deviation


FIT_TAUS = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]


@pytest.mark.parametrize("preset", ["default", "bmi088", "vn100"])
def test_the_noise_density_comes_back_at_one_second(preset):
    """2 h at 100 Hz. ADEV(tau)^2 = N^2 / tau + K^2 tau / 3: N from a fit of both terms
    (the default preset's accelerometer walk is not negligible at 1 s), and ADEV(1 s)
    itself against the model's sqrt(N^2 + K^2 / 3)."""
    rate = 100
    record, params = static_record(preset, rate, 2 * 3600.0)
    for sensor, columns in SENSORS:
        density = getattr(params, f"{sensor}_noise_density")
        walk = getattr(params, f"{sensor}_random_walk")
        for axis in range(3):
            taus, deviation = adev(record[:, columns][:, axis], rate, FIT_TAUS)
            # Least squares in relative terms: rows (1/tau, tau/3) / ADEV^2 -> 1.
            design = np.column_stack((1.0 / taus, taus / 3.0)) / deviation[:, None] ** 2
            (n2, k2), *_ = np.linalg.lstsq(design, np.ones_like(taus), rcond=None)
            fitted = math.sqrt(n2)
            assert fitted == pytest.approx(density, rel=0.10), (sensor, axis, fitted)
            at_one = deviation[list(taus).index(1.0)]
            assert at_one == pytest.approx(math.hypot(density, walk / math.sqrt(3.0)),
                                           rel=0.10), (sensor, axis, at_one)
            print(f"{preset} {sensor}[{axis}]: N {density:.4e}, fitted {fitted:.4e} "
                  f"({fitted / density - 1:+.2%}), ADEV(1 s) {at_one:.4e}")


@pytest.mark.parametrize(("preset", "seed", "sample_rate"), [
    ("default", 1, 10), ("bmi088", 2, 10), ("vn100", 3, 10),
    # 36 million samples (~10 s on 2 cores): the walk held over W = 10 samples
    pytest.param("bmi088", 4, 500, marks=pytest.mark.slow)])
def test_the_bias_random_walk_alone_rises_with_slope_one_half(preset, seed, sample_rate):
    """20 h with the white noise and quantisation off, at 10 Hz (the walk steps at every
    sample) or at 500 Hz (every 10th) averaged to 10 Hz: log-log slope of ADEV over tau in
    [10, 300] s within 0.1 of +1/2, and ADEV(10 s) = K sqrt(10 / 3) within 10 %."""
    rate = 10
    config = {"preset": preset, "accelerometer_noise_density": 0.0,
              "gyroscope_noise_density": 0.0, "accelerometer_resolution": 0.0,
              "gyroscope_resolution": 0.0}
    record, params = static_record(config, sample_rate, 20 * 3600.0, seed=seed,
                                   average=sample_rate // rate)
    assert params.coefficients[imu.WALK_SAMPLES] == (10 if sample_rate == 500 else 1)
    taus = [10.0, 20.0, 50.0, 100.0, 200.0, 300.0]
    for sensor, columns in SENSORS:
        walk = getattr(params, f"{sensor}_random_walk")
        for axis in range(3):
            taus_out, deviation = adev(record[:, columns][:, axis], rate, taus)
            slope = np.polyfit(np.log(taus_out), np.log(deviation), 1)[0]
            assert slope == pytest.approx(0.5, abs=0.1), (sensor, axis, slope)
            assert deviation[0] == pytest.approx(walk * math.sqrt(10.0 / 3.0), rel=0.10)
            print(f"{preset} {sensor}[{axis}]: slope {slope:.3f}, ADEV(10 s) / "
                  f"K sqrt(10/3) {deviation[0] / (walk * math.sqrt(10.0 / 3.0)):.3f}")


def test_an_imu_from_a_kalibr_file_has_its_noise_densities_at_one_second(tmp_path):
    """Kalibr's example imu.yaml (ADIS16448: continuous-time densities, 200 Hz) read by
    load_kalibr_imu: 20 min at its 200 Hz, ADEV(1 s) within 10 % of each noise density N
    (its walk adds K^2 / 3, under 0.04 % of N^2 here; the model's sqrt(N^2 + K^2 / 3) too)."""
    path = tmp_path / "imu.yaml"
    path.write_text("accelerometer_noise_density: 0.006\naccelerometer_random_walk: 0.0002\n"
                    "gyroscope_noise_density: 0.0004\ngyroscope_random_walk: 4.0e-06\n"
                    "rostopic: /imu0\nupdate_rate: 200.0\n", encoding="utf-8")
    rate = 200
    record, params = static_record(load_kalibr_imu(path), rate, 20 * 60.0, seed=5)
    assert params.update_rate == rate and params.gyroscope_noise_density == 0.0004
    for sensor, columns in SENSORS:
        density = getattr(params, f"{sensor}_noise_density")
        walk = getattr(params, f"{sensor}_random_walk")
        for axis in range(3):
            taus, deviation = adev(record[:, columns][:, axis], rate, [1.0])
            assert taus[0] == 1.0
            assert deviation[0] == pytest.approx(density, rel=0.10), (sensor, axis)
            assert deviation[0] == pytest.approx(math.hypot(density, walk / math.sqrt(3.0)),
                                                 rel=0.10), (sensor, axis)
