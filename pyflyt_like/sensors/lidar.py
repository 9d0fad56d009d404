"""The LiDAR: ``channels`` x ``beams`` ranges over a horizontal and a vertical field of view.

Pure maths (numpy and :mod:`pyflyt_like.common` only). The engines cast the rays (the
PyBullet Aviary with ``rayTestBatch``, :mod:`pyflyt_like.core.abstractions.lidar`; the
batched engine with :func:`scan_truths` compiled); this module gives the beams'
directions, the closed-form true ranges against a :class:`~pyflyt_like.worlds.World` and
the floor, and the per-beam sample that turns a true range into a reading.

**Frames and beams.** The sensor frame is FLU like the body frame: x forward, y left, z up.
A beam at azimuth ``a`` and elevation ``e`` [deg] points along
``(cos e cos a, cos e sin a, sin e)``: the azimuth turns from x towards y (counter-clockwise
seen from above, so a positive azimuth looks left), the elevation is positive up. The
reading ``ranges[i, j]`` is channel ``i``, beam ``j``, and both angles grow with the index:

- beam ``j`` of ``B``: with a horizontal field of view ``H`` of 360 deg,
  ``a_j = -180 + j 360 / B`` (ROS's LaserScan layout: beam 0 looks backwards, beam B/2
  forwards for an even B; no beam is repeated at +180); with ``H`` < 360,
  ``a_j = -H/2 + j H / (B - 1)``, edge to edge, both edges included (beam 0 on the right);
  a single beam looks along the centre, ``a = 0``;
- channel ``i`` of ``C``: ``e_i = c - V/2 + i V / (C - 1)`` for the vertical field of view
  ``V`` centred on the elevation ``c`` (``vertical_center_deg``), both edges included
  (channel 0 the lowest); one channel, or ``V = 0`` (one horizontal ring), looks at
  ``e = c``.

The sensor sits at ``mounting_position`` [m, body frame, from the centre of mass] and its
frame is turned by ``mounting_orientation_deg`` = (roll, pitch, yaw) [deg]:
``R_bs = Rz(yaw) Ry(pitch) Rx(roll)`` (sensor to body, as the IMU's). A pitch of +90 deg
turns the sensor's x axis down (body -z): a downward unit. :func:`beam_directions` gives the
unit directions in the body frame, ``R_bs`` applied.

**True range.** The distance [m] from the sensor's origin along the beam to the first
surface: a primitive of the world (:meth:`pyflyt_like.worlds.World.ray_distance`) or the
floor, the half-space ``z <= floor_z`` (:func:`floor_ray_distance`); ``inf`` when nothing is
met within ``max_range``; 0 from inside an obstacle or below the floor.

**A sample** (:func:`sample_beam`), per beam, with ``u`` a uniform draw in [0, 1) and ``n``
a standard normal draw:

- ``u < dropout`` (the beam returns nothing): ``max_range``;
- nothing hit within ``max_range`` (the true range ``inf`` or beyond): ``max_range``;
- a true range below ``min_range``: ``min_range``. A real unit reports such a return as
  "too close" (ROS REP 117's ``-inf``); clamped into the interval, it never looks like free
  space, as ``max_range`` would;
- otherwise ``r + sigma(r) n`` clipped to [min_range, max_range], with
  ``sigma(r) = noise + noise_per_metre r`` [m].

So a reading is always within [min_range, max_range]; ``max_range`` means "no return".

**Arrays of the compile-ready functions** (plain Python on floats and arrays, no allocation,
no exceptions, no numba import: :func:`pyflyt_like.compiled.jit.compile_shared` compiles
them as they are): ``coefficients`` (:data:`COEFFICIENT_SIZE`,) = noise [m],
noise_per_metre [-], dropout [-], min_range [m], max_range [m], mounting position (3,) [m]
at :data:`MOUNT_POSITION`; ``directions`` (C, B, 3) body-frame unit vectors
(:attr:`LidarParams.directions`). The sensor has no state. Draws per beam and sample:
:data:`SAMPLE_DRAWS` at most, one standard normal (read only when ``sigma`` can be > 0) and
one uniform (read only when ``dropout`` > 0); :func:`draws_needed` says which a caller must
draw.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from pyflyt_like.common.rotations import euler_to_matrix, quat_to_matrix
from pyflyt_like.common.validation import as_float_array, check_finite
from pyflyt_like.worlds.grid import pool_ray_distance

from .params import UPDATE_RATE, Parameter, SensorParams

NOISE, NOISE_PER_METRE, DROPOUT, MIN_RANGE, MAX_RANGE, MOUNT_POSITION = 0, 1, 2, 3, 4, 5
COEFFICIENT_SIZE = MOUNT_POSITION + 3
#: Standard normal draws per beam and sample (the white noise), read when sigma can be > 0.
NORMAL_DRAWS = 1
#: Uniform draws in [0, 1) per beam and sample (the dropout), read when dropout > 0.
UNIFORM_DRAWS = 1
#: The most draws a beam takes per sample: one normal and one uniform.
SAMPLE_DRAWS = NORMAL_DRAWS + UNIFORM_DRAWS
#: The most rays (channels x beams) a scan may hold: a bound on memory and on the cost of a
#: sample (a million rays take 1-3 s of PyBullet ray tests).
MAX_RAYS = 1 << 20


def ray_parameters(reading: str, ray: str, sensor: str, looks: str = "") -> dict[str, Parameter]:
    """The parameters every ray sensor shares (range limits, noise, dropout, mounting), in
    words for one: ``reading`` what it measures ("range", "depth"), ``ray`` what returns
    it ("beam", "pixel"), ``sensor`` what it is ("sensor", "camera"), ``looks`` where the
    sensor frame looks (appended to the orientation's description)."""
    return {
        "min_range": Parameter("number", "m", f"shortest {reading} measured; a nearer surface "
                               "reads min_range", 0.0),
        "max_range": Parameter("positive", "m", f"longest {reading} measured; no surface "
                               "within it reads max_range"),
        "noise": Parameter("number", "m", f"standard deviation of the {reading} noise, "
                           f"constant part: sigma(d) = noise + noise_per_metre d", 0.0),
        "noise_per_metre": Parameter("number", "-", f"standard deviation of the {reading} "
                                     f"noise per metre of {reading}", 0.0),
        "dropout": Parameter("number", "-", f"probability that a {ray} returns nothing (reads "
                             f"max_range), per {ray} and sample", 0.0, 1.0),
        "mounting_position": Parameter("vector", "m", f"the {sensor}'s origin in the body "
                                       "frame, from the centre of mass"),
        "mounting_orientation_deg": Parameter("vector", "deg", "roll, pitch, yaw of the "
                                              "sensor frame in the body frame (R_bs = Rz(yaw) "
                                              f"Ry(pitch) Rx(roll), sensor to body){looks}"),
    }


#: The LiDAR's parameters (name -> :class:`~pyflyt_like.sensors.params.Parameter`).
PARAMETERS = {
    "update_rate": UPDATE_RATE,
    "channels": Parameter("count", "-", "rows of beams over the vertical field of view "
                          "(>= 1)", 1),
    "beams": Parameter("count", "-", "beams per channel over the horizontal field of view "
                       "(>= 1)", 1),
    "horizontal_fov_deg": Parameter("number", "deg", "horizontal field of view, in "
                                    "[0, 360]; 360: a full turn without a repeated beam",
                                    0.0, 360.0),
    "vertical_fov_deg": Parameter("number", "deg", "vertical field of view, in [0, 180]; "
                                  "0: one horizontal ring", 0.0, 180.0),
    "vertical_center_deg": Parameter("number", "deg", "elevation of the vertical field of "
                                     "view's centre, positive up; the field must stay "
                                     "within [-90, 90]", -90.0, 90.0),
    **ray_parameters("range", "beam", "sensor"),
}


@dataclass(frozen=True, eq=False, kw_only=True)
class LidarParams(SensorParams):
    """The LiDAR's parameters (names and units: :data:`PARAMETERS`); vectors are (3,)."""

    channels: int
    beams: int
    horizontal_fov_deg: float
    vertical_fov_deg: float
    vertical_center_deg: float
    min_range: float
    max_range: float
    noise: float
    noise_per_metre: float
    dropout: float
    mounting_position: np.ndarray
    mounting_orientation_deg: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        """(channels, beams): the shape of a scan."""
        return self.channels, self.beams

    @functools.cached_property
    def directions(self) -> np.ndarray:
        """(channels, beams, 3) read-only unit vectors of the beams in the body frame
        (:func:`beam_directions`), computed once."""
        array = beam_directions(self)
        array.flags.writeable = False
        return array

    @functools.cached_property
    def scales(self) -> np.ndarray:
        """(channels, beams) read-only ones: what a metre of range reads (the depth
        camera's are the cosines to its optical axis; the engines treat both alike)."""
        array = np.ones(self.shape)
        array.flags.writeable = False
        return array

    @property
    def cast_range(self) -> float:
        """How far [m] the beams are cast: ``max_range``."""
        return self.max_range

    def _coefficients(self) -> np.ndarray:
        c = np.zeros(COEFFICIENT_SIZE)
        c[NOISE] = self.noise
        c[NOISE_PER_METRE] = self.noise_per_metre
        c[DROPOUT] = self.dropout
        c[MIN_RANGE] = self.min_range
        c[MAX_RANGE] = self.max_range
        c[MOUNT_POSITION:MOUNT_POSITION + 3] = self.mounting_position
        return c


def check_parameters(values: dict, name: str) -> None:
    """The checks across parameters (each one alone is checked by the configuration):
    ``values`` the converted parameters, ``name`` the option (``sensors["lidar"]``).

    Raises:
        ValueError: ``min_range`` >= ``max_range``; several channels (beams) over a zero
            vertical (horizontal) field of view, which would repeat one direction; a
            vertical field of view reaching past +-90 deg; more than :data:`MAX_RAYS` rays.
    """
    if not values["min_range"] < values["max_range"]:
        raise ValueError(f'{name}["min_range"]={values["min_range"]} must be less than '
                         f'{name}["max_range"]={values["max_range"]} [m]')
    for count, fov in (("channels", "vertical_fov_deg"), ("beams", "horizontal_fov_deg")):
        if values[fov] == 0.0 and values[count] > 1:
            raise ValueError(f'{name}["{count}"]={values[count]} over {name}["{fov}"]=0 '
                             f"would repeat one direction: give {count} 1, or a field of "
                             f"view > 0 deg")
    center, half = values["vertical_center_deg"], 0.5 * values["vertical_fov_deg"]
    if abs(center) + half > 90.0:
        raise ValueError(f'{name}["vertical_center_deg"]={center:g} +- {name}'
                         f'["vertical_fov_deg"]/2={half:g} reaches past +-90 deg; the '
                         f"vertical field of view must stay within [-90, 90] deg")
    rays = values["channels"] * values["beams"]
    if rays > MAX_RAYS:
        raise ValueError(f'{name}["channels"] x {name}["beams"] = {rays} rays, more than '
                         f"MAX_RAYS={MAX_RAYS} per scan; use fewer channels or beams")


# ------------------------------------------------------------------ beams (Python)
def beam_angles(params: LidarParams) -> tuple[np.ndarray, np.ndarray]:
    """``(azimuths (beams,), elevations (channels,))`` [deg] of the beams in the sensor
    frame (the module docstring's convention)."""
    b, h = params.beams, params.horizontal_fov_deg
    if b == 1:
        azimuths = np.zeros(1)
    elif h == 360.0:
        azimuths = -180.0 + np.arange(b) * (360.0 / b)
    else:
        azimuths = -0.5 * h + np.arange(b) * (h / (b - 1))
    c, v = params.channels, params.vertical_fov_deg
    center = params.vertical_center_deg
    if c == 1:
        elevations = np.full(1, center)
    else:
        elevations = center - 0.5 * v + np.arange(c) * (v / (c - 1))
    return azimuths, elevations


def beam_directions(params: LidarParams) -> np.ndarray:
    """(channels, beams, 3) new array: the unit direction of every beam in the body frame,
    ``R_bs (cos e cos a, cos e sin a, sin e)`` (module docstring)."""
    azimuths, elevations = (np.radians(angles) for angles in beam_angles(params))
    cos_e, sin_e = np.cos(elevations)[:, None], np.sin(elevations)[:, None]
    sensor = np.stack(np.broadcast_arrays(cos_e * np.cos(azimuths), cos_e * np.sin(azimuths),
                                          sin_e), axis=-1)
    roll, pitch, yaw = np.radians(params.mounting_orientation_deg)
    mount = np.array(euler_to_matrix(roll, pitch, yaw)).reshape(3, 3)
    body = sensor @ mount.T
    # unit to the last bit: the rotation and the trigonometry leave ~1e-16
    return body / np.linalg.norm(body, axis=-1, keepdims=True)


def draws_needed(coefficients) -> tuple[bool, bool]:
    """``(normals, uniforms)``: whether a sample reads its normal draws (the noise can be
    > 0) and its uniform draws (dropout > 0). A caller draws only those, so a sensor
    without noise or dropout costs no random numbers."""
    return (coefficients[NOISE] > 0.0 or coefficients[NOISE_PER_METRE] > 0.0,
            coefficients[DROPOUT] > 0.0)


def draw(rng: np.random.Generator, coefficients, normals: np.ndarray,
         uniforms: np.ndarray) -> None:
    """Fill ``normals`` and ``uniforms`` (each (channels, beams)) with one sample's draws
    from ``rng``, in this order: the normals (if read, :func:`draws_needed`), then the
    uniforms (if read); the unread ones are left as they are. Both engines' Python paths
    draw this way, so the same generator gives the same readings."""
    need_normals, need_uniforms = draws_needed(coefficients)
    if need_normals:
        rng.standard_normal(out=normals)
    if need_uniforms:
        rng.random(out=uniforms)


# ------------------------------------------------------------------ per beam (compile-ready)
def sample_beam(coefficients, truth, normal, uniform):
    """One reading [m] of a beam whose true range is ``truth`` [m] (``inf``: nothing hit),
    from a standard normal draw ``normal`` and a uniform draw ``uniform`` in [0, 1) (module
    docstring: dropout and no return read max_range, too close reads min_range, else the
    noisy range clipped to [min_range, max_range])."""
    max_range = coefficients[MAX_RANGE]
    if uniform < coefficients[DROPOUT]:
        return max_range
    if not truth <= max_range:  # no hit (inf) or beyond the range; NaN too
        return max_range
    min_range = coefficients[MIN_RANGE]
    if truth < min_range:
        return min_range
    sigma = coefficients[NOISE] + coefficients[NOISE_PER_METRE] * truth
    measured = truth + sigma * normal
    if measured < min_range:
        return min_range
    if measured > max_range:
        return max_range
    return measured


def sample_scan(coefficients, truths, normals, uniforms, out):
    """:func:`sample_beam` over a scan: ``truths``, ``normals``, ``uniforms`` and ``out``
    (channels, beams) [m] (callee: :func:`sample_beam`)."""
    for i in range(truths.shape[0]):
        for j in range(truths.shape[1]):
            out[i, j] = sample_beam(coefficients, truths[i, j], normals[i, j],
                                    uniforms[i, j])


def sample_ranges(coefficients, truths: np.ndarray, normals: np.ndarray,
                  uniforms: np.ndarray, out: np.ndarray) -> np.ndarray:
    """:func:`sample_scan` in numpy, for Python callers (the PyBullet path): the same rules
    in the same arithmetic, so the same readings to the bit; arrays (channels, beams) [m].
    Returns ``out``."""
    max_range, min_range = coefficients[MAX_RANGE], coefficients[MIN_RANGE]
    with np.errstate(invalid="ignore"):  # inf - inf where nothing was hit: replaced below
        measured = truths + (coefficients[NOISE] + coefficients[NOISE_PER_METRE] * truths) \
            * normals
    np.clip(measured, min_range, max_range, out=out)
    # the rules of sample_beam, the one that wins last
    out[truths < min_range] = min_range
    out[~(truths <= max_range)] = max_range
    out[uniforms < coefficients[DROPOUT]] = max_range
    return out


def floor_ray_distance(oz, dz, floor_z, max_range):
    """Ray distance [m] from height ``oz`` [m] along a unit direction of z component ``dz``
    to the floor, the half-space ``z <= floor_z``: 0 from on or below it, ``inf`` for a
    ray that does not descend or meets it beyond ``max_range`` [m]."""
    height = oz - floor_z
    if height <= 0.0:
        return 0.0
    if dz >= 0.0:
        return math.inf
    t = height / -dz
    if t > max_range:
        return math.inf
    return t


def world_ray(r, px, py, pz, coefficients, bx, by, bz):
    """The ray of a beam in the world: ``(ox, oy, oz, dx, dy, dz)``, origin [m] = the centre
    of mass ``(px, py, pz)`` plus ``R`` times the mounting position, direction = ``R`` times
    the body direction ``(bx, by, bz)``; ``r`` the row-major body-to-world rotation (9,)."""
    mx = coefficients[MOUNT_POSITION]
    my = coefficients[MOUNT_POSITION + 1]
    mz = coefficients[MOUNT_POSITION + 2]
    ox = px + r[0] * mx + r[1] * my + r[2] * mz
    oy = py + r[3] * mx + r[4] * my + r[5] * mz
    oz = pz + r[6] * mx + r[7] * my + r[8] * mz
    dx = r[0] * bx + r[1] * by + r[2] * bz
    dy = r[3] * bx + r[4] * by + r[5] * bz
    dz = r[6] * bx + r[7] * by + r[8] * bz
    return ox, oy, oz, dx, dy, dz


def scan_truths(cylinders, boxes, spheres, counts, origin, cells, z_range, cell_size,
                first_cell, cell_start, items, layout, floor_z, pos, quat, coefficients,
                directions, out):
    """The true ranges [m] of a scan into ``out`` (channels, beams): from the vehicle at
    ``pos`` (3,) [m, its centre of mass] with attitude ``quat`` (4,) (x, y, z, w), each beam
    of ``directions`` (channels, beams, 3) [body] to the first primitive of layout
    ``layout`` of a pool (its arrays first, :class:`~pyflyt_like.worlds.grid.LayoutPool`'s
    order) or the floor at ``floor_z`` [m]; ``inf`` when nothing is met within max_range
    (callees: :func:`~pyflyt_like.common.rotations.quat_to_matrix`, :func:`world_ray`,
    :func:`~pyflyt_like.worlds.grid.pool_ray_distance`, :func:`floor_ray_distance`)."""
    r = quat_to_matrix(quat[0], quat[1], quat[2], quat[3])
    max_range = coefficients[MAX_RANGE]
    for i in range(directions.shape[0]):
        for j in range(directions.shape[1]):
            ox, oy, oz, dx, dy, dz = world_ray(r, pos[0], pos[1], pos[2], coefficients,
                                               directions[i, j, 0], directions[i, j, 1],
                                               directions[i, j, 2])
            t = pool_ray_distance(cylinders, boxes, spheres, counts, origin, cells,
                                  z_range, cell_size, first_cell, cell_start, items, layout,
                                  ox, oy, oz, dx, dy, dz, max_range)
            f = floor_ray_distance(oz, dz, floor_z, max_range)
            out[i, j] = t if t < f else f


# ------------------------------------------------------------------ reference (Python)
def true_ranges(world, position: object, rotation: object, params: LidarParams,
                floor_z: float = 0.0) -> np.ndarray:
    """The true ranges [m] of a scan, the reference the engines are checked against: each
    beam's ray (:func:`world_ray`) against ``world`` by
    :meth:`~pyflyt_like.worlds.World.ray_distance` and against the floor
    (:func:`floor_ray_distance`), the nearer; ``inf`` where nothing is met within
    ``max_range``.

    Args:
        world: a :class:`~pyflyt_like.worlds.World` (``World()`` for the floor alone).
        position: (3,) [m] the centre of mass in the world.
        rotation: the attitude, body to world: a quaternion (4,) (x, y, z, w) or a
            rotation matrix (3, 3), each unit within 1e-6.
        params: the LiDAR (:func:`~pyflyt_like.sensors.resolve_sensors`'s ``"lidar"``).
        floor_z: the floor's height [m].

    Returns:
        (channels, beams) float64 [m].

    Raises:
        TypeError, ValueError: ``rotation`` neither a unit quaternion nor a rotation matrix,
            a ``position`` not (3,) finite, ``params`` not a :class:`LidarParams`.
    """
    if not isinstance(params, LidarParams):
        raise TypeError(f"params must be a LidarParams (resolve_sensors(...)['lidar']), got "
                        f"{type(params).__name__}")
    return cast_closed_form(world, position, rotation, params, floor_z)


def cast_closed_form(world, position: object, rotation: object, params, floor_z: float = 0.0
                     ) -> np.ndarray:
    """The closed-form distance [m] along every ray of a ray sensor (a LiDAR's or a depth
    camera's ``params``: its ``directions`` (..., 3), cast ``cast_range`` far from its
    mounting point) to the first surface of ``world`` or the floor, ``inf`` beyond; the
    shape of ``params.shape``. The reference both ray sensors' closed forms share;
    ``position``, ``rotation`` and ``floor_z`` are checked as :func:`true_ranges` says."""
    px, py, pz = as_float_array("position", position, (3,))
    r = rotation_tuple(rotation)
    floor_z = check_finite("floor_z", floor_z)
    coefficients = params.coefficients
    cast = params.cast_range
    out = np.empty(params.shape)
    flat = out.reshape(-1)
    for k, (bx, by, bz) in enumerate(params.directions.reshape(-1, 3)):
        ox, oy, oz, dx, dy, dz = world_ray(r, px, py, pz, coefficients, bx, by, bz)
        t = world.ray_distance((ox, oy, oz), (dx, dy, dz), cast)
        flat[k] = min(t, floor_ray_distance(oz, dz, floor_z, cast))
    return out


def rotation_tuple(rotation: object) -> tuple[float, ...]:
    """The row-major body-to-world rotation (9-tuple) of a unit quaternion (4,) (x, y, z,
    w) or a rotation matrix (3, 3).

    Raises:
        TypeError, ValueError: not numeric, another shape, not unit / orthonormal within
            1e-6.
    """
    try:
        shape = np.shape(rotation)
    except ValueError:  # a ragged sequence: as_float_array below names it
        shape = None
    if shape == (4,):
        quat = as_float_array("rotation", rotation, (4,))
        if abs(float(np.linalg.norm(quat)) - 1.0) > 1e-6:
            raise ValueError(f"rotation must be a unit quaternion (x, y, z, w) within 1e-6, "
                             f"got norm {np.linalg.norm(quat):.9g}")
        return quat_to_matrix(*(float(q) for q in quat))
    matrix = as_float_array("rotation", rotation, (3, 3))
    if not np.allclose(matrix @ matrix.T, np.eye(3), rtol=0.0, atol=1e-6) or \
            np.linalg.det(matrix) < 0.0:
        raise ValueError("rotation must be a rotation matrix (3, 3), orthonormal within "
                         f"1e-6 with determinant +1, got {matrix.tolist()}")
    return tuple(float(v) for v in matrix.reshape(-1))
