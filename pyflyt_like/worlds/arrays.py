"""The array layout of a world, which the engines copy, and the queries over it.

:meth:`World.to_arrays() <pyflyt_like.worlds.world.World.to_arrays>` gives a dict of three
C-contiguous float64 arrays, one row per primitive, in this fixed layout (metres, radians):

=============  =========  ==========================================
key            shape      columns
=============  =========  ==========================================
``cylinders``  (n_c, 4)   x, y, radius, height
``boxes``      (n_b, 7)   cx, cy, cz, hx, hy, hz, yaw
``spheres``    (n_s, 4)   cx, cy, cz, radius
=============  =========  ==========================================

An empty kind is a (0, columns) array. The column names are :data:`COLUMNS`; their indices
the constants below (``CYL_X``, ...), for kernels that read rows.

:func:`scene_distance` and :func:`scene_ray_distance` loop over the three arrays with the
closed forms of :mod:`pyflyt_like.worlds.geometry`: plain Python, compile-ready as they are
(callees: the geometry functions they call), so the engines' LiDAR and collision kernels
and :class:`~pyflyt_like.worlds.world.World`'s methods run the same code.
"""

from __future__ import annotations

import math

import numpy as np

from .geometry import (
    box_distance,
    box_horizontal_half_widths,
    box_ray_distance,
    cylinder_distance,
    cylinder_ray_distance,
    sphere_distance,
    sphere_ray_distance,
)

#: The columns of each array of :meth:`World.to_arrays`, in order.
COLUMNS = {
    "cylinders": ("x", "y", "radius", "height"),
    "boxes": ("cx", "cy", "cz", "hx", "hy", "hz", "yaw"),
    "spheres": ("cx", "cy", "cz", "radius"),
}
KINDS = tuple(COLUMNS)

CYL_X, CYL_Y, CYL_RADIUS, CYL_HEIGHT = range(4)
BOX_CX, BOX_CY, BOX_CZ, BOX_HX, BOX_HY, BOX_HZ, BOX_YAW = range(7)
SPH_CX, SPH_CY, SPH_CZ, SPH_RADIUS = range(4)


def empty_arrays() -> dict[str, np.ndarray]:
    """The arrays of a world without primitives: (0, 4), (0, 7), (0, 4) float64."""
    return {kind: np.zeros((0, len(columns))) for kind, columns in COLUMNS.items()}


def scene_distance(cylinders, boxes, spheres, px: float, py: float, pz: float) -> float:
    """The least signed distance [m] from ``(px, py, pz)`` to the primitives of the three
    arrays (layout: :data:`COLUMNS`); ``inf`` when there are none.

    Outside every primitive it is the Euclidean distance to the nearest surface; inside
    it is negative, minus the depth in the primitive the point is deepest in (where
    primitives overlap, the depth inside their union can be larger).
    """
    best = math.inf
    for i in range(cylinders.shape[0]):
        d = cylinder_distance(px, py, pz, cylinders[i, 0], cylinders[i, 1],
                              cylinders[i, 2], cylinders[i, 3])
        if d < best:
            best = d
    for i in range(boxes.shape[0]):
        d = box_distance(px, py, pz, boxes[i, 0], boxes[i, 1], boxes[i, 2], boxes[i, 3],
                         boxes[i, 4], boxes[i, 5], boxes[i, 6])
        if d < best:
            best = d
    for i in range(spheres.shape[0]):
        d = sphere_distance(px, py, pz, spheres[i, 0], spheres[i, 1], spheres[i, 2],
                            spheres[i, 3])
        if d < best:
            best = d
    return best


def scene_ray_distance(cylinders, boxes, spheres, ox: float, oy: float, oz: float,
                       dx: float, dy: float, dz: float, max_range: float) -> float:
    """The ray distance [m] from ``(ox, oy, oz)`` along the unit ``(dx, dy, dz)`` to the
    first primitive of the three arrays it meets: ``0`` from inside one, ``inf`` when none
    is met within ``max_range`` (see :mod:`pyflyt_like.worlds.geometry`)."""
    best = math.inf
    for i in range(cylinders.shape[0]):
        t = cylinder_ray_distance(ox, oy, oz, dx, dy, dz, max_range, cylinders[i, 0],
                                  cylinders[i, 1], cylinders[i, 2], cylinders[i, 3])
        if t < best:
            best = t
    for i in range(boxes.shape[0]):
        t = box_ray_distance(ox, oy, oz, dx, dy, dz, max_range, boxes[i, 0], boxes[i, 1],
                             boxes[i, 2], boxes[i, 3], boxes[i, 4], boxes[i, 5],
                             boxes[i, 6])
        if t < best:
            best = t
    for i in range(spheres.shape[0]):
        t = sphere_ray_distance(ox, oy, oz, dx, dy, dz, max_range, spheres[i, 0],
                                spheres[i, 1], spheres[i, 2], spheres[i, 3])
        if t < best:
            best = t
    return best


def array_bounds(arrays: dict[str, np.ndarray]) -> np.ndarray:
    """The axis-aligned bounds of every primitive of ``arrays``: (n, 6) float64 rows
    (xmin, ymin, zmin, xmax, ymax, zmax) [m], cylinders first, then boxes, then spheres
    (each in its array's order)."""
    cylinders, boxes, spheres = (arrays[kind] for kind in KINDS)
    x, y, r, h = cylinders.T
    cylinder_rows = np.stack([x - r, y - r, np.zeros_like(x), x + r, y + r, h], axis=1)
    wx, wy = box_horizontal_half_widths(boxes[:, BOX_HX], boxes[:, BOX_HY],
                                        boxes[:, BOX_YAW])
    half = np.stack([wx, wy, boxes[:, BOX_HZ]], axis=1)
    centre = boxes[:, BOX_CX:BOX_CZ + 1]
    box_rows = np.concatenate([centre - half, centre + half], axis=1)
    centre, r = spheres[:, SPH_CX:SPH_CZ + 1], spheres[:, SPH_RADIUS:]
    sphere_rows = np.concatenate([centre - r, centre + r], axis=1)
    return np.concatenate([cylinder_rows, box_rows, sphere_rows], axis=0).reshape(-1, 6)
