"""Sensors on the batched engine (``BatchedAviary(..., sensors=...)``, ``sim.read_sensors()``).

- With the "ideal" presets every reading is the closed form of the engine's own true state,
  on both families: accel = R^T(a - g) (+ the lever-arm terms of a mounting position) with a
  the velocity difference over the step, gyro = body rates, baro altitude = z and the ISA
  pressure, mag = R^T B, GNSS = position and velocity ``latency`` samples earlier, range =
  the distance along body -z to the floor plane, invalid above max range.
- Cross-validation: the same cf2x flown from the same start in mode -1 on both engines reads
  the same ideal values (the engines agree to 1e-14 m on the states).
- Statistics and seeds: white noise at noise_density * sqrt(rate), independent worlds, bit
  for bit reproducible, a world's readings independent of W; masked resets.
- Errors name ``sensors``.

One engine per configuration, reused (module fixtures): the kernels compile once.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyflyt_like.batch import BatchedAviary
from pyflyt_like.batch import pipeline as multirotor_pipeline
from pyflyt_like.batch.fixedwing import pipeline as fixedwing_pipeline
from pyflyt_like.batch.sensors import sensing_switches
from pyflyt_like.sensors import resolve_sensors
from pyflyt_like.worlds import World

HZ = 240
GRAVITY = 9.81
LEVER = np.array([0.03, -0.02, 0.01])  # m, body frame
IDEAL = {"imu": {"preset": "ideal", "mounting_position": LEVER.tolist()},
         "baro": "ideal", "mag": "ideal", "gnss": {"preset": "ideal", "latency": 2},
         "range": {"preset": "ideal", "max_range": 1.5}}
NOISY = {"imu": "default", "baro": "default", "mag": "default", "gnss": "default"}


def rotation(quat: np.ndarray) -> np.ndarray:
    """(..., 3, 3) body-to-world rotation of (..., 4) quaternions (x, y, z, w)."""
    x, y, z, w = np.moveaxis(quat, -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


def isa_pressure(altitude: np.ndarray) -> np.ndarray:
    """ISA troposphere pressure [Pa] (ISO 2533 constants, written out here)."""
    return 101325.0 * (1.0 - 0.0065 * altitude / 288.15) ** (9.80665 / (287.05287 * 0.0065))


def earth_field() -> np.ndarray:
    """The magnetometer preset's field (48 uT, declination 3 deg, inclination 63 deg), ENU."""
    d, i = math.radians(3.0), math.radians(63.0)
    return 48.0 * np.array([math.cos(i) * math.sin(d), math.cos(i) * math.cos(d),
                            -math.sin(i)])


def truth(sim) -> dict[str, np.ndarray]:
    return {"pos": sim.pos.copy(), "quat": sim.quat.copy(), "vel": sim.vel.copy(),
            "rates": sim.ang_vel.copy()}


def assert_closed_form(readings, now, before, history, k, dt, max_range) -> None:
    """Every ideal reading after physics step ``k`` against the true state ``now`` and
    ``before`` the step (None at reset: both derivatives 0); ``history`` the states of the
    samples so far (for the GNSS latency of 2)."""
    r = rotation(now["quat"])
    if before is None:
        accel, rates_dot = np.zeros_like(now["vel"]), np.zeros_like(now["rates"])
    else:
        accel = (now["vel"] - before["vel"]) / dt
        rates_dot = (now["rates"] - before["rates"]) / dt
    gravity = np.array([0.0, 0.0, GRAVITY])
    w = now["rates"]
    specific = (np.einsum("wdji,wdj->wdi", r, accel + gravity) + np.cross(rates_dot, LEVER)
                + np.cross(w, np.cross(w, LEVER)))
    imu = readings["imu"]
    np.testing.assert_allclose(imu["accel"], specific, rtol=0, atol=1e-9)
    np.testing.assert_allclose(imu["gyro"], w, rtol=0, atol=1e-12)
    z = now["pos"][..., 2]
    np.testing.assert_allclose(readings["baro"]["altitude"], z, rtol=0, atol=1e-8)
    np.testing.assert_allclose(readings["baro"]["pressure"], isa_pressure(z), rtol=1e-12)
    np.testing.assert_allclose(readings["mag"]["field"],
                               np.einsum("wdji,j->wdi", r, earth_field()), rtol=0, atol=1e-12)
    gnss = readings["gnss"]
    if k < 2:  # nothing delivered before the latency of 2 samples
        assert not gnss["fix"].any() and not gnss["position"].any()
    else:
        assert gnss["fix"].all()
        np.testing.assert_array_equal(gnss["position"], history[k - 2]["pos"])
        np.testing.assert_array_equal(gnss["velocity"], history[k - 2]["vel"])
    cos_tilt = r[..., 2, 2]
    distance = z / cos_tilt  # the floor plane is z = floor_height = 0
    valid = (cos_tilt > 0) & (distance <= max_range)
    np.testing.assert_array_equal(readings["range"]["valid"], valid)
    np.testing.assert_allclose(readings["range"]["range"],
                               np.where(valid, distance, max_range), rtol=0, atol=1e-12)
    for sensor in readings.values():
        np.testing.assert_allclose(sensor["time"], k * dt, rtol=0, atol=1e-12)


