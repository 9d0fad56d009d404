"""BatchedAviary refuses bad input early, with a TypeError or ValueError naming the argument
and what is allowed; a refused call changes nothing; what it accepts stays finite, and a
world that diverges anyway is reset and flagged (``sim.diverged``).

The style of tests/core/test_errors.py: tables of (input, exception, pattern naming the
argument), then tests that a refused call left the engine exactly as it was.
"""

import math
import re
import tracemalloc
import types

import numpy as np
import pytest

import pyflyt_like.batch.aviary as aviary_module
from pyflyt_like.batch import MAX_STEPS_PER_CALL, BatchedAviary
from pyflyt_like.batch.memory import (
    NOISE_CHUNK_BYTES,
    TRANSIENT_FLOATS_PER_DRONE,
    engine_bytes,
)
from pyflyt_like.batch.pipeline import run_worlds
from pyflyt_like.batch.sensors import SENSOR_CONSTANTS
from pyflyt_like.common.dryden_filters import MAX_ALTITUDE
from pyflyt_like.common.validation import memory_limit_bytes
from pyflyt_like.sensors import resolve_sensors


# ---------------------------------------------------------------------------- 1. first table
# (moved unchanged from test_batched_aviary.py)
@pytest.mark.parametrize(("kwargs", "error", "name"), [
    (dict(n_worlds=0), ValueError, "n_worlds"),
    (dict(n_worlds=1.5), TypeError, "n_worlds"),
    (dict(n_worlds=True), TypeError, "n_worlds"),
    (dict(n_drones=-1), ValueError, "n_drones"),
    (dict(drone_model="no_such_drone"), FileNotFoundError, "no_such_drone"),
    (dict(mode=5), ValueError, "mode"),
    (dict(mode="1"), TypeError, "mode"),
    (dict(physics_hz=0), ValueError, "physics_hz"),
    (dict(physics_hz=500, control_hz=240), ValueError, "control_hz"),
    (dict(control_hz=0), ValueError, "control_hz"),
    (dict(integrator="verlet"), ValueError, "integrator"),
    (dict(gravity=-1.0), ValueError, "gravity"),
    (dict(n_drones=2, start_pos=[0.0, 0.0, 1.0]), ValueError, "start_pos"),
    (dict(n_drones=2, start_pos=np.zeros((3, 3))), ValueError, "start_pos"),
    (dict(start_orn=np.zeros((1, 2))), ValueError, "start_orn"),
    (dict(n_worlds=2, wind=(1.0, 0.0)), ValueError, "wind"),
    (dict(n_worlds=2, wind=np.zeros((3, 3))), ValueError, "wind"),
    (dict(turbulence=dict(speed=3.0)), ValueError, "turbulence"),
    (dict(turbulence=5.0), TypeError, "turbulence"),
    (dict(crash_speed=-0.5), ValueError, "crash_speed"),
    (dict(ground_effect=1), TypeError, "ground_effect"),
])
def test_bad_constructor_arguments_raise_naming_them(kwargs, error, name):
    with pytest.raises(error, match=re.escape(name)):
        BatchedAviary(**kwargs)


