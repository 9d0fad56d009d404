"""A pool of obstacle layouts with a uniform 2-D grid each, built for ray casting and
proximity whose cost grows with what is near a ray or a point, not with the number of
primitives.

The batched engine runs thousands of simulated worlds that share a pool of ``L`` layouts
(each simulated world holds a layout index; redrawing its obstacles is pointing it at
another). :func:`pack_layouts` builds the pool once, in setup code: the primitives of every
layout padded into three arrays, and per layout a grid of square cells in x, y listing the
primitives whose footprint touches each cell. The queries over it, :func:`pool_ray_distance`
and :func:`pool_distance`, live in :mod:`.grid_queries` (compile-ready plain Python; their
exactness is argued there) and are re-exported here. Every footprint is widened by a pad
(:data:`PAD_ABSOLUTE` + :data:`PAD_RELATIVE` times the layout's largest coordinate) before
it is binned, so that the rounding of the queries' cell arithmetic cannot miss a primitive.

**The grid.** Layout ``l``'s grid has its lower corner at ``origin[l]`` and
``cells[l] = (nx, ny)`` square cells of side ``cell_size`` (one for the pool); it covers the
padded footprints of all its primitives, and everything outside it is empty space (so is
everything outside the layout's padded height range ``z_range[l]``). Cell ``(ix, iy)`` is
entry ``first_cell[l] + iy nx + ix`` of the compressed rows (CSR): its items are
``items[cell_start[k]:cell_start[k + 1]]``, each a ``(kind, row)`` pair, kind
:data:`KIND_CYLINDER`, :data:`KIND_BOX` or :data:`KIND_SPHERE` and row the primitive's row
in ``cylinders[l]``, ``boxes[l]`` or ``spheres[l]``. A footprint is the axis-aligned
bounding box of the primitive's xy projection (a yawed box's included); a primitive is
listed in every cell its footprint touches.

**Cell size.** By default (:func:`default_cell_size`) the cell is the primitives' mean
spacing, ``sqrt(area / n)`` (``area`` the grid's, ``n`` its primitives: about one
primitive per cell), never smaller than twice the median footprint width (so that a
primitive spans few cells), the median over the layouts; then enlarged, if it must be,
until the pool fits :data:`MAX_CELLS` and :data:`MAX_ITEMS`. For a forest of 0.1 trees/m^2
that is about 3.2 m, among the fastest sizes for 20 m LiDAR rays (docs/worlds.md, "Ray
casting and proximity").
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import NamedTuple

import numpy as np

from pyflyt_like.common.validation import check_int, check_memory, check_positive_float

from .arrays import COLUMNS, KINDS, array_bounds

# The queries, re-exported: LayoutPool's methods call them, and this module was their
# home (callers outside the package may import them, and grid.RESYNC, from here).
from .grid_queries import CULL_MARGIN, RESYNC, pool_distance, pool_ray_distance  # noqa: F401
from .primitives import check_point, check_ray
from .world import World

#: The kind codes of :attr:`LayoutPool.items` (column 0), in the order of :data:`KINDS`.
KIND_CYLINDER, KIND_BOX, KIND_SPHERE = 0, 1, 2

#: The most grid cells a pool may hold, over all its layouts (8 bytes each in
#: ``cell_start``: 128 MiB). A finer grid than that is refused with a ``ValueError``.
MAX_CELLS = 2**24
#: The most (cell, primitive) entries a pool may hold (8 bytes each in ``items``: 256 MiB);
#: a cell size much smaller than the primitives multiplies them.
MAX_ITEMS = 2**25

#: The pad added to every footprint and height range before binning [m], plus
#: :data:`PAD_RELATIVE` times the layout's largest coordinate: it makes the binning cover
#: the rounding of the queries' cell arithmetic (:mod:`.grid_queries`, "Exactness").
PAD_ABSOLUTE = 1e-6
PAD_RELATIVE = 1e-9

#: The cell size [m] of a pool of empty layouts only (no primitive to size it by).
EMPTY_CELL_SIZE = 1.0


class LayoutPool(NamedTuple):
    """The primitives and grids of ``L`` layouts (:func:`pack_layouts`); C-contiguous
    arrays (and one float), in the order the queries take them: ``pool_ray_distance(*pool,
    layout, ...)``. Lengths in metres, angles in radians.

    Attributes:
        cylinders: (L, nc, 4) float64, x, y, radius, height (:data:`~.arrays.COLUMNS`);
            ``nc`` the most cylinders of a layout, rows past a layout's count are zeros.
        boxes: (L, nb, 7) float64, cx, cy, cz, hx, hy, hz, yaw, padded likewise.
        spheres: (L, ns, 4) float64, cx, cy, cz, radius, padded likewise.
        counts: (L, 3) int64, the cylinders, boxes and spheres of each layout.
        origin: (L, 2) float64 [m], the lower (x, y) corner of each layout's grid.
        cells: (L, 2) int64, cells along x and y of each grid; (0, 0) for an empty layout.
        z_range: (L, 2) float64 [m], the lowest and highest z of each layout's primitives,
            padded; (0, 0) for an empty layout.
        cell_size: [m] the side of every cell of the pool.
        first_cell: (L,) int64, the index in ``cell_start`` of each layout's cell (0, 0).
        cell_start: (total cells + 1,) int64, the first item of each cell; cell ``k``'s
            items are ``items[cell_start[k]:cell_start[k + 1]]``.
        items: (total items, 2) int32, ``(kind, row)``: the kind (:data:`KIND_CYLINDER`,
            :data:`KIND_BOX`, :data:`KIND_SPHERE`) and the row in that kind's array of the
            layout; within a cell in the order of :meth:`World.to_arrays`, cylinders first.
    """

    cylinders: np.ndarray
    boxes: np.ndarray
    spheres: np.ndarray
    counts: np.ndarray
    origin: np.ndarray
    cells: np.ndarray
    z_range: np.ndarray
    cell_size: float
    first_cell: np.ndarray
    cell_start: np.ndarray
    items: np.ndarray

    @property
    def n_layouts(self) -> int:
        """The number of layouts ``L``."""
        return int(self.counts.shape[0])

    def layout_arrays(self, layout: int) -> dict[str, np.ndarray]:
        """The arrays of layout ``layout`` in the layout of :meth:`World.to_arrays` (new
        arrays, padding rows dropped): ``World.from_arrays(pool.layout_arrays(l))`` is the
        layout's world, its primitives ordered by kind."""
        layout = self._check_layout(layout)
        return {kind: np.ascontiguousarray(array[layout, :self.counts[layout, k]])
                for k, (kind, array) in enumerate(zip(KINDS, self[:3]))}

    def ray_distance(self, layout: int, origin: object, direction: object,
                     max_range: object) -> float:
        """:func:`pool_ray_distance` with its arguments checked: the distance [m] along the
        unit ray from ``origin`` (3,) [m] along ``direction`` (3,) to the first primitive of
        layout ``layout``, 0 from inside one, ``inf`` when none within ``max_range`` [m];
        equal to the layout's ``World.ray_distance``."""
        layout = self._check_layout(layout)
        (ox, oy, oz), (dx, dy, dz), reach = check_ray(origin, direction, max_range)
        return pool_ray_distance(*self, layout, ox, oy, oz, dx, dy, dz, reach)

    def distance(self, layout: int, point: object, reach: object = math.inf) -> float:
        """:func:`pool_distance` with its arguments checked: the least signed distance [m]
        from ``point`` (3,) [m] to the primitives of layout ``layout`` within ``reach``
        >= 0 [m] (``inf``: all of them, the layout's ``World.distance``)."""
        layout = self._check_layout(layout)
        px, py, pz = check_point("point", point)
        if isinstance(reach, (bool, np.bool_)) or not isinstance(
                reach, (int, float, np.integer, np.floating)):
            raise TypeError(f"reach must be a number >= 0 [m] (inf allowed), got {reach!r}")
        if not float(reach) >= 0.0:  # also NaN
            raise ValueError(f"reach must be a number >= 0 [m] (inf allowed), got {reach!r}")
        reach = float(reach)
        return pool_distance(*self, layout, px, py, pz, reach)

    def _check_layout(self, layout: object) -> int:
        layout = check_int("layout", layout)
        if not 0 <= layout < self.n_layouts:
            raise ValueError(f"layout must be in [0, {self.n_layouts}) (the pool's layouts), "
                             f"got {layout}")
        return layout