def fly_and_check(sim, setpoints, steps: int) -> int:
    """Reset, fly ``setpoints`` for ``steps`` physics steps one by one, checking every
    reading against the closed form; returns how many range readings were invalid."""
    sim.reset()
    sim.set_setpoints(setpoints)
    now = truth(sim)
    history = [now]
    assert_closed_form(sim.read_sensors(), now, None, history, 0, sim.dt, 1.5)
    invalid = 0
    for k in range(1, steps + 1):
        before = now
        sim.step()
        now = truth(sim)
        history.append(now)
        readings = sim.read_sensors()
        assert_closed_form(readings, now, before, history, k, sim.dt, 1.5)
        invalid += int((~readings["range"]["valid"]).sum())
    return invalid


@pytest.fixture(scope="module")
def multirotors():
    # Drone 1 starts above the rangefinder's 1.5 m; the rotors are uneven, so that the
    # drones turn (gyro, lever-arm terms) and climb (acceleration).
    start = np.array([[[0.0, 0.0, 1.0], [1.0, 0.0, 2.0]], [[0.0, 1.0, 0.5], [1.0, 1.0, 1.2]]])
    return BatchedAviary(n_worlds=2, n_drones=2, drone_model="cf2x", mode=-1, physics_hz=HZ,
                         start_pos=start, start_orn=np.full((2, 2, 3), 0.1), sensors=IDEAL)


def test_ideal_readings_are_the_closed_form_of_the_multirotor_state(multirotors):
    sim = multirotors
    hover = sim.hover_speed
    setpoints = np.array([[1.02, 1.05, 1.01, 1.04], [1.03, 1.0, 1.06, 1.01]]) * hover
    invalid = fly_and_check(sim, setpoints, 24)
    assert invalid >= 24  # drone 1 of world 0 is above max_range throughout
    assert np.abs(sim.ang_vel).max() > 0.5  # the lever-arm terms are exercised
    assert np.abs(sim.vel).max() > 0.05


# The fixed-wing's sensed kernel is a cold compile (~45 s on 2 cores) of its own; the sensor
# stage it inlines is the multirotor's (shared, checked by the test above and the PyBullet
# cross-check below) and the fixed-wing's state by tests/batch/fixedwing.
@pytest.mark.slow
def test_the_fixed_wing_reads_the_closed_form_too():
    sim = BatchedAviary(n_worlds=1, n_drones=2, drone_model="acrowing", mode=-1,
                        physics_hz=HZ, start_pos=np.array([[0.0, 0.0, 1.2], [0.0, 10.0, 5.0]]),
                        sensors=IDEAL)
    # ailerons and elevator deflected, throttle on: the aircraft rolls, pitches and speeds
    fly_and_check(sim, np.array([0.3, -0.2, 0.1, 0.0, 0.0, 0.8]), 24)
    assert np.abs(sim.ang_vel).max() > 0.1


def test_stage_sits_between_floor_and_turbulence_in_both_pipelines():
    for pipeline in (multirotor_pipeline, fixedwing_pipeline):
        names = list(pipeline.STAGES)
        assert names.index("sensors") == names.index("obstacles") + 1
        assert names.index("turbulence") == names.index("sensors") + 1


