"""A world: the obstacles of a flight, as a tuple of primitives both engines read.

The floor (``z = 0``) is the engines' own and is not part of a world: its queries see only
the primitives. A world is immutable; its arrays (:meth:`World.to_arrays`, layout in
:mod:`pyflyt_like.worlds.arrays`) are built once at construction.
"""

from __future__ import annotations

import itertools
import math
import reprlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from pyflyt_like.common.validation import check_non_negative_float, check_positive_float

from .arrays import COLUMNS, KINDS, array_bounds, empty_arrays, scene_distance, scene_ray_distance
from .geometry import box_distance, cylinder_distance, sphere_distance
from .primitives import (
    PRIMITIVE_CLASSES,
    Box,
    Cylinder,
    Primitive,
    Sphere,
    check_point,
    check_ray,
    from_row,
)

#: The most primitives a world may hold: a bound on the engines' memory and on the cost of
#: their per-ray loops (a LiDAR sweep over 10^5 primitives is already slow).
MAX_PRIMITIVES = 100_000

#: Defaults of :meth:`World.nearest_free` [m].
MAX_SHIFT = 5.0
RESOLUTION = 0.05
#: The most rings of candidates :meth:`World.nearest_free` searches (``max_shift /
#: resolution``; the defaults' 100): about 126 000 candidates, under 1 s when none is
#: free. The bound of 10 000 it had let one search run for half an hour (3e8 candidates).
MAX_RINGS = 200
#: How far [m] beyond a candidate sphere's bounds a primitive's bounds are still tested
#: exactly: more than the rounding of the bounds and of the distance (about 1e-16 of the
#: coordinates), so that a primitive left out is surely clear of the sphere.
BOUNDS_PAD_ABSOLUTE = 1e-9
BOUNDS_PAD_RELATIVE = 1e-9
#: The most (candidate, primitive) bounds tests of one batch, a bound on its memory.
MAX_BATCH_TESTS = 1 << 20
#: The signed distance of each kind, in the order of :data:`KINDS` (as scene_distance).
_DISTANCES = (cylinder_distance, box_distance, sphere_distance)


