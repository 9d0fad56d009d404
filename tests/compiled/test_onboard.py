"""The PyBullet vehicles' compiled onboard step (pyflyt_like.compiled.onboard) against the
plain-Python originals it compiles: the Sensors component against a SensorSuite fed the same
states (bit for bit), the EKF it runs against ErrorStateEkf fed the same readings."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.core import Aviary
from pyflyt_like.estimation import ErrorStateEkf
from pyflyt_like.sensors import SensorSuite

PHYSICS_HZ = 240
PERIOD = 1.0 / PHYSICS_HZ
SENSORS = {"imu": "bmi088", "baro": "default", "mag": "default",
           "gnss": {"preset": "default", "latency": 2}}


class EntropySpy:
    """The aviary's generator, remembering the entropy each sensor reset draws."""

    def __init__(self, generator):
        self.generator, self.drawn = generator, []

    def integers(self, *args, **kwargs):
        value = self.generator.integers(*args, **kwargs)
        self.drawn.append(int(value))
        return value

    def __getattr__(self, name):
        return getattr(self.generator, name)


def fly(steps: int, estimator: str | None = None):
    """Per physics step after a reset: the drone's true state and its sensor readings (and
    estimate); the aviary flies a climbing turn in mode 6 so that every term moves."""
    options = {"sensors": SENSORS, "control_hz": PHYSICS_HZ}  # one physics step per step
    if estimator:
        options["estimator"] = estimator
    aviary = Aviary(np.array([[0.0, 0.0, 1.0]]), np.zeros((1, 3)), seed=4,
                    physics_hz=PHYSICS_HZ, drone_options=options)
    assert aviary.updates_per_step == 1
    drone = aviary.drones[0]
    spy = EntropySpy(drone.sensors.np_random)
    drone.sensors.np_random = spy
    aviary.reset(seed=5)
    aviary.set_mode(6)
    aviary.set_setpoint(0, np.array([0.5, 0.3, 0.4, 0.5]))
    records = []

    def record():
        records.append({
            "position": drone.state[3].copy(), "velocity": drone.world_velocity.copy(),
            "quaternion": np.array(drone.quaternion), "rates": drone.state[0].copy(),
            "readings": aviary.read_sensors(0),
            "estimate": aviary.read_estimate(0) if estimator else None})

    record()
    for _ in range(steps):
        aviary.step()
        record()
    aviary.close()
    return records, spy.drawn[-1]


def test_sensor_component_equals_the_sensor_suite_bit_for_bit():
    records, entropy = fly(60)
    suite = SensorSuite(SENSORS, PHYSICS_HZ, seed=entropy)
    previous_velocity, previous_rates = None, None
    compared = 0
    for record in records:
        if previous_velocity is None:
            acceleration, rates_dot = np.zeros(3), np.zeros(3)
        else:
            acceleration = (record["velocity"] - previous_velocity) * PHYSICS_HZ
            rates_dot = (record["rates"] - previous_rates) * PHYSICS_HZ
        expected = suite.update(record["position"], record["velocity"], acceleration,
                                record["quaternion"], record["rates"], rates_dot)
        previous_velocity, previous_rates = record["velocity"], record["rates"]
        got = record["readings"]
        for name, entry in expected.items():
            for key, value in entry.items():
                np.testing.assert_array_equal(got[name][key], value, err_msg=f"{name}.{key}")
        compared += 1
    assert compared == len(records)


def test_compiled_ekf_equals_the_numpy_filter_fed_the_same_readings():
    """The onboard EKF (compiled, fed inside the sensors' call) and ErrorStateEkf (numpy)
    fed the same readings through feed() from the same start: the same estimate to
    rounding over 2 s of flight, with GNSS, barometer and magnetometer updates."""
    records, _ = fly(480, estimator="ekf")
    first = records[0]
    params = SensorSuite(SENSORS, PHYSICS_HZ).params
    reference = ErrorStateEkf.from_params(params, initial={
        "position": first["position"], "velocity": first["velocity"],
        "quaternion": first["quaternion"]})
    for record in records:
        reference.feed(record["readings"])
        estimate = record["estimate"]
        assert estimate["time"] == pytest.approx(reference.state.time, abs=0.0)
        np.testing.assert_allclose(estimate["position"], reference.position, atol=1e-9)
        np.testing.assert_allclose(estimate["velocity"], reference.velocity, atol=1e-9)
        np.testing.assert_allclose(estimate["quaternion"], reference.quaternion, atol=1e-9)
        np.testing.assert_allclose(estimate["gyro_bias"], reference.state.gyro_bias,
                                   atol=1e-12)
    # the filter moved away from its start: the comparison was not of two idle filters
    assert np.linalg.norm(records[-1]["estimate"]["position"] - first["position"]) > 0.05
