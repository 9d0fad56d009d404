"""What the world generators share: their seed, their checked ranges, their dict form."""

from __future__ import annotations

import dataclasses
import math
import reprlib
from typing import Any

import numpy as np

from pyflyt_like.common.validation import check_finite, check_float_in, check_int, check_seed

#: The longest length a generator takes [m] (an extent, a size, a height, a gap, a
#: clearing): 100 km. Every coordinate and size it makes then stays finite (a room of
#: 1e308 m made walls at inf), and well within the 10^6 m where the engines' grids are exact.
MAX_LENGTH = 100_000.0
#: The least size a generator takes [m] (a radius, a half extent, a wall, a height): 1 mm,
#: the step the engines round redrawn sizes to (a 1e-320 m trunk overflowed the forest's
#: placement cells).
MIN_SIZE = 0.001
#: The most positions a generator draws in all to place its obstacles (each tested against
#: the clearing and, in a forest, the trunks near it; 1-2 us each in clutter, 2-6 us among
#: dense trunks: 2-4 s in all). A forest too dense for its trunks (where each tree tries
#: ``max_tries`` positions) or clutter too large for its square ends there instead of
#: running for hours; a 97 000-tree forest covering 40 % of its ground needs 670 000.
MAX_PLACEMENT_TRIES = 1_000_000


def as_generator(seed: object) -> np.random.Generator:
    """The random generator of a world: a new PCG64 seeded with the int ``seed`` (in
    [0, 2**63)), or ``seed`` itself if it is a numpy Generator (which it then advances).

    Raises:
        TypeError: ``seed`` is neither (``None`` included: a world is always seeded, so
            the same seed gives the same world).
        ValueError: a negative or too large int.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        raise TypeError("seed must be an integer >= 0 or a numpy Generator, got None "
                        "(a world is always seeded: pass e.g. seed=0)")
    return np.random.default_rng(check_seed("seed", seed))


def check_length(name: str, value: object, minimum: float = MIN_SIZE) -> float:
    """``value`` as a length [m] in ``[minimum, MAX_LENGTH]`` (a generator's extent, size,
    gap or clearing), else a TypeError/ValueError naming it and the interval."""
    return check_float_in(name, value, minimum, MAX_LENGTH, unit=" m")


def check_range(name: str, value: object, *, minimum: float = MIN_SIZE,
                unit: str = "m") -> tuple[float, float]:
    """``value`` as a ``(min, max)`` pair of numbers in ``[minimum, MAX_LENGTH]`` with
    ``min <= max``; a single number ``v`` is ``(v, v)``.

    Raises:
        TypeError: not a number nor a pair of numbers.
        ValueError: an entry out of range or non-finite, ``min > max``.
    """
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise ValueError(f"{name} must be a number or a (min, max) pair [{unit}], got "
                             f"{len(value)} entries: {reprlib.repr(list(value))}")
        pair = (check_finite(f"{name}[0]", value[0]), check_finite(f"{name}[1]", value[1]))
    else:
        try:
            number = check_finite(name, value)
        except TypeError:
            raise TypeError(f"{name} must be a number or a (min, max) pair [{unit}], got "
                            f"{reprlib.repr(value)}") from None
        pair = (number, number)
    for i, entry in enumerate(pair):
        if not minimum <= entry <= MAX_LENGTH:
            raise ValueError(f"{name} must have entries in [{minimum:g}, {MAX_LENGTH:g}] "
                             f"{unit}, got {name}[{i}]={entry:g}")
    if pair[0] > pair[1]:
        raise ValueError(f"{name} must be (min, max) with min <= max [{unit}], got "
                         f"({pair[0]:g}, {pair[1]:g})")
    return pair


def range_field(name: str, value: object, *, minimum: float = MIN_SIZE
                ) -> tuple[float, float] | float:
    """A generator's range field checked (:func:`check_range`) and kept in its form: a
    number stays a float, a pair becomes a tuple."""
    pair = check_range(name, value, minimum=minimum)
    return pair if isinstance(value, (list, tuple)) else pair[0]


def as_pair(value: tuple[float, float] | float) -> tuple[float, float]:
    """A checked range field as ``(min, max)``."""
    return value if isinstance(value, tuple) else (value, value)


def check_count(name: str, value: object, maximum: int) -> int:
    """``value`` as an int in ``[0, maximum]``, else a TypeError/ValueError naming it."""
    number = check_int(name, value)
    if not 0 <= number <= maximum:
        raise ValueError(f"{name} must be an integer in [0, {maximum}], got {number}")
    return number


def uniform(rng: np.random.Generator, pair: tuple[float, float]) -> float:
    """One draw uniform in ``[min, max)`` (``min`` for an empty range); it always consumes
    one number from ``rng``, so the stream does not depend on the ranges."""
    low, high = pair
    return low + (high - low) * float(rng.random())


def to_dict(generator: Any) -> dict[str, Any]:
    """A generator's fields as plain YAML-ready values (tuples as lists)."""
    values = {}
    for spec in dataclasses.fields(generator):
        value = getattr(generator, spec.name)
        values[spec.name] = list(value) if isinstance(value, tuple) else value
    return values


def circle_in_square_area(radius: float, half_side: float) -> float:
    """Area [m^2] of the part of a disc of ``radius`` inside a square of half side
    ``half_side`` with the same centre: the disc minus the four circular segments beyond
    the sides, until the disc covers the square."""
    if radius <= half_side:
        return math.pi * radius * radius
    if radius >= half_side * math.sqrt(2.0):
        return 4.0 * half_side * half_side
    segment = (radius * radius * math.acos(half_side / radius)
               - half_side * math.sqrt(radius * radius - half_side * half_side))
    return math.pi * radius * radius - 4.0 * segment
