"""A camera mounted on a drone: first-person (optionally gimballed) or third-person chase.

Frames: ENU world, FLU body (x forward, y left, z up). See docs/camera.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pybullet

from pyflyt_like.common.validation import (
    as_float_array,
    check_bool,
    check_int,
    check_positive_float,
    check_positive_int,
    check_rate_divides,
)

DEFAULT_NEAR = 0.1  # m, near clipping plane
DEFAULT_FAR = 255.0  # m, far clipping plane
TRACKING_DISTANCE_PER_SIZE = 3.0  # automatic chase distance, in body bounding-box diagonals
MIN_TRACKING_DISTANCE = 0.3  # m, floor of the automatic chase distance
_LEVEL_EPS = 1e-9  # below this horizontal norm a forward axis has no defined heading
# Largest image side [px]. PyBullet sizes its buffers with 32-bit ints: 16384 x 16384 renders
# (slowly), while a larger image overflows them and crashes the process (1e6 x 1e6 did).
MAX_RESOLUTION = 16384


def capture_period_steps(physics_hz: int, camera_fps: int) -> int:
    """Physics steps between two captures at ``camera_fps``.

    Args:
        physics_hz: physics rate [Hz], a positive int.
        camera_fps: capture rate [frames/s], a positive int that divides ``physics_hz``.

    Raises:
        ValueError: if either is not a positive int or ``camera_fps`` does not divide
            ``physics_hz``.
    """
    return check_rate_divides("camera_fps", camera_fps, check_positive_int("physics_hz",
                                                                           physics_hz))


def is_capture_due(physics_step: int, physics_hz: int, camera_fps: int) -> bool:
    """True when the world after ``physics_step`` (0, 1, ...) is a capture tick of ``camera_fps``.

    Captures follow steps n - 1, 2n - 1, ... with ``n = physics_hz // camera_fps``: frames
    show the world at t = n, 2n, ... physics periods, the ends of the capture periods (the
    drone's reset captures t = 0). This validates
    its arguments on every call; a drone should rather build its :class:`Camera` with
    ``camera_fps`` and call :meth:`Camera.capture_due`, which costs one modulo.
    """
    return (physics_step + 1) % capture_period_steps(physics_hz, camera_fps) == 0


class Camera:
    """A pinhole camera on link ``camera_id`` of drone ``uav_id``, rendered by PyBullet.

    Modes:

    - **FPV** (default): the eye sits at the mount point (the link's origin plus
      ``camera_position_offset`` in the link frame) and looks along the link's forward axis
      (+x) tilted up by ``camera_angle_degrees`` about its y axis. With ``use_gimbal`` the
      orientation is horizon-locked: the link's roll and pitch are removed, its heading (yaw)
      kept, and the tilt is applied relative to the horizon.
    - **tracking** (``is_tracking_camera``): a third-person chase camera behind and above the
      mount point, looking at it, following the link's heading; the world z axis is up.
      ``camera_angle_degrees`` and ``use_gimbal`` are unused in this mode.

    The camera has no physics: :meth:`physics_update` is a no-op and nothing is computed per
    physics step. :meth:`capture_image` reads the mount pose, recomputes :attr:`view_mat`
    and renders; a drone calls it only when :meth:`capture_due` says so.

    Args:
        p: the aviary (a pybullet BulletClient); only its client id is kept.
        uav_id: pybullet body id of the drone.
        camera_id: link the camera is mounted on; -1 is the base.
        use_gimbal: horizon-lock the FPV view (remove roll and pitch, keep yaw).
        camera_FOV_degrees: vertical field of view [deg], in (0, 180). The horizontal field
            of view is ``2 atan(width / height * tan(fov / 2))``.
        camera_angle_degrees: upward tilt of the FPV view from the forward axis [deg], in
            [-90, 90]; -90 looks straight down, 90 straight up.
        camera_resolution: (height, width) of the images [px], positive ints, at most
            ``MAX_RESOLUTION`` (16384) each.
        camera_position_offset: (3,) mount point relative to the link origin, in the link's
            (body) frame [m].
        is_tracking_camera: third-person chase view instead of FPV.
        cinematic: PyFlyt's swinging mount: the offset is turned by the inverse of the link's
            rotation instead of the rotation itself, so the eye swings against the airframe's
            motion (a film-like lag effect). Off by default.
        physics_period: seconds per physics step, > 0; needed only with ``camera_fps``.
            ``None`` takes the aviary's (``p.physics_period``).
        np_random: the aviary's random generator (unused: rendering is deterministic).
        camera_fps: capture rate [frames/s] for :meth:`capture_due`; must divide the physics
            rate. ``None``: :meth:`capture_due` is always False (capture by hand).
        near: near clipping plane [m], > 0. Geometry closer than this is not drawn, which
            keeps a small drone's own frame out of its FPV image.
        far: far clipping plane [m], > ``near``. Background (sky) pixels get depth ``far``.
        tracking_distance: eye-to-target distance of the tracking camera [m], > 0. ``None``
            picks ``max(0.3, 3 x`` the diagonal of the drone's bounding box ``)``.
        tracking_elevation_degrees: angle of the tracking camera above the target's
            horizontal plane [deg], in (-90, 90); the camera looks down at this angle.

    Attributes:
        view_mat: 16 floats, the OpenGL view matrix (column-major) of the last update.
        proj_mat: 16 floats, the OpenGL projection matrix (column-major); constant.
        eye_position: (3,) camera position [m], world frame, at the last update.
        view_direction: (3,) unit optical axis, world frame, at the last update.
        up_vector: (3,) unit image-up direction, world frame, at the last update.
    """

    def __init__(
        self,
        p,
        uav_id: int,
        camera_id: int,
        use_gimbal: bool,
        camera_FOV_degrees: float,
        camera_angle_degrees: float,
        camera_resolution: Sequence[int],
        camera_position_offset: Sequence[float] = (0.0, 0.0, 0.0),
        is_tracking_camera: bool = False,
        cinematic: bool = False,
        *,
        physics_period: float | None = None,
        np_random: np.random.Generator | None = None,
        camera_fps: int | None = None,
        near: float = DEFAULT_NEAR,
        far: float = DEFAULT_FAR,
        tracking_distance: float | None = None,
        tracking_elevation_degrees: float = 20.0,
    ):
        self.client_id: int = p._client
        self.np_random = np_random
        if physics_period is None:
            physics_period = getattr(p, "physics_period", None)
        self.physics_period = (None if physics_period is None and camera_fps is None
                               else check_positive_float("physics_period", physics_period))
        self.cinematic = check_bool("cinematic", cinematic)
        self.uav_id = check_int("uav_id", uav_id)
        n_links = pybullet.getNumJoints(self.uav_id, physicsClientId=self.client_id)
        self.camera_id = check_int("camera_id", camera_id)
        if not -1 <= self.camera_id < n_links:
            raise ValueError(f"camera_id must be -1 (base) or a link id in [0, {n_links}) of "
                             f"body {self.uav_id}, got {self.camera_id}")
        self.use_gimbal = check_bool("use_gimbal", use_gimbal)
        self.is_tracking_camera = check_bool("is_tracking_camera", is_tracking_camera)
        self.camera_FOV_degrees = _check_range("camera_FOV_degrees", camera_FOV_degrees,
                                               0.0, 180.0, closed=False)
        self.camera_angle_degrees = _check_range("camera_angle_degrees", camera_angle_degrees,
                                                 -90.0, 90.0, closed=True)
        self.camera_resolution = _check_resolution(camera_resolution)
        self.camera_position_offset = as_float_array("camera_position_offset",
                                                     camera_position_offset, (3,))
        self.near = check_positive_float("near", near)
        self.far = check_positive_float("far", far)
        if self.far <= self.near:
            raise ValueError(f"far must be > near, got near={self.near}, far={self.far}")
        self.tracking_elevation_degrees = _check_range(
            "tracking_elevation_degrees", tracking_elevation_degrees, -90.0, 90.0, closed=False)
        if tracking_distance is None:
            tracking_distance = _automatic_tracking_distance(self.client_id, self.uav_id, n_links)
        self.tracking_distance = check_positive_float("tracking_distance", tracking_distance)

        self.camera_fps = camera_fps
        self.physics_steps_per_capture: int | None = None
        if camera_fps is not None:
            physics_hz = round(1.0 / self.physics_period)
            if abs(physics_hz * self.physics_period - 1.0) > 1e-9:
                raise ValueError(f"physics_period must be 1 / (an integer rate in Hz) to use "
                                 f"camera_fps, got {self.physics_period}")
            self.physics_steps_per_capture = capture_period_steps(physics_hz, camera_fps)

        height, width = self.camera_resolution
        self.proj_mat = pybullet.computeProjectionMatrixFOV(
            fov=self.camera_FOV_degrees, aspect=width / height, nearVal=self.near,
            farVal=self.far, physicsClientId=self.client_id)
        # The FPV view direction and image-up in the mount frame (FLU), tilt included.
        tilt = math.radians(self.camera_angle_degrees)
        self._local_forward = np.array([math.cos(tilt), 0.0, math.sin(tilt)])
        self._local_up = np.array([-math.sin(tilt), 0.0, math.cos(tilt)])
        elevation = math.radians(self.tracking_elevation_degrees)
        self._chase_back = self.tracking_distance * math.cos(elevation)
        self._chase_up = self.tracking_distance * math.sin(elevation)
        self._heading = 0.0
        self.eye_position = np.zeros(3)
        self.view_direction = np.zeros(3)
        self.up_vector = np.zeros(3)
        self.view_mat: tuple[float, ...] = ()
        self.reset()

    # ----------------------------------------------------------------- contract
    def reset(self) -> None:
        """Forget the remembered heading and recompute the view from the current mount pose."""
        self._heading = 0.0
        self.state_update()

    def state_update(self) -> None:
        """Read the mount pose from pybullet and recompute :attr:`view_mat`.

        The camera reads the pose itself (one pybullet call) rather than taking the drone's
        state, so that a camera on a moving link is placed correctly. :meth:`capture_image`
        calls this; there is no need to call it every physics step.
        """
        position, rotation = self._mount_pose()
        eye = position + (rotation.T if self.cinematic else rotation) @ self.camera_position_offset
        if self.is_tracking_camera:
            heading = self._heading_of(rotation)
            cos_h, sin_h = math.cos(heading), math.sin(heading)
            target = eye
            eye = target + (-self._chase_back * cos_h, -self._chase_back * sin_h, self._chase_up)
            forward = target - eye
            forward /= np.linalg.norm(forward)
            side = np.array([-sin_h, cos_h, 0.0])  # image-left, horizontal
            up = np.cross(forward, side)
        else:
            if self.use_gimbal:
                heading = self._heading_of(rotation)
                cos_h, sin_h = math.cos(heading), math.sin(heading)
                rotation = np.array([[cos_h, -sin_h, 0.0], [sin_h, cos_h, 0.0], [0.0, 0.0, 1.0]])
            forward = rotation @ self._local_forward
            up = rotation @ self._local_up
        self.eye_position[:] = eye
        self.view_direction[:] = forward
        self.up_vector[:] = up
        self.view_mat = pybullet.computeViewMatrix(
            cameraEyePosition=eye.tolist(), cameraTargetPosition=(eye + forward).tolist(),
            cameraUpVector=up.tolist(), physicsClientId=self.client_id)

    def physics_update(self) -> None:
        """A camera applies no loads: nothing to do."""

    def capture_due(self, physics_step: int) -> bool:
        """True when the world after global ``physics_step`` is a capture tick of ``camera_fps``.

        Ticks follow steps n - 1, 2n - 1, ... with ``n = physics_hz // camera_fps``, so a
        frame shows the world at the end of each capture period, the same instant as the
        state a controller or agent sees then; always False when the camera was built with
        ``camera_fps=None``.
        """
        steps = self.physics_steps_per_capture
        return steps is not None and (physics_step + 1) % steps == 0

    # ----------------------------------------------------------------- rendering
    def capture_image(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Render the current view with PyBullet's software (tiny) renderer.

        Works headless (DIRECT) as well as with the GUI. Costs one render (about a
        millisecond at 64 x 48 px); call it at ``camera_fps``, not every physics step.

        Returns:
            rgba: (h, w, 4) uint8 colour image, row 0 at the top.
            depth: (h, w, 1) float32 metric depth [m] along the optical axis (z-depth, not
                ray length), in [near, far]; pixels that see nothing read ``far``.
            seg: (h, w, 1) int32 pybullet body unique id seen by each pixel (link index not
                included), -1 where nothing is seen.
        """
        height, width = self.camera_resolution
        rgba, depth_buffer, seg = self._render()
        rgba = np.asarray(rgba, dtype=np.uint8).reshape(height, width, 4)
        depth = self.depth_from_buffer(np.asarray(depth_buffer, dtype=np.float64))
        depth = depth.astype(np.float32).reshape(height, width, 1)
        seg = np.asarray(seg, dtype=np.int32).reshape(height, width, 1)
        return rgba, depth, seg

    def capture_rgb(self) -> np.ndarray:
        """Render the current view; return only the (h, w, 3) uint8 colour image (for video
        and env rendering: no depth conversion)."""
        height, width = self.camera_resolution
        rgba = np.asarray(self._render()[0], dtype=np.uint8).reshape(height, width, 4)
        return np.ascontiguousarray(rgba[:, :, :3])

    def _render(self) -> tuple:
        """Update the view from the mount pose and render: raw (rgba, depth buffer, seg)."""
        self.state_update()
        height, width = self.camera_resolution
        return pybullet.getCameraImage(
            width, height, self.view_mat, self.proj_mat, renderer=pybullet.ER_TINY_RENDERER,
            flags=0, physicsClientId=self.client_id)[2:]

    def depth_from_buffer(self, buffer: np.ndarray) -> np.ndarray:
        """Convert OpenGL depth-buffer values to metric z-depth [m], element-wise.

        A perspective depth buffer stores ``d = (1/near - 1/z) / (1/near - 1/far)`` in
        [0, 1] for a point at distance ``z`` along the optical axis; inverted,
        ``z = far * near / (far - (far - near) * d)``, clipped to [near, far]. Any shape in, the
        same shape out.
        """
        near, far = self.near, self.far
        # The renderer's float32 buffer can overshoot 1 by an ulp: clip to the valid range.
        return np.clip(far * near / (far - (far - near) * buffer), near, far)

    # ----------------------------------------------------------------- helpers
    def _mount_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """(3,) world position [m] and (3, 3) link-to-world rotation of the mount link.

        The base uses pybullet's base pose (its inertial frame); a link uses its URDF link
        frame.
        """
        client = self.client_id
        if self.camera_id < 0:
            position, quaternion = pybullet.getBasePositionAndOrientation(
                self.uav_id, physicsClientId=client)
        else:
            state = pybullet.getLinkState(self.uav_id, self.camera_id,
                                          computeForwardKinematics=True, physicsClientId=client)
            position, quaternion = state[4], state[5]
        rotation = np.array(pybullet.getMatrixFromQuaternion(quaternion)).reshape(3, 3)
        return np.array(position), rotation

    def _heading_of(self, rotation: np.ndarray) -> float:
        """Yaw [rad] of the mount's forward axis; the last one when that axis is vertical."""
        x, y = rotation[0, 0], rotation[1, 0]
        if x * x + y * y > _LEVEL_EPS:
            self._heading = math.atan2(y, x)
        return self._heading


def make_chase_camera(aviary, drone, resolution: Sequence[int], fov_degrees: float = 60.0,
                      camera_fps: int | None = None) -> Camera:
    """A third-person tracking camera behind ``drone``'s base, for videos and rendering.

    Args:
        aviary: the aviary the drone flies in.
        drone: the vehicle to follow (a DroneClass).
        resolution: (height, width) of the frames [px].
        fov_degrees: vertical field of view [deg].
        camera_fps: capture rate for :meth:`Camera.capture_due`; None to capture by hand.
    """
    return Camera(aviary, drone.Id, -1,
                  use_gimbal=False, camera_FOV_degrees=fov_degrees, camera_angle_degrees=0.0,
                  camera_resolution=resolution, is_tracking_camera=True,
                  camera_fps=camera_fps)


def _check_range(name: str, value: object, low: float, high: float, closed: bool) -> float:
    """Return ``value`` as a float if within [low, high] (closed) or (low, high), else raise."""
    brackets = "[]" if closed else "()"
    allowed = f"{brackets[0]}{low:g}, {high:g}{brackets[1]}"
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number in {allowed}, got {value!r}")
    value = float(value)
    inside = low <= value <= high if closed else low < value < high
    if not inside:
        raise ValueError(f"{name} must be in {allowed}, got {value!r}")
    return value


def _check_resolution(resolution: object) -> tuple[int, int]:
    """Return (height, width) if ``resolution`` is two positive ints, else raise ValueError."""
    if isinstance(resolution, (str, bytes)) or not isinstance(resolution,
                                                              (Sequence, np.ndarray)):
        raise ValueError(f"camera_resolution must be (height, width), two positive ints, got "
                         f"{resolution!r}")
    if len(resolution) != 2:
        raise ValueError(f"camera_resolution must be (height, width), two positive ints, got "
                         f"{len(resolution)} values: {resolution!r}")
    height = check_positive_int("camera_resolution[0] (height)", resolution[0])
    width = check_positive_int("camera_resolution[1] (width)", resolution[1])
    if max(height, width) > MAX_RESOLUTION:
        raise ValueError(f"camera_resolution sides must be at most {MAX_RESOLUTION} px (larger "
                         f"images overflow PyBullet's renderer), got {(height, width)}")
    return height, width


def _automatic_tracking_distance(client: int, uav: int, n_links: int) -> float:
    """``max(0.3 m, 3 x`` the diagonal of the union of the body's link bounding boxes ``)``."""
    lows, highs = [], []
    for link in range(-1, n_links):
        low, high = pybullet.getAABB(uav, link, physicsClientId=client)
        lows.append(low)
        highs.append(high)
    diagonal = float(np.linalg.norm(np.max(highs, axis=0) - np.min(lows, axis=0)))
    return max(MIN_TRACKING_DISTANCE, TRACKING_DISTANCE_PER_SIZE * diagonal)
