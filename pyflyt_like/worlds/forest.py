"""A seeded forest: vertical cylinders (trunks) scattered over a square, a clearing at the
origin for the start."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from pyflyt_like.common.validation import check_non_negative_float, check_positive_int

from .primitives import Cylinder
from .sampling import (
    MAX_PLACEMENT_TRIES,
    as_generator,
    as_pair,
    check_length,
    circle_in_square_area,
    range_field,
    to_dict,
)
from .world import MAX_PRIMITIVES, World

#: The most placement attempts :attr:`Forest.max_tries` may ask for per tree.
MAX_TRIES = 10_000
#: The most trees a forest may expect (:attr:`Forest.expected_trees`): ``n`` with
#: ``n + 6 sqrt(n) = MAX_PRIMITIVES``, so that its Poisson draw passes MAX_PRIMITIVES with a
#: chance below 1e-9 (a forest that expected 99 999 trees failed at half its seeds).
MAX_EXPECTED_TREES = int((math.sqrt(9.0 + MAX_PRIMITIVES) - 3.0) ** 2)


@dataclass(frozen=True)
class Forest:
    """Trees (vertical :class:`~pyflyt_like.worlds.primitives.Cylinder` s on the floor)
    over a square centred on the origin, with a clear disc around the origin.

    Args:
        density: >= 0 [trees/m^2] the mean number of trees per square metre of the square
            outside the clearing.
        radius: (min, max) [m] trunk radii, uniform; a single number for one radius.
        height: [m] tree height, or a (min, max) pair drawn uniformly.
        extent: [m] the side of the square, from ``-extent/2`` to ``extent/2`` in x and y.
        clearing: >= 0 [m] the radius of the disc around the origin that no trunk enters.
        min_gap: >= 0 [m] the least free space between two trunks (0: they may touch).
        max_tries: in [1, 10 000] the placement attempts per tree (see :meth:`generate`).

    Lengths lie in [:data:`~.sampling.MIN_SIZE`, :data:`~.sampling.MAX_LENGTH`] = [1 mm,
    100 km] (clearing and min_gap from 0).

    Raises:
        TypeError, ValueError: naming the field: a negative density, a length out of its
            interval, min > max, or an expected number of trees (:attr:`expected_trees`)
            beyond :data:`MAX_EXPECTED_TREES` (98 120, so that a draw stays within
            :data:`~pyflyt_like.worlds.world.MAX_PRIMITIVES`).
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
        extent = check_length("Forest.extent", self.extent)
        clearing = check_length("Forest.clearing", self.clearing, 0.0)
        min_gap = check_length("Forest.min_gap", self.min_gap, 0.0)
        max_tries = check_positive_int("Forest.max_tries", self.max_tries, MAX_TRIES)
        for name, value in (("density", density), ("radius", radius), ("height", height),
                            ("extent", extent), ("clearing", clearing),
                            ("min_gap", min_gap), ("max_tries", max_tries)):
            object.__setattr__(self, name, value)
        expected = self.expected_trees
        if expected > MAX_EXPECTED_TREES:
            raise ValueError(f"Forest.density={density:g} trees/m^2 over extent={extent:g} m "
                             f"(clearing {clearing:g} m) expects {expected:.4g} trees, more "
                             f"than the {MAX_EXPECTED_TREES} whose Poisson draw stays within "
                             f"MAX_PRIMITIVES={MAX_PRIMITIVES} (6 standard deviations); "
                             "lower density or extent")

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
        ground); so are the trees still to place once the forest has drawn
        :data:`~.sampling.MAX_PLACEMENT_TRIES` positions in all (1 000 000, 2-4 s: only
        a forest far too dense for its trunks gets there). Centres lie in the square; a
        trunk may reach past its edge by its radius. The count is clipped at
        ``MAX_PRIMITIVES``, which the construction's bound makes a 1e-9 chance.

        Raises:
            TypeError, ValueError: a bad ``seed``.
        """
        rng = as_generator(seed)
        # at most MAX_PRIMITIVES, with a chance below 1e-9 of mattering (MAX_EXPECTED_TREES)
        count = min(int(rng.poisson(self.expected_trees)), MAX_PRIMITIVES)
        radii = rng.uniform(*as_pair(self.radius), size=count)
        heights = rng.uniform(*as_pair(self.height), size=count)
        half = 0.5 * self.extent
        # Trunks within one cell of each other are the only candidates for overlap: a grid
        # of cells of the largest spacing keeps each check to nine cells (O(n) overall).
        cell = 2.0 * float(radii.max(initial=0.0)) + self.min_gap
        cell = cell if cell > 0.0 else 1.0
        grid: dict[tuple[int, int], list[int]] = {}
        xs, ys, rs, trees = [], [], [], []
        tries_left = MAX_PLACEMENT_TRIES  # a forest too dense for its trunks ends in time
        for radius, height in zip(radii.tolist(), heights.tolist()):
            if tries_left <= 0:
                break
            for _ in range(min(self.max_tries, tries_left)):
                tries_left -= 1
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
            ran_out = (f", and the forest's {MAX_PLACEMENT_TRIES} positions in all "
                       "(MAX_PLACEMENT_TRIES) ran out" if tries_left <= 0 else "")
            warnings.warn(f"Forest: {count - len(trees)} of {count} trees found no place "
                          f"clear of the others in max_tries={self.max_tries} positions"
                          f"{ran_out} and were left out; lower density, radius or min_gap",
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
