"""The LiDAR model: beam directions and their convention, the per-beam sample (min / max
range, noise sigma(r) = a + b r, dropout), the closed-form true ranges against a world and
the floor, the compile-ready functions compiled, the presets and every configuration error.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyflyt_like.common.rotations import euler_to_quat
from pyflyt_like.compiled.jit import compile_shared
from pyflyt_like.compiled.rotations import quat_to_matrix as compiled_quat_to_matrix
from pyflyt_like.sensors import SensorSuite, lidar, resolve_sensor, resolve_sensors
from pyflyt_like.sensors.presets import load_preset, preset_names
from pyflyt_like.worlds import Box, Cylinder, Forest, Sphere, World, pack_layouts

LEVEL = np.array([0.0, 0.0, 0.0, 1.0])


def _params(**overrides) -> lidar.LidarParams:
    return resolve_sensor("lidar", {"preset": "ideal", **overrides}, 240)


def _angles(directions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Azimuth and elevation [deg] of body directions."""
    x, y, z = np.moveaxis(directions, -1, 0)
    return np.degrees(np.arctan2(y, x)), np.degrees(np.arcsin(np.clip(z, -1.0, 1.0)))


# ------------------------------------------------------------------ directions
@pytest.mark.parametrize(("channels", "beams", "hfov", "vfov"), [
    (1, 1, 0.0, 0.0), (1, 64, 360.0, 0.0), (16, 1800, 360.0, 30.0), (8, 8, 45.0, 45.0),
    (3, 7, 90.0, 180.0), (2, 5, 359.0, 0.5)])
def test_directions_have_the_scan_shape_and_unit_norm(channels, beams, hfov, vfov):
    params = _params(channels=channels, beams=beams, horizontal_fov_deg=hfov,
                     vertical_fov_deg=vfov)
    directions = lidar.beam_directions(params)
    assert directions.shape == (channels, beams, 3) == (*params.shape, 3)
    np.testing.assert_allclose(np.linalg.norm(directions, axis=-1), 1.0, rtol=0, atol=1e-15)
    assert np.array_equal(params.directions, directions)
    assert not params.directions.flags.writeable