def test_bad_setpoints_steps_and_references_raise():
    sim = BatchedAviary(n_worlds=2, n_drones=3, mode=1)
    weight = sim.model.mass * sim.gravity
    good = np.array([0.0, 0.0, 0.0, weight])
    for shape in ((3,), (5,), (2, 4), (3, 3, 4), (2, 3, 5)):
        with pytest.raises(ValueError, match="setpoints"):
            sim.set_setpoints(np.zeros(shape))
    with pytest.raises(ValueError, match="setpoints"):
        sim.set_setpoints([0.0, math.nan, 0.0, weight])
    with pytest.raises(ValueError, match="setpoints"):
        sim.set_setpoints(np.full((2, 3, 4), math.inf))
    for shape in ((4,), (3, 4), (2, 3, 4)):  # the accepted shapes
        sim.set_setpoints(np.broadcast_to(good, shape).copy())
    np.testing.assert_array_equal(sim.setpoints, np.broadcast_to(good, (2, 3, 4)))
    with pytest.raises(ValueError, match="n_steps"):
        sim.step(0)
    with pytest.raises(TypeError, match="n_steps"):
        sim.step(2.0)
    with pytest.raises(ValueError, match="mode"):
        sim.set_mode(3)
    assert sim.mode == 1

    position = np.zeros((2, 3, 3))
    free_fall = np.broadcast_to((0.0, 0.0, -sim.gravity), (2, 3, 3))
    with pytest.raises(ValueError, match="free fall"):
        sim.set_flat_reference(position, acceleration=free_fall)
    with pytest.raises(ValueError, match="position"):
        sim.set_flat_reference(np.zeros((3, 3)))
    assert sim.mode == 1  # the refused references did not switch the mode

    rotors = BatchedAviary(n_worlds=2, drone_model="cf2x", mode=-1)
    assert rotors.setpoint_size == 4
    max_speed = rotors.model.max_speed
    rotors.set_setpoints(np.full(4, max_speed))  # the limit itself is allowed
    with pytest.raises(ValueError, match="rotor speed"):
        rotors.set_setpoints(np.full(4, max_speed * 1.01))
    with pytest.raises(ValueError, match="rotor speed"):
        rotors.set_setpoints([-1.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(rotors.setpoints, max_speed)




# ---------------------------------------------------------------------------- 2. constructor
RAGGED = [[0.0, 0.0, 1.0], [0.0, 1.0]]
BIG_INT = 10**400  # a number, but none a float can hold

CONSTRUCTOR_CASES = [
    # sizes: types, and memory refused up front with the estimate
    (dict(n_worlds="4"), TypeError, "n_worlds"),
    (dict(n_worlds=4.0), TypeError, "n_worlds"),
    (dict(n_worlds=np.bool_(True)), TypeError, "n_worlds"),
    (dict(n_worlds=None), TypeError, "n_worlds"),
    (dict(n_worlds=2 + 0j), TypeError, "n_worlds"),
    (dict(n_worlds=-1), ValueError, "n_worlds"),
    (dict(n_drones="2"), TypeError, "n_drones"),
    (dict(n_drones=True), TypeError, "n_drones"),
    (dict(n_drones=0), ValueError, "n_drones"),
    (dict(n_worlds=10**9), ValueError, r"n_worlds=1000000000 .* needs about .* GiB"),
    (dict(n_worlds=10**12), ValueError, r"n_worlds=10{12} .*GiB.*fewer worlds"),
    (dict(n_drones=10**12), ValueError, r"n_drones=10{12} .*GiB"),
    (dict(n_worlds=10**12, n_drones=10**12), ValueError, r"n_worlds=.*n_drones=.*GiB"),
    (dict(n_worlds=10**6, n_drones=10**4), ValueError, r"n_worlds=.*GiB"),
    # seed: None or an int in [0, 2**63), never a bool, float or string
    (dict(seed=-1), ValueError, "seed"),
    (dict(seed=2**63), ValueError, "seed"),
    (dict(seed=1.5), TypeError, "seed"),
    (dict(seed="a"), TypeError, "seed"),
    (dict(seed="3"), TypeError, "seed"),
    (dict(seed=True), TypeError, "seed"),
    (dict(seed=np.bool_(False)), TypeError, "seed"),
    (dict(seed=[1]), TypeError, "seed"),
    (dict(seed=1j), TypeError, "seed"),
    # names and switches
    (dict(drone_model=5), TypeError, "drone_model"),
    (dict(drone_model=""), TypeError, "drone_model"),
    (dict(drone_model=None), TypeError, "drone_model"),
    (dict(model_dir=5), TypeError, "model_dir"),
    (dict(model_dir=True), TypeError, "model_dir"),
    (dict(model_dir=["models"]), TypeError, "model_dir"),
    (dict(integrator=["rk4"]), ValueError, "integrator"),
    (dict(integrator="RK4"), ValueError, r"integrator must be one of \['euler', 'rk4'"),
    (dict(integrator=2), ValueError, "integrator"),
    (dict(integrator=None), ValueError, "integrator"),
    (dict(mode=1.0), TypeError, "mode"),
    (dict(mode=True), TypeError, "mode"),
    (dict(mode=None), TypeError, "mode"),
    (dict(rotor_drag=1), TypeError, "rotor_drag"),
    (dict(downwash="True"), TypeError, "downwash"),
    (dict(ground_effect=None), TypeError, "ground_effect"),
    # rates: ints up to 1 MHz
    (dict(physics_hz="500"), TypeError, "physics_hz"),
    (dict(physics_hz=500.0), TypeError, "physics_hz"),
    (dict(physics_hz=True), TypeError, "physics_hz"),
    (dict(physics_hz=10**6 + 1), ValueError, r"physics_hz must be a positive integer <= "),
    (dict(physics_hz=2**63), ValueError, "physics_hz"),
    (dict(control_hz="240"), TypeError, "control_hz"),
    (dict(control_hz=True), TypeError, "control_hz"),
    (dict(control_hz=2 * 10**6), ValueError, "control_hz"),
    # gravity in [0, 100] m/s^2
    (dict(gravity=True), TypeError, "gravity"),
    (dict(gravity="9.81"), TypeError, "gravity"),
    (dict(gravity=9.81j), TypeError, "gravity"),
    (dict(gravity=None), TypeError, "gravity"),
    (dict(gravity=-1e-9), ValueError, r"gravity must be a number in \[0, 100\] m/s\^2"),
    (dict(gravity=100.001), ValueError, "gravity"),
    (dict(gravity=1e300), ValueError, "gravity"),
    (dict(gravity=math.nan), ValueError, "gravity"),
    (dict(gravity=math.inf), ValueError, "gravity"),
    (dict(gravity=BIG_INT), ValueError, "gravity"),
    # floor height within 1e6 m; crash speed a number >= 0
    (dict(floor_height=True), TypeError, "floor_height"),
    (dict(floor_height="0"), TypeError, "floor_height"),
    (dict(floor_height=1j), TypeError, "floor_height"),
    (dict(floor_height=1e6 + 1), ValueError, "floor_height"),
    (dict(floor_height=-1e300), ValueError, "floor_height"),
    (dict(floor_height=math.nan), ValueError, "floor_height"),
    (dict(crash_speed="1"), TypeError, "crash_speed"),
    (dict(crash_speed=True), TypeError, "crash_speed"),
    (dict(crash_speed=math.inf), ValueError, "crash_speed"),
    (dict(crash_speed=math.nan), ValueError, "crash_speed"),
    # start poses: (D, 3) or (W, D, 3) numbers, positions within 1e6 m
    (dict(n_drones=2, start_pos=RAGGED), TypeError, r"start_pos must be a numeric array .*ragged"),
    (dict(start_pos=[[True, 0, 1]]), TypeError, "start_pos"),
    (dict(start_pos=[[0, np.bool_(False), 1]]), TypeError, "start_pos"),
    (dict(start_pos=np.ones((1, 3), bool)), TypeError, "start_pos"),
    (dict(start_pos=[["0", "0", "1"]]), TypeError, "start_pos"),
    (dict(start_pos="abc"), TypeError, "start_pos"),
    (dict(start_pos={"x": 0}), TypeError, "start_pos"),
    (dict(start_pos=[[1j, 0, 1]]), TypeError, "start_pos"),
    (dict(start_pos=[[1e308, 0, 1]]), ValueError, r"start_pos must lie within \+-1e\+06 m"),
    (dict(start_pos=[[0, -1e6 - 1, 1]]), ValueError, "start_pos"),
    (dict(start_pos=[[BIG_INT, 0, 1]]), ValueError, "start_pos"),
    (dict(start_pos=[[math.nan, 0, 1]]), ValueError, "start_pos"),
    (dict(start_pos=[0.0, 0.0, 1.0]), ValueError, r"start_pos must have shape \(1, 3\) or "),
    (dict(n_worlds=2, start_pos=np.zeros((3, 1, 3))), ValueError, "start_pos"),
    (dict(n_drones=2, start_orn=RAGGED), TypeError, "start_orn"),
    (dict(start_orn=[[True, 0, 0]]), TypeError, "start_orn"),
    (dict(start_orn=[["0", "0", "0"]]), TypeError, "start_orn"),
    (dict(start_orn=[[0, 1j, 0]]), TypeError, "start_orn"),
    (dict(start_orn=[[0, math.inf, 0]]), ValueError, "start_orn"),
    (dict(start_orn=np.zeros((1, 4))), ValueError, "start_orn"),
    # wind: (3,) or (W, 3) numbers, at most 100 m/s
    (dict(n_worlds=2, wind=RAGGED), TypeError, r"wind must be a numeric array .*ragged"),
    (dict(wind=[True, 0, 0]), TypeError, "wind"),
    (dict(wind=["1", 0, 0]), TypeError, "wind"),
    (dict(wind=[1j, 0, 0]), TypeError, "wind"),
    (dict(wind="east"), TypeError, "wind"),
    (dict(wind=[100.001, 0, 0]), ValueError, r"wind must be at most 100 m/s"),
    (dict(wind=[60.0, 60.0, 60.0]), ValueError, "wind"),
    (dict(wind=[1e300, 0, 0]), ValueError, "wind"),
    (dict(wind=[math.nan, 0, 0]), ValueError, "wind"),
    (dict(n_worlds=2, wind=np.zeros((3, 3))), ValueError, "wind"),
    # turbulence: a dict of Dryden options within their bounds
    (dict(turbulence="strong"), TypeError, "turbulence"),
    (dict(turbulence=[("airspeed", 1.0)]), TypeError, "turbulence"),
    (dict(turbulence={1: 2.0, "a": 3.0}), ValueError, r"turbulence has unknown options"),
    (dict(turbulence={"airspeed": True}), TypeError, r"turbulence\['airspeed'\]"),
    (dict(turbulence={"airspeed": "3"}), TypeError, r"turbulence\['airspeed'\]"),
    (dict(turbulence={"altitude": np.bool_(True)}), TypeError, r"turbulence\['altitude'\]"),
    (dict(turbulence={"wind_speed_20ft": 1j}), TypeError, r"turbulence\['wind_speed_20ft'\]"),
    (dict(turbulence={"airspeed": 0.0}), ValueError, r"turbulence\['airspeed'\] .*\(0, 340\]"),
    (dict(turbulence={"airspeed": 341.0}), ValueError, r"turbulence\['airspeed'\]"),
    (dict(turbulence={"airspeed": 1e300}), ValueError, r"turbulence\['airspeed'\]"),
    (dict(turbulence={"altitude": 1e-300}), ValueError, r"turbulence\['altitude'\] .*\[0.1, "),
    (dict(turbulence={"altitude": 0.0999}), ValueError, r"turbulence\['altitude'\]"),
    (dict(turbulence={"altitude": MAX_ALTITUDE + 0.1}), ValueError, r"turbulence\['altitude'\]"),
    (dict(turbulence={"wind_speed_20ft": -1.0}), ValueError, r"turbulence\['wind_speed_20ft'\]"),
    (dict(turbulence={"wind_speed_20ft": 101.0}), ValueError, r"turbulence\['wind_speed_20ft'\]"),
    (dict(turbulence={"wind_speed_20ft": math.nan}), ValueError, "wind_speed_20ft"),
    # sensors: every size bounded before anything is allocated
    (dict(sensors={"gnss": {"preset": "default", "latency": 10**12}}), ValueError,
     r'sensors\["gnss"\]\["latency"\]=1000000000000 samples .* more than the 100 allowed'),
    (dict(sensors={"gnss": {"latency": 10**6}}), ValueError,  # every step at 500 Hz
     r'sensors\["gnss"\]\["latency"\]=1000000 samples .*=500 Hz is more than the 5000'),
    (dict(physics_hz=10**6, sensors={"gnss": {"latency": 100_001}}), ValueError,
     r"more than the 100000 allowed"),
    (dict(sensors={"lidar": {"channels": 2**11, "beams": 2**11, "vertical_fov_deg": 90.0}}),
     ValueError, r'sensors\["lidar"\]\["channels"\] x .* more than MAX_RAYS'),
    (dict(sensors={"depth": {"width": 10**9, "height": 10**9}}), ValueError,
     r'sensors\["depth"\]\["width"\] x sensors\["depth"\]\["height"\] = '
     r'1000000000000000000 pixels'),
    (dict(sensors={"gnss": {"time_to_fix": 1e308}}), ValueError,
     r'sensors\["gnss"\]\["time_to_fix"\] must be at most 3600'),
    (dict(sensors={"imu": {"update_rate": True}}), TypeError,
     r'sensors\["imu"\]\["update_rate"\] must be a positive integer'),
    (dict(sensors={"imu": [("preset", "ideal")]}), TypeError,
     r'sensors\["imu"\] must be a preset name'),
]


@pytest.mark.parametrize(("kwargs", "error", "pattern"), CONSTRUCTOR_CASES,
                         ids=[repr(case[0])[:60] for case in CONSTRUCTOR_CASES])
def test_bad_constructor_input_is_refused_naming_the_argument(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        BatchedAviary(**kwargs)


RANDOMIZE_CASES = [
    ({"mass": "12"}, TypeError, r"randomize\['mass'\] must be a \(low, high\) pair"),
    ({"mass": ("0.9", "1.1")}, TypeError, r"randomize\['mass'\]\[0\] must be a number"),
    ({"mass": (0.9, "1.1")}, TypeError, r"randomize\['mass'\]\[1\]"),
    ({"mass": (True, True)}, TypeError, r"randomize\['mass'\]"),
    ({"mass": (np.bool_(True), 1.0)}, TypeError, r"randomize\['mass'\]"),
    ({"mass": (0.9,)}, TypeError, r"randomize\['mass'\]"),
    ({"mass": (0.9, 1.0, 1.1)}, TypeError, r"randomize\['mass'\]"),
    ({"mass": {0.9, 1.1}}, TypeError, r"randomize\['mass'\]"),
    ({"mass": np.array([0.9, 1.0, 1.1])}, TypeError, r"randomize\['mass'\]"),
    ({"mass": (0.9, [1.1])}, TypeError, r"randomize\['mass'\]\[1\]"),
    ({"mass": (1j, 1.0)}, TypeError, r"randomize\['mass'\]"),
    ({"mass": None}, TypeError, r"randomize\['mass'\]"),
    ({"kf": (1e300, 1e300)}, ValueError, r"randomize\['kf'\]\[0\] must be a number in \[0.1, 10\]"),
    ({"inertia": (1e-9, 1e-9)}, ValueError, r"randomize\['inertia'\]"),
    ({"drag": (1e300, 1e300)}, ValueError, r"randomize\['drag'\]"),
    ({"mass": (0.099, 1.0)}, ValueError, r"randomize\['mass'\]\[0\]"),
    ({"km": (1.0, 10.001)}, ValueError, r"randomize\['km'\]\[1\]"),
    ({"km": (1.0, BIG_INT)}, ValueError, r"randomize\['km'\]\[1\]"),
    ({"mass": (1.1, 0.9)}, ValueError, r"randomize\['mass'\] .*low <= high"),
    ({"tau": (0.0, 1.1)}, ValueError, r"randomize\['tau'\]\[1\] must be a number in \[0, 1\] s"),
    ({"tau": (math.nan, 0.1)}, ValueError, r"randomize\['tau'\]"),
    ({"com_offset": 1e300}, ValueError, r"randomize\['com_offset'\] must be a number in "
                                        r"\[0, 0.1\] m"),
    ({"com_offset": 0.11}, ValueError, r"randomize\['com_offset'\]"),
    ({"com_offset": True}, TypeError, r"randomize\['com_offset'\]"),
    ({"com_offset": "0.01"}, TypeError, r"randomize\['com_offset'\]"),
    ({"com_offset": 1j}, TypeError, r"randomize\['com_offset'\]"),
    ({"torque_disturbance": 1e300}, ValueError, r"randomize\['torque_disturbance'\]"),
    ({"torque_disturbance": 2.1e-3}, ValueError, r"randomize\['torque_disturbance'\]"),
    ({"force_disturbance": 100.5}, ValueError, r"randomize\['force_disturbance'\] .*100\] N"),
    ({"force_disturbance": -0.0001}, ValueError, r"randomize\['force_disturbance'\]"),
    ({"force_disturbance": (0.0, 1.0)}, TypeError, r"randomize\['force_disturbance'\]"),
    ({1: (0.9, 1.1), "mass": (0.9, 1.1)}, ValueError, r"randomize has unknown keys \[1\]"),
    ({"weight": (0.9, 1.1)}, ValueError, r"randomize has unknown keys \['weight'\]"),
]


@pytest.mark.parametrize(("randomize", "error", "pattern"), RANDOMIZE_CASES,
                         ids=[repr(case[0])[:60] for case in RANDOMIZE_CASES])
def test_bad_randomize_is_refused_naming_the_key(randomize, error, pattern):
    with pytest.raises(error, match=pattern):
        BatchedAviary(randomize=randomize)


def test_numpy_numbers_and_bounds_themselves_are_accepted():
    sim = BatchedAviary(
        n_worlds=np.int64(2), n_drones=np.int32(2), seed=np.uint32(5),
        physics_hz=np.int64(500), control_hz=np.int16(250), gravity=np.float32(9.81),
        floor_height=np.int8(0), crash_speed=np.float16(1.0),
        start_pos=np.array([[0, 0, 1], [1, 0, 1]], np.float32),
        start_orn=[[np.float32(0.1), 0, 0], [0, 0, np.int64(3)]],
        wind=np.array([1, 2, 0], np.int32),
        turbulence={"airspeed": np.float32(5.0), "altitude": np.int64(20)},
        randomize=types.MappingProxyType({
            "com_offset": np.float32(0.01), "mass": (np.float32(0.9), np.float64(1.1)),
            "inertia": np.array([0.9, 1.1]), "kf": [0.95, np.int64(1)],
            "torque_disturbance": np.float64(1e-4), "force_disturbance": np.int64(1)}))
    assert sim.n_worlds == 2 and sim.control_hz == 250
    assert sim.gravity == pytest.approx(9.81, rel=1e-6) and isinstance(sim.gravity, float)
    assert sim.randomize["com_offset"] == pytest.approx(0.01, rel=1e-6)
    assert sim.randomize["mass"] == pytest.approx((0.9, 1.1), rel=1e-6)
    assert all(isinstance(v, float) for v in sim.randomize["kf"])
    assert np.abs(sim.plant.com_offset).max() <= 0.01 + 1e-9
    np.testing.assert_array_equal(sim.start_pos[1], [[0, 0, 1], [1, 0, 1]])
    # every bound itself is allowed
    BatchedAviary(gravity=0, floor_height=-1e6, start_pos=[[1e6, -1e6, 1e6]],
                  wind=[100.0, 0.0, 0.0],
                  turbulence={"wind_speed_20ft": 100, "airspeed": 340,
                              "altitude": 0.1},
                  randomize={"mass": (0.1, 10), "tau": (0, 1), "com_offset": 0.1,
                             "force_disturbance": 100, "torque_disturbance": 2e-3})
    BatchedAviary(gravity=100, physics_hz=10**6, turbulence={"altitude": MAX_ALTITUDE})


def test_a_huge_engine_is_refused_before_anything_is_allocated():
    tracemalloc.start()
    with pytest.raises(ValueError, match=r"n_worlds=1000000000 .*needs about [0-9.e+]+ GiB, more "
                                         r"than the .* GiB allowed \(half this machine"):
        BatchedAviary(n_worlds=10**9, start_pos=[[0.0, 0.0, 1.0]], wind=[1.0, 0.0, 0.0])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 2**20  # nothing sized by the worlds was allocated
    assert engine_bytes(10**9, 1, 4) > memory_limit_bytes() or memory_limit_bytes() > 2**40


def test_a_long_gnss_latency_on_many_worlds_is_refused_before_anything_is_allocated():
    """The GNSS latency ring (latency + 1 slots per drone) is in the estimate: 10 s of
    samples at 10 kHz (100 000, the most) on enough worlds to need twice the limit is
    refused with the estimate in GiB, where the same engine without sensors fits."""
    sensors = {"gnss": {"preset": "ideal", "latency": 100_000}}  # every step: 10 s
    ring = (100_000 + 1) * 7 * 8  # bytes per drone
    n_worlds = int(2 * memory_limit_bytes() / ring) + 1
    assert engine_bytes(n_worlds, 1, 4) < 0.01 * memory_limit_bytes()
    # checked first, so that a lost ring fails here rather than allocating twice the limit
    assert engine_bytes(n_worlds, 1, 4, resolve_sensors(sensors, 10_000)) > \
        1.9 * memory_limit_bytes()
    tracemalloc.start()
    with pytest.raises(ValueError, match=rf"n_worlds={n_worlds} x n_drones=1 \(4 rotors each, "
                                         rf"with sensors \['gnss'\] of 5.34 MiB per drone\) "
                                         rf"needs about [0-9.]+ GiB, more than the"):
        BatchedAviary(n_worlds=n_worlds, physics_hz=10_000, sensors=sensors)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 32 * 2**20  # the layout measured on a drone or two, no world's arrays


# ---------------------------------------------------------------------------- 3. memory
def test_the_memory_estimate_covers_the_engine_and_its_calls():
    """Arrays, transient buffers and noise chunks stay under engine_bytes; the estimate is
    no gross overestimate either (the arrays alone are most of it)."""
    n_worlds, n_drones = 2048, 2
    BatchedAviary(n_worlds=2, turbulence={}).step(2)  # kernels loaded outside the trace
    tracemalloc.start()
    sim = BatchedAviary(n_worlds=n_worlds, n_drones=n_drones, mode=1, turbulence={},
                        randomize=dict(mass=(0.9, 1.1), inertia=(0.9, 1.1),
                                       com_offset=0.01, force_disturbance=0.01))
    _, construction = tracemalloc.get_traced_memory()
    arrays = sum(a.nbytes for a in (*sim._state, *sim.plant, sim.start_pos, sim.start_orn,
                                    sim._aviary_state))
    before = tracemalloc.get_traced_memory()[0]
    transient = 0
    for call in (sim.reset, lambda: sim.reset(mask=np.arange(n_worlds) % 3 == 0),
                 lambda: sim.set_flat_reference(np.zeros((n_worlds, n_drones, 3))),
                 lambda: sim.set_mode(-1), lambda: sim.set_mode(1), lambda: sim.step(7)):
        tracemalloc.reset_peak()
        call()
        transient = max(transient, tracemalloc.get_traced_memory()[1] - before)
    tracemalloc.stop()
    noise = 7 * n_worlds * 5 * 8
    estimate = engine_bytes(n_worlds, n_drones, sim.model.n_rotors)
    allowance = 8 * TRANSIENT_FLOATS_PER_DRONE * n_worlds * n_drones
    assert transient <= allowance + noise
    assert arrays + transient <= estimate
    assert construction <= estimate
    assert arrays > 0.7 * (estimate - NOISE_CHUNK_BYTES - allowance)


def test_the_memory_estimate_covers_the_sensors_and_their_reading():
    """A depth image and a LiDAR scan per drone, and a GNSS ring: the arrays and the copies
    read_sensors returns stay under the estimate, which holds both."""
    n_worlds, n_drones = 64, 2
    sensors = {"depth": {"width": 64, "height": 48}, "lidar": "ideal",
               "gnss": {"preset": "default", "latency": 100}}
    tracemalloc.start()
    sim = BatchedAviary(n_worlds=n_worlds, n_drones=n_drones, sensors=sensors)
    arrays = sum(a.nbytes for a in (*sim._state, *sim.plant, sim.start_pos, sim.start_orn,
                                    sim._aviary_state))
    before = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    readings = sim.read_sensors()
    transient = tracemalloc.get_traced_memory()[1] - before
    tracemalloc.stop()
    rays = (64 * 48 + 64) * 8 * n_worlds * n_drones
    assert readings["depth"]["depth"].nbytes + readings["lidar"]["ranges"].nbytes == rays
    assert transient >= rays  # the copies
    estimate = sim.family.memory_bytes(n_worlds, n_drones, sim.sensor_params)[0]
    assert arrays + transient <= estimate
    ring = 101 * 7 * 8 * n_worlds * n_drones
    without_sensors = sim.family.memory_bytes(n_worlds, n_drones, None)[0]
    assert estimate >= without_sensors + 2 * rays + ring


def test_turbulence_noise_is_drawn_in_chunks_with_the_same_result(monkeypatch):
    options = dict(n_worlds=4, n_drones=2, mode=1, seed=7, rotor_drag=True,
                   wind=(1.0, 0.5, 0.0), turbulence=dict(wind_speed_20ft=8.0),
                   randomize=dict(mass=(0.9, 1.1)))
    whole = BatchedAviary(**options)
    whole.step(301)
    monkeypatch.setattr(aviary_module, "NOISE_CHUNK_BYTES", 3 * 4 * 5 * 8)  # 3 steps
    calls = []

    chunked = BatchedAviary(**options)
    advance = chunked._advance

    def counting_advance(state, plant, model, config, mode, n_steps, noise, *switches):
        calls.append((n_steps, noise.shape))
        advance(state, plant, model, config, mode, n_steps, noise, *switches)

    monkeypatch.setattr(chunked, "_advance", counting_advance)
    chunked.step(301)
    assert len(calls) == 101 and calls[0] == (3, (3, 4, 5)) and calls[-1][0] == 1
    for name in ("pos", "quat", "vel", "ang_vel", "rotor_speed", "wind", "elapsed_time"):
        assert np.array_equal(getattr(whole, name), getattr(chunked, name)), name
    assert whole.rng.bit_generator.state == chunked.rng.bit_generator.state
    assert np.abs(whole.wind - (1.0, 0.5, 0.0)).max() > 0.01  # turbulence was on


def test_a_huge_step_with_turbulence_never_holds_all_its_noise(monkeypatch):
    sim = BatchedAviary(n_worlds=8, turbulence={})
    shapes = []

    class Stop(Exception):
        pass

    def stopping_advance(state, plant, model, config, mode, n_steps, noise, *switches):
        shapes.append((n_steps, noise.nbytes))
        if len(shapes) == 3:
            raise Stop

    monkeypatch.setattr(sim, "_advance", stopping_advance)
    with pytest.raises(Stop):
        sim.step(10**12)
    chunk = NOISE_CHUNK_BYTES // (8 * 5 * 8)
    assert shapes == [(chunk, chunk * 8 * 5 * 8)] * 3
    assert chunk * 8 * 5 * 8 <= NOISE_CHUNK_BYTES


# ---------------------------------------------------------------------------- 4. methods
def engine_snapshot(sim: BatchedAviary) -> dict:
    """Everything a call could change: every array of the state and the plant, the
    generator's state, the mode, the start poses and the divergence flags."""
    snapshot = {f"state.{k}": np.array(v, copy=True) for k, v in sim._state._asdict().items()}
    snapshot.update({f"plant.{k}": np.array(v, copy=True)
                     for k, v in sim.plant._asdict().items()})
    snapshot.update(rng=sim.rng.bit_generator.state, mode=sim.mode,
                    start_pos=sim.start_pos.copy(), start_orn=sim.start_orn.copy(),
                    diverged=sim.diverged.copy())
    return snapshot


def assert_unchanged(before: dict, after: dict) -> None:
    assert before.keys() == after.keys()
    for name, value in before.items():
        if isinstance(value, np.ndarray):
            assert value.shape == after[name].shape and np.array_equal(
                value, after[name], equal_nan=value.dtype.kind == "f"), name
        else:
            assert value == after[name], name


@pytest.fixture(scope="module")
def flying():
    """A mode-1 engine in the middle of a flight, with turbulence and randomisation (so
    that a reseed or a draw would show)."""
    sim = BatchedAviary(n_worlds=3, n_drones=2, mode=1, seed=3, turbulence={},
                        randomize=dict(mass=(0.9, 1.1), com_offset=0.005))
    sim.set_setpoints([0.1, -0.05, 0.2, 1.1 * sim.model.mass * sim.gravity])
    sim.step(40)
    return sim


W, D = 3, 2
METHOD_CASES = [
    # reset: the seed and the mask are both checked before anything changes
    ("reset", dict(mask=np.array([1, 0, 1]), seed=5), ValueError, "mask"),
    ("reset", dict(mask=[True, False], seed=5), ValueError, "mask"),
    ("reset", dict(mask=[[True], [False, True]]), ValueError, "mask"),
    ("reset", dict(mask=np.ones(W), seed=5), ValueError, "mask"),
    ("reset", dict(mask="all"), ValueError, "mask"),
    ("reset", dict(seed=-1), ValueError, "seed"),
    ("reset", dict(seed=2**63), ValueError, "seed"),
    ("reset", dict(seed=1.5), TypeError, "seed"),
    ("reset", dict(seed="a"), TypeError, "seed"),
    ("reset", dict(seed=True), TypeError, "seed"),
    ("reset", dict(mask=np.array([True, False, True]), seed=True), TypeError, "seed"),
    # step
    ("step", dict(n_steps=0), ValueError, "n_steps"),
    ("step", dict(n_steps=-5), ValueError, "n_steps"),
    ("step", dict(n_steps=2.0), TypeError, "n_steps"),
    ("step", dict(n_steps="10"), TypeError, "n_steps"),
    ("step", dict(n_steps=True), TypeError, "n_steps"),
    ("step", dict(n_steps=None), TypeError, "n_steps"),
    ("step", dict(n_steps=2**63), ValueError, r"n_steps must be a positive integer <= "),
    ("step", dict(n_steps=np.uint64(2**63)), ValueError, "n_steps"),
    ("step", dict(n_steps=MAX_STEPS_PER_CALL + 1), ValueError, "n_steps"),
    # set_mode
    ("set_mode", dict(mode=3), ValueError, "mode"),
    ("set_mode", dict(mode="7"), TypeError, "mode"),
    ("set_mode", dict(mode=7.0), TypeError, "mode"),
    ("set_mode", dict(mode=True), TypeError, "mode"),
    ("set_mode", dict(mode=None), TypeError, "mode"),
    # set_setpoints
    ("set_setpoints", dict(setpoints=[[0, 0, 0, 0.3], [0, 0]]), TypeError, "setpoints .*ragged"),
    ("set_setpoints", dict(setpoints=["0", "0", "0", "0.3"]), TypeError, "setpoints"),
    ("set_setpoints", dict(setpoints=[True, 0, 0, 0.3]), TypeError, "setpoints"),
    ("set_setpoints", dict(setpoints=np.zeros(4, bool)), TypeError, "setpoints"),
    ("set_setpoints", dict(setpoints=[1j, 0, 0, 0.3]), TypeError, "setpoints"),
    ("set_setpoints", dict(setpoints="hover"), TypeError, "setpoints"),
    ("set_setpoints", dict(setpoints=None), TypeError, "setpoints"),
    ("set_setpoints", dict(setpoints=[BIG_INT, 0, 0, 0.3]), ValueError, "setpoints"),
    ("set_setpoints", dict(setpoints=[math.nan, 0, 0, 0.3]), ValueError, "setpoints"),
    ("set_setpoints", dict(setpoints=np.full((W, D, 4), math.inf)), ValueError, "setpoints"),
    ("set_setpoints", dict(setpoints=np.zeros((W, D, 5))), ValueError, "setpoints"),
    ("set_setpoints", dict(setpoints=np.zeros((D, 4), np.float32) + [0, 0, 0, np.nan]),
     ValueError, "setpoints"),
    # set_flat_reference
    ("set_flat_reference", dict(position=[[[0, 0, 1]] * D, [[0, 1]] * D, [[0, 0, 1]] * D]),
     TypeError, "position"),
    ("set_flat_reference", dict(position="origin"), TypeError, "position"),
    ("set_flat_reference", dict(position=np.zeros((W, D, 3), bool)), TypeError, "position"),
    ("set_flat_reference", dict(position=np.zeros((W, D, 3)), velocity=[[["1", 0, 0]] * D] * W),
     TypeError, "velocity"),
    ("set_flat_reference", dict(position=np.zeros((W, D, 3)), yaw=[[True] * D] * W),
     TypeError, "yaw"),
    ("set_flat_reference", dict(position=np.zeros((D, 3))), ValueError, "position"),
    ("set_flat_reference", dict(position=np.zeros((W, D, 3)), jerk=np.full((W, D, 3), np.nan)),
     ValueError, "jerk"),
    ("set_flat_reference", dict(position=np.zeros((W, D, 3)), yaw_rate=np.zeros(W)),
     ValueError, "yaw_rate"),
    ("set_flat_reference", dict(position=np.zeros((W, D, 3)),
                                acceleration=np.broadcast_to((0, 0, -9.81), (W, D, 3))),
     ValueError, "free fall"),
    ("set_flat_reference", dict(position=np.zeros((W, D, 3)),
                                acceleration=np.broadcast_to((0, 9.81, -9.81), (W, D, 3))),
     ValueError, "90 degrees"),
]


@pytest.mark.parametrize(("method", "kwargs", "error", "pattern"), METHOD_CASES,
                         ids=[f"{c[0]}-{repr(c[1])[:50]}" for c in METHOD_CASES])
def test_a_refused_call_names_the_argument_and_changes_nothing(flying, method, kwargs, error,
                                                               pattern):
    before = engine_snapshot(flying)
    signatures = len(run_worlds.signatures)
    with pytest.raises(error, match=pattern):
        getattr(flying, method)(**kwargs)
    assert_unchanged(before, engine_snapshot(flying))
    assert len(run_worlds.signatures) == signatures  # refused before any kernel: none compiled


def test_refused_rotor_speeds_in_mode_minus_one_change_nothing():
    sim = BatchedAviary(n_worlds=2, drone_model="cf2x", mode=-1)
    sim.set_setpoints(np.full(4, sim.hover_speed))
    before = engine_snapshot(sim)
    for speeds in (np.full(4, sim.model.max_speed * 1.01), [-1.0, 0.0, 0.0, 0.0]):
        with pytest.raises(ValueError, match="rotor speed"):
            sim.set_setpoints(speeds)
        assert_unchanged(before, engine_snapshot(sim))


def test_setpoint_size_of_checks_the_mode():
    sim = BatchedAviary(drone_model="hexarotor")
    assert sim.setpoint_size_of(-1) == 6 and sim.setpoint_size_of(np.int64(7)) == 4
    with pytest.raises(ValueError, match="mode"):
        sim.setpoint_size_of(5)
    with pytest.raises(TypeError, match="mode"):
        sim.setpoint_size_of("1")


# ---------------------------------------------------------------------------- 5. diverged
def twin_engines(**options):
    """Two engines on the same seed and setpoints, some way into a flight."""
    engines = []
    for _ in range(2):
        sim = BatchedAviary(n_worlds=4, n_drones=2, mode=1, seed=11, **options)
        sim.set_setpoints([0.05, 0.1, -0.2, 1.05 * sim.model.mass * sim.gravity])
        sim.step(30)
        engines.append(sim)
    return engines


@pytest.mark.parametrize(("where", "index", "value"), [
    ("vel", (1, 0, 2), math.nan),
    ("pos", (1, 1, 0), math.inf),
    ("quat", (1, 0, 3), math.nan),
    ("ang_vel", (1, 1, 1), -math.inf),
    ("rotor_speed", (1, 0, 0), math.nan),
    ("plant.mass", (1, 0), math.nan),
    ("plant.kf", (1, 1), math.inf),
    ("plant.disturbance_force", (1, 0, 2), math.nan),
])
def test_a_diverging_world_is_reset_and_flagged_the_others_untouched(where, index, value):
    options = dict(turbulence={}, rotor_drag=True, wind=(2.0, 0.0, 0.0),
                   randomize=dict(mass=(0.9, 1.1), kf=(0.95, 1.05)))
    sim, twin = twin_engines(**options)
    assert not sim.diverged.any() and sim.diverged.shape == (4,)
    assert sim.diverged.dtype == bool
    target = sim.plant if where.startswith("plant.") else sim
    getattr(target, where.removeprefix("plant."))[index] = value
    sim.step(20)
    twin.step(20)
    np.testing.assert_array_equal(sim.diverged, [False, True, False, False])
    # the diverged world is back at its start state
    np.testing.assert_array_equal(sim.pos[1], sim.start_pos[1])
    np.testing.assert_array_equal(sim.quat[1], np.broadcast_to([0, 0, 0, 1.0], (2, 4)))
    for name in ("vel", "ang_vel", "rotor_speed"):
        np.testing.assert_array_equal(getattr(sim, name)[1], 0.0)
    assert sim.elapsed_time[1] == 0.0 and not sim.crashed[1].any()
    per_world = [array for name, array in sim._state._asdict().items()
                 if name not in SENSOR_CONSTANTS]
    for array in (*per_world, *sim.plant):
        if array.dtype.kind == "f":
            assert np.isfinite(array[1]).all()
    assert 0.9 <= (sim.plant.mass[1] / sim.model.mass).min() <= 1.1  # a fresh draw
    # the other worlds flew on exactly as the twin's
    keep = [0, 2, 3]
    for name, array in sim._state._asdict().items():
        if array.shape[:1] == (sim.n_worlds,):  # per world (not per thread, nor shared)
            assert np.array_equal(array[keep], getattr(twin._state, name)[keep]), name
    for name, array in sim.plant._asdict().items():
        if array.shape[:1] == (sim.n_worlds,):
            assert np.array_equal(array[keep], getattr(twin.plant, name)[keep]), name
    # the flag is of the last call only
    sim.step(5)
    assert not sim.diverged.any()
    assert np.isfinite(sim.pos).all() and sim.elapsed_time[1] == pytest.approx(5 * sim.dt)


def test_diverged_is_read_only_and_every_world_can_diverge():
    sim = BatchedAviary(n_worlds=3, mode=7, seed=0)
    with pytest.raises(ValueError, match="read-only"):
        sim.diverged[0] = True
    sim.vel[:] = math.nan
    sim.step(1)
    assert sim.diverged.all()
    np.testing.assert_array_equal(sim.pos, sim.start_pos)
    sim.step(1)
    assert not sim.diverged.any()


# ---------------------------------------------------------------------------- 6. bounds fly
TEN_SECONDS_EXTREMES = {
    "positions at 1e6 m, downwash": dict(start_pos=[[1e6, -1e6, 1e6], [-1e6, 1e6, 1e6]],
                                         downwash=True),
    "floor at -1e6 m": dict(floor_height=-1e6, start_pos=[[0, 0, -1e6 + 1], [1, 0, -1e6 + 1]]),
    "start_orn 1e300 rad": dict(start_orn=[[1e300, -1e300, 1e300], [0, 0, 0]]),
    "gravity 0": dict(gravity=0.0),
    "gravity 100": dict(gravity=100.0),
    "wind 100 m/s, rotor drag": dict(wind=[0.0, 0.0, -100.0], rotor_drag=True),
    "turbulence at its bounds": dict(
        wind=[100.0, 0.0, 0.0], rotor_drag=True,
        turbulence=dict(wind_speed_20ft=100.0, airspeed=340.0, altitude=0.1)),
    "slow turbulence, high": dict(
        rotor_drag=True, turbulence=dict(wind_speed_20ft=100.0, airspeed=1e-9,
                                         altitude=MAX_ALTITUDE)),
    **{f"{key} x{factor}": dict(randomize={key: (factor, factor)},
                               rotor_drag=key == "drag", wind=[100.0, 0.0, 0.0])
       for key in ("mass", "inertia", "kf", "km", "drag") for factor in (0.1, 10.0)},
    "tau 0 s": dict(randomize={"tau": (0.0, 0.0)}),
    "tau 1 s": dict(randomize={"tau": (1.0, 1.0)}),
    "com_offset 0.1 m": dict(randomize={"com_offset": 0.1}),
    "force 100 N": dict(randomize={"force_disturbance": 100.0}),
    "torque 2e-3 N m": dict(randomize={"torque_disturbance": 2e-3}),
    "setpoints 1e300": dict(extreme_setpoints=True, rotor_drag=True, downwash=True),
}


@pytest.mark.parametrize("model", [
    "crazyflie21",
    # the lightest (27 g) and the heaviest (1.5 kg) of the others
    pytest.param("cf2x", marks=pytest.mark.slow),
    pytest.param("hexarotor", marks=pytest.mark.slow)])
@pytest.mark.parametrize("mode", [-1, 0, 1, 2, 7])
@pytest.mark.parametrize("case", list(TEN_SECONDS_EXTREMES))
def test_the_extreme_allowed_values_stay_finite_for_ten_seconds(case, mode, model):
    """Each bound at its limit, flown 10 s at 500 Hz in every mode from the hold setpoints
    (mode -1: the hover speed): nothing diverges, so the guard is never needed there."""
    if case == "gravity 0" and model == "cf2x":
        pytest.skip("cf2x's YAML gives its top speed by thrust-to-weight: none without weight")
    options = dict(TEN_SECONDS_EXTREMES[case])
    extreme_setpoints = options.pop("extreme_setpoints", False)
    sim = BatchedAviary(n_worlds=4, n_drones=2, drone_model=model, mode=mode, seed=1,
                        **options)
    k = sim.setpoint_size
    if mode == -1:
        low, high = sim.model.min_speed, sim.model.max_speed
        sim.set_setpoints(np.full(k, high if extreme_setpoints else
                                  np.clip(sim.hover_speed, low, high)))
    elif extreme_setpoints:
        sim.set_setpoints(np.tile([1e300, -1e300, 1e300, 1e300], (4, 2, 1)))
    for _ in range(10):
        sim.step(500)
        assert not sim.diverged.any()
    assert np.isfinite(sim._kinematics).all()
    assert sim.elapsed_time == pytest.approx(10.0)


def test_an_extreme_flat_reference_stays_finite():
    sim = BatchedAviary(n_worlds=2, n_drones=2, mode=1)
    huge = np.full((2, 2, 3), 1e300)
    sim.set_flat_reference(huge, huge, huge, huge, huge, yaw=np.full((2, 2), 1e300),
                           yaw_rate=np.full((2, 2), -1e300),
                           yaw_acceleration=np.full((2, 2), 1e300))
    for _ in range(10):
        sim.step(500)
        assert not sim.diverged.any()
