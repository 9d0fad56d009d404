"""Cameras on the vehicles through drone_options: images at camera_fps, headless."""

import numpy as np
import pytest

from pyflyt_like.core import Aviary


@pytest.mark.parametrize("drone_type, z", [("quadx", 1.0), ("fixedwing", 20.0),
                                          ("quadplane", 1.0), ("rocket", 10.0),
                                          ("multirotor", 1.0)])
def test_vehicle_camera_images(drone_type, z):
    options = dict(use_camera=True, camera_resolution=(24, 32), camera_fps=30)
    with Aviary(np.array([[0.0, 0.0, z]]), np.zeros((1, 3)), drone_type=drone_type,
                drone_options=options, seed=0) as aviary:
        drone = aviary.drones[0]
        assert drone.rgbaImg.shape == (24, 32, 4) and drone.rgbaImg.dtype == np.uint8
        assert drone.depthImg.shape == (24, 32, 1)
        assert drone.segImg.shape == (24, 32, 1)
        first = drone.camera.view_mat
        captures = []
        original = drone._capture

        def counting():
            captures.append(aviary.physics_steps)
            original()

        drone._capture = counting
        for _ in range(drone.control_hz // 2):  # half a second
            aviary.step()
        assert len(captures) == 15  # 30 fps for 0.5 s
        if drone_type == "fixedwing":
            assert drone.camera.view_mat != first  # it flew on: the view moved


def test_tracking_camera_sees_the_drone_and_the_ground():
    options = dict(use_camera=True, is_tracking_camera=True, camera_resolution=(48, 64))
    with Aviary(np.array([[0.0, 0.0, 1.0]]), np.zeros((1, 3)), drone_options=options,
                seed=0) as aviary:
        ids = set(np.unique(aviary.drones[0].segImg).tolist())
        assert aviary.drones[0].Id in ids and aviary.planeId in ids


def test_unknown_camera_option_is_named():
    with pytest.raises(ValueError, match="use_camra"):
        Aviary(np.array([[0.0, 0.0, 1.0]]), np.zeros((1, 3)), drone_options=dict(use_camra=True))
    with pytest.raises(ValueError, match="camera_fps"):
        Aviary(np.array([[0.0, 0.0, 1.0]]), np.zeros((1, 3)),
               drone_options=dict(use_camera=True, camera_fps=7))
