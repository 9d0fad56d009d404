"""The obstacle primitives: a vertical cylinder on the floor, a yawed box, a sphere.

Frozen dataclasses checked at construction (finite numbers, sizes > 0, every coordinate
and size within :data:`MAX_COORDINATE`; a ``TypeError`` or ``ValueError`` naming the
field, e.g. ``Cylinder.radius``). Sizes in metres, yaw in
radians, positions in the world frame (ENU, z up; the floor is ``z = 0``). The geometry is
the closed forms of :mod:`pyflyt_like.worlds.geometry` (signed distance, ray distance);
each primitive is one row of its array in :mod:`pyflyt_like.worlds.arrays`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pyflyt_like.common.validation import as_float_array, check_finite, check_positive_float

from . import geometry

#: How far from 1 the norm of a ray's direction may be.
UNIT_TOLERANCE = 1e-6
#: The largest coordinate or size of a primitive [m], in absolute value: 1000 km, where the
#: engines' grids are still exact (docs/worlds.md, "The grid"); a box of 1e308 m made the
#: grid's spans overflow to inf.
MAX_COORDINATE = 1e6


def check_point(name: str, value: object) -> tuple[float, float, float]:
    """``value`` as a finite (3,) point [m]; TypeError/ValueError naming ``name``."""
    x, y, z = as_float_array(name, value, (3,))
    return float(x), float(y), float(z)


def check_ray(origin: object, direction: object, max_range: object
              ) -> tuple[tuple[float, float, float], tuple[float, float, float], float]:
    """The checked arguments of a ray query: ``origin`` (3,) [m], a unit ``direction`` (3,)
    (norm 1 within :data:`UNIT_TOLERANCE`) and ``max_range`` > 0 [m] (``inf`` allowed).

    Raises:
        TypeError: a non-numeric argument.
        ValueError: a wrong shape, a non-finite coordinate, a direction that is not a unit
            vector, a ``max_range`` that is not > 0.
    """
    origin = check_point("origin", origin)
    direction = check_point("direction", direction)
    norm = math.sqrt(sum(d * d for d in direction))
    if abs(norm - 1.0) > UNIT_TOLERANCE:
        raise ValueError(f"direction must be a unit vector (norm 1 within {UNIT_TOLERANCE:g}),"
                         f" got {list(direction)} of norm {norm:.9g}; divide it by its norm")
    if isinstance(max_range, (bool, np.bool_)) or not isinstance(
            max_range, (int, float, np.integer, np.floating)):
        raise TypeError(f"max_range must be a number > 0 [m] (inf allowed), got {max_range!r}")
    if not float(max_range) > 0.0:  # also NaN
        raise ValueError(f"max_range must be a number > 0 [m] (inf allowed), got {max_range!r}")
    return origin, direction, float(max_range)


def _vector(owner: str, name: str, value: object, positive: bool = False
            ) -> tuple[float, float, float]:
    vector = check_point(f"{owner}.{name}", value)
    if positive and min(vector) <= 0.0:
        raise ValueError(f"{owner}.{name} must have every entry > 0 [m], got {list(vector)}")
    for entry in vector:
        _within(f"{owner}.{name}", entry)
    return vector


def _within(name: str, value: float) -> float:
    """``value`` if at most :data:`MAX_COORDINATE` in absolute value, else a ValueError."""
    if abs(value) > MAX_COORDINATE:
        raise ValueError(f"{name} must be within {MAX_COORDINATE:g} m in absolute value "
                         f"(MAX_COORDINATE), got {value:g}")
    return value


@dataclass(frozen=True)
class Cylinder:
    """A vertical cylinder standing on the floor: axis through ``(x, y)`` [m], ``radius`` >
    0 [m], filling ``0 <= z <= height`` (``height`` > 0 [m]). A tree, a pole, a pillar."""

    x: float
    y: float
    radius: float
    height: float

    def __post_init__(self) -> None:
        for name, check in (("x", check_finite), ("y", check_finite),
                            ("radius", check_positive_float), ("height", check_positive_float)):
            value = _within(f"Cylinder.{name}", check(f"Cylinder.{name}", getattr(self, name)))
            object.__setattr__(self, name, value)

    def as_row(self) -> tuple[float, ...]:
        """Its row of the ``cylinders`` array: x, y, radius, height."""
        return self.x, self.y, self.radius, self.height

    def distance(self, point: object) -> float:
        """Signed distance [m] from ``point`` (3,) [m] to the surface: negative inside."""
        return geometry.cylinder_distance(*check_point("point", point), *self.as_row())

    def ray_distance(self, origin: object, direction: object, max_range: object) -> float:
        """Distance [m] along the unit ray to the first contact with the side or a cap;
        0 from inside or on the surface, ``inf`` when none within ``max_range`` [m]."""
        (ox, oy, oz), (dx, dy, dz), reach = check_ray(origin, direction, max_range)
        return geometry.cylinder_ray_distance(ox, oy, oz, dx, dy, dz, reach, *self.as_row())

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The axis-aligned bounding box: ``(min (3,), max (3,))`` [m]."""
        return (np.array([self.x - self.radius, self.y - self.radius, 0.0]),
                np.array([self.x + self.radius, self.y + self.radius, self.height]))


