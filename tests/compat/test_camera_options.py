"""Vehicle options under PyFlyt 0.29's names: every keyword its QuadX, Fixedwing and Rocket
take is accepted through ``drone_options`` with the same meaning."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.core import Aviary

CAMERA = dict(use_camera=True, use_gimbal=True, camera_angle_degrees=15,
              camera_FOV_degrees=60, camera_resolution=(48, 64),
              camera_position_offset=np.array([0.1, 0.0, 0.05]), camera_fps=30)
# PyFlyt 0.29's keyword sets beyond the positional ones, with a value each.
PYFLYT_OPTIONS = {
    "quadx": dict(control_hz=120, drone_model="cf2x", model_dir=None, **CAMERA),
    "fixedwing": dict(control_hz=120, drone_model="fixedwing", model_dir=None,
                      starting_velocity=np.array([15.0, 0.0, 0.0]), **CAMERA),
    "rocket": dict(control_hz=120, drone_model="rocket", model_dir=None,
                   starting_fuel_ratio=0.05, **CAMERA),
}


@pytest.mark.parametrize("drone_type", sorted(PYFLYT_OPTIONS))
def test_every_pyflyt_vehicle_option_is_accepted(drone_type):
    aviary = Aviary(start_pos=np.array([[0.0, 0.0, 10.0]]), start_orn=np.zeros((1, 3)),
                    drone_type=drone_type, drone_options=PYFLYT_OPTIONS[drone_type])
    drone = aviary.drones[0]
    camera = drone.camera
    assert camera is not None and camera.use_gimbal
    assert (camera.camera_FOV_degrees, camera.camera_angle_degrees) == (60, 15)
    np.testing.assert_allclose(camera.camera_position_offset, [0.1, 0.0, 0.05])
    # camera_fps=30 at physics 240 Hz, control 120 Hz: a capture every 4th step.
    assert camera.physics_steps_per_capture == 8
    captured = []
    for step in range(1, 9):
        image = drone.rgbaImg
        aviary.step()
        if drone.rgbaImg is not image:
            captured.append(step)
    assert captured == [4, 8]
    assert drone.rgbaImg.shape == (48, 64, 4) and drone.rgbaImg.dtype == np.uint8
    assert drone.depthImg.shape == (48, 64, 1)
    aviary.close()