@dataclass(frozen=True)
class World:
    """Obstacles: a tuple of :class:`~pyflyt_like.worlds.primitives.Cylinder`,
    :class:`~pyflyt_like.worlds.primitives.Box` and
    :class:`~pyflyt_like.worlds.primitives.Sphere` (any iterable is accepted, at most
    :data:`MAX_PRIMITIVES`). ``World()`` is the empty world.

    Raises:
        TypeError: ``primitives`` is not an iterable of primitives (the offending index is
            named).
        ValueError: more than :data:`MAX_PRIMITIVES` primitives.
    """

    primitives: tuple[Primitive, ...] = ()
    _arrays: dict[str, np.ndarray] = field(init=False, repr=False, compare=False)
    _bounds: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        primitives = self.primitives
        if isinstance(primitives, (str, bytes, Mapping)) or not isinstance(
                primitives, Iterable):
            raise TypeError("primitives must be a list of Cylinder, Box and Sphere, got "
                            f"{type(primitives).__name__}")
        # Consumed up to one past the limit: an endless or huge iterable is refused
        # without being stored (itertools.repeat(cylinder, 10**10) would need 80 GB).
        primitives = tuple(itertools.islice(primitives, MAX_PRIMITIVES + 1))
        if len(primitives) > MAX_PRIMITIVES:
            raise ValueError(f"primitives holds more than MAX_PRIMITIVES={MAX_PRIMITIVES} "
                             "primitives; split the world or thin it")
        rows: dict[str, list] = {kind: [] for kind in KINDS}
        kind_of = {cls: kind for kind, cls in PRIMITIVE_CLASSES.items()}
        for i, primitive in enumerate(primitives):
            kind = kind_of.get(type(primitive))
            if kind is None:
                raise TypeError(f"primitives[{i}] must be a Cylinder, Box or Sphere, got "
                                f"{primitive!r}")
            rows[kind].append(primitive.as_row())
        arrays = empty_arrays()
        for kind, kind_rows in rows.items():
            if kind_rows:
                arrays[kind] = np.array(kind_rows, dtype=np.float64)
            arrays[kind].flags.writeable = False  # shared by every query of this world
        bounds = array_bounds(arrays)
        bounds.flags.writeable = False
        object.__setattr__(self, "primitives", primitives)
        object.__setattr__(self, "_arrays", arrays)
        object.__setattr__(self, "_bounds", bounds)

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, object]) -> World:
        """The world of arrays in the layout of :meth:`to_arrays` (a missing key: none of
        that kind); its primitives are the cylinders, then the boxes, then the spheres.

        Raises:
            TypeError: an array that is not numeric.
            ValueError: unknown keys, an array of the wrong shape, an invalid row (named),
                more than :data:`MAX_PRIMITIVES` rows in all.
        """
        unknown = set(arrays) - set(KINDS)
        if unknown:
            raise ValueError(f"arrays has unknown keys {sorted(map(str, unknown))}; the keys "
                             f"are {list(KINDS)}")
        checked = {}
        for kind in KINDS:
            try:
                array = np.asarray(arrays.get(kind, np.zeros((0, len(COLUMNS[kind])))),
                                   dtype=np.float64)
            except (TypeError, ValueError, OverflowError):
                raise TypeError(f'arrays["{kind}"] must be a numeric array of shape (n, '
                                f"{len(COLUMNS[kind])}), got {reprlib.repr(arrays[kind])}"
                                ) from None
            if array.ndim != 2 or array.shape[1] != len(COLUMNS[kind]):
                raise ValueError(f'arrays["{kind}"] must have shape (n, {len(COLUMNS[kind])})'
                                 f" (columns {list(COLUMNS[kind])}), got {array.shape}")
            checked[kind] = array
        rows = sum(array.shape[0] for array in checked.values())
        if rows > MAX_PRIMITIVES:  # before a primitive is made of any row
            raise ValueError(f"arrays hold {rows} rows in all, more than MAX_PRIMITIVES="
                             f"{MAX_PRIMITIVES}; split the world or thin it")
        return cls([from_row(kind, row) for kind, array in checked.items() for row in array])

    def __len__(self) -> int:
        return len(self.primitives)

    @property
    def cylinders(self) -> tuple[Cylinder, ...]:
        """The world's cylinders, in order."""
        return tuple(p for p in self.primitives if type(p) is Cylinder)

    @property
    def boxes(self) -> tuple[Box, ...]:
        """The world's boxes, in order."""
        return tuple(p for p in self.primitives if type(p) is Box)

    @property
    def spheres(self) -> tuple[Sphere, ...]:
        """The world's spheres, in order."""
        return tuple(p for p in self.primitives if type(p) is Sphere)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """New float64 arrays of the primitives, for an engine to copy: ``cylinders`` (n, 4)
        x, y, radius, height; ``boxes`` (n, 7) cx, cy, cz, hx, hy, hz, yaw; ``spheres``
        (n, 4) cx, cy, cz, radius [m, rad] (the fixed layout of
        :mod:`pyflyt_like.worlds.arrays`), each kind in the order of :attr:`primitives`."""
        return {kind: array.copy() for kind, array in self._arrays.items()}

    def distance(self, point: object) -> float:
        """The least signed distance [m] from ``point`` (3,) [m] to a primitive: the
        distance to the nearest surface outside every primitive, negative inside one (minus
        the depth in the primitive the point is deepest in); ``inf`` for an empty world.
        The floor is not counted."""
        px, py, pz = check_point("point", point)
        return scene_distance(*self._arrays.values(), px, py, pz)

    def ray_distance(self, origin: object, direction: object, max_range: object) -> float:
        """The distance [m] along the unit ray from ``origin`` (3,) [m] along ``direction``
        (3,) to the first primitive it meets: 0 from inside one, ``inf`` when none is met
        within ``max_range`` [m] (the floor is not counted)."""
        (ox, oy, oz), (dx, dy, dz), reach = check_ray(origin, direction, max_range)
        return scene_ray_distance(*self._arrays.values(), ox, oy, oz, dx, dy, dz, reach)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The axis-aligned bounds of all primitives ``(min (3,), max (3,))`` [m].

        Raises:
            ValueError: the world is empty (it has no bounds).
        """
        if not self.primitives:
            raise ValueError("an empty World has no bounds")
        return self._bounds[:, :3].min(axis=0), self._bounds[:, 3:].max(axis=0)

    def free_start(self, position: object, radius: object) -> bool:
        """Whether a sphere of ``radius`` >= 0 [m] at ``position`` (3,) [m] (a vehicle's
        bounding sphere at its start) overlaps no primitive: :meth:`distance` >= ``radius``
        (touching is allowed; the floor is not counted)."""
        position = check_point("position", position)
        radius = check_non_negative_float("radius", radius)
        return scene_distance(*self._arrays.values(), *position) >= radius

    def nearest_free(self, position: object, radius: object, max_shift: object = MAX_SHIFT,
                     resolution: object = RESOLUTION) -> np.ndarray:
        """A start near ``position`` where a sphere of ``radius`` is free (the start rule).

        A free ``position`` (:meth:`free_start`) is returned unchanged. Otherwise the start
        moves horizontally, its height kept: the candidates are rings around it, of radii
        ``resolution``, ``2 resolution``, ... up to ``max_shift`` [m], each with points
        about ``resolution`` apart starting east (+x) and turning counter-clockwise; the
        first free one is returned. The result is therefore free, at most ``max_shift``
        from ``position``, and within about ``resolution`` of the nearest free spot at
        that height.

        Each candidate is tested exactly (:meth:`free_start`'s distance) against the
        primitives whose bounds meet its sphere's, found for a batch of candidates at once,
        so the cost hardly grows with the world: at most :data:`MAX_RINGS` rings (about
        126 000 candidates) take under 1 s when none is free (measured: 0.3 s inside one
        wide box, 0.7 s among 75 000 trees, 0.9 s inside 1000 overlapping boxes).

        Args:
            position: (3,) [m] the requested start.
            radius: >= 0 [m] the vehicle's bounding sphere.
            max_shift: > 0 [m] the farthest the start may move.
            resolution: > 0 [m] the spacing of the candidates; ``max_shift / resolution``
                at most :data:`MAX_RINGS`.

        Returns:
            (3,) float64 [m] a free start.

        Raises:
            ValueError: no free start within ``max_shift`` (e.g. inside a wide box or a
                building's wall cross), more than :data:`MAX_RINGS` rings, or invalid
                arguments (named).
        """
        start = np.array(check_point("position", position))
        radius = check_non_negative_float("radius", radius)
        max_shift = check_positive_float("max_shift", max_shift)
        resolution = check_positive_float("resolution", resolution)
        rings = math.floor(max_shift / resolution + 1e-9)
        if rings > MAX_RINGS:
            raise ValueError(f"max_shift / resolution must be at most MAX_RINGS={MAX_RINGS} "
                             f"(rings of candidates, about {_candidates(MAX_RINGS):,} points), "
                             f"got max_shift={max_shift:g} m / resolution={resolution:g} m = "
                             f"{max_shift / resolution:.4g}; raise resolution or lower "
                             "max_shift")
        if self.free_start(start, radius):
            return start
        search = _RingSearch(self._near(start, max_shift + radius), start, radius, max_shift)
        for ring in range(1, rings + 1):
            shift = ring * resolution
            count = max(8, int(math.ceil(2.0 * math.pi * shift / resolution)))
            points = [(start[0] + shift * math.cos(angle), start[1] + shift * math.sin(angle))
                      for angle in (2.0 * math.pi * k / count for k in range(count))]
            free = search.first_free(shift, points)
            if free is not None:
                return np.array([*free, start[2]])
        raise ValueError(f"no free start for a sphere of radius {radius:g} m within "
                         f"max_shift={max_shift:g} m of position {start.tolist()} at its "
                         f"height; move the start or raise max_shift")

    def _near(self, point: np.ndarray, reach: float) -> dict[str, np.ndarray]:
        """The arrays of the primitives whose bounds come within ``reach`` [m] of ``point``
        horizontally and vertically: the only ones that matter to a search around it."""
        low, high = self._bounds[:, :3], self._bounds[:, 3:]
        near = np.all((low <= point + reach) & (high >= point - reach), axis=1)
        counts = [self._arrays[kind].shape[0] for kind in KINDS]
        selected, start = {}, 0
        for kind, count in zip(KINDS, counts):
            selected[kind] = self._arrays[kind][near[start:start + count]]
            start += count
        return selected


def _candidates(rings: int) -> int:
    """The number of candidates of ``rings`` rings of :meth:`World.nearest_free`."""
    return sum(max(8, math.ceil(2.0 * math.pi * ring)) for ring in range(1, rings + 1))


class _RingSearch:
    """The candidates of :meth:`World.nearest_free`, tested ring by ring against the
    primitives ``near`` the start (:meth:`World._near`), with the result of testing them
    against all of them, to the bit.

    A candidate is free when no primitive is nearer than the radius (each distance the one
    :func:`scene_distance` computes). A primitive whose (padded) bounds miss a candidate
    sphere's bounds is surely not nearer, so only those whose bounds its bounds meet are
    tested, found for a batch of candidates at once with numpy; the primitive that blocked
    the last candidate is tried first (neighbours are mostly blocked by the same one).
    """

    def __init__(self, near: dict[str, np.ndarray], start: np.ndarray, radius: float,
                 max_shift: float) -> None:
        self.radius, self.z = radius, float(start[2])
        bounds = array_bounds(near)
        scale = float(np.abs(bounds).max(initial=0.0)) + float(np.abs(start).max()) + max_shift
        self.reach = radius + BOUNDS_PAD_ABSOLUTE + BOUNDS_PAD_RELATIVE * scale
        # the heights are the start's: only primitives spanning it can matter
        level = (bounds[:, 2] <= self.z + self.reach) & (bounds[:, 5] >= self.z - self.reach)
        self.bounds = bounds[level]
        # each one's distance function and row, in the order of array_bounds
        tests = [(distance, tuple(row)) for kind, distance in zip(KINDS, _DISTANCES)
                 for row in near[kind].tolist()]
        self.tests = [test for test, kept in zip(tests, level.tolist()) if kept]
        self.blocker: int | None = None
        # each one's horizontal distance range from the start, for the ring filter
        low, high = self.bounds[:, :2] - start[:2], self.bounds[:, 3:5] - start[:2]
        gap = np.maximum(np.maximum(low, -high), 0.0)
        self.nearest = np.hypot(gap[:, 0], gap[:, 1])
        far = np.maximum(np.abs(low), np.abs(high))
        self.farthest = np.hypot(far[:, 0], far[:, 1])

    def first_free(self, shift: float, points: list[tuple[float, float]]
                   ) -> tuple[float, float] | None:
        """The first of ``points`` (a ring of radius ``shift`` [m]) where the sphere is
        free, or None."""
        # a candidate's bounds meet a primitive's only if its horizontal gap to the start
        # comes within 2 reach of the ring (bounds meeting: a gap of at most reach * sqrt 2)
        margin = 2.0 * self.reach + 1e-9 * shift
        on_ring = np.flatnonzero((self.nearest <= shift + margin)
                                 & (self.farthest >= shift - margin))
        if not on_ring.size:
            return points[0]
        bounds = self.bounds[on_ring]
        xy = np.array(points)
        batch = max(1, MAX_BATCH_TESTS // on_ring.size)
        for first in range(0, len(points), batch):
            x, y = (xy[first:first + batch, axis, None] for axis in (0, 1))
            meets = ((bounds[:, 0] <= x + self.reach) & (bounds[:, 3] >= x - self.reach)
                     & (bounds[:, 1] <= y + self.reach) & (bounds[:, 4] >= y - self.reach))
            for row, (px, py) in zip(meets, points[first:first + batch]):
                if not self._blocked(px, py, on_ring[row]):
                    return px, py
        return None

    def _blocked(self, px: float, py: float, candidates: np.ndarray) -> bool:
        """Whether one of the primitives ``candidates`` (or the last blocker: testing one
        more primitive changes nothing) is nearer than the radius to ``(px, py, z)``."""
        if self.blocker is not None:
            distance, row = self.tests[self.blocker]
            if distance(px, py, self.z, *row) < self.radius:
                return True
        for index in candidates.tolist():
            distance, row = self.tests[index]
            if distance(px, py, self.z, *row) < self.radius:
                self.blocker = index
                return True
        return False
