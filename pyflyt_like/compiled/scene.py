"""The geometry of obstacle worlds (:mod:`pyflyt_like.worlds.geometry`), the brute-force
loops over a world's arrays (:mod:`pyflyt_like.worlds.arrays`) and the grid queries over a
pool of layouts (:mod:`pyflyt_like.worlds.grid_queries`), compiled: the same functions,
arguments and results (to the bit) as the plain ones, for the engines' collision checks and
LiDAR.

The batch helpers run one query per ray or point, in parallel over them (numba's
``prange``; as many threads as ``numba.get_num_threads()``), and write into ``out``. The
pool's arrays are passed as :class:`~pyflyt_like.worlds.grid.LayoutPool` orders them:
``cast_rays(*pool, layouts, origins, directions, max_range, out)``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from pyflyt_like.sensors import lidar
from pyflyt_like.worlds import arrays, geometry, grid_queries
from pyflyt_like.worlds.grid import KIND_BOX, KIND_CYLINDER

from .jit import compile_shared

slab_interval = compile_shared(geometry.slab_interval)
quadric_interval = compile_shared(geometry.quadric_interval)
first_contact = compile_shared(geometry.first_contact)
signed_extent_distance = compile_shared(geometry.signed_extent_distance)
cylinder_distance = compile_shared(geometry.cylinder_distance, signed_extent_distance)
box_distance = compile_shared(geometry.box_distance, signed_extent_distance)
sphere_distance = compile_shared(geometry.sphere_distance)
cylinder_ray_interval = compile_shared(geometry.cylinder_ray_interval, slab_interval,
                                       quadric_interval)
box_ray_interval = compile_shared(geometry.box_ray_interval, slab_interval)
sphere_ray_interval = compile_shared(geometry.sphere_ray_interval, quadric_interval)
cylinder_ray_distance = compile_shared(geometry.cylinder_ray_distance, cylinder_ray_interval,
                                       first_contact)
box_ray_distance = compile_shared(geometry.box_ray_distance, box_ray_interval, first_contact)
sphere_ray_distance = compile_shared(geometry.sphere_ray_distance, sphere_ray_interval,
                                     first_contact)
floor_ray_distance = compile_shared(lidar.floor_ray_distance)
scene_distance = compile_shared(arrays.scene_distance, cylinder_distance, box_distance,
                                sphere_distance)
scene_ray_distance = compile_shared(arrays.scene_ray_distance, cylinder_ray_distance,
                                    box_ray_distance, sphere_ray_distance)
pool_distance = compile_shared(grid_queries.pool_distance, cylinder_distance, box_distance,
                               sphere_distance)
pool_ray_distance = compile_shared(grid_queries.pool_ray_distance, slab_interval,
                                   cylinder_ray_distance, box_ray_distance,
                                   sphere_ray_distance)

# The batch helpers: parallel loops (numba's reference counting on, as its parallel
# backend wants; nothing is allocated per ray).
_parallel = njit(cache=True, parallel=True, error_model="numpy")


@_parallel
def cast_rays(cylinders: np.ndarray, boxes: np.ndarray, spheres: np.ndarray,
              counts: np.ndarray, origin: np.ndarray, cells: np.ndarray, z_range: np.ndarray,
              cell_size: float, first_cell: np.ndarray, cell_start: np.ndarray,
              items: np.ndarray, layouts: np.ndarray, origins: np.ndarray,
              directions: np.ndarray, max_range: float, out: np.ndarray) -> None:
    """``out[i]`` = :func:`~pyflyt_like.worlds.grid_queries.pool_ray_distance` [m] of ray
    ``i``: from ``origins[i]`` (N, 3) [m] along the unit ``directions[i]`` (N, 3) in layout
    ``layouts[i]`` (N,) int, up to ``max_range`` [m] (> 0, ``inf`` allowed); ``out``
    (N,) float64. Rays in parallel. Nothing is checked: the indices must be in the pool,
    the directions unit vectors."""
    for i in prange(out.shape[0]):
        out[i] = pool_ray_distance(cylinders, boxes, spheres, counts, origin, cells, z_range,
                                   cell_size, first_cell, cell_start, items, layouts[i],
                                   origins[i, 0], origins[i, 1], origins[i, 2],
                                   directions[i, 0], directions[i, 1], directions[i, 2],
                                   max_range)


@_parallel
def pool_distances(cylinders: np.ndarray, boxes: np.ndarray, spheres: np.ndarray,
                   counts: np.ndarray, origin: np.ndarray, cells: np.ndarray,
                   z_range: np.ndarray, cell_size: float, first_cell: np.ndarray,
                   cell_start: np.ndarray, items: np.ndarray, layouts: np.ndarray,
                   points: np.ndarray, reach: float, out: np.ndarray) -> None:
    """``out[i]`` = :func:`~pyflyt_like.worlds.grid_queries.pool_distance` [m] of
    ``points[i]`` (N, 3) [m] in layout ``layouts[i]`` (N,) int within ``reach`` >= 0 [m] (``inf``
    allowed); ``out`` (N,) float64. Points in parallel; a sphere of radius ``r`` at
    ``points[i]`` collides where ``out[i] < r`` with ``reach = r``."""
    for i in prange(out.shape[0]):
        out[i] = pool_distance(cylinders, boxes, spheres, counts, origin, cells, z_range,
                               cell_size, first_cell, cell_start, items, layouts[i],
                               points[i, 0], points[i, 1], points[i, 2], reach)


@_parallel
def cast_rays_brute(cylinders: np.ndarray, boxes: np.ndarray, spheres: np.ndarray,
                    origins: np.ndarray, directions: np.ndarray, max_range: float,
                    out: np.ndarray) -> None:
    """``out[i]`` = :func:`~pyflyt_like.worlds.arrays.scene_ray_distance` [m] of ray ``i``
    in the one world of the arrays ``cylinders`` (n, 4), ``boxes`` (n, 7), ``spheres``
    (n, 4) (:meth:`World.to_arrays <pyflyt_like.worlds.World.to_arrays>`): every primitive
    tested per ray, the reference the grid is measured against. ``origins``,
    ``directions`` (N, 3), ``out`` (N,) as :func:`cast_rays`."""
    for i in prange(out.shape[0]):
        out[i] = scene_ray_distance(cylinders, boxes, spheres, origins[i, 0], origins[i, 1],
                                    origins[i, 2], directions[i, 0], directions[i, 1],
                                    directions[i, 2], max_range)


# The PyBullet LiDAR's closed forms (pyflyt_like.core.abstractions.lidar): Bullet names the
# body each beam hits, these give the exact range along the beam. Serial loops: a scan's
# beams that hit primitives number thousands at most, fewer than threads pay for.
_serial = njit(cache=True, _nrt=False, error_model="numpy")


@_serial
def _primitive_interval(cylinders, boxes, spheres, lift, kinds, rows, p, ox, oy, oz, dx, dy,
                        dz):
    """The ray's interval ``(enter, leave)`` [m] in primitive ``p``: row ``rows[p]`` of the
    array of kind ``kinds[p]`` (the pool's kind numbers); a cylinder's is taken from
    ``lift[p]`` [m] higher (a cylinder that reaches that far below the floor)."""
    kind = kinds[p]
    row = rows[p]
    if kind == KIND_CYLINDER:
        c = cylinders[row]
        return cylinder_ray_interval(ox, oy, oz + lift[p], dx, dy, dz, c[0], c[1], c[2],
                                     c[3])
    if kind == KIND_BOX:
        b = boxes[row]
        return box_ray_interval(ox, oy, oz, dx, dy, dz, b[0], b[1], b[2], b[3], b[4], b[5],
                                b[6])
    s = spheres[row]
    return sphere_ray_interval(ox, oy, oz, dx, dy, dz, s[0], s[1], s[2], s[3])


@_serial
def primitive_ray_distances(cylinders, boxes, spheres, lift, kinds, rows, primitives,
                            origin, directions, max_range, out):
    """``out[i]``: the ray distance [m] from ``origin`` (3,) [m] along the unit
    ``directions[i]`` (k, 3) to the primitive ``primitives[i]`` (k,) int of the arrays
    (``cylinders``, ``boxes``, ``spheres`` in :meth:`World.to_arrays
    <pyflyt_like.worlds.World.to_arrays>`'s layout; ``kinds``, ``rows`` and ``lift`` (n,)
    per primitive as :func:`_primitive_interval` reads them), ``inf`` beyond
    ``max_range`` [m]. Nothing is checked."""
    ox, oy, oz = origin[0], origin[1], origin[2]
    for i in range(primitives.shape[0]):
        enter, leave = _primitive_interval(cylinders, boxes, spheres, lift, kinds, rows,
                                           primitives[i], ox, oy, oz, directions[i, 0],
                                           directions[i, 1], directions[i, 2])
        out[i] = first_contact(enter, leave, max_range)


@_serial
def primitive_ray_leaves(cylinders, boxes, spheres, lift, kinds, rows, primitives, origin,
                         directions, out):
    """``out[i]``: where the ray of :func:`primitive_ray_distances` leaves its primitive
    [m], ``-inf`` where it misses it."""
    ox, oy, oz = origin[0], origin[1], origin[2]
    for i in range(primitives.shape[0]):
        enter, leave = _primitive_interval(cylinders, boxes, spheres, lift, kinds, rows,
                                           primitives[i], ox, oy, oz, directions[i, 0],
                                           directions[i, 1], directions[i, 2])
        out[i] = leave if enter <= leave else -np.inf


@_serial
def floor_ray_distances(oz, dz, floor_z, max_range, out):
    """``out[i]``: :func:`~pyflyt_like.sensors.lidar.floor_ray_distance` [m] of the beam
    from height ``oz`` [m] whose unit direction has z component ``dz[i]`` (k,)."""
    for i in range(dz.shape[0]):
        out[i] = floor_ray_distance(oz, dz[i], floor_z, max_range)


@_serial
def inside_a_sphere(spheres, ox, oy, oz):
    """Whether ``(ox, oy, oz)`` [m] is inside (or on) one of ``spheres`` (n, 4), as
    :func:`~pyflyt_like.worlds.geometry.sphere_ray_distance` tells it (0 from inside)."""
    for i in range(spheres.shape[0]):
        s = spheres[i]
        enter, leave = sphere_ray_interval(ox, oy, oz, 0.0, 0.0, 1.0, s[0], s[1], s[2],
                                           s[3])
        if first_contact(enter, leave, np.inf) == 0.0:
            return True
    return False