def pack_layouts(worlds: Iterable[World], cell_size: float | None = None) -> LayoutPool:
    """Pack the layouts ``worlds`` (a sequence of ``L`` >= 1 :class:`World` s, any may be
    empty) into a :class:`LayoutPool` with a grid each.

    Args:
        worlds: the layouts; layout ``l`` of the pool is ``worlds[l]``.
        cell_size: > 0 [m] the side of the grid cells; ``None`` chooses it
            (:func:`default_cell_size`, enlarged if the pool would not fit the bounds).

    Returns:
        The pool (every array new, C-contiguous, read-only).

    Raises:
        TypeError: ``worlds`` is not a sequence of World (the offending index is named), or
            ``cell_size`` is not a number.
        ValueError: ``worlds`` is empty, ``cell_size`` is not finite and > 0, the grids
            would hold more than :data:`MAX_CELLS` cells or :data:`MAX_ITEMS` items (the
            message names the cell size and the counts; a larger ``cell_size`` fits), or
            the padded primitive arrays would need more than half this machine's memory
            (one huge layout among many small ones: pool them apart).
    """
    layouts = _check_worlds(worlds)
    counts = np.array([[len(world.cylinders), len(world.boxes), len(world.spheres)]
                       for world in layouts])
    padded_bytes = 8 * len(layouts) * sum(
        int(counts[:, k].max()) * len(COLUMNS[kind]) for k, kind in enumerate(KINDS))
    check_memory(f"worlds ({len(layouts)} layouts, each padded to the most primitives of a "
                 f"kind: {counts.max(axis=0).tolist()})", padded_bytes,
                 "pool layouts of similar sizes together")
    explicit = cell_size is not None
    if explicit:
        size = check_positive_float("cell_size", cell_size)
    else:
        size = default_cell_size(layouts)
    footprints = [_footprints(world) for world in layouts]
    # at any cell size each non-empty layout has a cell at least, each primitive an item
    least_cells = sum(low.shape[0] > 0 for low, _ in footprints)
    least_items = sum(low.shape[0] for low, _ in footprints)
    if least_cells > MAX_CELLS or least_items > MAX_ITEMS:
        raise ValueError(f"worlds hold {least_items} primitives in {least_cells} non-empty "
                         f"layouts, more than MAX_ITEMS={MAX_ITEMS} or MAX_CELLS={MAX_CELLS} "
                         f"(memory); split them into several pools")
    while True:
        n_cells, n_items = _grid_sizes(footprints, size)
        if n_cells <= MAX_CELLS and n_items <= MAX_ITEMS:
            break
        if explicit:
            what = (f"{n_cells} cells, more than MAX_CELLS={MAX_CELLS}" if n_cells > MAX_CELLS
                    else f"{n_items} items, more than MAX_ITEMS={MAX_ITEMS}")
            raise ValueError(f"cell_size={size:g} m makes grids of {what} (memory); pass a "
                             f"larger cell_size, or None (chosen to fit)")
        # the default grows until it fits: cells fall with the square of the size (and
        # the items with them, down to one per primitive, which fits: checked above)
        size *= 1.05 * math.sqrt(max(n_cells / MAX_CELLS, n_items / MAX_ITEMS, 1.0))
    return _pack(layouts, footprints, size)


