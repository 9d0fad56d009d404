"""The depth camera model: its pixels' rays (PyBullet's camera geometry: the pixel grid of a
pinhole, sampled at each pixel's bottom-left corner), the scales and cast range the engines
use, the LiDAR's coefficient layout and sample on depths, closed-form true depths (a wall,
a sphere, the floor, the far plane), the suite, the presets and every configuration error.
The comparison with PyBullet's rendered depth is tests/core/test_depth_pybullet.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyflyt_like.common.rotations import euler_to_quat
from pyflyt_like.sensors import (
    ALL_SENSOR_NAMES,
    SENSOR_NAMES,
    DepthParams,
    SensorSuite,
    depth,
    lidar,
    resolve_sensor,
    resolve_sensors,
)
from pyflyt_like.sensors.presets import load_preset, preset_names
from pyflyt_like.worlds import Box, Cylinder, Sphere, World

LEVEL = np.array([0.0, 0.0, 0.0, 1.0])


def _params(**overrides) -> DepthParams:
    return resolve_sensor("depth", {"preset": "ideal", **overrides}, 240)


# ------------------------------------------------------------------ pixels
@pytest.mark.parametrize(("width", "height", "fov"), [
    (1, 1, 60.0), (16, 12, 58.0), (64, 48, 90.0), (5, 3, 1.0), (3, 7, 170.0), (64, 36, 58.0)])
def test_the_rays_have_the_image_shape_and_unit_norm(width, height, fov):
    params = _params(width=width, height=height, fov_deg=fov)
    assert params.shape == (height, width)
    assert params.directions.shape == (height, width, 3)
    np.testing.assert_allclose(np.linalg.norm(params.directions, axis=-1), 1.0, rtol=0,
                               atol=1e-15)
    assert params.scales.shape == (height, width)
    assert np.all((params.scales > 0.0) & (params.scales <= 1.0))
    assert not params.directions.flags.writeable and not params.scales.flags.writeable
    with pytest.raises(ValueError):
        params.scales[0, 0] = 2.0


def test_the_rays_are_pybullets_pixel_grid():
    # pixel (r, c) of H x W looks along (1, -(2c/W - 1) tan(h/2), -(2(r+1)/H - 1) tan(v/2)):
    # the bottom-left corner of the pixel, where PyBullet's renderer samples it
    width, height, fov = 16, 12, 60.0
    params = _params(width=width, height=height, fov_deg=fov)
    tan_v = math.tan(math.radians(fov / 2))
    tan_h = width / height * tan_v
    assert params.horizontal_fov_deg == pytest.approx(math.degrees(2 * math.atan(tan_h)))
    d = params.directions
    r, c = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
    np.testing.assert_allclose(d[..., 1] / d[..., 0], -(2 * c / width - 1) * tan_h, atol=1e-15)
    np.testing.assert_allclose(d[..., 2] / d[..., 0], -(2 * (r + 1) / height - 1) * tan_v,
                               atol=1e-15)
    # row 0 looks up, column 0 left; pixel (H/2 - 1, W/2) along the optical axis
    assert np.all(d[0, :, 2] > 0.0) and np.all(d[:, 0, 1] > 0.0)
    assert np.array_equal(d[height // 2 - 1, width // 2], [1.0, 0.0, 0.0])
    # the bottom-left pixel looks through the field of view's corner
    np.testing.assert_allclose(d[-1, 0] / d[-1, 0, 0], [1.0, tan_h, -tan_v], atol=1e-15)
    # the scales are the cosines to the optical axis
    np.testing.assert_allclose(params.scales, d[..., 0], rtol=1e-15)
    assert params.scales[height // 2 - 1, width // 2] == 1.0
    # a 1 x 1 image looks through that corner too (as PyBullet's camera does)
    single = _params(width=1, height=1, fov_deg=fov)
    np.testing.assert_allclose(single.directions[0, 0] / single.directions[0, 0, 0],
                               [1.0, tan_v, -tan_v], atol=1e-15)


def test_the_mounting_orientation_turns_the_rays_not_the_scales():
    level = _params(width=8, height=6)
    axis = (2, 4)  # (H/2 - 1, W/2)
    down = _params(width=8, height=6, mounting_orientation_deg=[0.0, 90.0, 0.0])
    np.testing.assert_allclose(down.directions[axis], [0.0, 0.0, -1.0], atol=1e-15)
    np.testing.assert_allclose(depth.optical_axis(down), [0.0, 0.0, -1.0], atol=1e-15)
    assert np.all(down.directions[0, :, 0] > 0.0)  # image up is body forward
    left = _params(width=8, height=6, mounting_orientation_deg=[0.0, 0.0, 90.0])
    np.testing.assert_allclose(left.directions[axis], [0.0, 1.0, 0.0], atol=1e-15)
    assert np.array_equal(down.scales, level.scales)
    tilted = _params(width=8, height=6, mounting_orientation_deg=[10.0, -20.0, 30.0])
    np.testing.assert_allclose(tilted.directions @ depth.optical_axis(tilted), level.scales,
                               rtol=1e-14)


def test_the_engines_cast_every_ray_sensor_alike():
    params = _params(width=16, height=12, fov_deg=58.0, max_range=10.0)
    assert params.scales.min() == params.scales[-1, 0]  # the corner's ray is the longest
    assert params.cast_range == pytest.approx(10.0 / params.scales[-1, 0], rel=1e-15)
    scan = resolve_sensor("lidar", {"preset": "ideal", "channels": 3, "beams": 5,
                                    "vertical_fov_deg": 20.0}, 240)
    assert scan.cast_range == scan.max_range
    assert scan.scales.shape == (3, 5) and np.all(scan.scales == 1.0)
    assert not scan.scales.flags.writeable


def test_the_coefficients_are_the_lidars_layout():
    params = _params(noise=0.01, noise_per_metre=0.02, dropout=0.03, min_range=0.2,
                     max_range=8.0, mounting_position=[0.1, -0.2, 0.3])
    c = params.coefficients
    assert c.shape == (lidar.COEFFICIENT_SIZE,) and not c.flags.writeable
    assert (c[lidar.NOISE], c[lidar.NOISE_PER_METRE], c[lidar.DROPOUT], c[lidar.MIN_RANGE],
            c[lidar.MAX_RANGE]) == (0.01, 0.02, 0.03, 0.2, 8.0)
    assert np.array_equal(c[lidar.MOUNT_POSITION:], [0.1, -0.2, 0.3])
    # the LiDAR's sample reads a pixel's depth
    assert lidar.sample_beam(c, 4.0, 1.0, 0.5) == pytest.approx(4.0 + 0.01 + 0.08)
    assert lidar.sample_beam(c, math.inf, 0.0, 0.5) == 8.0
    assert lidar.sample_beam(c, 8.5, 0.0, 0.5) == 8.0  # beyond the far plane
    assert lidar.sample_beam(c, 0.1, 0.0, 0.5) == 0.2
    assert lidar.sample_beam(c, 4.0, 0.0, 0.01) == 8.0  # dropped


def test_the_noise_grows_with_depth():
    params = _params(min_range=0.3, max_range=10.0, noise=0.005, noise_per_metre=0.01)
    c = params.coefficients
    rng = np.random.default_rng(0)
    for z in (1.0, 4.0, 8.0):
        truths = np.full((100, 1000), z)
        out = np.empty_like(truths)
        lidar.sample_ranges(c, truths, rng.standard_normal(truths.shape),
                            np.ones_like(truths), out)
        assert np.std(out) == pytest.approx(0.005 + 0.01 * z, rel=0.02), z  # 100 000 draws


# ------------------------------------------------------------------ true depths
def test_a_wall_in_front_reads_its_distance_on_every_pixel():
    params = _params(width=16, height=12, fov_deg=80.0, mounting_position=[0.2, 0.1, -0.05])
    # a vehicle yawed by 0.7 rad, a wall 3 m ahead of the camera, square to its axis
    yaw, position = 0.7, np.array([1.0, -2.0, 50.0])
    heading = np.array([math.cos(yaw), math.sin(yaw), 0.0])
    camera = position + np.array([[math.cos(yaw), -math.sin(yaw), 0.0],
                                  [math.sin(yaw), math.cos(yaw), 0.0],
                                  [0.0, 0.0, 1.0]]) @ params.mounting_position
    wall = World([Box(center=tuple(camera + 3.1 * heading), half_extents=(0.1, 30.0, 30.0),
                      yaw=yaw)])
    depths = depth.true_depths(wall, position, euler_to_quat(0.0, 0.0, yaw), params)
    np.testing.assert_allclose(depths, 3.0, rtol=1e-12)
    ranges = depths / params.scales  # the rays are longer off the axis
    assert ranges.max() > 3.0 / math.cos(math.radians(40.0))


def test_a_lone_sphere_on_the_axis():
    params = _params(width=32, height=24, fov_deg=60.0, max_range=20.0)
    centre, radius = np.array([5.0, 0.0, 50.0]), 1.03
    depths = depth.true_depths(World([Sphere(center=tuple(centre), radius=radius)]),
                               [0.0, 0.0, 50.0], LEVEL, params)
    assert depths[11, 16] == pytest.approx(3.97, abs=1e-12)  # the pixel on the axis
    assert np.nanmin(depths) == depths[11, 16]
    # a pixel sees the sphere where its ray passes within the radius of the centre
    d = params.directions
    offset = centre - [0.0, 0.0, 50.0]
    along = d @ offset
    miss = np.sum((offset - along[..., None] * d) ** 2, axis=-1)  # squared, from the ray
    inside = miss < radius**2
    assert np.array_equal(np.isfinite(depths), inside) and 20 < inside.sum() < 200
    # its depth is the near root along the ray, times the cosine
    expected = (along - np.sqrt(np.maximum(radius**2 - miss, 0.0))) * params.scales
    np.testing.assert_allclose(depths[inside], expected[inside], rtol=1e-12)


def test_the_floor_below_reads_the_height():
    down = _params(width=9, height=7, fov_deg=100.0, mounting_orientation_deg=[0.0, 90.0, 0.0])
    for yaw in (0.0, 1.1):
        depths = depth.true_depths(World(), [3.0, -1.0, 2.5], euler_to_quat(0.0, 0.0, yaw),
                                   down)
        np.testing.assert_allclose(depths, 2.5, rtol=1e-12)
    assert np.all(depth.true_depths(World(), [0.0, 0.0, 2.5], LEVEL, down, floor_z=1.0)
                  == pytest.approx(1.5, rel=1e-12))
    assert np.all(depth.true_depths(World(), [0.0, 0.0, -0.1], LEVEL, down) == 0.0)


def test_depths_beyond_the_far_plane_are_not_seen():
    params = _params(width=16, height=12, fov_deg=60.0, max_range=5.0)
    pose = ([0.0, 0.0, 50.0], LEVEL)

    def wall(distance: float) -> World:
        return World([Box(center=(distance + 0.1, 0.0, 50.0), half_extents=(0.1, 30.0, 30.0))])

    # 5 m of depth, and the corner's 5 / cos ray reaches it: every pixel sees it
    assert np.all(np.isfinite(depth.true_depths(wall(4.999), *pose, params)))
    # just beyond: every ray meets it within cast_range, but its depth is past the plane
    assert params.cast_range > 5.2
    assert np.all(np.isinf(depth.true_depths(wall(5.001), *pose, params)))
    ranges = np.full(params.shape, 5.2)
    assert np.all(np.isinf(depth.depths_from_ranges(params, ranges)[params.scales > 0.962]))


def test_true_depths_checks_its_arguments():
    params = _params(width=2, height=2)
    with pytest.raises(TypeError, match="params must be a DepthParams"):
        depth.true_depths(World(), [0, 0, 1], LEVEL, resolve_sensor("lidar", "ideal", 240))
    with pytest.raises(ValueError, match="rotation must be a unit quaternion"):
        depth.true_depths(World(), [0, 0, 1], [0.0, 0.0, 0.0, 2.0], params)
    with pytest.raises(ValueError, match=r"position must have shape \(3,\)"):
        depth.true_depths(World(), [0, 0], LEVEL, params)
    with pytest.raises(ValueError, match="floor_z"):
        depth.true_depths(World(), [0, 0, 1], LEVEL, params, floor_z=math.nan)


# ------------------------------------------------------------------ the suite
def test_the_suite_samples_the_depth_camera_against_its_world():
    world = World([Cylinder(x=3.0, y=0.0, radius=0.5, height=4.0),
                   Box(center=(4.0, 2.0, 1.0), half_extents=(0.5, 0.5, 1.0), yaw=0.3)])
    state = (np.array([0.0, 0.0, 1.0]), np.zeros(3), np.zeros(3), LEVEL, np.zeros(3),
             np.zeros(3))
    ideal = SensorSuite({"depth": {"preset": "ideal", "width": 16, "height": 12}}, 240,
                        world=world).update(*state)["depth"]
    params = _params(width=16, height=12)
    exact = depth.true_depths(world, state[0], LEVEL, params)
    assert ideal["time"] == 0.0 and ideal["depth"].shape == (12, 16)
    assert np.array_equal(ideal["depth"], np.where(np.isfinite(exact), exact, 100.0))
    assert np.isfinite(exact).mean() > 0.5  # the trunk, the crate and the floor
    # a noisy unit at 20 Hz: seeds, rates and streams
    config = {"depth": "tiny", "lidar": {"preset": "default", "beams": 8}, "imu": "bmi088"}
    suite = SensorSuite(config, 240, seed=3, world=world)
    first = suite.update(*state)
    for _ in range(11):
        assert suite.update(*state)["depth"]["time"] == 0.0
    assert suite.update(*state)["depth"]["time"] == 0.05
    again = SensorSuite(config, 240, seed=3, world=world).update(*state)
    assert np.array_equal(again["depth"]["depth"], first["depth"]["depth"])
    without = SensorSuite({k: v for k, v in config.items() if k != "depth"}, 240, seed=3,
                          world=world).update(*state)
    assert np.array_equal(without["lidar"]["ranges"], first["lidar"]["ranges"])
    assert np.array_equal(without["imu"]["accel"], first["imu"]["accel"])
    other = SensorSuite(config, 240, seed=4, world=world).update(*state)
    assert not np.array_equal(other["depth"]["depth"], first["depth"]["depth"])
    assert np.all((first["depth"]["depth"] >= 0.3) & (first["depth"]["depth"] <= 10.0))


def test_the_suite_needs_a_world_for_a_depth_camera():
    with pytest.raises(ValueError, match=r'sensors\["depth"\] needs a world'):
        SensorSuite({"depth": "tiny"}, 240)
    with pytest.raises(ValueError, match="world is only used by a LiDAR or a depth camera"):
        SensorSuite({"imu": "ideal"}, 240, world=World())


# ------------------------------------------------------------------ configuration
def test_every_preset_resolves_at_both_engines_rates_with_a_source():
    names = preset_names("depth")
    assert names[:2] == ["ideal", "default"] and {"tiny", "d435"} <= set(names)
    for name in names:
        for physics_hz in (240, 500):
            params = resolve_sensor("depth", name, physics_hz)
            assert params.source and isinstance(params, DepthParams), name
            assert params.directions.shape == (*params.shape, 3)
        assert set(load_preset("depth", name)) == {*depth.PARAMETERS, "source"}
    assert resolve_sensor("depth", "default", 240).shape == (48, 64)
    assert resolve_sensor("depth", "tiny", 240).shape == (12, 16)
    d435 = resolve_sensor("depth", "d435", 240)
    assert d435.shape == (36, 64)
    assert abs(d435.horizontal_fov_deg - 87.0) <= 3.0  # the data sheet's 87 +- 3 deg


def test_the_depth_camera_is_the_last_ray_sensor():
    assert SENSOR_NAMES == ("imu", "baro", "mag", "gnss", "range")
    assert ALL_SENSOR_NAMES == (*SENSOR_NAMES, "lidar", "depth")
    params = resolve_sensors({"depth": "tiny", "lidar": "default", "imu": "ideal"}, 500)
    assert list(params) == ["imu", "lidar", "depth"]


DEPTH = 'sensors\\["depth"\\]'


@pytest.mark.parametrize(("overrides", "error", "match"), [
    ({"width": 0}, ValueError, DEPTH + r'\["width"\] must be an integer >= 1 \[px\]'),
    ({"height": -3}, ValueError, DEPTH + r'\["height"\] must be an integer >= 1'),
    ({"width": 16.0}, TypeError, DEPTH + r'\["width"\] must be an integer >= 1'),
    ({"height": True}, TypeError, DEPTH + r'\["height"\] must be an integer >= 1'),
    ({"fov_deg": 0.0}, ValueError, DEPTH + r'\["fov_deg"\] must be a finite number > 0'),
    ({"fov_deg": -10.0}, ValueError, DEPTH + r'\["fov_deg"\] must be a finite number > 0'),
    ({"fov_deg": 180.0}, ValueError, DEPTH + r'\["fov_deg"\]=180 must be in \(0, 180\)'),
    ({"fov_deg": 200.0}, ValueError, DEPTH + r'\["fov_deg"\] must be at most 180'),
    ({"fov_deg": math.nan}, ValueError, DEPTH + r'\["fov_deg"\]'),
    ({"min_range": 5.0, "max_range": 5.0}, ValueError,
     DEPTH + r'\["min_range"\]=5.0 must be less than ' + DEPTH + r'\["max_range"\]=5.0'),
    ({"max_range": 0.0}, ValueError, DEPTH + r'\["max_range"\] must be a finite number > 0'),
    ({"width": 2048, "height": 1024}, ValueError,
     DEPTH + r'\["width"\] x ' + DEPTH + r'\["height"\] = 2097152 pixels, more than MAX_RAYS'),
    ({"noise": -0.1}, ValueError, DEPTH + r'\["noise"\] must be a finite number >= 0'),
    ({"dropout": 1.5}, ValueError, DEPTH + r'\["dropout"\] must be at most 1'),
    ({"mounting_position": [0.0, 0.0]}, ValueError, DEPTH + r'\["mounting_position"\]'),
    ({"resolution": [64, 48]}, ValueError,
     DEPTH + r" has unknown parameters \['resolution'\]; depth parameters are"),
])
def test_bad_depth_parameters_name_the_option(overrides, error, match):
    with pytest.raises(error, match=match):
        resolve_sensors({"depth": {"preset": "default", **overrides}}, 240)


def test_bad_depth_presets_and_names_name_the_option():
    with pytest.raises(ValueError, match=DEPTH + r" names an unknown preset 'kinect'; depth "
                                               r"presets are \['ideal', 'default'"):
        resolve_sensors({"depth": "kinect"}, 240)
    # a dict without a preset starts from the ideal one
    assert resolve_sensors({"depth": {"width": 16}}, 240)["depth"].shape == (48, 16)
    with pytest.raises(ValueError, match=DEPTH + r'\["update_rate"\]=7 Hz must divide'):
        resolve_sensors({"depth": {"preset": "tiny", "update_rate": 7}}, 240)
    with pytest.raises(ValueError, match=r"sensors are \[.*'lidar', 'depth'\]"):
        resolve_sensors({"camera": "tiny"}, 240)
