"""The seeded generators: forest statistics (count, clearing, radii, no overlap, speed),
the rooms' doors connect every room, clutter's count and clearing, reproducible seeds,
and the checks that name the field."""

from __future__ import annotations

import math
from collections import deque

import numpy as np
import pytest

from pyflyt_like.worlds import Clutter, Forest, Rooms, World
from pyflyt_like.worlds.rooms import MAX_ROOMS_PER_SIDE
from pyflyt_like.worlds.sampling import circle_in_square_area
from pyflyt_like.worlds.world import MAX_PRIMITIVES


# -------------------------------------------------------------------------------- forest
@pytest.mark.parametrize("seed", range(5))
def test_the_forest_is_a_poisson_forest_of_its_density(seed):
    forest = Forest(0.1, radius=(0.1, 0.3), height=(4.0, 8.0), extent=50.0, clearing=3.0)
    expected = 0.1 * (50.0 ** 2 - math.pi * 3.0 ** 2)
    assert forest.expected_trees == pytest.approx(expected)
    trees = forest.generate(seed).to_arrays()["cylinders"]
    assert abs(len(trees) - expected) <= 3.0 * math.sqrt(expected)
    x, y, r, h = trees.T
    assert np.all((r >= 0.1) & (r <= 0.3)) and np.all((h >= 4.0) & (h <= 8.0))
    assert np.all(np.abs(x) <= 25.0) and np.all(np.abs(y) <= 25.0)
    assert np.all(np.hypot(x, y) >= 3.0 + r)  # no trunk enters the clearing
    gaps = np.hypot(x[:, None] - x, y[:, None] - y) - (r[:, None] + r)
    np.fill_diagonal(gaps, np.inf)
    assert gaps.min() >= 0.0  # no two trunks overlap


def test_trunks_keep_min_gap_apart():
    trees = Forest(0.3, radius=0.2, min_gap=0.5, extent=20.0).generate(0).to_arrays()
    x, y, r, _ = trees["cylinders"].T
    gaps = np.hypot(x[:, None] - x, y[:, None] - y) - (r[:, None] + r)
    np.fill_diagonal(gaps, np.inf)
    assert gaps.min() >= 0.5 and len(x) > 50


def test_a_forest_of_250_trees_is_the_same_for_the_same_seed():
    forest = Forest(0.1, radius=(0.1, 0.3), height=6.0, extent=50.0, clearing=2.0)
    worlds = [forest.generate(seed) for seed in (0, 1, 0)]
    assert all(200 < len(world) < 300 for world in worlds)
    assert worlds[0] == worlds[2] and worlds[0] != worlds[1]


def test_a_forest_too_dense_for_its_trunks_leaves_trees_out_and_says_so():
    with pytest.warns(RuntimeWarning, match="trees found no place"):
        world = Forest(2.0, radius=0.4, extent=10.0, clearing=0.0, max_tries=20).generate(0)
    assert 0 < len(world) < 200


def test_the_free_area_is_the_square_minus_the_clearing():
    for clearing in (0.0, 2.0, 5.0, 6.0, 7.5):  # inside, past the sides, over the square
        forest = Forest(1.0, extent=10.0, clearing=clearing)
        grid = (np.arange(2000) + 0.5) / 2000 * 10.0 - 5.0
        outside = np.hypot(grid[:, None], grid[None, :]) >= clearing
        assert forest.area == pytest.approx(outside.mean() * 100.0, abs=0.05)
    assert circle_in_square_area(1.0, 2.0) == pytest.approx(math.pi)


# --------------------------------------------------------------------------------- rooms
def _lintels(world: World) -> list:
    return [b for b in world.boxes if b.center[2] - b.half_extents[2] > 0.0]


def _reachable_cells(world: World, rooms: Rooms, step: float = 0.25, radius: float = 0.15):
    """The cells of a grid at 1 m height whose centres are free for a sphere of
    ``radius``, and those connected (4-neighbours) to the cell nearest the origin."""
    fx, fy = rooms.footprint
    xs = np.arange(-fx / 2 + step / 2, fx / 2, step)
    ys = np.arange(-fy / 2 + step / 2, fy / 2, step)
    free = np.array([[world.free_start((x, y, 1.0), radius) for y in ys] for x in xs])
    start = (int(np.argmin(np.abs(xs))), int(np.argmin(np.abs(ys))))
    assert free[start]
    seen, queue = {start}, deque([start])
    while queue:
        i, j = queue.popleft()
        for cell in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)):
            if (0 <= cell[0] < len(xs) and 0 <= cell[1] < len(ys) and free[cell]
                    and cell not in seen):
                seen.add(cell)
                queue.append(cell)
    return free, seen