def test_ideal_readings_agree_with_the_pybullet_aviary():
    from pyflyt_like.core import Aviary

    sensors = {name: "ideal" for name in ("imu", "baro", "mag", "gnss", "range")}
    start = np.array([[0.0, 0.0, 1.0]])
    sim = BatchedAviary(n_worlds=1, drone_model="cf2x", mode=-1, physics_hz=HZ, control_hz=HZ,
                        start_pos=start, sensors=sensors)
    speeds = sim.hover_speed * np.array([1.02, 1.021, 1.019, 1.02])
    sim.set_setpoints(speeds)
    worst: dict[str, float] = {}
    with Aviary(start, np.zeros((1, 3)), drone_type="multirotor", physics_hz=HZ,
                drone_options=dict(drone_model="cf2x", control_hz=HZ,
                                   sensors=sensors)) as aviary:
        aviary.set_mode(-1)
        aviary.set_setpoint(0, speeds)
        for _ in range(HZ):  # 1 s
            aviary.step()
            sim.step()
            theirs, ours = aviary.read_sensors(0), sim.read_sensors()
            for name, reading in theirs.items():
                for key, value in reading.items():
                    difference = np.abs(np.asarray(value, float)
                                        - np.asarray(ours[name][key][0, 0], float)).max()
                    label = f"{name}.{key}"
                    worst[label] = max(worst.get(label, 0.0), difference)
    assert sim.pos[0, 0, 2] > 1.1 and np.abs(sim.ang_vel).max() > 0.01  # it flew
    # The states agree to ~1e-14 (tests/batch/test_cross_validation.py); so do the
    # readings, the accelerometer's velocity differences over dt included (2.6e-14 m/s^2
    # and the field's 5e-13 uT when this was written).
    assert set(worst) == {f"{name}.{key}" for name, value in sim.read_sensors().items()
                          for key in value}
    for label, difference in worst.items():
        assert difference <= 1e-9, (label, difference)


@pytest.fixture(scope="module")
def resting():
    """4096 worlds of a cf2x resting on the floor (rotors at their minimum), noisy sensors."""
    return BatchedAviary(n_worlds=4096, drone_model="cf2x", mode=-1, physics_hz=HZ, seed=3,
                         start_pos=np.zeros((1, 3)), sensors=NOISY)


def record(sim, steps: int) -> np.ndarray:
    """(steps, W, 3) gyro readings, one per physics step."""
    sim.set_setpoints(np.zeros(4) + sim.model.min_speed)
    out = []
    for _ in range(steps):
        sim.step()
        out.append(sim.read_sensors()["imu"]["gyro"][:, 0])
    return np.array(out)


def test_gyro_white_noise_matches_the_noise_density(resting):
    sim = resting
    sim.reset(seed=3)
    gyro = record(sim, 20)
    assert sim.contact.all() and not sim.vel.any()  # at rest on the floor
    params = resolve_sensors(NOISY, HZ)["imu"]
    expected = params.gyroscope_noise_density * math.sqrt(HZ)
    # per world, the spread over time: the turn-on bias drops out, the walk is 1e-3 of it
    measured = np.sqrt(gyro.var(axis=0, ddof=1).mean(axis=0))
    np.testing.assert_allclose(measured, expected, rtol=0.02)
    # independent worlds: different turn-on biases, uncorrelated noise
    biases = gyro.mean(axis=0)
    assert np.unique(biases[:, 0]).size == sim.n_worlds
    np.testing.assert_allclose(biases.std(axis=0), params.gyroscope_turn_on_bias, rtol=0.05)
    assert abs(np.corrcoef(gyro[:, 0, 0], gyro[:, 1, 0])[0, 1]) < 0.8


def test_a_seed_reproduces_the_readings_and_w_does_not_change_a_world(resting):
    sim = resting
    sim.reset(seed=11)
    first = record(sim, 5)
    sim.reset(seed=11)
    np.testing.assert_array_equal(record(sim, 5), first)  # bit for bit
    small = BatchedAviary(n_worlds=16, drone_model="cf2x", mode=-1, physics_hz=HZ, seed=11,
                          start_pos=np.zeros((1, 3)), sensors=NOISY)
    np.testing.assert_array_equal(record(small, 5), first[:, :16])
    readings, theirs = sim.read_sensors(), small.read_sensors()
    for name in readings:
        for key in readings[name]:
            np.testing.assert_array_equal(readings[name][key][:16], theirs[name][key])


