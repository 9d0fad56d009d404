"""Sensors on the PyBullet Aviary: ``drone_options["sensors"]`` and ``aviary.read_sensors(i)``.

With the "ideal" presets every reading equals the closed form from the drone's own state
(the specific force from PyBullet's velocity differences, the ISA altitude, R^T B, the GNSS
position ``latency`` samples back, the ray-tested range); a dropped drone reads 0; the
Aviary's seed fixes the streams; bad options fail naming the option.
"""

from __future__ import annotations

import math

import numpy as np
import pybullet
import pytest

from pyflyt_like.core import Aviary
from pyflyt_like.sensors import earth_field, load_preset

from ._helpers import GRAVITY

IDEAL = {"imu": "ideal", "baro": "ideal", "mag": "ideal",
         "gnss": {"preset": "ideal", "latency": 2}, "range": "ideal"}
NOISY = {"imu": "bmi088", "baro": "default", "mag": "default", "gnss": "default",
         "range": "default"}
PHYSICS_HZ = 240


def _aviary(sensors, positions=((0.0, 0.0, 1.0),), drone_type="quadx", seed=0, **options):
    """Drones with one physics step per ``aviary.step()`` (control at the physics rate)."""
    positions = np.array(positions, dtype=float)
    return Aviary(start_pos=positions, start_orn=np.zeros_like(positions),
                  drone_type=drone_type, physics_hz=PHYSICS_HZ, seed=seed,
                  drone_options={"control_hz": PHYSICS_HZ, "sensors": sensors, **options})


def _rotation(drone) -> np.ndarray:
    return np.array(pybullet.getMatrixFromQuaternion(drone.quaternion)).reshape(3, 3)


def test_ideal_sensors_read_the_closed_form_on_a_hovering_quadx():
    h = 1.0
    with _aviary(IDEAL, positions=((0.3, -0.2, h),)) as aviary:
        drone = aviary.drones[0]
        # At reset (t = 0): level at its spawn height, the range is h (from the base).
        first = aviary.read_sensors(0)
        assert {name: first[name]["time"] for name in first} == dict.fromkeys(IDEAL, 0.0)
        assert first["range"]["valid"] and first["range"]["range"] == pytest.approx(h, abs=1e-6)
        assert first["imu"]["accel"] == pytest.approx([0.0, 0.0, GRAVITY], abs=1e-12)
        mag = load_preset("mag", "ideal")
        field = earth_field(mag["field_intensity"], mag["declination"], mag["inclination"])
        aviary.set_mode(7)  # position hold at the spawn point
        positions = [drone.state[3].copy()]
        settled = []
        for step in range(1, 241):
            velocity_before = drone.world_velocity.copy()
            aviary.step()
            readings = aviary.read_sensors(0)
            state = aviary.state(0)
            rotation = _rotation(drone)
            positions.append(state[3].copy())
            assert {r["time"] for r in readings.values()} == {step / PHYSICS_HZ}
            # Specific force R^T (a - g), a from PyBullet's velocity change over the step.
            acceleration = (drone.world_velocity - velocity_before) * PHYSICS_HZ
            expected = rotation.T @ (acceleration + (0.0, 0.0, GRAVITY))
            np.testing.assert_allclose(readings["imu"]["accel"], expected, rtol=0, atol=1e-9)
            if step > PHYSICS_HZ // 4:  # past the motors' spin-up from rest
                settled.append(readings["imu"]["accel"])
            assert np.array_equal(readings["imu"]["gyro"], state[0])  # exactly the body rates
            assert readings["baro"]["altitude"] == pytest.approx(state[3, 2], abs=1e-9)
            np.testing.assert_allclose(readings["mag"]["field"], rotation.T @ field, rtol=0,
                                       atol=1e-12)
            # Latency 2: sample k (k = 0 at reset) delivers the state of sample k - 2, and
            # no fix before there is one.
            assert readings["gnss"]["fix"] == (step >= 2)
            if step >= 2:
                assert np.array_equal(readings["gnss"]["position"], positions[-3])
            assert readings["range"]["valid"]
            assert readings["range"]["range"] == pytest.approx(state[3, 2] / rotation[2, 2],
                                                               abs=1e-5)
        # Hover reads (0, 0, g) up to the residual motion the motor noise leaves (measured:
        # at most 0.8 m/s^2 on an axis, 0.3 m/s^2 RMS, a mean within 0.05 m/s^2).
        settled = np.array(settled)
        assert np.max(np.abs(settled - (0.0, 0.0, GRAVITY))) < 1.5
        np.testing.assert_allclose(settled.mean(axis=0), (0.0, 0.0, GRAVITY), atol=0.1)
        assert np.linalg.norm(state[3] - (0.3, -0.2, h)) < 0.1


def test_rangefinder_ray_tests_the_world():
    sensors = {"range": {"preset": "ideal", "max_range": 2.0}}
    positions = ((0.0, 0.0, 1.5), (3.0, 0.0, 1.5), (6.0, 0.0, 2.5))
    with _aviary(sensors, positions=positions) as aviary:
        # A 0.4 m tall box under drone 1: its range ends on the box's top (1.5 - 0.4 m).
        box = pybullet.createCollisionShape(pybullet.GEOM_BOX, halfExtents=(0.2, 0.2, 0.2),
                                            physicsClientId=aviary._client)
        pybullet.createMultiBody(0, box, basePosition=(3.0, 0.0, 0.2),
                                 physicsClientId=aviary._client)
        aviary.register_all_new_bodies()
        aviary.reset()
        assert aviary.read_sensors(0)["range"] == {"time": 0.0, "range": pytest.approx(1.5),
                                                   "valid": True}
        assert aviary.read_sensors(1)["range"]["range"] == pytest.approx(1.1, abs=1e-6)
        # 2.5 m up with a 2 m beam: nothing hit, invalid, reads max_range.
        assert aviary.read_sensors(2)["range"] == {"time": 0.0, "range": 2.0, "valid": False}
        # The ray starts inside the drone's own body and ignores it.
        drone = aviary.drones[0]
        assert drone.sensors.ray_range(drone.state[3], [1, 0, 0, 0, 1, 0, 0, 0, 1]) == \
            pytest.approx(1.5, abs=1e-6)