@dataclass(frozen=True)
class Box:
    """A box: ``center`` (3,) [m], ``half_extents`` (3,) > 0 [m] along its own axes, turned
    by ``yaw`` [rad] about the world z axis (counter-clockwise seen from above). A wall, a
    crate, a building."""

    center: tuple[float, float, float]
    half_extents: tuple[float, float, float]
    yaw: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "center", _vector("Box", "center", self.center))
        object.__setattr__(self, "half_extents",
                           _vector("Box", "half_extents", self.half_extents, positive=True))
        object.__setattr__(self, "yaw", check_finite("Box.yaw", self.yaw))

    def as_row(self) -> tuple[float, ...]:
        """Its row of the ``boxes`` array: cx, cy, cz, hx, hy, hz, yaw."""
        return (*self.center, *self.half_extents, self.yaw)

    def distance(self, point: object) -> float:
        """Signed distance [m] from ``point`` (3,) [m] to the surface: negative inside."""
        return geometry.box_distance(*check_point("point", point), *self.as_row())

    def ray_distance(self, origin: object, direction: object, max_range: object) -> float:
        """Distance [m] along the unit ray to the first contact (slab test in the box
        frame); 0 from inside or on the surface, ``inf`` when none within ``max_range``."""
        (ox, oy, oz), (dx, dy, dz), reach = check_ray(origin, direction, max_range)
        return geometry.box_ray_distance(ox, oy, oz, dx, dy, dz, reach, *self.as_row())

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The axis-aligned bounding box of the yawed box: ``(min (3,), max (3,))`` [m]."""
        hx, hy, hz = self.half_extents
        wx, wy = geometry.box_horizontal_half_widths(hx, hy, self.yaw)
        centre, half = np.array(self.center), np.array([wx, wy, hz])
        return centre - half, centre + half


@dataclass(frozen=True)
class Sphere:
    """A sphere: ``center`` (3,) [m], ``radius`` > 0 [m]. A balloon, a boulder, a canopy."""

    center: tuple[float, float, float]
    radius: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "center", _vector("Sphere", "center", self.center))
        object.__setattr__(self, "radius", _within(
            "Sphere.radius", check_positive_float("Sphere.radius", self.radius)))

    def as_row(self) -> tuple[float, ...]:
        """Its row of the ``spheres`` array: cx, cy, cz, radius."""
        return (*self.center, self.radius)

    def distance(self, point: object) -> float:
        """Signed distance [m] from ``point`` (3,) [m] to the surface: negative inside."""
        return geometry.sphere_distance(*check_point("point", point), *self.as_row())

    def ray_distance(self, origin: object, direction: object, max_range: object) -> float:
        """Distance [m] along the unit ray to the first contact; 0 from inside or on the
        surface, ``inf`` when none within ``max_range`` [m]."""
        (ox, oy, oz), (dx, dy, dz), reach = check_ray(origin, direction, max_range)
        return geometry.sphere_ray_distance(ox, oy, oz, dx, dy, dz, reach, *self.as_row())

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The axis-aligned bounding box: ``(min (3,), max (3,))`` [m]."""
        centre = np.array(self.center)
        return centre - self.radius, centre + self.radius


Primitive = Cylinder | Box | Sphere
#: The primitive classes, by the name of their array (see :mod:`.arrays`).
PRIMITIVE_CLASSES = {"cylinders": Cylinder, "boxes": Box, "spheres": Sphere}


def from_row(kind: str, row: object) -> Primitive:
    """The primitive of one row of the ``kind`` array (``"cylinders"``, ``"boxes"``,
    ``"spheres"``), checked as at construction."""
    values = [float(v) for v in np.asarray(row, dtype=np.float64)]
    if kind == "cylinders":
        return Cylinder(*values)
    if kind == "boxes":
        return Box(tuple(values[:3]), tuple(values[3:6]), values[6])
    return Sphere(tuple(values[:3]), values[3])