def test_a_full_turn_spaces_beams_evenly_without_a_repeated_beam():
    params = _params(beams=8)
    azimuth, elevation = _angles(params.directions[0])
    # ROS's LaserScan layout: beam 0 looks backwards, beam B/2 forwards, counter-clockwise
    np.testing.assert_allclose(np.unwrap(np.radians(azimuth)), np.radians(
        -180.0 + 45.0 * np.arange(8)), atol=1e-12)
    np.testing.assert_allclose(params.directions[0, 4], [1.0, 0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(params.directions[0, 6], [0.0, 1.0, 0.0], atol=1e-15)  # left
    np.testing.assert_allclose(elevation, 0.0, atol=1e-12)
    ring = lidar.beam_directions(_params(beams=360))[0]
    # neighbours, the last and the first included, all 1 degree apart: no beam twice
    gaps = np.degrees(np.arccos(np.clip(np.sum(ring * np.roll(ring, -1, axis=0), axis=1),
                                        -1, 1)))
    np.testing.assert_allclose(gaps, 1.0, atol=1e-6)


def test_a_partial_field_of_view_runs_edge_to_edge():
    params = _params(channels=5, beams=7, horizontal_fov_deg=90.0, vertical_fov_deg=30.0,
                     vertical_center_deg=10.0)
    azimuths, elevations = lidar.beam_angles(params)
    np.testing.assert_allclose(azimuths, np.linspace(-45.0, 45.0, 7), atol=1e-12)
    np.testing.assert_allclose(elevations, np.linspace(-5.0, 25.0, 5), atol=1e-12)
    azimuth, elevation = _angles(params.directions)
    np.testing.assert_allclose(azimuth[0, [0, -1]], [-45.0, 45.0], atol=1e-9)  # the edges
    np.testing.assert_allclose(elevation[[0, -1], 0], [-5.0, 25.0], atol=1e-9)
    np.testing.assert_allclose(azimuth, np.broadcast_to(azimuth[:1], azimuth.shape), atol=1e-9)
    # one beam or one channel looks along the centre
    single = _params(channels=1, beams=1, horizontal_fov_deg=0.0, vertical_center_deg=-30.0)
    np.testing.assert_allclose(single.directions[0, 0],
                               [math.cos(math.radians(30)), 0.0, -0.5], atol=1e-15)


def test_a_zero_vertical_field_of_view_is_one_horizontal_ring():
    params = _params(channels=1, beams=12, vertical_fov_deg=0.0)
    assert params.shape == (1, 12)
    np.testing.assert_allclose(params.directions[..., 2], 0.0, atol=1e-15)


def test_the_mounting_orientation_turns_the_beams():
    forward = {"beams": 1, "horizontal_fov_deg": 0.0}
    down = _params(**forward, mounting_orientation_deg=[0.0, 90.0, 0.0])
    np.testing.assert_allclose(down.directions[0, 0], [0.0, 0.0, -1.0], atol=1e-15)
    left = _params(**forward, mounting_orientation_deg=[0.0, 0.0, 90.0])
    np.testing.assert_allclose(left.directions[0, 0], [0.0, 1.0, 0.0], atol=1e-15)
    rolled = _params(channels=2, beams=1, horizontal_fov_deg=0.0, vertical_fov_deg=90.0,
                     mounting_orientation_deg=[90.0, 0.0, 0.0])
    # a roll of +90 deg about x takes the sensor's +z (the upper channel) to the body's -y
    np.testing.assert_allclose(rolled.directions[1, 0], [math.sqrt(0.5), -math.sqrt(0.5),
                                                         0.0], atol=1e-15)
    preset = resolve_sensor("lidar", "tfmini_down", 240)
    np.testing.assert_allclose(preset.directions[0, 0], [0.0, 0.0, -1.0], atol=1e-15)


# ------------------------------------------------------------------ the sample
def test_the_sample_applies_the_range_limits():
    c = _params(min_range=0.5, max_range=10.0).coefficients
    assert lidar.sample_beam(c, 3.0, 0.0, 0.5) == 3.0
    assert lidar.sample_beam(c, math.inf, 0.0, 0.5) == 10.0  # nothing hit
    assert lidar.sample_beam(c, 10.5, 0.0, 0.5) == 10.0  # beyond the range
    assert lidar.sample_beam(c, 10.0, 0.0, 0.5) == 10.0
    assert lidar.sample_beam(c, 0.2, 0.0, 0.5) == 0.5  # too close reads min_range
    assert lidar.sample_beam(c, 0.0, 0.0, 0.5) == 0.5
    assert lidar.sample_beam(c, math.nan, 0.0, 0.5) == 10.0


def test_noise_grows_with_range_and_stays_within_the_limits():
    c = _params(min_range=0.5, max_range=10.0, noise=0.02, noise_per_metre=0.01).coefficients
    assert lidar.sample_beam(c, 4.0, 1.0, 0.5) == pytest.approx(4.0 + 0.02 + 0.04)
    assert lidar.sample_beam(c, 9.99, 3.0, 0.5) == 10.0  # clipped
    assert lidar.sample_beam(c, 0.51, -3.0, 0.5) == 0.5
    rng = np.random.default_rng(0)
    for truth in (1.0, 5.0, 9.0):
        normals = rng.standard_normal(200_000)
        readings = np.array([lidar.sample_beam(c, truth, n, 0.5) for n in normals[:2000]])
        assert readings.min() >= 0.5 and readings.max() <= 10.0
        truths = np.full((1, normals.size), truth)
        out = np.empty_like(truths)
        lidar.sample_ranges(c, truths, normals[None], np.full_like(truths, 0.5), out)
        sigma = 0.02 + 0.01 * truth
        # 200 000 draws: the standard deviation's own spread is 0.16 %
        assert np.std(out) == pytest.approx(sigma, rel=0.01), truth
        assert np.mean(out) == pytest.approx(truth, abs=4 * sigma / math.sqrt(normals.size))


def test_dropout_reads_max_range_at_its_rate():
    c = _params(dropout=0.1, max_range=20.0).coefficients
    assert lidar.sample_beam(c, 3.0, 0.0, 0.0999) == 20.0
    assert lidar.sample_beam(c, 3.0, 0.0, 0.1) == 3.0
    rng = np.random.default_rng(1)
    n = 100_000
    truths = np.full((10, n // 10), 3.0)
    out = np.empty_like(truths)
    lidar.sample_ranges(c, truths, np.zeros_like(truths), rng.random(truths.shape), out)
    dropped = np.mean(out == 20.0)
    assert abs(dropped - 0.1) < 4 * math.sqrt(0.1 * 0.9 / n)  # 4 sigma of the binomial
    assert set(np.unique(out)) == {3.0, 20.0}
    assert lidar.sample_beam(_params(dropout=1.0).coefficients, 3.0, 0.0, 0.999999) == 100.0
    assert lidar.sample_beam(_params(dropout=0.0).coefficients, 3.0, 0.0, 0.0) == 3.0


def test_the_numpy_sample_is_the_per_beam_sample_to_the_bit():
    c = _params(min_range=0.3, max_range=12.0, noise=0.01, noise_per_metre=0.02,
                dropout=0.2).coefficients
    rng = np.random.default_rng(2)
    truths = rng.uniform(-1.0, 14.0, (16, 300))
    truths[rng.random(truths.shape) < 0.1] = math.inf
    normals, uniforms = rng.standard_normal(truths.shape), rng.random(truths.shape)
    by_beam, by_numpy = np.empty_like(truths), np.empty_like(truths)
    lidar.sample_scan(c, truths, normals, uniforms, by_beam)
    lidar.sample_ranges(c, truths, normals, uniforms, by_numpy)
    assert np.array_equal(by_beam, by_numpy)


def test_draws_only_what_the_sample_reads():
    shape = (2, 3)
    for overrides, expected in (({}, (False, False)), ({"noise": 0.1}, (True, False)),
                                ({"noise_per_metre": 0.1}, (True, False)),
                                ({"dropout": 0.1}, (False, True)),
                                ({"noise": 0.1, "dropout": 0.1}, (True, True))):
        c = _params(**overrides).coefficients
        assert lidar.draws_needed(c) == expected
        normals, uniforms = np.full(shape, 7.0), np.full(shape, 7.0)
        rng = np.random.default_rng(3)
        lidar.draw(rng, c, normals, uniforms)
        reference = np.random.default_rng(3)
        if expected[0]:
            assert np.array_equal(normals, reference.standard_normal(shape))
        else:
            assert np.all(normals == 7.0)
        if expected[1]:
            assert np.array_equal(uniforms, reference.random(shape))
        else:
            assert np.all(uniforms == 7.0)


# ------------------------------------------------------------------ true ranges
def test_true_ranges_against_lone_primitives_and_the_floor():
    params = _params(beams=4, max_range=50.0)  # beams at -180, -90, 0, 90 deg
    world = World([Cylinder(x=3.0, y=0.0, radius=0.5, height=4.0),
                   Box(center=(0.0, 5.0, 1.0), half_extents=(1.0, 0.25, 1.0), yaw=0.0),
                   Sphere(center=(-7.0, 0.0, 2.0), radius=1.0)])
    ranges = lidar.true_ranges(world, [0.0, 0.0, 2.0], LEVEL, params)
    np.testing.assert_allclose(ranges, [[6.0, math.inf, 2.5, 4.75]], rtol=0, atol=1e-12)
    down = resolve_sensor("lidar", {"preset": "tfmini_down", "max_range": 30.0}, 240)
    for roll in (0.0, 0.3, -0.6):
        quat = euler_to_quat(roll, 0.0, 0.7)
        expected = 2.0 / math.cos(roll)
        np.testing.assert_allclose(lidar.true_ranges(World(), [4.0, 1.0, 2.0], quat, down),
                                   [[expected]], rtol=1e-14)
    assert lidar.true_ranges(World(), [0.0, 0.0, 40.0], LEVEL, down)[0, 0] == math.inf
    assert lidar.true_ranges(World(), [0.0, 0.0, -0.1], LEVEL, down)[0, 0] == 0.0
    assert lidar.true_ranges(World(), [0.0, 0.0, 3.0], LEVEL, down, floor_z=1.0)[0, 0] == 2.0
    # a rotation matrix does what its quaternion does
    quat = euler_to_quat(0.2, -0.1, 1.3)
    matrix = np.array(lidar.rotation_tuple(quat)).reshape(3, 3)
    assert np.array_equal(lidar.true_ranges(world, [0.5, 0.0, 1.0], quat, params),
                          lidar.true_ranges(world, [0.5, 0.0, 1.0], matrix, params))


def test_the_mounting_position_moves_the_origin_with_the_body():
    params = _params(beams=1, horizontal_fov_deg=0.0, mounting_position=[0.1, 0.2, -0.05])
    world = World([Box(center=(5.0, 0.0, 1.0), half_extents=(0.5, 3.0, 1.0))])
    assert lidar.true_ranges(world, [0.0, 0.0, 1.0], LEVEL, params)[0, 0] == \
        pytest.approx(4.4, abs=1e-12)
    yawed = euler_to_quat(0.0, 0.0, math.pi / 2)  # now the beam looks along +y, from x -0.2
    ranges = lidar.true_ranges(World([Box(center=(0.0, 5.0, 1.0),
                                          half_extents=(3.0, 0.5, 1.0))]),
                               [0.0, 0.0, 1.0], yawed, params)
    assert ranges[0, 0] == pytest.approx(4.4, abs=1e-12)


def test_true_ranges_checks_its_arguments():
    params = _params(beams=2)
    with pytest.raises(ValueError, match="rotation must be a unit quaternion"):
        lidar.true_ranges(World(), [0, 0, 1], [0.0, 0.0, 0.0, 2.0], params)
    with pytest.raises(ValueError, match=r"rotation must be a rotation matrix"):
        lidar.true_ranges(World(), [0, 0, 1], np.eye(3) * 2.0, params)
    with pytest.raises(ValueError, match=r"rotation must have shape \(3, 3\)"):
        lidar.true_ranges(World(), [0, 0, 1], [1.0, 0.0, 0.0], params)
    with pytest.raises(ValueError, match=r"position must have shape \(3,\)"):
        lidar.true_ranges(World(), [0, 0], LEVEL, params)
    with pytest.raises(TypeError, match="params must be a LidarParams"):
        lidar.true_ranges(World(), [0, 0, 1], LEVEL, resolve_sensor("range", "ideal", 240))


# ------------------------------------------------------------------ compile-ready
def test_the_compiled_functions_are_the_python_ones_to_the_bit():
    from pyflyt_like.compiled import scene

    floor = compile_shared(lidar.floor_ray_distance)
    world_ray = compile_shared(lidar.world_ray)
    scan_truths = compile_shared(lidar.scan_truths, compiled_quat_to_matrix, world_ray,
                                 scene.pool_ray_distance, floor)
    sample_beam = compile_shared(lidar.sample_beam)
    sample_scan = compile_shared(lidar.sample_scan, sample_beam)
    world = World(Forest(0.2, extent=20.0, clearing=1.0).generate(4).primitives
                  + (Box((4.0, 4.0, 1.0), (1.0, 0.5, 1.0), 0.4), Sphere((-3, 2, 2), 0.7)))
    tables = (*pack_layouts([world]), 0)
    params = _params(channels=6, beams=90, vertical_fov_deg=60.0, max_range=25.0,
                     noise=0.01, noise_per_metre=0.01, dropout=0.1,
                     mounting_position=[0.05, 0.0, 0.02],
                     mounting_orientation_deg=[3.0, -10.0, 20.0])
    c = params.coefficients
    rng = np.random.default_rng(5)
    for _ in range(5):
        pos = np.array([*rng.uniform(-3.0, 3.0, 2), rng.uniform(0.2, 3.0)])
        quat = np.array(euler_to_quat(*rng.uniform(-0.5, 0.5, 2), rng.uniform(-3, 3)))
        python, compiled = np.empty(params.shape), np.empty(params.shape)
        lidar.scan_truths(*tables, 0.0, pos, quat, c, params.directions, python)
        scan_truths(*tables, 0.0, pos, quat, c, params.directions, compiled)
        assert np.array_equal(python, compiled)
        assert np.array_equal(python, lidar.true_ranges(world, pos, quat, params))
        assert np.isfinite(python).mean() > 0.3  # trees and floor are seen
        normals, uniforms = rng.standard_normal(params.shape), rng.random(params.shape)
        by_python, by_numba = np.empty(params.shape), np.empty(params.shape)
        lidar.sample_scan(c, python, normals, uniforms, by_python)
        sample_scan(c, compiled, normals, uniforms, by_numba)
        assert np.array_equal(by_python, by_numba)


# ------------------------------------------------------------------ the suite
def test_the_suite_samples_the_lidar_against_its_world_at_its_rate():
    world = World([Cylinder(x=3.0, y=0.0, radius=0.5, height=4.0)])
    config = {"lidar": {"preset": "default", "beams": 4, "dropout": 0.0}, "imu": "bmi088"}
    suite = SensorSuite(config, 240, seed=3, world=world)
    state = (np.array([0.0, 0.0, 1.0]), np.zeros(3), np.zeros(3), LEVEL, np.zeros(3),
             np.zeros(3))
    first = suite.update(*state)
    assert first["lidar"]["time"] == 0.0 and first["lidar"]["ranges"].shape == (1, 4)
    assert first["lidar"]["ranges"][0, 2] == pytest.approx(2.5, abs=0.05)
    np.testing.assert_array_equal(first["lidar"]["ranges"][0, [0, 1, 3]], 12.0)
    for _ in range(23):
        readings = suite.update(*state)
    assert readings["lidar"]["time"] == 0.0 and suite.update(*state)["lidar"]["time"] == 0.1
    # the same seed: the same readings; the LiDAR's stream leaves the IMU's as it was
    again = SensorSuite(config, 240, seed=3, world=world).update(*state)
    assert np.array_equal(again["lidar"]["ranges"], first["lidar"]["ranges"])
    alone = SensorSuite({"imu": "bmi088"}, 240, seed=3).update(*state)
    assert np.array_equal(alone["imu"]["accel"], first["imu"]["accel"])
    other = SensorSuite(config, 240, seed=4, world=world).update(*state)
    assert not np.array_equal(other["lidar"]["ranges"], first["lidar"]["ranges"])


def test_the_suite_needs_a_world_for_a_lidar_and_only_then():
    with pytest.raises(ValueError, match=r'sensors\["lidar"\] needs a world'):
        SensorSuite({"lidar": "ideal"}, 240)
    with pytest.raises(ValueError, match="world is only used by a LiDAR"):
        SensorSuite({"imu": "ideal"}, 240, world=World())
    with pytest.raises(TypeError, match="world must be a pyflyt_like.worlds.World"):
        SensorSuite({"lidar": "ideal"}, 240, world=[Cylinder(0.0, 0.0, 1.0, 1.0)])


# ------------------------------------------------------------------ configuration
def test_every_preset_resolves_at_both_engines_rates_with_a_source():
    for name in preset_names("lidar"):
        for physics_hz in (240, 500):
            params = resolve_sensors({"lidar": name}, physics_hz)["lidar"]
            assert params.source, name
            assert params.directions.shape == (*params.shape, 3)
    assert preset_names("lidar")[:2] == ["ideal", "default"]
    default = resolve_sensor("lidar", "default", 240)
    assert default.channels * default.beams <= 256  # practical for learning
    tof = resolve_sensor("lidar", "vl53l8cx", 240)
    assert tof.shape == (8, 8)
    assert resolve_sensor("lidar", "vlp16", 240).shape == (16, 1800)


def test_the_lidar_comes_last_and_keeps_the_five_compiled_sensors():
    from pyflyt_like.sensors import ALL_SENSOR_NAMES, SENSOR_NAMES
    from pyflyt_like.sensors.config import sensor_periods

    assert SENSOR_NAMES == ("imu", "baro", "mag", "gnss", "range")
    assert ALL_SENSOR_NAMES == (*SENSOR_NAMES, "lidar", "depth")
    params = resolve_sensors({"lidar": "default", "imu": "ideal", "range": "ideal"}, 500)
    assert list(params) == ["imu", "range", "lidar"]
    assert sensor_periods(params).tolist() == [1, 0, 0, 0, 1]


LIDAR = 'sensors\\["lidar"\\]'


@pytest.mark.parametrize(("overrides", "error", "match"), [
    ({"beams": 0}, ValueError, LIDAR + r'\["beams"\] must be an integer >= 1'),
    ({"channels": 1.0}, TypeError, LIDAR + r'\["channels"\] must be an integer >= 1'),
    ({"channels": True}, TypeError, LIDAR + r'\["channels"\] must be an integer >= 1'),
    ({"horizontal_fov_deg": 361.0}, ValueError,
     LIDAR + r'\["horizontal_fov_deg"\] must be at most 360 \[deg\]'),
    ({"vertical_fov_deg": -1.0}, ValueError,
     LIDAR + r'\["vertical_fov_deg"\] must be a finite number >= 0 \[deg\]'),
    ({"vertical_fov_deg": 190.0}, ValueError,
     LIDAR + r'\["vertical_fov_deg"\] must be at most 180'),
    ({"channels": 4}, ValueError,
     LIDAR + r'\["channels"\]=4 over ' + LIDAR + r'\["vertical_fov_deg"\]=0 would repeat'),
    ({"beams": 3, "horizontal_fov_deg": 0.0}, ValueError,
     LIDAR + r'\["beams"\]=3 over ' + LIDAR + r'\["horizontal_fov_deg"\]=0 would repeat'),
    ({"channels": 2, "vertical_fov_deg": 40.0, "vertical_center_deg": 75.0}, ValueError,
     LIDAR + r'\["vertical_center_deg"\]=75 \+- .*reaches past \+-90 deg'),
    ({"vertical_center_deg": -91.0}, ValueError,
     LIDAR + r'\["vertical_center_deg"\] must be at least -90'),
    ({"min_range": 5.0, "max_range": 5.0}, ValueError,
     LIDAR + r'\["min_range"\]=5.0 must be less than ' + LIDAR + r'\["max_range"\]=5.0'),
    ({"max_range": 0.0}, ValueError,
     LIDAR + r'\["max_range"\] must be a finite number > 0 \[m\]'),
    ({"max_range": math.inf}, ValueError, LIDAR + r'\["max_range"\] must be a finite'),
    ({"noise": -0.01}, ValueError, LIDAR + r'\["noise"\] must be a finite number >= 0 \[m\]'),
    ({"noise_per_metre": -0.01}, ValueError,
     LIDAR + r'\["noise_per_metre"\] must be a finite number >= 0'),
    ({"dropout": 1.5}, ValueError, LIDAR + r'\["dropout"\] must be at most 1'),
    ({"dropout": -0.1}, ValueError, LIDAR + r'\["dropout"\] must be a finite number >= 0'),
    ({"update_rate": 7}, ValueError,
     LIDAR + r'\["update_rate"\]=7 Hz must divide physics_hz=240 Hz exactly'),
    ({"mounting_position": [0.0, 0.0]}, ValueError,
     LIDAR + r'\["mounting_position"\] must have shape \(3,\)'),
    ({"mounting_orientation_deg": [0.0, math.nan, 0.0]}, ValueError,
     LIDAR + r'\["mounting_orientation_deg"\] must be finite'),
    ({"channels": 1024, "beams": 2048, "vertical_fov_deg": 30.0}, ValueError,
     LIDAR + r'\["channels"\] x ' + LIDAR + r'\["beams"\] = 2097152 rays, more than '
     r"MAX_RAYS=1048576"),
    ({"beamz": 3}, ValueError, LIDAR + r" has unknown parameters \['beamz'\]; lidar "
                               r"parameters are \['update_rate', 'channels'"),
])
def test_bad_lidar_parameters_name_the_option(overrides, error, match):
    with pytest.raises(error, match=match):
        resolve_sensors({"lidar": {"preset": "ideal", **overrides}}, 240)


def test_bad_lidar_presets_and_names_name_the_option():
    with pytest.raises(ValueError, match=LIDAR + r" names an unknown preset 'os1'; lidar "
                                                 r"presets are \['ideal', 'default'"):
        resolve_sensors({"lidar": "os1"}, 240)
    # a dict without a preset starts from the ideal one
    assert resolve_sensors({"lidar": {"beams": 8}}, 240)["lidar"].shape == (1, 8)
    with pytest.raises(ValueError, match=r"sensors has unknown sensor names \['radar'\]; "
                                         r"sensors are \['imu', 'baro', 'mag', 'gnss', "
                                         r"'range', 'lidar', 'depth'\]"):
        resolve_sensors({"radar": "default"}, 240)
    with pytest.raises(ValueError, match="unknown lidar preset 'x'"):
        load_preset("lidar", "x")
    # a complete dict without a preset is accepted
    complete = load_preset("lidar", "default")
    complete.pop("source")
    assert resolve_sensor("lidar", complete, 500).beams == 64