def test_a_masked_reset_draws_new_units_for_the_reset_worlds_only(resting):
    sim = resting
    sim.reset(seed=5)
    record(sim, 3)
    before = sim.read_sensors()
    mask = np.zeros(sim.n_worlds, bool)
    mask[0] = True
    sim.reset(mask=mask)
    after = sim.read_sensors()
    for name in before:
        np.testing.assert_array_equal(after[name]["time"][1:], before[name]["time"][1:])
        assert after[name]["time"][0, 0] == 0.0  # the reset state, sampled at t = 0
    np.testing.assert_array_equal(after["imu"]["gyro"][1:], before["imu"]["gyro"][1:])
    assert not np.array_equal(after["imu"]["gyro"][0], before["imu"]["gyro"][0])
    # the reset sample: at rest, both derivatives 0: +g on body z plus the unit's errors
    np.testing.assert_allclose(after["imu"]["accel"][0, 0], [0.0, 0.0, GRAVITY], atol=1.5)


def test_no_sensors_reads_nothing_and_adds_no_arrays():
    sim = BatchedAviary(n_worlds=2, drone_model="cf2x", physics_hz=HZ, sensors={})
    assert sim.read_sensors() == {} and sim.sensor_params == {}
    assert sim._state.sensor_state.size == 0 and sim._sensing is None
    with_sensors, without = (sim.family.memory_bytes(1000, 2, sensors)[0]
                             for sensors in (resolve_sensors(NOISY, HZ), None))
    assert with_sensors > without + 1000 * 2 * 8 * 40  # the state and readings per drone


@pytest.mark.parametrize(("sensors", "world", "switches"), [
    ({}, False, None),  # neither stage compiled
    ({}, True, (None, None)),  # the obstacles stage, no sensor code
    ({"imu": "default"}, False, (True, None)),
    ({"lidar": "default"}, True, (None, True)),  # Navigate's: no point sensor compiled
    ({"gnss": "default", "depth": "default"}, False, (True, True)),
])
def test_the_sensing_switches_name_the_kinds_of_sensor_carried(sensors, world, switches):
    params = resolve_sensors(sensors, HZ)
    assert sensing_switches(params, world) == switches
    sim = BatchedAviary(n_worlds=1, drone_model="cf2x", physics_hz=HZ, sensors=sensors,
                        world=World() if world else None)
    assert sim._sensing == switches


@pytest.mark.parametrize(("sensors", "error", "match"), [
    ("imu", TypeError, r"^sensors must be None or a dict"),
    ({"sonar": "default"}, ValueError, r"^sensors has unknown sensor names"),
    ({"lidar": {"preset": "default", "min_range": 500.0}}, ValueError,
     r'^sensors\["lidar"\]\["min_range"\]=500.0 must be less than sensors\["lidar"\]'),
    ({"imu": "nope"}, ValueError, r'^sensors\["imu"\] names an unknown preset'),
    ({"imu": {"preset": "default", "update_rate": 7}}, ValueError,
     r'^sensors\["imu"\]\["update_rate"\]=7 Hz must divide physics_hz=240'),
    ({"gnss": {"preset": "default", "horizontal_noise": -1.0}}, ValueError,
     r'^sensors\["gnss"\]\["horizontal_noise"\] must be a finite number >= 0'),
])
def test_bad_sensor_options_name_sensors(sensors, error, match):
    with pytest.raises(error, match=match):
        BatchedAviary(drone_model="cf2x", physics_hz=HZ, sensors=sensors)


def test_the_ziggurat_draws_standard_normals():
    from pyflyt_like.batch.world_random import next_ziggurat_normals, world_streams

    streams = world_streams(np.random.default_rng(0), 2)
    draws = np.zeros(400_000)
    next_ziggurat_normals(streams, 1, draws)
    assert abs(draws.mean()) < 0.005 and abs(draws.std() - 1.0) < 0.005
    # the distribution function at a few points, the tail beyond R = 3.65 included
    for x in (-3.8, -2.0, -0.5, 0.0, 0.3, 1.0, 2.5, 3.7):
        expected = 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))
        assert abs((draws < x).mean() - expected) < 4.0 * math.sqrt(expected * (1 - expected)
                                                                    / draws.size) + 1e-5
    assert streams[0] != streams[1]  # world 1's stream only
