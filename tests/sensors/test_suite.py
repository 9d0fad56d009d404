"""SensorSuite: the readings' layout and clocks, the same seed giving bit-identical streams
(another seed differing), each sensor's stream independent of the others, and its input
checks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyflyt_like.sensors import SensorSuite, isa_pressure

ALL_DEFAULT = {"imu": "bmi088", "baro": "default", "mag": "default", "gnss": "default",
               "range": "default"}
KEYS = {"imu": {"time", "accel", "gyro"}, "baro": {"time", "pressure", "altitude"},
        "mag": {"time", "field"}, "gnss": {"time", "position", "velocity", "fix"},
        "range": {"time", "range", "valid"}}


def _flight(steps=240):
    """A true state per physics step: a climbing, rolling, yawing vehicle."""
    for k in range(steps):
        t = k / 240.0
        yield (np.array([t, 0.5 * t, 1.0 + 0.2 * t]), np.array([1.0, 0.5, 0.2]),
               np.array([0.0, 0.1, 0.0]),
               np.array([math.sin(0.05 * t), 0.0, math.sin(0.1 * t), 1.0])
               / math.sqrt(1.0 + math.sin(0.05 * t) ** 2 + math.sin(0.1 * t) ** 2),
               np.array([0.1, 0.0, 0.2]), np.zeros(3))


def _stream(suite, steps=240):
    out = []
    for state in _flight(steps):
        readings = suite.update(*state)
        out.append(np.concatenate([np.atleast_1d(np.asarray(v, float))
                                   for name in sorted(readings)
                                   for _, v in sorted(readings[name].items())]))
    return np.array(out)


def test_readings_layout_and_clocks():
    suite = SensorSuite(ALL_DEFAULT, 240, seed=0)
    before = suite.read()
    assert {name: set(r) for name, r in before.items()} == KEYS
    assert all(math.isnan(r["time"]) for r in before.values())
    zero, level = np.zeros(3), np.array([0.0, 0.0, 0.0, 1.0])
    for _ in range(30):
        readings = suite.update([0.0, 0.0, 2.0], zero, zero, level, zero, zero)
    assert readings["imu"]["time"] == 29 / 240  # every step
    assert readings["baro"]["time"] == 24 / 240  # 20 Hz: every 12 steps
    assert readings["gnss"]["time"] == 24 / 240  # 10 Hz: every 24 steps
    assert readings["imu"]["accel"].shape == (3,) and readings["mag"]["field"].shape == (3,)
    assert isinstance(readings["gnss"]["fix"], bool) and readings["range"]["valid"] is True
    assert readings["baro"]["pressure"] == pytest.approx(isa_pressure(2.0), abs=50.0)
    assert set(SensorSuite({"baro": "ideal"}, 240).read()) == {"baro"}


def test_ideal_suite_reads_the_truth():
    suite = SensorSuite({name: "ideal" for name in KEYS}, 240, seed=3)
    for pos, vel, acc, quat, rates, rates_dot in _flight(10):
        readings = suite.update(pos, vel, acc, quat, rates, rates_dot)
        assert readings["gnss"]["position"].tolist() == pos.tolist()
        assert readings["gnss"]["velocity"].tolist() == vel.tolist()
        assert readings["imu"]["gyro"].tolist() == rates.tolist()
        assert readings["baro"]["pressure"] == isa_pressure(pos[2])
        assert readings["range"]["valid"]


def test_the_same_seed_gives_bit_identical_streams():
    first = _stream(SensorSuite(ALL_DEFAULT, 240, seed=7))
    again = _stream(SensorSuite(ALL_DEFAULT, 240, seed=7))
    other = _stream(SensorSuite(ALL_DEFAULT, 240, seed=8))
    assert np.array_equal(first, again, equal_nan=True)
    assert not np.array_equal(first, other, equal_nan=True)
    # reset(seed) starts the same streams again; reset() continues them.
    suite = SensorSuite(ALL_DEFAULT, 240, seed=7)
    _stream(suite, 50)
    suite.reset(seed=7)
    assert np.array_equal(_stream(suite), first, equal_nan=True)
    suite.reset()
    assert not np.array_equal(_stream(suite), first, equal_nan=True)


def test_a_sensors_stream_does_not_depend_on_the_others():
    alone = SensorSuite({"imu": "bmi088"}, 240, seed=11)
    together = SensorSuite(ALL_DEFAULT, 240, seed=11)
    for state in _flight(100):
        a, b = alone.update(*state)["imu"], together.update(*state)["imu"]
        assert a["accel"].tolist() == b["accel"].tolist()
        assert a["gyro"].tolist() == b["gyro"].tolist()


def test_input_checks():
    suite = SensorSuite({"imu": "ideal"}, 240)
    zero, level = np.zeros(3), np.array([0.0, 0.0, 0.0, 1.0])
    with pytest.raises(ValueError, match=r"quaternion must have shape \(4,\), got \(3,\)"):
        suite.update(zero, zero, zero, zero, zero, zero)
    with pytest.raises(ValueError, match=r"position must have shape \(3,\)"):
        suite.update([0.0, 0.0], zero, zero, level, zero, zero)
    with pytest.raises(TypeError, match=r"ang_vel must be a numeric array of shape \(3,\)"):
        suite.update(zero, zero, zero, level, ["a", "b", "c"], zero)
    with pytest.raises(TypeError, match="seed must be None or an integer"):
        SensorSuite({"imu": "ideal"}, 240, seed=1.5)
    with pytest.raises(ValueError, match="gravity must be a finite number"):
        SensorSuite({"imu": "ideal"}, 240, gravity=math.nan)
    with pytest.raises(ValueError, match=r'sensors\["imu"\]\["update_rate"\]=7 Hz must divide'):
        SensorSuite({"imu": {"preset": "ideal", "update_rate": 7}}, 240)
    # the GNSS ring is sized by the latency: bounded before it is allocated (a MemoryError
    # of 50.9 TiB before)
    with pytest.raises(ValueError, match=r'sensors\["gnss"\]\["latency"\]=1000000000000 '
                                         r"samples .* more than the 100 allowed"):
        SensorSuite({"gnss": {"preset": "default", "latency": 10**12}}, 240)