def test_a_dropped_drone_reads_zero_until_it_lands():
    with _aviary({"imu": "ideal"}, positions=((0.0, 0.0, 2.0),),
                 drone_type="multirotor") as aviary:
        aviary.set_mode(-1)
        aviary.set_setpoint(0, np.zeros(4))  # rotors stopped
        # The reset sample (t = 0) has no acceleration yet: +g, as documented.
        assert aviary.read_sensors(0)["imu"]["accel"] == pytest.approx([0, 0, GRAVITY])
        falling = 0
        while aviary.state(0)[3, 2] > 0.2:  # well above the floor: the contact is ahead
            aviary.step()
            np.testing.assert_allclose(aviary.read_sensors(0)["imu"]["accel"], 0.0, atol=1e-9)
            falling += 1
        assert falling > 0.5 * PHYSICS_HZ  # 2 m of free fall take 0.64 s
        for _ in range(PHYSICS_HZ):  # lands and comes to rest: +g again
            aviary.step()
        np.testing.assert_allclose(aviary.read_sensors(0)["imu"]["accel"], [0, 0, GRAVITY],
                                   atol=1e-3)


def _stream(seed: int, steps: int = 200, reset_seed: int | None = None) -> list:
    with _aviary(NOISY, seed=seed, positions=((0.0, 0.0, 1.0), (1.0, 0.0, 1.0))) as aviary:
        if reset_seed is not None:
            aviary.step()
            aviary.reset(seed=reset_seed)
        aviary.set_mode(7)
        stream = []
        for _ in range(steps):
            aviary.step()
            stream.append([aviary.read_sensors(i) for i in range(aviary.num_drones)])
        return stream


def _flat(stream) -> np.ndarray:
    return np.array([float(value) for step in stream for drone in step
                     for reading in drone.values() for value in
                     np.concatenate([np.ravel(v) for v in reading.values()])])


def test_the_aviary_seed_fixes_the_sensor_streams():
    first = _flat(_stream(7))
    assert first.size > 0 and np.all(np.isfinite(first))
    assert np.array_equal(first, _flat(_stream(7)))  # bit-identical
    assert np.array_equal(first, _flat(_stream(1, reset_seed=7)))  # reset(seed) replays it
    assert not np.array_equal(first, _flat(_stream(8)))


def test_every_vehicle_takes_sensors_and_a_drone_without_reads_nothing():
    types = ["quadx", "multirotor", "fixedwing", "rocket", "quadplane"]
    positions = np.array([[3.0 * i, 0.0, 5.0] for i in range(len(types) + 1)])
    options = [{"sensors": {"imu": "ideal", "baro": "default"}} for _ in types] + [{}]
    with Aviary(start_pos=positions, start_orn=np.zeros_like(positions),
                drone_type=[*types, "quadx"], drone_options=options, seed=0) as aviary:
        for _ in range(5):
            aviary.step()
        for i, name in enumerate(types):
            readings = aviary.read_sensors(i)
            assert list(readings) == ["imu", "baro"], name
            assert readings["imu"]["time"] == pytest.approx(aviary.elapsed_time), name
            assert readings["baro"]["time"] <= aviary.elapsed_time, name
        assert aviary.read_sensors(5) == {}
        assert aviary.read_sensors(-1) == {}
        # Zero cost without sensors: no component, the class's own update_last.
        plain = aviary.drones[5]
        assert plain.sensors is None and "update_last" not in vars(plain)


@pytest.mark.parametrize(("sensors", "error", "match"), [
    ({"sonar": "ideal"}, ValueError, r'drone_options\["sensors"\] has unknown sensor names'),
    ({"imu": "mpu6000"}, ValueError, r'drone_options\["sensors"\]\["imu"\].*bmi088'),
    ({"baro": {"preset": "default", "update_rate": 7}}, ValueError,
     r'drone_options\["sensors"\]\["baro"\]\["update_rate"\]=7 Hz must divide'),
    ({"gnss": {"preset": "nope"}}, ValueError, r'drone_options\["sensors"\]\["gnss"\]'),
    ("bmi088", TypeError, r'drone_options\["sensors"\] must be a dict'),
    # the GNSS latency ring is bounded before it is allocated (was a MemoryError)
    ({"gnss": {"preset": "default", "latency": 10**12}}, ValueError,
     r'drone_options\["sensors"\]\["gnss"\]\["latency"\]=1000000000000 samples at '
     r'drone_options\["sensors"\]\["gnss"\]\["update_rate"\]=10 Hz is more than the 100 '
     r'allowed'),
    ({"gnss": {"time_to_fix": 1e308}}, ValueError,
     r'drone_options\["sensors"\]\["gnss"\]\["time_to_fix"\] must be at most 3600'),
])
def test_bad_sensor_options_name_the_option(sensors, error, match):
    with pytest.raises(error, match=match):
        _aviary(sensors)


def test_read_sensors_checks_its_index():
    with _aviary({"imu": "ideal"}) as aviary:
        for index in (1, -2, 0.0, True, "0", None):
            with pytest.raises(IndexError, match=r"index must be an int in \[0, 1\)"):
                aviary.read_sensors(index)
        assert math.isfinite(aviary.read_sensors(np.int64(0))["imu"]["time"])
