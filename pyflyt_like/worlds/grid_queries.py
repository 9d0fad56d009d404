"""The queries over a pool of obstacle layouts (:class:`~.grid.LayoutPool`): the distance
along a ray to the first primitive (:func:`pool_ray_distance`) and the least signed distance
from a point (:func:`pool_distance`), at a cost that grows with what is near the ray or the
point, not with the number of primitives.

They are plain Python on floats and arrays, compile-ready as they are
(:mod:`pyflyt_like.compiled.scene` compiles them with :func:`pyflyt_like.compiled.jit.
compile_shared`, bound to the compiled closed forms of :mod:`.geometry`; no Python
objects, no allocation, no exception on valid input). The pool's layout (the grid of each
layout, its cells and their items) is described in :mod:`.grid`, which builds it; this
module imports nothing of it, so that what a compiled query inlines is this file and
:mod:`.geometry` only (the kernel cache's digest, :mod:`pyflyt_like.compiled.kernel_cache`).

**Exactness.** The queries evaluate the very closed forms of :mod:`.geometry` that
:meth:`World.ray_distance <pyflyt_like.worlds.world.World.ray_distance>` and
:meth:`World.distance <pyflyt_like.worlds.world.World.distance>` evaluate, on the same
numbers, and take the least over a subset of the primitives that always contains the one
giving the answer; so the answer is the world's, to the bit. The subset is conservative:
every footprint is widened by a pad (:data:`~.grid.PAD_ABSOLUTE` +
:data:`~.grid.PAD_RELATIVE` times the layout's largest coordinate) before it is binned,
which covers the rounding of the cell arithmetic (the walk's boundary crossings are summed
per step and recomputed exactly every :data:`RESYNC` steps: at most about 1e-13 of the
coordinates) by orders of magnitude. The guarantee holds for ray origins and points within
10^6 m of the grid (the rounding there, about 1e-7 m, a tenth of the pad).

The items' kind codes are :data:`~.grid.KIND_CYLINDER`, :data:`~.grid.KIND_BOX` and
:data:`~.grid.KIND_SPHERE` (0, 1, 2 in the loops below).
"""

from __future__ import annotations

import math

import numpy as np

from .geometry import (
    box_distance,
    box_ray_distance,
    cylinder_distance,
    cylinder_ray_distance,
    slab_interval,
    sphere_distance,
    sphere_ray_distance,
)

#: :func:`pool_ray_distance` skips a cylinder when ``half_b^2 < a c CULL_MARGIN`` (its
#: closed form's discriminant, negative by more than 1e-9 of ``a c``: a certain miss,
#: whatever the last bits of the products).
CULL_MARGIN = 1.0 - 1e-9
#: :func:`pool_ray_distance` recomputes its next cell boundaries exactly every this many
#: steps of its walk (between, it adds a step per cell; the rounding carried stays below
#: this many ulps).
RESYNC = 1024