def default_cell_size(worlds: Iterable[World]) -> float:
    """The default cell size [m] of a pool of ``worlds`` (before the memory bounds): per
    non-empty layout, the mean spacing of its primitives ``sqrt(area / n)`` (``area`` the
    bounding rectangle of its footprints [m^2], ``n`` its primitives), at least twice the
    median footprint width (the smaller side of each footprint); the median over the
    layouts; :data:`EMPTY_CELL_SIZE` when every layout is empty."""
    sizes = []
    for world in _check_worlds(worlds):
        low, high = _footprints(world)
        if low.shape[0] == 0:
            continue
        span = high.max(axis=0) - low.min(axis=0)
        spacing = math.sqrt(float(span[0] * span[1]) / low.shape[0])
        width = float(np.median((high - low).min(axis=1)))
        sizes.append(max(spacing, 2.0 * width))
    return float(np.median(sizes)) if sizes else EMPTY_CELL_SIZE


def _check_worlds(worlds: object) -> tuple[World, ...]:
    if isinstance(worlds, World):
        raise TypeError("worlds must be a sequence of World (the layouts), got one World; "
                        "pass [world]")
    if isinstance(worlds, (str, bytes, Mapping)) or not isinstance(worlds, Iterable):
        raise TypeError(f"worlds must be a sequence of World (the layouts), got "
                        f"{type(worlds).__name__}")
    layouts = tuple(worlds)
    if not layouts:
        raise ValueError("worlds must hold at least one World (the layouts), got none")
    for i, world in enumerate(layouts):
        if not isinstance(world, World):
            raise TypeError(f"worlds[{i}] must be a pyflyt_like.worlds.World, got {world!r}")
    return layouts


def _pad(bounds: np.ndarray) -> float:
    """The pad [m] of a layout whose primitive bounds are ``bounds`` (n, 6)."""
    scale = float(np.max(np.abs(bounds))) if bounds.size else 0.0
    return PAD_ABSOLUTE + PAD_RELATIVE * scale


def _footprints(world: World) -> tuple[np.ndarray, np.ndarray]:
    """The padded footprints of ``world``'s primitives: lower and upper (x, y) corners,
    (n, 2) each [m], in the order of :func:`~.arrays.array_bounds` (kind by kind)."""
    bounds = array_bounds(world.to_arrays())
    pad = _pad(bounds)
    return bounds[:, 0:2] - pad, bounds[:, 3:5] + pad


