"""A seeded forest: vertical cylinders (trunks) scattered over a square, a clearing at the
origin for the start."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from pyflyt_like.common.validation import (
    check_non_negative_float,
    check_positive_float,
    check_positive_int,
)

from .primitives import Cylinder
from .sampling import as_generator, as_pair, circle_in_square_area, range_field, to_dict
from .world import MAX_PRIMITIVES, World

#: The most placement attempts :attr:`Forest.max_tries` may ask for per tree.
MAX_TRIES = 10_000


@dataclass(frozen=True)
class Forest:
    """Trees (vertical :class:`~pyflyt_like.worlds.primitives.Cylinder` s on the floor)
    over a square centred on the origin, with a clear disc around the origin.

    Args:
        density: >= 0 [trees/m^2] the mean number of trees per square metre of the square
            outside the clearing.
        radius: (min, max) [m] > 0 trunk radii, uniform; a single number for one radius.
        height: [m] > 0 tree height, or a (min, max) pair drawn uniformly.
        extent: > 0 [m] the side of the square, from ``-extent/2`` to ``extent/2`` in x and y.
        clearing: >= 0 [m] the radius of the disc around the origin that no trunk enters.
        min_gap: >= 0 [m] the least free space between two trunks (0: they may touch).
        max_tries: > 0 the placement attempts per tree (see :meth:`generate`).

    Raises:
        TypeError, ValueError: naming the field: a negative density or size, min > max, a
            negative clearing, ``extent <= 0``, or an expected number of trees
            (``density * extent**2``) beyond :data:`~pyflyt_like.worlds.world.MAX_PRIMITIVES`.
    """

    density: float
    radius: tuple[float, float] | float = (0.1, 0.3)
    height: tuple[float, float] | float = 6.0
    extent: float = 50.0
    clearing: float = 2.0
    min_gap: float = 0.0
    max_tries: int = 100

    def __post_init__(self) -> None:
        density = check_non_negative_float("Forest.density", self.density)
        radius = range_field("Forest.radius", self.radius)
        height = range_field("Forest.height", self.height)
        extent = check_positive_float("Forest.extent", self.extent)
        clearing = check_non_negative_float("Forest.clearing", self.clearing)
        min_gap = check_non_negative_float("Forest.min_gap", self.min_gap)
        max_tries = check_positive_int("Forest.max_tries", self.max_tries, MAX_TRIES)
        if density * extent * extent > MAX_PRIMITIVES:
            raise ValueError(f"Forest.density={density:g} trees/m^2 over extent={extent:g} m "
                             f"expects {density * extent * extent:.0f} trees, more than "
                             f"MAX_PRIMITIVES={MAX_PRIMITIVES}")
        for name, value in (("density", density), ("radius", radius), ("height", height),
                            ("extent", extent), ("clearing", clearing),
                            ("min_gap", min_gap), ("max_tries", max_tries)):
            object.__setattr__(self, name, value)

    @property
    def area(self) -> float:
        """The area [m^2] trees are scattered over: the square minus the clearing disc."""
        return self.extent ** 2 - circle_in_square_area(self.clearing, 0.5 * self.extent)

    @property
    def expected_trees(self) -> float:
        """The mean number of trees, ``density * area``."""
        return self.density * self.area

    def generate(self, seed: int | np.random.Generator) -> World:
        """The forest of ``seed`` (an int in [0, 2**63) or a numpy Generator): the same seed
        gives the same world, to the bit.

        The number of trees is Poisson with mean :attr:`expected_trees`, so that a forest
        is a Poisson process of ``density`` (a fixed count would make every seed's forest
        alike). Each tree in turn draws its radius and height, then positions of its
        centre uniform over the square; a position is rejected if the trunk would enter
        the clearing (centre closer than ``clearing + radius`` to the vertical axis
        through the origin) or come closer than ``min_gap`` to a trunk already placed. A
        tree whose ``max_tries`` positions are all rejected is left out, with a
        ``RuntimeWarning`` (only in dense forests, where trunks cover a large share of the
        ground). Centres lie in the square; a trunk may reach past its edge by its radius.

        Raises:
            TypeError, ValueError: a bad ``seed``; a draw of more than MAX_PRIMITIVES trees.
        """
        rng = as_generator(seed)
        count = int(rng.poisson(self.expected_trees))
        if count > MAX_PRIMITIVES:
            raise ValueError(f"Forest drew {count} trees, more than MAX_PRIMITIVES="
                             f"{MAX_PRIMITIVES}; lower density or extent")
        radii = rng.uniform(*as_pair(self.radius), size=count)
        heights = rng.uniform(*as_pair(self.height), size=count)
        half = 0.5 * self.extent
        # Trunks within one cell of each other are the only candidates for overlap: a grid
        # of cells of the largest spacing keeps each check to nine cells (O(n) overall).
        cell = 2.0 * float(radii.max(initial=0.0)) + self.min_gap
        cell = cell if cell > 0.0 else 1.0
        grid: dict[tuple[int, int], list[int]] = {}
        xs, ys, rs, trees = [], [], [], []
        for radius, height in zip(radii.tolist(), heights.tolist()):
            for _ in range(self.max_tries):
                u, v = rng.random(2).tolist()
                x, y = -half + self.extent * u, -half + self.extent * v
                if x * x + y * y < (self.clearing + radius) ** 2:
                    continue
                key = (math.floor(x / cell), math.floor(y / cell))
                if _overlaps(x, y, radius + self.min_gap, key, grid, xs, ys, rs):
                    continue
                grid.setdefault(key, []).append(len(xs))
                xs.append(x)
                ys.append(y)
                rs.append(radius)
                trees.append(Cylinder(x, y, radius, height))
                break
        if len(trees) < count:
            warnings.warn(f"Forest: {count - len(trees)} of {count} trees found no place "
                          f"clear of the others in max_tries={self.max_tries} positions and "
                          f"were left out; lower density, radius or min_gap",
                          RuntimeWarning, stacklevel=2)
        return World(trees)

    def to_dict(self) -> dict[str, Any]:
        """The fields as YAML-ready values (see :func:`pyflyt_like.worlds.files.load_world`)."""
        return to_dict(self)



def _overlaps(x: float, y: float, reach: float, key: tuple[int, int],
              grid: dict[tuple[int, int], list[int]], xs: list[float], ys: list[float],
              rs: list[float]) -> bool:
    """Whether a trunk at ``(x, y)`` with radius plus gap ``reach`` [m] comes closer than
    allowed to a placed trunk of the nine cells around ``key``."""
    i, j = key
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            for k in grid.get((i + di, j + dj), ()):
                limit = reach + rs[k]
                dx, dy = x - xs[k], y - ys[k]
                if dx * dx + dy * dy < limit * limit:
                    return True
    return False