@pytest.mark.parametrize("rooms", [
    Rooms(grid=(3, 3), room_size=5.0, extra_doors=0.0),
    Rooms(grid=(3, 3), room_size=(5.0, 4.0), corridor_width=1.5, extra_doors=0.0),
])
def test_every_room_and_corridor_is_reachable_through_the_doors(rooms):
    world = rooms.generate(7)
    free, reached = _reachable_cells(world, rooms)
    assert len(reached) == free.sum()  # every free cell inside the building is reached
    # a spanning tree: one door fewer than spaces, each door a lintel over its gap
    columns, rows = rooms.grid
    spaces = columns * rows + (rows - 1 if rooms.corridor_width > 0 else 0)
    assert len(_lintels(world)) == spaces - 1


def test_walls_doors_exits_and_ceiling():
    rooms = Rooms(grid=(2, 3), room_size=4.0, extra_doors=1.0, exits=2, ceiling=True,
                  wall_height=3.0, wall_thickness=0.2, door_width=1.0, door_height=2.0)
    world = rooms.generate(0)
    inner = 2 * 2 + 3 * 1  # walls between rooms: along x (2 columns x 2), along y (3 rows)
    lintels = _lintels(world)
    ceiling = [b for b in lintels if b.half_extents[0] > 2.0 and b.half_extents[1] > 2.0]
    assert len(ceiling) == 1 and ceiling[0].center[2] == pytest.approx(3.1)
    assert len(lintels) - 1 == inner + 2  # every inner wall has a door, and two exits
    for lintel in lintels[:-1]:
        assert lintel.center[2] - lintel.half_extents[2] == pytest.approx(2.0)
        assert 2.0 * max(lintel.half_extents[:2]) == pytest.approx(1.0)  # the door's width
    low, high = world.bounds()
    np.testing.assert_allclose(low, [-4.1, -6.1, 0.0])
    np.testing.assert_allclose(high, [4.1, 6.1, 3.2])
    assert all(b.yaw == 0.0 for b in world.boxes)


def test_the_origin_is_in_the_middle_room():
    world = Rooms().generate(0)
    assert world.distance((0.0, 0.0, 1.0)) == pytest.approx(3.0 - 0.1)


def test_the_largest_building_stays_within_max_primitives():
    biggest = Rooms(grid=(MAX_ROOMS_PER_SIDE,) * 2, corridor_width=2.0)
    segments, _ = biggest._segments()
    assert 3 * len(segments) + 1 <= MAX_PRIMITIVES


# ------------------------------------------------------------------------------- clutter
def test_clutter_places_every_obstacle_outside_the_clear_column():
    clutter = Clutter(count=60, extent=12.0, size=(0.2, 0.8), height=(1.0, 3.0),
                      altitude=(0.5, 3.0), clearing=2.0)
    world = clutter.generate(4)
    assert len(world) == 60
    kinds = {type(p).__name__ for p in world.primitives}
    assert kinds == {"Box", "Cylinder", "Sphere"}
    for primitive in world.primitives:
        low, high = primitive.bounds()
        gap = np.maximum(np.maximum(low[:2], -high[:2]), 0.0)  # origin to the rectangle
        assert math.hypot(*gap) >= 2.0
    for cylinder in world.cylinders:
        assert 0.2 <= cylinder.radius <= 0.8 and 1.0 <= cylinder.height <= 3.0
    for sphere in world.spheres:
        assert 0.2 <= sphere.radius <= 0.8 and 0.5 <= sphere.center[2] <= 3.0
    for box in world.boxes:
        assert all(0.2 <= h <= 0.8 for h in box.half_extents) and -math.pi <= box.yaw < math.pi
    assert world.free_start((0.0, 0.0, 1.0), 2.0)


def test_clutter_of_one_kind():
    world = Clutter(count=10, kinds=["sphere"]).generate(0)
    assert len(world.spheres) == 10


# ----------------------------------------------------------------------------- the seeds
GENERATORS = [Forest(0.1, extent=30.0), Rooms(corridor_width=2.0, exits=1), Clutter()]


@pytest.mark.parametrize("generator", GENERATORS, ids=lambda g: type(g).__name__)
def test_the_same_seed_gives_the_same_world_to_the_bit(generator):
    first, again = generator.generate(11).to_arrays(), generator.generate(11).to_arrays()
    for kind in first:
        assert first[kind].tobytes() == again[kind].tobytes()
    other = generator.generate(12).to_arrays()
    assert any(first[k].tobytes() != other[k].tobytes() for k in first)
    # a Generator is used as it is, and advanced
    rng = np.random.default_rng(11)
    assert generator.generate(rng) == generator.generate(11)
    assert generator.generate(rng) != generator.generate(11)


