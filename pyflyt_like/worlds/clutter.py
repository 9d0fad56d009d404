"""Seeded clutter: a given number of random boxes, spheres and cylinders over a square,
floating or standing, a clear column at the origin for the start."""

from __future__ import annotations

import math
import reprlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from pyflyt_like.common.validation import check_positive_int, names_text

from .primitives import Box, Cylinder, Primitive, Sphere
from .sampling import (
    MAX_PLACEMENT_TRIES,
    as_generator,
    as_pair,
    check_count,
    check_length,
    range_field,
    to_dict,
    uniform,
)
from .world import MAX_PRIMITIVES, World

#: The obstacle kinds :attr:`Clutter.kinds` may name.
CLUTTER_KINDS = ("box", "cylinder", "sphere")
#: The most placement attempts :attr:`Clutter.max_tries` may ask for per obstacle.
MAX_TRIES = 100_000


@dataclass(frozen=True)
class Clutter:
    """``count`` obstacles of random kind, size and place over a square centred on the
    origin. They may overlap one another (a pile is clutter too); none comes within
    ``clearing`` of the vertical axis through the origin, at any height.

    Args:
        count: the number of obstacles, an integer in [0, MAX_PRIMITIVES].
        extent: [m] the side of the square the obstacles' centres are drawn over.
        size: (min, max) [m]: a sphere's or a cylinder's radius, each half extent of
            a box, uniform; a single number for one size.
        height: (min, max) [m] the cylinders' heights (they stand on the floor).
        altitude: (min, max) [m] >= 0 the height of the boxes' and spheres' centres (a box
            or sphere whose centre is lower than its size rests on, or sinks into, the
            floor).
        kinds: the kinds to draw from, uniformly: a non-empty subset of ``("box",
            "cylinder", "sphere")``.
        clearing: >= 0 [m] the radius of the clear column at the origin; less than
            ``extent / 2``.
        max_tries: in [1, 100 000] the positions drawn per obstacle before giving up (see
            :meth:`generate`).

    Lengths lie in [:data:`~.sampling.MIN_SIZE`, :data:`~.sampling.MAX_LENGTH`] = [1 mm,
    100 km] (altitude and clearing from 0).

    Raises:
        TypeError, ValueError: naming the field, for any value out of its range.
    """

    count: int = 30
    extent: float = 20.0
    size: tuple[float, float] | float = (0.2, 1.0)
    height: tuple[float, float] | float = (0.5, 4.0)
    altitude: tuple[float, float] | float = (0.0, 4.0)
    kinds: tuple[str, ...] = CLUTTER_KINDS
    clearing: float = 1.5
    max_tries: int = 1000

    def __post_init__(self) -> None:
        count = check_count("Clutter.count", self.count, MAX_PRIMITIVES)
        extent = check_length("Clutter.extent", self.extent)
        size = range_field("Clutter.size", self.size)
        height = range_field("Clutter.height", self.height)
        altitude = range_field("Clutter.altitude", self.altitude, minimum=0.0)
        kinds = self.kinds
        if isinstance(kinds, str) or not isinstance(kinds, (list, tuple)):
            raise TypeError(f"Clutter.kinds must be a list of kinds from "
                            f"{list(CLUTTER_KINDS)}, got {reprlib.repr(kinds)}")
        if len(kinds) > len(CLUTTER_KINDS):  # before the list is looked through
            raise ValueError(f"Clutter.kinds must name each kind at most once, got "
                             f"{len(kinds)} kinds")
        unknown = [kind for kind in kinds if kind not in CLUTTER_KINDS]
        if unknown:
            raise ValueError(f"Clutter.kinds has unknown kinds {names_text(unknown)}; kinds "
                             f"are {list(CLUTTER_KINDS)}")
        if not kinds or len(set(kinds)) != len(kinds):
            raise ValueError(f"Clutter.kinds must name each kind at most once and at least "
                             f"one, got {list(kinds)}")
        clearing = check_length("Clutter.clearing", self.clearing, 0.0)
        if clearing >= 0.5 * extent:
            raise ValueError(f"Clutter.clearing={clearing:g} m must be less than extent / 2 "
                             f"= {0.5 * extent:g} m")
        max_tries = check_positive_int("Clutter.max_tries", self.max_tries, MAX_TRIES)
        values = dict(count=count, extent=extent, size=size, height=height,
                      altitude=altitude, kinds=tuple(kinds), clearing=clearing,
                      max_tries=max_tries)
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def generate(self, seed: int | np.random.Generator) -> World:
        """The clutter of ``seed`` (an int in [0, 2**63) or a numpy Generator): the same
        seed gives the same world, to the bit.

        Each obstacle in turn draws its kind, its sizes (a box also a yaw uniform in
        [-pi, pi)) and its height or altitude, then positions of its centre uniform over
        the square until its axis-aligned bounds keep ``clearing`` from the origin's
        vertical axis. Every obstacle is placed (``clearing < extent / 2`` leaves the
        square's corners free); an obstacle too large to fit beside the clearing after
        ``max_tries`` positions raises, and so do obstacles that need more than
        :data:`~.sampling.MAX_PLACEMENT_TRIES` positions in all (1 000 000, about 2 s).

        Raises:
            TypeError, ValueError: a bad ``seed``; an obstacle that found no place.
        """
        rng = as_generator(seed)
        size, height, altitude = (as_pair(v) for v in (self.size, self.height, self.altitude))
        half = 0.5 * self.extent
        obstacles: list[Primitive] = []
        tries_left = MAX_PLACEMENT_TRIES  # obstacles that hardly fit end in time
        for number in range(self.count):
            kind = self.kinds[int(rng.integers(len(self.kinds)))]
            if kind == "box":
                extents = (uniform(rng, size), uniform(rng, size), uniform(rng, size))
                yaw = -math.pi + 2.0 * math.pi * float(rng.random())
                z = uniform(rng, altitude)
                reach = Box((0.0, 0.0, z), extents, yaw).bounds()[1][:2]
            elif kind == "sphere":
                radius, z = uniform(rng, size), uniform(rng, altitude)
                reach = (radius, radius)
            else:
                radius, tall = uniform(rng, size), uniform(rng, height)
                reach = (radius, radius)
            for _ in range(min(self.max_tries, tries_left)):
                tries_left -= 1
                u, v = rng.random(2).tolist()
                x, y = -half + self.extent * u, -half + self.extent * v
                # the horizontal distance from the origin to the bounds' rectangle
                gap_x = max(abs(x) - reach[0], 0.0)
                gap_y = max(abs(y) - reach[1], 0.0)
                if gap_x * gap_x + gap_y * gap_y >= self.clearing ** 2:
                    break
            else:
                if tries_left <= 0:
                    raise ValueError(f"Clutter: the obstacles drew {MAX_PLACEMENT_TRIES} "
                                     f"positions in all (MAX_PLACEMENT_TRIES) and "
                                     f"{self.count - number} of count={self.count} are still "
                                     f"to place clear of clearing={self.clearing:g} m; lower "
                                     "size, clearing or count, or raise extent")
                raise ValueError(f"Clutter: obstacle {number} ({kind}) found no place "
                                 f"clear of clearing={self.clearing:g} m in "
                                 f"max_tries={self.max_tries} positions; lower size or "
                                 f"clearing, or raise extent")
            if kind == "box":
                obstacles.append(Box((x, y, z), extents, yaw))
            elif kind == "sphere":
                obstacles.append(Sphere((x, y, z), radius))
            else:
                obstacles.append(Cylinder(x, y, radius, tall))
        return World(obstacles)

    def to_dict(self) -> dict[str, Any]:
        """The fields as YAML-ready values (see :func:`pyflyt_like.worlds.files.load_world`)."""
        return to_dict(self)

