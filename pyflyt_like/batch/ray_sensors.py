"""Ray sensors on the batched engine: the LiDAR and the depth camera, cast inside the
sensors stage against each world's obstacle layout and the floor.

The models are those of :mod:`pyflyt_like.sensors.lidar` and :mod:`pyflyt_like.sensors.depth`
(beams, true ranges, the per-beam sample); this module lays their arrays out for the kernels
and casts them, a beam at a time, with the grid query of
:func:`~pyflyt_like.worlds.grid_queries.pool_ray_distance` (compiled). Both sensors are a table of
rays: the LiDAR's ``channels x beams``, the camera's ``height x width`` pixels, each with a
body-frame direction and a *scale* (what a metre of range reads: 1 for the LiDAR, the
cosine to the optical axis for the depth camera, whose reading is the depth along it).

The fields of a family's state (in :data:`RAY_FIELDS`; S = the number of ray sensors,
:data:`~pyflyt_like.sensors.config.RAY_SENSOR_NAMES`, R = the rays of the configured ones):

- ``ray_periods`` (S,) int64: each ray sensor's sample period in physics steps; 0 where not
  configured;
- ``ray_coefficients`` (S, :data:`~pyflyt_like.sensors.lidar.COEFFICIENT_SIZE`): each one's
  ``coefficients`` (noise, dropout, range limits, mounting position);
- ``ray_cast`` (S,): how far [m] each one casts its rays (``cast_range``: ``max_range`` for
  the LiDAR, farther for the camera's oblique pixels);
- ``ray_first`` (S + 1,) int64: sensor ``s``'s rays are ``ray_first[s]`` to
  ``ray_first[s + 1] - 1``;
- ``ray_directions`` (R, 3) body-frame unit vectors and ``ray_scales`` (R,);
- ``ray_readings`` (W, D, R): the latest readings [m];
- ``ray_times`` (W, S): each one's last sample time [s] since the world's reset, NaN before;
- ``ray_countdown`` (W, S): physics steps to each one's next sample (as the other sensors').

A sample, per ray ``i`` of drone ``d`` of world ``w`` (pose after the physics step, as the
other sensors): the ray from the mounting point (:func:`~pyflyt_like.sensors.lidar.world_ray`)
is cast ``cast`` metres against layout ``state.world_layout[w]`` and the floor plane at
``config.floor_z`` (:func:`~pyflyt_like.sensors.lidar.floor_ray_distance`), the nearer kept
(``inf``: nothing), times ``scale``; then :func:`~pyflyt_like.sensors.lidar.sample_beam`
with one standard normal draw (only when the noise can be > 0) and one uniform draw (only
when the dropout is > 0) from the world's sensor stream, in that order, ray after ray. The
PyBullet path casts the same rays and gets the same true ranges (to 1 mm, in the tests;
docs/worlds.md); its draws come from numpy's generators, so noisy readings differ.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numba import njit

from pyflyt_like.compiled.jit import SCALAR_OPTIONS, compile_shared
from pyflyt_like.compiled.rotations import quat_to_matrix
from pyflyt_like.compiled.scene import floor_ray_distance, pool_ray_distance
from pyflyt_like.compiled.sensor_models import sample_due
from pyflyt_like.sensors import lidar
from pyflyt_like.sensors.config import RAY_SENSOR_NAMES
from pyflyt_like.sensors.params import SensorParams

from .world_random import next_uniform, next_ziggurat_normal

#: The ray fields of a family's state, in order (within
#: :data:`~pyflyt_like.batch.sensors.SENSOR_FIELDS`).
RAY_FIELDS = ("ray_periods", "ray_coefficients", "ray_cast", "ray_first", "ray_directions",
              "ray_scales", "ray_readings", "ray_times", "ray_countdown")
#: The ray fields that are the engine's, shared by every world (no world axis).
RAY_CONSTANTS = ("ray_periods", "ray_coefficients", "ray_cast", "ray_first", "ray_directions",
                 "ray_scales")
#: The key of each ray sensor's reading in ``read_sensors`` (as the PyBullet Aviary's).
READING_KEYS = {"lidar": "ranges", "depth": "depth"}

world_ray = compile_shared(lidar.world_ray)
sample_beam = compile_shared(lidar.sample_beam)


# ------------------------------------------------------------------ arrays (Python)
def zeros_ray_arrays(n_worlds: int, n_drones: int,
                     params: Mapping[str, SensorParams]) -> dict[str, np.ndarray]:
    """The ray fields of a state for the resolved sensor configuration ``params`` (the
    ray sensors' tables filled, readings zero, times NaN; R = 0 without a ray sensor)."""
    n_sensors = len(RAY_SENSOR_NAMES)
    periods = np.zeros(n_sensors, np.int64)
    coefficients = np.zeros((n_sensors, lidar.COEFFICIENT_SIZE))
    cast = np.zeros(n_sensors)
    first = np.zeros(n_sensors + 1, np.int64)
    directions, scales = [np.zeros((0, 3))], [np.zeros(0)]
    for s, name in enumerate(RAY_SENSOR_NAMES):
        first[s + 1] = first[s]
        if name not in params:
            continue
        sensor = params[name]
        periods[s] = sensor.period_steps
        coefficients[s] = sensor.coefficients
        cast[s] = sensor.cast_range
        directions.append(np.asarray(sensor.directions).reshape(-1, 3))
        scales.append(np.asarray(sensor.scales).reshape(-1))
        first[s + 1] += scales[-1].shape[0]
    rays = int(first[-1])
    on = 1 if rays else 0
    return dict(
        ray_periods=periods, ray_coefficients=coefficients, ray_cast=cast, ray_first=first,
        ray_directions=np.ascontiguousarray(np.concatenate(directions)),
        ray_scales=np.concatenate(scales), ray_readings=np.zeros((n_worlds, n_drones, rays)),
        ray_times=np.full((n_worlds, on * n_sensors), np.nan),
        ray_countdown=np.zeros((n_worlds, on * n_sensors)))


def read_ray_sensors(state, params: Mapping[str, SensorParams]
                     ) -> dict[str, dict[str, np.ndarray]]:
    """The latest readings of the configured ray sensors, copies: ``{"lidar": {"time" (W, D)
    [s], "ranges" (W, D, channels, beams) [m]}, "depth": {"time", "depth" (W, D, height,
    width) [m]}}`` (those configured)."""
    readings = state.ray_readings
    n_worlds, n_drones = readings.shape[:2]
    out: dict[str, dict[str, np.ndarray]] = {}
    for s, name in enumerate(RAY_SENSOR_NAMES):
        if name not in params:
            continue
        first, last = state.ray_first[s], state.ray_first[s + 1]
        values = readings[:, :, first:last].reshape(n_worlds, n_drones, *params[name].shape)
        out[name] = {"time": np.repeat(state.ray_times[:, s, None], n_drones, axis=1),
                     READING_KEYS[name]: values.copy()}
    return out


# ------------------------------------------------------------------ the casts (compiled)
@njit(**SCALAR_OPTIONS)
def cast_ray(config, layout, floor_z, r, pos, coefficients, direction, cast):
    """The true range [m] of one ray: from the mounting point of the vehicle at ``pos``
    (3,) [m] with body-to-world rotation ``r`` (9,) along the body-frame ``direction`` (3,),
    to the nearer of layout ``layout``'s primitives (``config``'s pool) and the floor at
    ``floor_z`` [m], within ``cast`` [m]; ``inf``: nothing."""
    ox, oy, oz, dx, dy, dz = world_ray(r, pos[0], pos[1], pos[2], coefficients,
                                       direction[0], direction[1], direction[2])
    t = pool_ray_distance(
        config.world_cylinders, config.world_boxes, config.world_spheres,
        config.world_counts, config.world_origin, config.world_cells, config.world_z_range,
        config.world_cell_size, config.world_first_cell, config.world_cell_start,
        config.world_items, layout, ox, oy, oz, dx, dy, dz, cast)
    f = floor_ray_distance(oz, dz, floor_z, cast)
    return t if t < f else f


@njit(**SCALAR_OPTIONS)
def scan_sensor(state, config, w, d, s):
    """Ray sensor ``s`` of drone ``d`` of world ``w`` samples its rays (module docstring)
    into ``state.ray_readings[w, d]``."""
    c = state.ray_coefficients[s]
    noisy = c[lidar.NOISE] > 0.0 or c[lidar.NOISE_PER_METRE] > 0.0
    drops = c[lidar.DROPOUT] > 0.0
    pos, quat = state.pos[w, d], state.quat[w, d]
    r = quat_to_matrix(quat[0], quat[1], quat[2], quat[3])
    layout, cast = state.world_layout[w], state.ray_cast[s]
    out, streams = state.ray_readings[w, d], state.sensor_streams
    for i in range(state.ray_first[s], state.ray_first[s + 1]):
        truth = cast_ray(config, layout, config.floor_z, r, pos, c, state.ray_directions[i],
                         cast) * state.ray_scales[i]
        normal = next_ziggurat_normal(streams, w) if noisy else 0.0
        uniform = next_uniform(streams, w) if drops else 1.0
        out[i] = sample_beam(c, truth, normal, uniform)


@njit(**SCALAR_OPTIONS)
def scan_world(state, config, w, time, at_reset):
    """Every drone's ray sensors that are due sample, at a reset (``at_reset``) or after a
    physics step, at ``time`` [s] since the reset; nothing without ray sensors. Called
    at the reset and after every physics step: the countdowns count the calls."""
    countdown = state.ray_countdown[w]
    if countdown.shape[0] == 0:
        return
    for s in range(state.ray_periods.shape[0]):
        if not sample_due(state.ray_periods, countdown, s, at_reset):
            continue
        for d in range(state.pos.shape[1]):
            scan_sensor(state, config, w, d, s)
        state.ray_times[w, s] = time


@njit(**SCALAR_OPTIONS)
def reset_ray_world(state, w):
    """Forget world ``w``'s ray readings and sample times (before its reset's sample)."""
    if state.ray_countdown.shape[1] == 0:
        return
    state.ray_readings[w] = 0.0
    state.ray_times[w] = np.nan


@njit(**SCALAR_OPTIONS)
def rangefinder_truth(config, layout, pos, quat, max_range):
    """The rangefinder's true range [m]: from the centre of mass ``pos`` (3,) [m] along the
    body -z axis of ``quat`` (4,) to the nearer of the floor plane (``(z - floor_z) /
    R22``, the arithmetic of :func:`pyflyt_like.sensors.rangefinder.sample`) and layout
    ``layout``'s primitives within ``max_range`` [m]; ``inf`` when the beam does not point
    down."""
    r = quat_to_matrix(quat[0], quat[1], quat[2], quat[3])
    if r[8] <= 0.0:
        return np.inf
    floor = (pos[2] - config.floor_z) / r[8]
    t = pool_ray_distance(
        config.world_cylinders, config.world_boxes, config.world_spheres,
        config.world_counts, config.world_origin, config.world_cells, config.world_z_range,
        config.world_cell_size, config.world_first_cell, config.world_cell_start,
        config.world_items, layout, pos[0], pos[1], pos[2], -r[2], -r[5], -r[8], max_range)
    return t if t < floor else floor