def pool_ray_distance(cylinders: np.ndarray, boxes: np.ndarray, spheres: np.ndarray,
                      counts: np.ndarray, origin: np.ndarray, cells: np.ndarray,
                      z_range: np.ndarray, cell_size: float, first_cell: np.ndarray,
                      cell_start: np.ndarray, items: np.ndarray, layout: int,
                      ox: float, oy: float, oz: float, dx: float, dy: float, dz: float,
                      max_range: float) -> float:
    """The distance [m] along the unit ray from ``(ox, oy, oz)`` [m] along ``(dx, dy, dz)``
    to the first primitive of layout ``layout`` (an index of the pool) it meets: ``0`` from
    inside one, ``inf`` when none is met within ``max_range`` [m] (> 0, ``inf`` allowed).
    The pool's arrays come first, in :class:`~.grid.LayoutPool`'s order. The
    layout's ``World.ray_distance``, to the bit (module docstring).

    The ray is clipped to the layout's grid and height range, then its xy projection walks
    the cells it crosses in order (a 2-D DDA, stepping to whichever of the next x or y
    boundary is nearer); in each cell every listed primitive is tested with its closed form
    (a primitive listed in two cells is tested twice, harmlessly: the least is kept). The
    walk stops once the best hit is no farther than the current cell's exit (nothing beyond
    the cell can be nearer), or the clipped ray ends. A vertical ray stays in its one cell.
    Callees: :func:`~.geometry.slab_interval`, :func:`~.geometry.cylinder_ray_distance`,
    :func:`~.geometry.box_ray_distance`, :func:`~.geometry.sphere_ray_distance`.
    """
    nx = cells[layout, 0]
    ny = cells[layout, 1]
    if nx == 0:  # an empty layout
        return math.inf
    x0 = origin[layout, 0]
    y0 = origin[layout, 1]
    x_enter, x_leave = slab_interval(ox, dx, x0, x0 + nx * cell_size)
    y_enter, y_leave = slab_interval(oy, dy, y0, y0 + ny * cell_size)
    z_enter, z_leave = slab_interval(oz, dz, z_range[layout, 0], z_range[layout, 1])
    t_start = max(0.0, max(x_enter, max(y_enter, z_enter)))
    t_end = min(max_range, min(x_leave, min(y_leave, z_leave)))
    if t_start > t_end:  # the ray misses the layout's box, or leaves it behind the origin
        return math.inf
    # The first cell: the one holding the clipped ray's start (clamped: rounding may put it
    # a hair outside the grid). The unit direction has a nonzero component, whose slab
    # makes t_start finite, so t_start * dx is never inf * 0.
    fx = (ox + t_start * dx - x0) / cell_size
    fy = (oy + t_start * dy - y0) / cell_size
    ix = int(fx) if fx > 0.0 else 0  # int truncates: the floor for fx > 0
    iy = int(fy) if fy > 0.0 else 0
    if ix > nx - 1:
        ix = nx - 1
    if iy > ny - 1:
        iy = ny - 1
    # The walk steps to the nearer of the next x and y cell boundaries. Their ray
    # parameters are computed exactly at the start and every RESYNC steps (at the top of
    # the loop) and advanced by a sum per step in between (no division in the loop), so
    # the rounding carried stays below RESYNC ulps, far below the pad. Divisions by dx
    # rather than products with 1 / dx: for a subnormal dx the reciprocal is inf, and
    # 0 * inf is NaN.
    step_x = 0
    delta_x = math.inf
    if dx > 0.0:
        step_x = 1
        delta_x = cell_size / dx
    elif dx < 0.0:
        step_x = -1
        delta_x = -cell_size / dx
    step_y = 0
    delta_y = math.inf
    if dy > 0.0:
        step_y = 1
        delta_y = cell_size / dy
    elif dy < 0.0:
        step_y = -1
        delta_y = -cell_size / dy
    next_x = math.inf
    next_y = math.inf
    # A cylinder whose circle the ray's xy line misses by a margin is skipped before its
    # closed form (most are): the discriminant test of cylinder_ray_distance, its terms
    # computed alike, the product shrunk by CULL_MARGIN so that no rounding can skip a hit.
    a_cull = (dx * dx + dy * dy) * CULL_MARGIN
    base = first_cell[layout]
    best = math.inf
    walked = 0
    while True:
        if walked % RESYNC == 0:
            if step_x != 0:
                next_x = (x0 + (ix + 1 if step_x > 0 else ix) * cell_size - ox) / dx
            if step_y != 0:
                next_y = (y0 + (iy + 1 if step_y > 0 else iy) * cell_size - oy) / dy
        cell = base + iy * nx + ix
        for k in range(cell_start[cell], cell_start[cell + 1]):
            kind = items[k, 0]
            row = items[k, 1]
            if kind == 0:
                rx = ox - cylinders[layout, row, 0]
                ry = oy - cylinders[layout, row, 1]
                radius = cylinders[layout, row, 2]
                half_b = rx * dx + ry * dy
                if half_b * half_b < a_cull * (rx * rx + ry * ry - radius * radius):
                    continue
                t = cylinder_ray_distance(ox, oy, oz, dx, dy, dz, max_range,
                                          cylinders[layout, row, 0], cylinders[layout, row, 1],
                                          radius, cylinders[layout, row, 3])
            elif kind == 1:
                t = box_ray_distance(ox, oy, oz, dx, dy, dz, max_range,
                                     boxes[layout, row, 0], boxes[layout, row, 1],
                                     boxes[layout, row, 2], boxes[layout, row, 3],
                                     boxes[layout, row, 4], boxes[layout, row, 5],
                                     boxes[layout, row, 6])
            else:
                t = sphere_ray_distance(ox, oy, oz, dx, dy, dz, max_range,
                                        spheres[layout, row, 0], spheres[layout, row, 1],
                                        spheres[layout, row, 2], spheres[layout, row, 3])
            if t < best:
                best = t
        leave = min(next_x, next_y)
        # Nothing unseen lies before this cell's exit (the pad keeps that true through the
        # rounding of `leave`), so a hit no farther than it is the first.
        if best <= leave or leave >= t_end:
            return best
        # Step to the nearer boundary: selects, not branches (the choice is unpredictable).
        go_x = next_x <= next_y
        ix = ix + step_x if go_x else ix
        iy = iy if go_x else iy + step_y
        next_x = next_x + delta_x if go_x else next_x
        next_y = next_y if go_x else next_y + delta_y
        if ix < 0 or ix >= nx or iy < 0 or iy >= ny:
            return best
        walked += 1


