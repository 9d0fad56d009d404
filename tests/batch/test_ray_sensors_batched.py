"""Ray sensors on the batched engine: the LiDAR (and the rangefinder) cast against each
world's obstacle layout, checked against the closed-form reference
(:func:`pyflyt_like.sensors.lidar.true_ranges`), against the PyBullet Aviary at the same
poses (1 mm, the issue's bound), and for their noise, dropout, rate and streams.

Every engine here has ray sensors, so all run the family's cached ``run_worlds`` compiled
with ``sensing=(points, rays)``, ``rays`` True (``points`` True with a rangefinder).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyflyt_like.batch import BatchedAviary
from pyflyt_like.common.rotations import euler_to_quat
from pyflyt_like.sensors import lidar, resolve_sensors
from pyflyt_like.worlds import Box, Cylinder, Forest, Sphere, World

HZ = 240
MODEL = "cf2x"
FOREST = Forest(density=0.1, radius=(0.1, 0.3), height=6.0, extent=30.0,
                clearing=2.0).generate(seed=5)
#: A 360-degree, 3-channel scan without noise, every 4th physics step, 30 m of range.
EXACT = {"preset": "ideal", "channels": 3, "beams": 90, "vertical_fov_deg": 20.0,
         "max_range": 30.0, "update_rate": 60}
#: Poses in the forest's clearing, tilted and turned (Euler angles [rad]).
STARTS = np.array([[0.0, 0.0, 1.0], [0.5, -0.4, 1.6], [-0.8, 0.3, 0.7], [1.1, 1.0, 2.5]])
EULERS = np.array([[0.0, 0.0, 0.0], [0.2, -0.1, 0.7], [-0.3, 0.25, -2.0], [0.1, 0.4, 3.0]])


def _engine(sensors, world=FOREST, starts=STARTS, eulers=EULERS, **options) -> BatchedAviary:
    return BatchedAviary(n_worlds=len(starts), drone_model=MODEL, physics_hz=HZ,
                         start_pos=np.asarray(starts)[:, None, :],
                         start_orn=np.asarray(eulers)[:, None, :], world=world,
                         sensors=sensors, **options)


def _reference(world, sim, params, w, floor_z=0.0) -> np.ndarray:
    return lidar.true_ranges(world, sim.pos[w, 0], sim.quat[w, 0], params, floor_z)


@pytest.fixture(scope="module")
def forest_scans():
    sim = _engine({"lidar": EXACT}, seed=1)
    sim.reset(seed=1)
    return sim, sim.read_sensors()["lidar"]


def test_the_reset_scan_is_the_closed_form_in_every_world(forest_scans):
    sim, reading = forest_scans
    params = sim.sensor_params["lidar"]
    assert reading["ranges"].shape == (len(STARTS), 1, 3, 90)
    np.testing.assert_array_equal(reading["time"], 0.0)
    hits = 0
    for w in range(len(STARTS)):
        expected = np.minimum(_reference(FOREST, sim, params, w), params.max_range)
        np.testing.assert_allclose(reading["ranges"][w, 0], expected, rtol=0, atol=1e-9)
        hits += int((expected < params.max_range).sum())
    assert hits > 200  # trunks and floor seen, not only free space


def test_a_scan_follows_the_flight_at_its_rate():
    sim = _engine({"lidar": EXACT}, seed=1)
    sim.reset(seed=1)
    period = HZ // EXACT["update_rate"]
    params = sim.sensor_params["lidar"]
    for k in range(1, 2 * period + 1):
        sim.step()  # mode 0 at zero command: the drones fall and tumble a little
        reading = sim.read_sensors()["lidar"]
        sampled = k // period * period / HZ
        np.testing.assert_allclose(reading["time"], sampled, rtol=0, atol=1e-12)
        if k % period == 0:
            for w in range(len(STARTS)):
                expected = np.minimum(_reference(FOREST, sim, params, w), params.max_range)
                np.testing.assert_allclose(reading["ranges"][w, 0], expected, rtol=0,
                                           atol=1e-9)


def test_lone_primitives_read_their_analytic_distance():
    # One ring of 4 beams (back, right, front, left) from (0, 0, 1), level: a trunk ahead
    # at x = 5 (radius 0.3), a crate on the left (its face at y = 2), a ball behind (centre
    # x = -4, radius 1), nothing on the right but the world's edge.
    world = World([Cylinder(x=5.0, y=0.0, radius=0.3, height=3.0),
                   Box(center=(0.0, 2.5, 1.0), half_extents=(0.5, 0.5, 1.0)),
                   Sphere(center=(-4.0, 0.0, 1.0), radius=1.0)])
    ring = {"preset": "ideal", "beams": 4, "max_range": 20.0}
    sim = _engine({"lidar": ring}, world=world, starts=[[0.0, 0.0, 1.0]],
                  eulers=[[0.0, 0.0, 0.0]])
    sim.reset(seed=0)
    ranges = sim.read_sensors()["lidar"]["ranges"][0, 0, 0]
    np.testing.assert_allclose(ranges, [3.0, 20.0, 4.7, 2.0], rtol=0, atol=1e-12)


def test_the_same_poses_read_the_same_ranges_as_pybullet_within_a_millimetre():
    # one PyBullet Aviary per world: drones of one Aviary would see each other
    from pyflyt_like.core import Aviary

    sensors = {"lidar": EXACT, "range": "ideal"}
    sim = _engine(sensors, seed=3)
    sim.reset(seed=3)
    batched = sim.read_sensors()
    for w in (1, 3):  # the tilted and turned poses
        with Aviary(start_pos=sim.pos[w], start_orn=EULERS[w:w + 1], drone_type="quadx",
                    physics_hz=HZ, seed=0, world=FOREST,
                    drone_options={"sensors": sensors, "drone_model": MODEL,
                                   "control_hz": HZ}) as aviary:
            np.testing.assert_allclose(aviary.state(0)[3], sim.pos[w, 0], rtol=0,
                                       atol=1e-12)
            pybullet = aviary.read_sensors(0)
        np.testing.assert_allclose(batched["lidar"]["ranges"][w, 0],
                                   pybullet["lidar"]["ranges"], rtol=0, atol=1e-3)
        assert batched["range"]["range"][w, 0] == pytest.approx(
            pybullet["range"]["range"], abs=1e-3)


def test_the_rangefinder_sees_obstacles_under_the_drone():
    # Over a crate 0.8 m tall (its top at z = 0.8), a ball of radius 0.5 at z = 0.5 and the
    # bare floor, at height 2 m, level and tilted 0.3 rad in roll.
    world = World([Box(center=(0.0, 0.0, 0.4), half_extents=(1.0, 1.0, 0.4)),
                   Sphere(center=(5.0, 0.0, 0.5), radius=0.5)])
    starts = [[0.0, 0.0, 2.0], [5.0, 0.0, 2.0], [10.0, 0.0, 2.0], [10.0, 0.0, 2.0]]
    eulers = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.3, 0.0, 0.0]]
    sim = _engine({"range": "ideal"}, world=world, starts=starts, eulers=eulers)
    sim.reset(seed=0)
    reading = sim.read_sensors()["range"]
    np.testing.assert_allclose(reading["range"][:, 0],
                               [1.2, 1.0, 2.0, 2.0 / math.cos(0.3)], rtol=0, atol=1e-12)
    assert reading["valid"].all()


def test_noise_and_dropout_have_their_statistics():
    # 256 worlds at 2 m above the floor looking straight down (one beam pitched -90 deg):
    # sigma(r) = 0.01 + 0.02 r = 0.05 m, 10 % dropout.
    noisy = {"preset": "ideal", "beams": 1, "horizontal_fov_deg": 0.0,
             "mounting_orientation_deg": [0.0, 90.0, 0.0], "noise": 0.01,
             "noise_per_metre": 0.02, "dropout": 0.1, "max_range": 10.0}
    n = 4096
    starts = np.tile([0.0, 0.0, 2.0], (n, 1))
    sim = _engine({"lidar": noisy}, world=None, starts=starts,
                  eulers=np.zeros((n, 3)), seed=4)
    sim.reset(seed=4)
    ranges = sim.read_sensors()["lidar"]["ranges"][:, 0, 0, 0]
    dropped = ranges == 10.0
    assert abs(dropped.mean() - 0.1) < 4 * math.sqrt(0.1 * 0.9 / n)
    errors = ranges[~dropped] - 2.0
    assert abs(errors.mean()) < 4 * 0.05 / math.sqrt(errors.size)
    assert abs(errors.std() / 0.05 - 1.0) < 0.05


def test_the_same_seed_gives_the_same_readings_and_a_masked_reset_keeps_the_others():
    noisy = {"preset": "default", "update_rate": 60}
    big = _engine({"lidar": noisy}, seed=7)
    big.reset(seed=7)
    again = _engine({"lidar": noisy}, seed=7)
    again.reset(seed=7)
    for _ in range(8):
        big.step()
        again.step()
    np.testing.assert_array_equal(big.read_sensors()["lidar"]["ranges"],
                                  again.read_sensors()["lidar"]["ranges"])
    # a masked reset of world 0 leaves the other worlds' readings alone
    before = big.read_sensors()["lidar"]["ranges"][1:]
    big.reset(mask=np.array([True, False, False, False]))
    np.testing.assert_array_equal(big.read_sensors()["lidar"]["ranges"][1:], before)
    assert big.read_sensors()["lidar"]["time"][0, 0] == 0.0


def test_the_lidar_layout_and_memory_are_counted():
    params = resolve_sensors({"lidar": EXACT}, HZ)
    sim = BatchedAviary(n_worlds=2, n_drones=3, drone_model=MODEL, physics_hz=HZ,
                        sensors={"lidar": EXACT})
    assert sim._state.ray_readings.shape == (2, 3, 270)
    assert sim._state.ray_directions.shape == (270, 3)
    np.testing.assert_array_equal(sim._state.ray_directions.reshape(3, 90, 3),
                                  params["lidar"].directions)
    with_lidar = sim.family.memory_bytes(1000, 1, params)[0]
    without = sim.family.memory_bytes(1000, 1, None)[0]
    assert with_lidar >= without + 1000 * 270 * 8


def test_a_quaternion_pose_matches_the_euler_start():
    # the engine's start attitude is the Euler angles' quaternion (the reference's input)
    sim = _engine({"lidar": EXACT})
    sim.reset(seed=0)
    for w, euler in enumerate(EULERS):
        np.testing.assert_allclose(sim.quat[w, 0], euler_to_quat(*euler), rtol=0, atol=1e-12)


def test_the_depth_image_is_the_closed_form_and_pybullets():
    # a 32 x 24 camera pitched 10 deg down on tilted drones among the trees, no noise
    from pyflyt_like.core import Aviary
    from pyflyt_like.sensors import depth

    camera = {"preset": "ideal", "width": 32, "height": 24, "max_range": 30.0,
              "mounting_orientation_deg": [0.0, 10.0, 0.0]}
    sim = _engine({"depth": camera, "lidar": EXACT}, seed=2)
    sim.reset(seed=2)
    image = sim.read_sensors()["depth"]
    params = sim.sensor_params["depth"]
    assert image["depth"].shape == (len(STARTS), 1, 24, 32)
    for w in range(len(STARTS)):
        expected = np.minimum(depth.true_depths(FOREST, sim.pos[w, 0], sim.quat[w, 0], params),
                              params.max_range)
        np.testing.assert_allclose(image["depth"][w, 0], expected, rtol=0, atol=1e-9)
    # the LiDAR's rays come first in the table and are unchanged by the camera's
    lidar_params = sim.sensor_params["lidar"]
    np.testing.assert_allclose(sim.read_sensors()["lidar"]["ranges"][0, 0],
                               np.minimum(_reference(FOREST, sim, lidar_params, 0),
                                          lidar_params.max_range), rtol=0, atol=1e-9)
    with Aviary(start_pos=sim.pos[3], start_orn=EULERS[3:4], drone_type="quadx",
                physics_hz=HZ, seed=0, world=FOREST,
                drone_options={"sensors": {"depth": camera}, "drone_model": MODEL,
                               "control_hz": HZ}) as aviary:
        pybullet = aviary.read_sensors(0)["depth"]["depth"]
    np.testing.assert_allclose(image["depth"][3, 0], pybullet, rtol=0, atol=1e-3)
