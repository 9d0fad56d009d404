"""A world: the obstacles of a flight, as a tuple of primitives both engines read.

The floor (``z = 0``) is the engines' own and is not part of a world: its queries see only
the primitives. A world is immutable; its arrays (:meth:`World.to_arrays`, layout in
:mod:`pyflyt_like.worlds.arrays`) are built once at construction.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from pyflyt_like.common.validation import check_non_negative_float, check_positive_float

from .arrays import COLUMNS, KINDS, array_bounds, empty_arrays, scene_distance, scene_ray_distance
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
        primitives = tuple(primitives)
        if len(primitives) > MAX_PRIMITIVES:
            raise ValueError(f"primitives holds {len(primitives)} primitives, more than "
                             f"MAX_PRIMITIVES={MAX_PRIMITIVES}; split the world or thin it")
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
            ValueError: unknown keys, an array of the wrong shape, an invalid row (named).
        """
        unknown = set(arrays) - set(KINDS)
        if unknown:
            raise ValueError(f"arrays has unknown keys {sorted(map(str, unknown))}; the keys "
                             f"are {list(KINDS)}")
        primitives = []
        for kind in KINDS:
            array = np.asarray(arrays.get(kind, np.zeros((0, len(COLUMNS[kind])))))
            if array.ndim != 2 or array.shape[1] != len(COLUMNS[kind]):
                raise ValueError(f'arrays["{kind}"] must have shape (n, {len(COLUMNS[kind])})'
                                 f" (columns {list(COLUMNS[kind])}), got {array.shape}")
            primitives.extend(from_row(kind, row) for row in array)
        return cls(primitives)

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

        Args:
            position: (3,) [m] the requested start.
            radius: >= 0 [m] the vehicle's bounding sphere.
            max_shift: > 0 [m] the farthest the start may move.
            resolution: > 0 [m] the spacing of the candidates.

        Returns:
            (3,) float64 [m] a free start.

        Raises:
            ValueError: no free start within ``max_shift`` (e.g. inside a wide box or a
                building's wall cross), or invalid arguments (named).
        """
        start = np.array(check_point("position", position))
        radius = check_non_negative_float("radius", radius)
        max_shift = check_positive_float("max_shift", max_shift)
        resolution = check_positive_float("resolution", resolution)
        if max_shift / resolution > 10_000:
            raise ValueError(f"max_shift / resolution must be at most 10000 (rings of "
                             f"candidates), got {max_shift:g} / {resolution:g}")
        if self.free_start(start, radius):
            return start
        near = self._near(start, max_shift + radius)
        rings = int(math.floor(max_shift / resolution + 1e-9))
        for ring in range(1, rings + 1):
            shift = ring * resolution
            count = max(8, int(math.ceil(2.0 * math.pi * shift / resolution)))
            for k in range(count):
                angle = 2.0 * math.pi * k / count
                x = start[0] + shift * math.cos(angle)
                y = start[1] + shift * math.sin(angle)
                if scene_distance(*near.values(), x, y, start[2]) >= radius:
                    return np.array([x, y, start[2]])
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