def pool_distance(cylinders: np.ndarray, boxes: np.ndarray, spheres: np.ndarray,
                  counts: np.ndarray, origin: np.ndarray, cells: np.ndarray,
                  z_range: np.ndarray, cell_size: float, first_cell: np.ndarray,
                  cell_start: np.ndarray, items: np.ndarray, layout: int,
                  px: float, py: float, pz: float, reach: float) -> float:
    """The least signed distance [m] from ``(px, py, pz)`` [m] to the primitives of layout
    ``layout`` whose footprints come within ``reach`` >= 0 [m] of the point (the cells
    overlapping the square of half side ``reach`` around it; ``inf``: every cell). The
    pool's arrays come first, in :class:`~.grid.LayoutPool`'s order.

    Where the layout's ``World.distance`` is <= ``reach`` this is it, to the bit (the
    nearest primitive is among those tested); otherwise it is something > ``reach``, or
    ``inf`` when no primitive is near. So a sphere of radius ``r`` at the point overlaps a
    primitive exactly when ``pool_distance(..., r) < r``; a primitive listed in several
    cells is tested in each, harmlessly. Callees: :func:`~.geometry.cylinder_distance`,
    :func:`~.geometry.box_distance`, :func:`~.geometry.sphere_distance`.
    """
    nx = cells[layout, 0]
    ny = cells[layout, 1]
    if nx == 0:  # an empty layout
        return math.inf
    if pz - reach > z_range[layout, 1] or pz + reach < z_range[layout, 0]:
        return math.inf  # above or below everything
    x0 = origin[layout, 0]
    y0 = origin[layout, 1]
    low_x = (px - reach - x0) / cell_size
    high_x = (px + reach - x0) / cell_size
    low_y = (py - reach - y0) / cell_size
    high_y = (py + reach - y0) / cell_size
    if high_x < 0.0 or low_x > nx or high_y < 0.0 or low_y > ny:
        return math.inf  # the square lies outside the grid, where nothing is
    # clamped before the conversion to int: an infinite reach gives infinite bounds
    ix0 = int(low_x) if low_x > 0.0 else 0
    iy0 = int(low_y) if low_y > 0.0 else 0
    ix1 = int(high_x) if high_x < nx - 1 else nx - 1
    iy1 = int(high_y) if high_y < ny - 1 else ny - 1
    if ix0 > nx - 1:
        ix0 = nx - 1
    if iy0 > ny - 1:
        iy0 = ny - 1
    base = first_cell[layout]
    best = math.inf
    for iy in range(iy0, iy1 + 1):
        for ix in range(ix0, ix1 + 1):
            cell = base + iy * nx + ix
            for k in range(cell_start[cell], cell_start[cell + 1]):
                kind = items[k, 0]
                row = items[k, 1]
                if kind == 0:
                    d = cylinder_distance(px, py, pz, cylinders[layout, row, 0],
                                          cylinders[layout, row, 1], cylinders[layout, row, 2],
                                          cylinders[layout, row, 3])
                elif kind == 1:
                    d = box_distance(px, py, pz, boxes[layout, row, 0], boxes[layout, row, 1],
                                     boxes[layout, row, 2], boxes[layout, row, 3],
                                     boxes[layout, row, 4], boxes[layout, row, 5],
                                     boxes[layout, row, 6])
                else:
                    d = sphere_distance(px, py, pz, spheres[layout, row, 0],
                                        spheres[layout, row, 1], spheres[layout, row, 2],
                                        spheres[layout, row, 3])
                if d < best:
                    best = d
    return best