def _grid_shape(low: np.ndarray, high: np.ndarray, size: float
                ) -> tuple[np.ndarray, np.ndarray]:
    """The origin (2,) [m] and cells (2,) of the grid over footprints ``low``, ``high``."""
    origin = low.min(axis=0)
    top = high.max(axis=0)
    cells = np.maximum(np.ceil((top - origin) / size), 1.0)
    # the rounding of the division may leave the last footprint edge outside: one more cell
    cells += origin + cells * size < top
    return origin, cells.astype(np.int64)


def _spans(low: np.ndarray, high: np.ndarray, origin: np.ndarray, cells: np.ndarray,
           size: float) -> tuple[np.ndarray, np.ndarray]:
    """The first and last cell (ix, iy) each footprint touches, (n, 2) int64 each."""
    first = np.clip(np.floor((low - origin) / size), 0, cells - 1).astype(np.int64)
    last = np.clip(np.floor((high - origin) / size), 0, cells - 1).astype(np.int64)
    return first, last


def _grid_sizes(footprints: list[tuple[np.ndarray, np.ndarray]], size: float
                ) -> tuple[int, int]:
    """The cells and items a pool of these footprints would hold at cell ``size`` [m]."""
    n_cells = n_items = 0
    for low, high in footprints:
        if low.shape[0] == 0:
            continue
        origin, cells = _grid_shape(low, high, size)
        n_cells += int(cells[0]) * int(cells[1])
        if n_cells > MAX_CELLS:  # stop early: the items of a too-fine grid are not needed
            break
        first, last = _spans(low, high, origin, cells, size)
        n_items += int(np.prod(last - first + 1, axis=1).sum())
    return n_cells, n_items


def _pack(layouts: tuple[World, ...], footprints: list[tuple[np.ndarray, np.ndarray]],
          size: float) -> LayoutPool:
    n_layouts = len(layouts)
    tables = [world.to_arrays() for world in layouts]
    counts = np.array([[table[kind].shape[0] for kind in KINDS] for table in tables],
                      dtype=np.int64).reshape(n_layouts, 3)
    padded = []
    for k, kind in enumerate(KINDS):
        array = np.zeros((n_layouts, int(counts[:, k].max()), len(COLUMNS[kind])))
        for layout, table in enumerate(tables):
            array[layout, :counts[layout, k]] = table[kind]
        padded.append(array)
    origin = np.zeros((n_layouts, 2))
    cells = np.zeros((n_layouts, 2), dtype=np.int64)
    z_range = np.zeros((n_layouts, 2))
    first_cell = np.zeros(n_layouts, dtype=np.int64)
    cell_counts, cell_items = [], []
    total_cells = 0
    for layout, ((low, high), table) in enumerate(zip(footprints, tables)):
        first_cell[layout] = total_cells
        n = low.shape[0]
        if n == 0:
            continue
        bounds = array_bounds(table)
        pad = _pad(bounds)
        z_range[layout] = bounds[:, 2].min() - pad, bounds[:, 5].max() + pad
        origin[layout], cells[layout] = _grid_shape(low, high, size)
        nx, ny = int(cells[layout, 0]), int(cells[layout, 1])
        first, last = _spans(low, high, origin[layout], cells[layout], size)
        # every (primitive, cell) pair of each footprint's rectangle of cells, then sorted by
        # cell (stably: within a cell, the primitives keep the order of to_arrays)
        width = last[:, 0] - first[:, 0] + 1
        spans = width * (last[:, 1] - first[:, 1] + 1)
        primitive = np.repeat(np.arange(n), spans)
        local = np.arange(primitive.shape[0]) - np.repeat(np.cumsum(spans) - spans, spans)
        ix = first[primitive, 0] + local % width[primitive]
        iy = first[primitive, 1] + local // width[primitive]
        cell = iy * nx + ix
        order = np.argsort(cell, kind="stable")
        primitive = primitive[order]
        kind = np.repeat(np.arange(3), counts[layout])  # array_bounds' order: kind by kind
        row = np.arange(n) - np.repeat(np.cumsum(counts[layout]) - counts[layout],
                                       counts[layout])
        cell_items.append(np.stack([kind[primitive], row[primitive]], axis=1))
        cell_counts.append(np.bincount(cell, minlength=nx * ny))
        total_cells += nx * ny
    cell_start = np.zeros(total_cells + 1, dtype=np.int64)
    if cell_counts:
        np.cumsum(np.concatenate(cell_counts), out=cell_start[1:])
    items = (np.concatenate(cell_items) if cell_items else np.zeros((0, 2))).astype(np.int32)
    arrays = [*padded, counts, origin, cells, z_range, first_cell, cell_start, items]
    for array in arrays:
        array.flags.writeable = False  # shared by every query, and by the engines' copies
    return LayoutPool(*arrays[:7], float(size), *arrays[7:])