@pytest.mark.parametrize(("seed", "error", "match"), [
    (None, TypeError, "a world is always seeded"), (-1, ValueError, "seed must be"),
    (1.5, TypeError, "seed must be"), ("3", TypeError, "seed must be"),
    (True, TypeError, "seed must be")])
def test_a_bad_seed_is_named(seed, error, match):
    with pytest.raises(error, match=match):
        Forest(0.1).generate(seed)


# ---------------------------------------------------------------------------- the checks
@pytest.mark.parametrize(("make", "error", "match"), [
    (lambda: Forest(-0.1), ValueError, r"Forest\.density must be a finite number >= 0"),
    (lambda: Forest("0.1"), TypeError, r"Forest\.density"),
    (lambda: Forest(0.1, radius=(0.3, 0.1)), ValueError, r"Forest\.radius must be \(min, max\)"),
    (lambda: Forest(0.1, radius=(0.0, 0.1)), ValueError,
     r"Forest\.radius must have entries in \[0\.001, 100000\] m, got Forest\.radius\[0\]=0"),
    (lambda: Forest(0.1, radius=(0.1, 0.2, 0.3)), ValueError, r"Forest\.radius .* 3 entries"),
    (lambda: Forest(0.1, height=-6.0), ValueError, r"Forest\.height"),
    (lambda: Forest(0.1, clearing=-1.0), ValueError, r"Forest\.clearing"),
    (lambda: Forest(0.1, extent=0.0), ValueError,
     r"Forest\.extent must be a number in \[0\.001, 100000\] m, got 0"),
    (lambda: Forest(0.1, extent=-5.0), ValueError, r"Forest\.extent"),
    (lambda: Forest(0.1, min_gap=-1.0), ValueError, r"Forest\.min_gap"),
    (lambda: Forest(0.1, max_tries=0), ValueError, r"Forest\.max_tries"),
    (lambda: Forest(100.0, extent=100.0), ValueError,
     r"expects 9\.987e\+05 trees, more than the 98120 whose Poisson draw stays within "
     r"MAX_PRIMITIVES=100000"),
    (lambda: Rooms(grid=(0, 3)), ValueError, r"Rooms\.grid"),
    (lambda: Rooms(grid=(2.0, 3)), TypeError, r"Rooms\.grid\[0\] must be an int"),
    (lambda: Rooms(grid=3), TypeError, r"Rooms\.grid must be a pair"),
    (lambda: Rooms(room_size=(4.0, -1.0)), ValueError, r"Rooms\.room_size\[1\]"),
    (lambda: Rooms(room_size=2.0, door_width=1.8), ValueError, r"Rooms\.door_width=1\.8 m"),
    (lambda: Rooms(corridor_width=0.1), ValueError, r"Rooms\.corridor_width must be 0"),
    (lambda: Rooms(door_height=4.0), ValueError, r"Rooms\.door_height=4 m must be at most"),
    (lambda: Rooms(extra_doors=1.5), ValueError, r"Rooms\.extra_doors must be in \[0, 1\]"),
    (lambda: Rooms(exits=13), ValueError, r"Rooms\.exits must be at most the 12 outer"),
    (lambda: Rooms(ceiling=1), TypeError, r"Rooms\.ceiling must be a bool"),
    (lambda: Clutter(count=-1), ValueError, r"Clutter\.count must be an integer in"),
    (lambda: Clutter(kinds=("box", "cone")), ValueError, r"Clutter\.kinds has unknown kinds"),
    (lambda: Clutter(kinds=()), ValueError, r"Clutter\.kinds must name each kind"),
    (lambda: Clutter(kinds="box"), TypeError, r"Clutter\.kinds must be a list"),
    (lambda: Clutter(clearing=10.0, extent=20.0), ValueError, r"Clutter\.clearing=10 m"),
    (lambda: Clutter(size=(1.0, 0.5)), ValueError, r"Clutter\.size must be \(min, max\)"),
    (lambda: Clutter(altitude=(-1.0, 2.0)), ValueError,
     r"Clutter\.altitude must have entries in \[0, 100000\] m"),
])
def test_bad_fields_are_named(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_clutter_that_cannot_fit_beside_the_clearing_is_an_error():
    clutter = Clutter(count=3, extent=4.0, size=3.0, clearing=1.9, max_tries=50)
    with pytest.raises(ValueError, match="found no place clear of clearing=1.9 m"):
        clutter.generate(0)
