"""Camera: image formats, view geometry (forward axis, tilt, gimbal, offset, chase), depth
metric, segmentation ids, capture timing and parameter validation — all headless (DIRECT)."""

from __future__ import annotations

import math

import numpy as np
import pybullet
import pytest

from pyflyt_like.core import Aviary
from pyflyt_like.core.abstractions import camera as camera_module
from pyflyt_like.core.abstractions.camera import Camera, capture_period_steps, is_capture_due

RESOLUTION = (48, 64)  # (height, width): non-square on purpose
PHYSICS_HZ = 240


@pytest.fixture
def aviary():
    world = Aviary(start_pos=np.array([[0.0, 0.0, 1.0]]), start_orn=np.zeros((1, 3)), seed=0)
    yield world
    world.close()


def make_camera(aviary: Aviary, **options) -> Camera:
    """A camera on the base of drone 0; ``options`` override the defaults below."""
    kwargs = dict(camera_id=-1, use_gimbal=False, camera_FOV_degrees=90.0,
                  camera_angle_degrees=0.0, camera_resolution=RESOLUTION)
    kwargs.update(options)
    return Camera(aviary, aviary.drones[0].Id, physics_period=1.0 / PHYSICS_HZ,
                  np_random=aviary.np_random, **kwargs)


def set_pose(aviary: Aviary, position, euler) -> None:
    pybullet.resetBasePositionAndOrientation(
        aviary.drones[0].Id, list(position), pybullet.getQuaternionFromEuler(list(euler)),
        physicsClientId=aviary._client)


def add_box(aviary: Aviary, position, half_size: float = 0.15) -> int:
    """A static box the camera can be aimed at; returns its body id."""
    client = aviary._client
    visual = pybullet.createVisualShape(pybullet.GEOM_BOX, halfExtents=[half_size] * 3,
                                        rgbaColor=[1, 0, 0, 1], physicsClientId=client)
    collision = pybullet.createCollisionShape(pybullet.GEOM_BOX, halfExtents=[half_size] * 3,
                                              physicsClientId=client)
    return pybullet.createMultiBody(0.0, collision, visual, list(position),
                                    physicsClientId=client)


