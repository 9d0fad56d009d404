"""Seeds give bit-identical estimates; bad inputs raise errors naming the argument."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyflyt_like.estimation import ComplementaryFilter, ErrorStateEkf
from pyflyt_like.estimation import reference_flight as figure_eight
from pyflyt_like.estimation.evaluation import run
from pyflyt_like.sensors import resolve_sensors

PARAMS = resolve_sensors(figure_eight.REAL_SENSORS, 200)
LEVEL = np.array([0.0, 0.0, 0.0, 1.0])


def _started() -> ErrorStateEkf:
    return ErrorStateEkf.from_params(PARAMS, initial={"position": np.zeros(3),
                                                      "velocity": np.zeros(3),
                                                      "quaternion": LEVEL})


def test_same_seed_bit_identical():
    runs = []
    for _ in range(2):
        _, readings, suite = figure_eight.record(figure_eight.REAL_SENSORS, 8.0, seed=7)
        ekf = run(ErrorStateEkf.from_params(suite.params), readings)
        mahony = run(ComplementaryFilter.from_params(suite.params), readings)
        runs.append((ekf, mahony))
    for key in ("position", "velocity", "quaternion"):
        assert np.array_equal(runs[0][0][key], runs[1][0][key], equal_nan=True)
    assert np.array_equal(runs[0][1]["quaternion"], runs[1][1]["quaternion"], equal_nan=True)
    _, readings, suite = figure_eight.record(figure_eight.REAL_SENSORS, 8.0, seed=8)
    other = run(ErrorStateEkf.from_params(suite.params), readings)
    assert not np.array_equal(other["position"], runs[0][0]["position"], equal_nan=True)


def test_missing_sensors():
    with pytest.raises(ValueError, match="gnss_params.*unobservable.*allowed"):
        ErrorStateEkf(PARAMS["imu"], None, PARAMS["baro"], PARAMS["mag"])
    with pytest.raises(ValueError, match="needs an 'imu'"):
        ErrorStateEkf.from_params({"gnss": PARAMS["gnss"]})
    with pytest.raises(ValueError, match="mag_params or initial\\['quaternion'\\]"):
        ErrorStateEkf(PARAMS["imu"], PARAMS["gnss"])
    ErrorStateEkf(PARAMS["imu"], PARAMS["gnss"], initial={"quaternion": LEVEL})  # enough
    with pytest.raises(ValueError, match="mag_params or initial_quaternion"):
        ComplementaryFilter(PARAMS["imu"])
    with pytest.raises(TypeError, match="imu_params must be a ImuParams"):
        ErrorStateEkf(PARAMS["gnss"], PARAMS["gnss"])
    with pytest.raises(TypeError, match="baro_params"):
        ErrorStateEkf(PARAMS["imu"], PARAMS["gnss"], PARAMS["mag"], PARAMS["mag"])
    with pytest.raises(ValueError, match="estimate_baro_bias=True needs baro_params"):
        ErrorStateEkf(PARAMS["imu"], PARAMS["gnss"], mag_params=PARAMS["mag"],
                      estimate_baro_bias=True)
    ekf = ErrorStateEkf(PARAMS["imu"], PARAMS["gnss"], mag_params=PARAMS["mag"])
    ekf.initialise([0.0, 0.0, 9.81], [0.0, 21.0, -42.0], position=np.zeros(3))
    with pytest.raises(ValueError, match="update_baro needs baro_params"):
        ekf.update_baro(100.0)


@pytest.mark.parametrize(("call", "pattern", "error"), [
    (lambda f: f.predict([0.0, 0.0], np.zeros(3), 0.01), "accel must have shape", ValueError),
    (lambda f: f.predict(np.zeros(3), [0.0, math.nan, 0.0], 0.01), "gyro must be finite",
     ValueError),
    (lambda f: f.predict(np.zeros(3), np.zeros(3), -0.01), "dt must be >= 0", ValueError),
    (lambda f: f.predict(np.zeros(3), np.zeros(3), "0.01"), "dt must be", TypeError),
    (lambda f: f.update_gnss(np.zeros(3), [1.0, math.inf, 0.0]), "velocity must be finite",
     ValueError),
    (lambda f: f.update_gnss(np.zeros(4), np.zeros(3)), "position must have shape",
     ValueError),
    (lambda f: f.update_baro([1.0, 2.0]), "altitude", ValueError),
    (lambda f: f.update_mag(np.zeros((3, 1))), "field must have shape", ValueError),
    (lambda f: f.feed([1, 2]), "readings must be a dict", TypeError),
    (lambda f: f.feed({"gnss": {}}), "'imu' reading", ValueError),
])
def test_bad_inputs_name_the_argument(call, pattern, error):
    with pytest.raises(error, match=pattern):
        call(_started())


def test_bad_construction_arguments():
    with pytest.raises(ValueError, match="initial has unknown keys \\['attitude'\\]"):
        ErrorStateEkf.from_params(PARAMS, initial={"attitude": LEVEL})
    with pytest.raises(ValueError, match="initial\\['quaternion'\\] must be a unit"):
        ErrorStateEkf.from_params(PARAMS, initial={"quaternion": [0.0, 0.0, 0.0, 2.0]})
    with pytest.raises(ValueError, match="gravity must be > 0"):
        ErrorStateEkf.from_params(PARAMS, gravity=-9.81)
    with pytest.raises(TypeError, match="estimate_mag_bias must be True, False or None"):
        ErrorStateEkf.from_params(PARAMS, estimate_mag_bias=1)
    with pytest.raises(ValueError, match="gains has unknown keys \\['kp'\\]"):
        ComplementaryFilter.from_params(PARAMS, gains={"kp": 1.0})
    with pytest.raises(ValueError, match="gains\\['accel_kp'\\]"):
        ComplementaryFilter.from_params(PARAMS, gains={"accel_kp": -1.0})


def test_not_initialised():
    ekf = ErrorStateEkf.from_params(PARAMS)
    assert not ekf.initialised
    with pytest.raises(RuntimeError, match="predict: the filter is not initialised"):
        ekf.predict(np.zeros(3), np.zeros(3), 0.01)
    nan = {"time": math.nan}
    assert not ekf.feed({"imu": {**nan, "accel": np.zeros(3), "gyro": np.zeros(3)},
                         "mag": {**nan, "field": np.zeros(3)}})
    assert not ekf.initialised
