"""Bad input to the worlds: every refusal a TypeError or ValueError naming the argument or
the field (or the file) and what is allowed, before any work, and in time; never a
MemoryError, an OverflowError, a UnicodeDecodeError or a hang."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

from pyflyt_like.worlds import (
    MAX_PRIMITIVES,
    Box,
    Clutter,
    Cylinder,
    Forest,
    Rooms,
    Sphere,
    World,
    clutter,
    forest,
    load_spec,
    load_world,
    pack_layouts,
)

TRUNK = Cylinder(0.0, 0.0, 0.2, 3.0)
SLAB = World([Box((0.0, 0.0, 1.0), (400.0, 400.0, 1.0))])


@pytest.mark.parametrize(("call", "error", "match"), [
    # consumed up to one past the limit: neither stored whole nor looped over for ever
    (lambda: World(itertools.repeat(TRUNK, 10**10)), ValueError,
     r"primitives holds more than MAX_PRIMITIVES=100000 primitives"),
    (lambda: World(itertools.repeat(TRUNK)), ValueError, "more than MAX_PRIMITIVES=100000"),
    (lambda: World.from_arrays({"cylinders": np.ones((MAX_PRIMITIVES + 1, 4))}), ValueError,
     r"arrays hold 100001 rows in all, more than MAX_PRIMITIVES=100000"),
    (lambda: World.from_arrays({"cylinders": [["a", "b", "c", "d"]]}), TypeError,
     r'arrays\["cylinders"\] must be a numeric array of shape \(n, 4\)'),
    # the candidates of the start rule: 3e8 of them ran for half an hour
    (lambda: SLAB.nearest_free((0, 0, 1), 0.1, max_shift=500.0, resolution=0.05), ValueError,
     r"max_shift / resolution must be at most MAX_RINGS=200 \(rings of candidates, about "
     r"126,392 points\), got max_shift=500 m / resolution=0.05 m = 1e\+04"),
    (lambda: SLAB.nearest_free((0, 0, 1), 0.1, max_shift=10.1, resolution=0.05), ValueError,
     "MAX_RINGS=200"),
    # the generators' lengths: finite geometry, within MAX_LENGTH
    (lambda: Forest(density=0, extent=1e200), ValueError,
     r"Forest\.extent must be a number in \[0\.001, 100000\] m, got 1e\+200"),
    (lambda: Rooms(room_size=1e308), ValueError,
     r"Rooms\.room_size must be a number in \[0\.001, 100000\] m, got 1e\+308"),
    (lambda: Rooms(grid=(100, 100), room_size=1001.0), ValueError,
     r"Rooms: the building's footprint \(100100, 100100\) m .* must be at most "
     r"MAX_LENGTH=100000 m"),
    (lambda: Forest(0.1, radius=1e-320), ValueError,
     r"Forest\.radius must have entries in \[0\.001, 100000\] m, got Forest\.radius\[0\]="),
    # a forest whose Poisson draw could pass MAX_PRIMITIVES (99 999 expected: half its seeds)
    (lambda: Forest(0.1, extent=1000.0), ValueError,
     r"Forest\.density=0\.1 trees/m\^2 over extent=1000 m \(clearing 2 m\) expects 1e\+05 "
     r"trees, more than the 98120 whose Poisson draw stays within MAX_PRIMITIVES=100000"),
    (lambda: Forest(1e308), ValueError, "expects inf trees"),
    # a primitive's coordinates and sizes: finite was not enough for the engines' grids
    (lambda: Cylinder(1e308, 0.0, 1.0, 1.0), ValueError,
     r"Cylinder\.x must be within 1e\+06 m in absolute value \(MAX_COORDINATE\), got 1e\+308"),
    (lambda: Box((0.0, 0.0, 1.0), (1e308, 1.0, 1.0)), ValueError,
     r"Box\.half_extents must be within 1e\+06 m"),
    (lambda: Sphere((0.0, -2e6, 1.0), 1.0), ValueError, r"Sphere\.center must be within"),
    (lambda: Sphere((0.0, 0.0, 1.0), 2e6), ValueError, r"Sphere\.radius must be within"),
    (lambda: load_world({"primitives": [{"cylinder": {"x": 0, "y": 0, "radius": 1e300,
                                                      "height": 1}}]}), ValueError,
     r"primitives\[0\]: Cylinder\.radius must be within 1e\+06 m"),
    (lambda: Clutter(kinds=["box"] * 10**7), ValueError,
     r"Clutter\.kinds must name each kind at most once, got 10000000 kinds"),
])
def test_bad_input_is_named(call, error, match):
    with pytest.raises(error, match=match):
        call()


# Every numeric field of every generator at the values a careless caller gives.
_FIELDS = {
    Forest: {"density": 0.1, "radius": 0.2, "height": 6.0, "extent": 50.0, "clearing": 2.0,
             "min_gap": 0.0, "max_tries": 100},
    Rooms: {"room_size": 6.0, "corridor_width": 2.0, "wall_height": 3.0,
            "wall_thickness": 0.2, "door_width": 1.2, "door_height": 2.2, "extra_doors": 0.25,
            "exits": 1},
    Clutter: {"count": 30, "extent": 20.0, "size": 0.5, "height": 2.0, "altitude": 1.0,
              "clearing": 1.5, "max_tries": 1000},
}
_INTS = {"max_tries", "count", "exits"}
_BAD_REALS = [(-1.0, ValueError), (math.nan, ValueError), (math.inf, ValueError),
              (1e308, ValueError), (10**400, ValueError), (True, TypeError), ("1", TypeError),
              (None, TypeError)]
_BAD_INTS = [(-1, ValueError), (10**400, ValueError), (1.5, TypeError), (math.nan, TypeError),
             (True, TypeError), ("1", TypeError), (None, TypeError)]


@pytest.mark.parametrize(("generator", "field", "value", "error"), [
    (generator, field, value, error) for generator, fields in _FIELDS.items()
    for field in fields for value, error in (_BAD_INTS if field in _INTS else _BAD_REALS)])
def test_every_numeric_field_refuses_bad_values_naming_itself(generator, field, value, error):
    fields = dict(_FIELDS[generator])
    fields[field] = value
    with pytest.raises(error, match=rf"{generator.__name__}\.{field}"):
        generator(**fields)
    fields[field] = _FIELDS[generator][field]
    generator(**fields).generate(0)  # the valid fields make a world


def test_primitives_at_the_coordinate_bound_pack_into_a_finite_grid():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow in the grid's spans
        pool = pack_layouts([World([Box((0.0, 0.0, 1.0), (1e6, 1e6, 1e6)),
                                    Cylinder(1e6, -1e6, 1e6, 1e6),
                                    Sphere((-1e6, 1e6, 1e6), 1e6)])])
    assert math.isfinite(pool.cell_size) and pool.cells.min() >= 1


def test_a_forest_too_dense_for_its_trunks_ends_at_its_placement_budget(monkeypatch):
    monkeypatch.setattr(forest, "MAX_PLACEMENT_TRIES", 20_000)  # the real one takes 2-4 s
    jammed = Forest(density=39.0, extent=50.0, max_tries=10_000)  # 97 000 trees to place
    with pytest.warns(RuntimeWarning, match=r"trees found no place clear of the others in "
                                            r"max_tries=10000 positions, and the forest's "
                                            r"20000 positions in all \(MAX_PLACEMENT_TRIES\) "
                                            r"ran out and were left out"):
        world = jammed.generate(0)
    assert 0 < len(world) < 20_000
    with warnings.catch_warnings():  # a forest that fits never meets the budget
        warnings.simplefilter("error")
        assert len(Forest(0.1).generate(0)) == len(Forest(0.1).generate(0))


def test_clutter_that_hardly_fits_ends_at_its_placement_budget(monkeypatch):
    monkeypatch.setattr(clutter, "MAX_PLACEMENT_TRIES", 5_000)
    tight = Clutter(count=100_000, extent=10.0, size=1.0, kinds=["sphere"], clearing=4.0,
                    max_tries=100_000)  # about 5 positions per sphere
    with pytest.raises(ValueError, match=r"Clutter: the obstacles drew 5000 positions in all "
                                         r"\(MAX_PLACEMENT_TRIES\) and \d+ of count=100000 are "
                                         r"still to place"):
        tight.generate(0)


def test_the_largest_accepted_sizes_draw_within_the_primitive_limit():
    world = Forest(0.098, extent=1000.0).generate(1)  # ~98 000 trees, the most expected
    assert 95_000 < len(world) <= MAX_PRIMITIVES


@pytest.mark.parametrize(("content", "error", "match"), [
    (bytes(range(256)) * 4, ValueError, r"bad\.yaml is not a UTF-8 text file"),
    (b'a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]\n'
     + b"".join(b"%c: &%c [%s]\n" % (n, n, b", ".join([b"*%c" % p] * 9))
                for p, n in zip(b"abcdefgh", b"bcdefghi"))
     + b"forest: *i\n", ValueError, r"bad\.yaml: its aliases \(\*name\) repeat"),
    (b"forest: " + b"[" * 100 + b"]" * 100 + b"\n", ValueError, "nested deeper than 32"),
    (b"forest: [" + b", ".join([b"1"] * 5000) + b"]\n", TypeError,
     r"bad\.yaml: forest must be a mapping of its fields, got \[1, 1, 1, 1, 1, 1, \.\.\.\]"),
])
def test_a_bad_world_file_is_named_and_refused_at_once(tmp_path, content, error, match):
    path = tmp_path / "bad.yaml"
    path.write_bytes(content)
    for read in (load_world, load_spec):
        with pytest.raises(error, match=match):
            read(path)