def centre(image: np.ndarray) -> np.ndarray:
    """The 2 x 2 pixels around the optical axis (even height and width)."""
    h, w = image.shape[:2]
    return image[h // 2 - 1:h // 2 + 1, w // 2 - 1:w // 2 + 1, 0]


def view_matrix(camera: Camera) -> np.ndarray:
    """The (4, 4) world-to-camera matrix (pybullet gives 16 floats, column-major)."""
    return np.array(camera.view_mat).reshape(4, 4).T


def eye_from_view(camera: Camera) -> np.ndarray:
    v = view_matrix(camera)
    return -v[:3, :3].T @ v[:3, 3]


# --------------------------------------------------------------------- formats
@pytest.mark.parametrize("tracking", [False, True])
def test_shapes_and_dtypes_non_square(aviary, tracking):
    cam = make_camera(aviary, camera_angle_degrees=-30.0, is_tracking_camera=tracking)
    rgba, depth, seg = cam.capture_image()
    assert rgba.shape == (48, 64, 4) and rgba.dtype == np.uint8
    assert depth.shape == (48, 64, 1) and depth.dtype == np.float32
    assert seg.shape == (48, 64, 1) and seg.dtype == np.int32
    assert len(cam.view_mat) == 16 and len(cam.proj_mat) == 16


def test_fpv_image_not_blank_and_sees_ground(aviary):
    cam = make_camera(aviary, camera_angle_degrees=-30.0)
    rgba, depth, seg = cam.capture_image()
    assert np.all(rgba[..., 3] == 255)
    assert rgba[..., :3].std() > 5.0  # shading, checker texture and sky, not one colour
    assert aviary.planeId in seg
    assert set(np.unique(seg)) <= {aviary.planeId, -1}  # own frame is inside the near plane
    assert np.all(depth >= cam.near) and np.all(depth <= cam.far)
    # Ground in the lower rows, sky (background, depth = far) in the top rows.
    assert np.all(seg[-1] == aviary.planeId) and np.all(seg[0] == -1)
    np.testing.assert_allclose(depth[0], cam.far, rtol=1e-5)


def test_tuple_results_from_pybullet_are_reshaped(aviary, monkeypatch):
    """Builds of pybullet without numpy return flat tuples; the images must be identical."""
    cam = make_camera(aviary, camera_angle_degrees=-30.0)
    expected = cam.capture_image()
    real = pybullet.getCameraImage

    def flat_tuples(*args, **kwargs):
        w, h, rgba, depth, seg = real(*args, **kwargs)
        return (w, h, tuple(np.ravel(rgba).tolist()), tuple(np.ravel(depth).tolist()),
                tuple(np.ravel(seg).tolist()))

    monkeypatch.setattr(camera_module.pybullet, "getCameraImage", flat_tuples)
    for got, want in zip(cam.capture_image(), expected):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


# --------------------------------------------------------------------- depth
@pytest.mark.parametrize("altitude", [1.0, 2.5])
def test_depth_straight_down_is_altitude(aviary, altitude):
    set_pose(aviary, (0.3, -0.2, altitude), (0.0, 0.0, 0.7))
    cam = make_camera(aviary, camera_angle_degrees=-90.0)
    _, depth, seg = cam.capture_image()
    assert np.all(seg == aviary.planeId)
    # A plane facing the camera has the same z-depth at every pixel.
    np.testing.assert_allclose(depth, altitude, rtol=0.01)


def test_depth_is_along_optical_axis_when_tilted(aviary):
    """Looking 45 deg down from 1 m, the ground on the optical axis is sqrt(2) m away."""
    # Fine pixels: at 45 deg the ground's z-depth changes fast across one pixel row.
    cam = make_camera(aviary, camera_angle_degrees=-45.0, camera_resolution=(240, 320))
    _, depth, seg = cam.capture_image()
    assert np.all(centre(seg) == aviary.planeId)
    np.testing.assert_allclose(centre(depth), math.sqrt(2.0), rtol=0.01)
    # Rows below the axis see nearer ground; z-depth grows towards the horizon.
    column = depth[:, 160, 0]
    assert np.all(np.diff(column[column < cam.far]) <= 1e-6)


def test_pixel_rays_match_the_documented_sampling(aviary):
    """docs/camera.md: row i, column j samples the ray x = (2j/w - 1) tan(hfov/2),
    y = (1 - 2(i+1)/h) tan(vfov/2). Checked on the ground seen 45 deg down from 1 m."""
    h, w = RESOLUTION
    cam = make_camera(aviary, camera_angle_degrees=-45.0)
    _, depth, seg = cam.capture_image()
    y = (1.0 - 2.0 * (np.arange(h) + 1.0) / h) * math.tan(math.radians(45.0))
    down = math.sin(math.radians(45.0)) - math.cos(math.radians(45.0)) * y  # per unit z-depth
    ground = seg[:, w // 2, 0] == aviary.planeId
    np.testing.assert_allclose(depth[ground, w // 2, 0], 1.0 / down[ground], rtol=1e-3)
    np.testing.assert_allclose(depth[h // 2 - 1, w // 2, 0], math.sqrt(2.0), rtol=1e-4)


def test_depth_buffer_conversion(aviary):
    cam = make_camera(aviary, near=0.2, far=50.0)
    buffer = np.array([0.0, 1.0])
    np.testing.assert_allclose(cam.depth_from_buffer(buffer), [0.2, 50.0])
    # Round trip through the perspective depth formula for a point 7 m away.
    z = 7.0
    d = (1 / cam.near - 1 / z) / (1 / cam.near - 1 / cam.far)
    np.testing.assert_allclose(cam.depth_from_buffer(np.array(d)), z)


# --------------------------------------------------------------------- FPV geometry
def test_fpv_looks_along_forward_axis_and_follows_yaw(aviary):
    box = add_box(aviary, (3.0, 0.0, 1.0))
    cam = make_camera(aviary)
    assert np.all(centre(cam.capture_image()[2]) == box)
    # Yawed 90 deg left, the drone faces +y: the box is now out of view, a box on +y is seen.
    set_pose(aviary, (0.0, 0.0, 1.0), (0.0, 0.0, math.pi / 2))
    seg = cam.capture_image()[2]
    assert box not in seg
    box_left = add_box(aviary, (0.0, 3.0, 1.0))
    assert np.all(centre(cam.capture_image()[2]) == box_left)
    np.testing.assert_allclose(cam.view_direction, [0.0, 1.0, 0.0], atol=1e-9)


@pytest.mark.parametrize("gimbal", [False, True])
def test_tilt_angle_raises_the_optical_axis(aviary, gimbal):
    angle = 30.0
    box = add_box(aviary, (3.0, 0.0, 1.0 + 3.0 * math.tan(math.radians(angle))))
    cam = make_camera(aviary, camera_angle_degrees=angle, use_gimbal=gimbal)
    assert np.all(centre(cam.capture_image()[2]) == box)
    np.testing.assert_allclose(cam.view_direction,
                               [math.cos(math.radians(angle)), 0, math.sin(math.radians(angle))],
                               atol=1e-9)


def test_gimbal_removes_roll_and_pitch_keeps_yaw(aviary):
    yaw = 0.6
    set_pose(aviary, (0.0, 0.0, 1.0), (0.0, 0.0, yaw))
    level = make_camera(aviary, camera_angle_degrees=-20.0)
    level_view = view_matrix(level)
    level_image = level.capture_image()[0]

    gimballed = make_camera(aviary, camera_angle_degrees=-20.0, use_gimbal=True)
    fixed = make_camera(aviary, camera_angle_degrees=-20.0)
    set_pose(aviary, (0.0, 0.0, 1.0), (math.radians(30.0), 0.0, yaw))  # 30 deg roll
    for cam in (gimballed, fixed):
        cam.capture_image()
    np.testing.assert_allclose(view_matrix(gimballed), level_view, atol=1e-9)
    np.testing.assert_array_equal(gimballed.capture_image()[0], level_image)
    assert not np.allclose(view_matrix(fixed), level_view, atol=1e-3)
    assert np.mean(fixed.capture_image()[0] != level_image) > 0.05
    # The fixed camera rolls with the body: its horizon (image-right axis) leans 30 deg; the
    # gimballed one stays level.
    for cam, tilt in ((fixed, 30.0), (gimballed, 0.0)):
        right = np.cross(cam.view_direction, cam.up_vector)
        np.testing.assert_allclose(math.degrees(math.asin(abs(right[2]))), tilt, atol=1e-6)

    set_pose(aviary, (0.0, 0.0, 1.0), (math.radians(-15.0), math.radians(25.0), yaw))
    gimballed.capture_image()
    np.testing.assert_allclose(view_matrix(gimballed), level_view, atol=1e-9)


def test_offset_is_in_body_frame(aviary):
    euler = (math.radians(30.0), math.radians(-10.0), 1.2)
    set_pose(aviary, (0.5, 0.2, 1.5), euler)
    offset = np.array([0.1, -0.05, 0.04])
    for gimbal in (False, True):
        cam = make_camera(aviary, camera_position_offset=offset, use_gimbal=gimbal)
        rotation = np.array(pybullet.getMatrixFromQuaternion(
            pybullet.getQuaternionFromEuler(euler))).reshape(3, 3)
        expected = np.array([0.5, 0.2, 1.5]) + rotation @ offset
        np.testing.assert_allclose(cam.eye_position, expected, atol=1e-9)
        np.testing.assert_allclose(eye_from_view(cam), expected, atol=1e-5)


def test_camera_on_a_link_sits_at_that_link(aviary):
    drone = aviary.drones[0]
    link = drone.link_id("motor0")
    cam = make_camera(aviary, camera_id=link)
    link_position = pybullet.getLinkState(drone.Id, link, computeForwardKinematics=True,
                                          physicsClientId=aviary._client)[4]
    np.testing.assert_allclose(cam.eye_position, link_position, atol=1e-9)


# --------------------------------------------------------------------- tracking camera
def test_tracking_camera_sees_drone_and_ground(aviary):
    cam = make_camera(aviary, is_tracking_camera=True)
    rgba, depth, seg = cam.capture_image()
    drone_id = aviary.drones[0].Id
    assert rgba[..., :3].std() > 5.0
    assert aviary.planeId in seg and drone_id in seg
    rows, cols = np.nonzero(seg[..., 0] == drone_id)
    # The drone is the look-at target: it sits at the middle of the image.
    assert abs(rows.mean() - 23.5) < 4 and abs(cols.mean() - 31.5) < 4
    np.testing.assert_allclose(depth[seg == drone_id].min(), cam.tracking_distance, rtol=0.15)


def test_tracking_camera_follows_yaw_from_behind_and_above(aviary):
    cam = make_camera(aviary, is_tracking_camera=True, tracking_distance=2.0,
                      tracking_elevation_degrees=30.0)
    back, up = 2.0 * math.cos(math.radians(30.0)), 2.0 * math.sin(math.radians(30.0))
    np.testing.assert_allclose(cam.eye_position, [-back, 0.0, 1.0 + up], atol=1e-9)
    # Yaw 90 deg and a roll: the chase camera swings behind (-y), stays level.
    set_pose(aviary, (1.0, 2.0, 3.0), (0.4, 0.0, math.pi / 2))
    rgba, _, seg = cam.capture_image()
    np.testing.assert_allclose(cam.eye_position, [1.0, 2.0 - back, 3.0 + up], atol=1e-9)
    np.testing.assert_allclose(eye_from_view(cam), cam.eye_position, atol=1e-5)
    np.testing.assert_allclose(cam.view_direction @ [0.0, 0.0, 1.0], -0.5, atol=1e-9)
    assert abs(cam.up_vector @ np.cross(cam.view_direction, [0, 0, 1])) < 1e-9  # no roll
    assert aviary.drones[0].Id in seg


# --------------------------------------------------------------------- contract and timing
def test_reset_physics_update_and_determinism(aviary):
    cam = make_camera(aviary, camera_angle_degrees=-30.0)
    assert cam.physics_update() is None
    first = cam.capture_image()
    second = cam.capture_image()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    set_pose(aviary, (0.0, 0.0, 2.0), (0.0, 0.0, 0.0))
    cam.reset()
    np.testing.assert_allclose(cam.eye_position, [0.0, 0.0, 2.0])


def test_capture_follows_a_falling_drone(aviary):
    """The camera tracks the simulated pose: after 0.25 s of free fall the ground is nearer."""
    aviary.set_mode(-1)
    aviary.set_all_setpoints(np.zeros((1, 4)))
    cam = make_camera(aviary, camera_angle_degrees=-90.0)
    start = float(np.median(cam.capture_image()[1]))
    for _ in range(30):  # 60 physics steps
        aviary.step()
    drop = start - float(np.median(cam.capture_image()[1]))
    np.testing.assert_allclose(drop, 0.5 * 9.81 * 0.25**2, rtol=0.1)


def test_capture_timing_helpers(aviary):
    assert capture_period_steps(240, 30) == 8
    assert [is_capture_due(k, 240, 60) for k in range(9)] == [k % 4 == 3 for k in range(9)]
    cam = make_camera(aviary, camera_fps=60)
    assert cam.physics_steps_per_capture == 4
    assert [cam.capture_due(k) for k in range(9)] == [k % 4 == 3 for k in range(9)]
    assert not any(make_camera(aviary).capture_due(k) for k in range(9))


@pytest.mark.parametrize("fps, error", [(7, ValueError), (0, ValueError), (-30, ValueError),
                                        (1.5, TypeError), (480, ValueError)])
def test_camera_fps_must_divide_physics_hz(aviary, fps, error):
    with pytest.raises(error, match="camera_fps"):
        make_camera(aviary, camera_fps=fps)
    with pytest.raises(error, match="camera_fps"):
        capture_period_steps(240, fps)


# --------------------------------------------------------------------- validation
@pytest.mark.parametrize("option, value, error", [
    ("camera_resolution", (48,), ValueError),
    ("camera_resolution", (48, 64, 3), ValueError),
    ("camera_resolution", (48, 0), ValueError),
    ("camera_resolution", (-48, 64), ValueError),
    ("camera_resolution", (48.0, 64), TypeError),
    ("camera_resolution", (True, 64), TypeError),
    ("camera_resolution", 48, ValueError),
    ("camera_resolution", "48x64", ValueError),
    ("camera_FOV_degrees", 0.0, ValueError),
    ("camera_FOV_degrees", 180.0, ValueError),
    ("camera_FOV_degrees", -10.0, ValueError),
    ("camera_FOV_degrees", float("nan"), ValueError),
    ("camera_FOV_degrees", "90", TypeError),
    ("camera_angle_degrees", 91.0, ValueError),
    ("camera_angle_degrees", None, TypeError),
    ("camera_position_offset", (0.0, 0.0), ValueError),
    ("camera_position_offset", (0.0, 0.0, float("inf")), ValueError),
    ("camera_id", 99, ValueError),
    ("camera_id", -2, ValueError),
    ("camera_id", "base", TypeError),
    ("use_gimbal", "yes", TypeError),
    ("is_tracking_camera", 1, TypeError),
    ("near", 0.0, ValueError),
    ("far", 0.05, ValueError),
    ("tracking_distance", -1.0, ValueError),
    ("tracking_elevation_degrees", 90.0, ValueError),
])
def test_bad_parameters_raise_naming_the_argument(aviary, option, value, error):
    with pytest.raises(error, match=option):
        make_camera(aviary, **{option: value})


def test_capture_rgb_is_the_colour_part_of_capture_image(aviary):
    cam = make_camera(aviary)
    rgba, _, _ = cam.capture_image()
    rgb = cam.capture_rgb()
    assert rgb.shape == rgba.shape[:2] + (3,) and rgb.dtype == np.uint8
    assert rgb.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(rgb, rgba[:, :, :3])
