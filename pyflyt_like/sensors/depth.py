"""The depth camera: a ``height`` x ``width`` image of depths [m] along the optical axis, the
ray grid of a pinhole camera with the geometry of PyBullet's camera at that resolution.

Pure maths (numpy and :mod:`pyflyt_like.common` only). A ray sensor like the LiDAR
(:mod:`pyflyt_like.sensors.lidar`), whose beams, ray casting and sample it reuses: the
engines cast its pixels' rays as they cast the LiDAR's beams (the PyBullet Aviary with
:class:`~pyflyt_like.core.abstractions.lidar.LidarCaster`, the batched engine in its ray
stage, :class:`~pyflyt_like.sensors.SensorSuite` with
:func:`~pyflyt_like.sensors.lidar.scan_truths`), ``cast_range`` far, and multiply each true
range by the pixel's ``scale`` to get its depth.

**Frames and pixels.** The sensor frame is FLU like the LiDAR's: the camera looks along its
+x axis, image up is its +z, image left its +y. Pixel ``(r, c)`` of the image (row 0 at the
top, column 0 on the left, as ``pybullet.getCameraImage`` returns them) looks along

    ``(1, -(2 (c + COLUMN_SAMPLE) / W - 1) tan(h / 2), -(2 (r + ROW_SAMPLE) / H - 1) tan(v / 2))``

with ``v`` = ``fov_deg``, the vertical field of view (as the PyBullet camera's
``camera_FOV_degrees``), and ``tan(h / 2) = W / H tan(v / 2)`` (the horizontal one follows
from the aspect ``W / H``). :data:`COLUMN_SAMPLE` = 0 and :data:`ROW_SAMPLE` = 1: PyBullet's
renderer (``ER_TINY_RENDERER``, the one :class:`~pyflyt_like.core.abstractions.camera.Camera`
uses) samples each pixel at its bottom-left corner, not at its centre (measured: the depths
of tilted planes place every sample within 1e-3 pixel of that corner at 1 x 1 to
160 x 120). So the optical axis passes through the sample of pixel ``(H / 2 - 1, W / 2)``
for an even ``H`` and ``W``; the image spans the field of view from its bottom-left corner
to one pixel short of its top and right edges, the geometry of a pinhole camera whose
principal point lies half a pixel right of and above the image's centre.

The sensor sits at ``mounting_position`` [m, body frame, from the centre of mass], turned
by ``mounting_orientation_deg`` = (roll, pitch, yaw) [deg] as the LiDAR:
``R_bs = Rz(yaw) Ry(pitch) Rx(roll)``; a pitch of +90 deg looks down (image up is then body
forward). A camera of :class:`~pyflyt_like.core.abstractions.camera.Camera` tilted up by
``camera_angle_degrees`` = t at ``camera_position_offset`` = p is this sensor with
``mounting_orientation_deg = (0, -t, 0)`` and ``mounting_position = p``.

**True depth.** The distance [m] along the optical axis from the sensor's origin to the
first surface through the pixel: the range along its ray (the LiDAR's true range, the ray
cast ``cast_range`` far) times its ``scale``, the cosine between the ray and the optical
axis; ``inf`` when that depth exceeds ``max_range`` or nothing is met; 0 from inside an
obstacle or below the floor. It is PyBullet's camera depth converted to metres
(:meth:`~pyflyt_like.core.abstractions.camera.Camera.depth_from_buffer`), with
``max_range`` in the role of the far plane (and ``min_range`` of the near one, but a surface
nearer than ``min_range`` reads ``min_range`` here, where the camera sees through it).

**A sample** is the LiDAR's (:func:`~pyflyt_like.sensors.lidar.sample_beam`) on the depth:
dropout or no surface within ``max_range`` reads ``max_range``, a depth below
``min_range`` reads ``min_range``, otherwise ``z + sigma(z) n`` clipped to
[min_range, max_range], ``sigma(z) = noise + noise_per_metre z`` [m].

**Arrays for the engines**: ``coefficients`` in the LiDAR's layout
(:data:`~pyflyt_like.sensors.lidar.COEFFICIENT_SIZE`: noise, noise_per_metre, dropout,
min_range, max_range, mounting position), so that ``lidar.sample_beam(coefficients, depth,
n, u)`` samples a pixel; ``directions`` (H, W, 3) body-frame unit vectors; ``scales``
(H, W); ``cast_range`` [m]. The sensor has no state; its draws per pixel are the LiDAR's
(:data:`~pyflyt_like.sensors.lidar.SAMPLE_DRAWS`, :func:`~pyflyt_like.sensors.lidar.draw`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from pyflyt_like.common.rotations import euler_to_matrix

from . import lidar
from .params import UPDATE_RATE, Parameter, SensorParams

#: Where a pixel is sampled, from its top-left corner [pixels]: rightwards
#: (:data:`COLUMN_SAMPLE`) and downwards (:data:`ROW_SAMPLE`). PyBullet's tiny renderer
#: samples the bottom-left corner (module docstring); a pixel's centre would be 0.5, 0.5.
COLUMN_SAMPLE = 0.0
ROW_SAMPLE = 1.0

#: The depth camera's parameters (name -> :class:`~pyflyt_like.sensors.params.Parameter`).
PARAMETERS = {
    "update_rate": UPDATE_RATE,
    "width": Parameter("count", "px", "image columns (>= 1)", 1),
    "height": Parameter("count", "px", "image rows (>= 1)", 1),
    "fov_deg": Parameter("positive", "deg", "vertical field of view, in (0, 180); the "
                         "horizontal one is 2 atan(width / height tan(fov_deg / 2))",
                         None, 180.0),
    **lidar.ray_parameters("depth", "pixel", "camera", "; the camera looks along the "
                           "sensor's +x, +90 pitch looks down"),
}


@dataclass(frozen=True, eq=False, kw_only=True)
class DepthParams(SensorParams):
    """The depth camera's parameters (names and units: :data:`PARAMETERS`); vectors are
    (3,)."""

    width: int
    height: int
    fov_deg: float
    min_range: float
    max_range: float
    noise: float
    noise_per_metre: float
    dropout: float
    mounting_position: np.ndarray
    mounting_orientation_deg: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        """(height, width): the shape of an image."""
        return self.height, self.width

    @property
    def horizontal_fov_deg(self) -> float:
        """The horizontal field of view [deg], ``2 atan(width / height tan(fov_deg / 2))``."""
        return math.degrees(2.0 * math.atan(self.width / self.height
                                            * math.tan(math.radians(0.5 * self.fov_deg))))

    @functools.cached_property
    def directions(self) -> np.ndarray:
        """(height, width, 3) read-only unit vectors of the pixels' rays in the body frame
        (:func:`pixel_rays`), computed once."""
        array = pixel_rays(self)[0]
        array.flags.writeable = False
        return array

    @functools.cached_property
    def scales(self) -> np.ndarray:
        """(height, width) read-only: the depth per metre of range along each pixel's ray,
        the cosine between the ray and the optical axis (in (0, 1], 1 on the axis)."""
        array = pixel_rays(self)[1]
        array.flags.writeable = False
        return array

    @property
    def cast_range(self) -> float:
        """How far [m] each ray is cast: ``max_range / scales.min()``, so that every depth up
        to ``max_range`` is seen (the corner pixels' rays are the longest)."""
        return self.max_range / float(self.scales.min())

    def _coefficients(self) -> np.ndarray:
        c = np.zeros(lidar.COEFFICIENT_SIZE)
        c[lidar.NOISE] = self.noise
        c[lidar.NOISE_PER_METRE] = self.noise_per_metre
        c[lidar.DROPOUT] = self.dropout
        c[lidar.MIN_RANGE] = self.min_range
        c[lidar.MAX_RANGE] = self.max_range
        c[lidar.MOUNT_POSITION:lidar.MOUNT_POSITION + 3] = self.mounting_position
        return c


def check_parameters(values: dict, name: str) -> None:
    """The checks across parameters (each one alone is checked by the configuration):
    ``values`` the converted parameters, ``name`` the option (``sensors["depth"]``).

    Raises:
        ValueError: ``fov_deg`` of 180 (a pinhole sees less than a half space);
            ``min_range`` >= ``max_range``; more than
            :data:`~pyflyt_like.sensors.lidar.MAX_RAYS` pixels.
    """
    if not values["fov_deg"] < 180.0:
        raise ValueError(f'{name}["fov_deg"]={values["fov_deg"]:g} must be in (0, 180) '
                         f"[deg]: a pinhole camera sees less than a half space")
    if not values["min_range"] < values["max_range"]:
        raise ValueError(f'{name}["min_range"]={values["min_range"]} must be less than '
                         f'{name}["max_range"]={values["max_range"]} [m]')
    pixels = values["width"] * values["height"]
    if pixels > lidar.MAX_RAYS:
        raise ValueError(f'{name}["width"] x {name}["height"] = {pixels} pixels, more than '
                         f"MAX_RAYS={lidar.MAX_RAYS} per image; use a smaller image")


# ------------------------------------------------------------------ pixels (Python)
def pixel_rays(params: DepthParams) -> tuple[np.ndarray, np.ndarray]:
    """``(directions (height, width, 3), scales (height, width))``, new arrays: each
    pixel's unit ray in the body frame, ``R_bs`` applied to the sensor-frame ray of the
    module docstring, and the cosine between it and the optical axis."""
    w, h = params.width, params.height
    tan_v = math.tan(math.radians(0.5 * params.fov_deg))
    tan_h = w / h * tan_v
    left = -(2.0 * (np.arange(w) + COLUMN_SAMPLE) / w - 1.0) * tan_h  # sensor y per column
    up = -(2.0 * (np.arange(h) + ROW_SAMPLE) / h - 1.0) * tan_v  # sensor z per row
    sensor = np.stack(np.broadcast_arrays(1.0, left[None, :], up[:, None]), axis=-1)
    # the ray (1, y, z) has unit length times its norm: 1 / norm is its cosine to x
    scales = 1.0 / np.linalg.norm(sensor, axis=-1)
    roll, pitch, yaw = np.radians(params.mounting_orientation_deg)
    mount = np.array(euler_to_matrix(roll, pitch, yaw)).reshape(3, 3)
    body = (sensor * scales[..., None]) @ mount.T
    # unit to the last bit, as the LiDAR's beams
    return body / np.linalg.norm(body, axis=-1, keepdims=True), scales


def optical_axis(params: DepthParams) -> np.ndarray:
    """(3,) new array: the unit optical axis (the sensor's +x) in the body frame."""
    roll, pitch, yaw = np.radians(params.mounting_orientation_deg)
    mount = euler_to_matrix(roll, pitch, yaw)
    return np.array([mount[0], mount[3], mount[6]])


def depths_from_ranges(params: DepthParams, ranges: np.ndarray,
                       out: np.ndarray | None = None) -> np.ndarray:
    """The true depths [m] (height, width) of true ranges (height, width) [m] along the
    pixels' rays (cast ``cast_range`` far; ``inf``: nothing met): ``ranges * scales``,
    ``inf`` where that is beyond ``max_range``. Into ``out`` if given (it may be
    ``ranges``); returns it."""
    out = np.multiply(ranges, params.scales, out=out)
    out[~(out <= params.max_range)] = math.inf  # beyond the far plane (or NaN): nothing
    return out


# ------------------------------------------------------------------ reference (Python)
def true_depths(world, position: object, rotation: object, params: DepthParams,
                floor_z: float = 0.0) -> np.ndarray:
    """The true depths [m] of an image, the reference the engines are checked against:
    each pixel's ray (:func:`~pyflyt_like.sensors.lidar.world_ray`) against ``world`` by
    :meth:`~pyflyt_like.worlds.World.ray_distance` and against the floor
    (:func:`~pyflyt_like.sensors.lidar.floor_ray_distance`), the nearer, ``cast_range``
    far, times the pixel's ``scale`` (:func:`depths_from_ranges`); ``inf`` where no surface
    lies within ``max_range`` of depth.

    Args:
        world: a :class:`~pyflyt_like.worlds.World` (``World()`` for the floor alone).
        position: (3,) [m] the centre of mass in the world.
        rotation: the attitude, body to world: a quaternion (4,) (x, y, z, w) or a
            rotation matrix (3, 3), each unit within 1e-6.
        params: the depth camera (:func:`~pyflyt_like.sensors.resolve_sensors`'s
            ``"depth"``).
        floor_z: the floor's height [m].

    Returns:
        (height, width) float64 [m].

    Raises:
        TypeError, ValueError: ``rotation`` neither a unit quaternion nor a rotation matrix,
            a ``position`` not (3,) finite, ``params`` not a :class:`DepthParams`.
    """
    if not isinstance(params, DepthParams):
        raise TypeError(f"params must be a DepthParams (resolve_sensors(...)['depth']), got "
                        f"{type(params).__name__}")
    ranges = lidar.cast_closed_form(world, position, rotation, params, floor_z)
    return depths_from_ranges(params, ranges, out=ranges)
