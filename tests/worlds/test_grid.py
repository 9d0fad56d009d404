"""The layout pool and its grid (pyflyt_like.worlds.grid), on the pure path: the plain-Python
queries give exactly the World's answers for thousands of rays and points of every sort
(inside and outside the grid, horizontal, vertical, along cell boundaries, grazing, from
inside primitives, short and infinite ranges), at three cell sizes; the packed arrays and
the cell lists are right; bad input is refused with the argument named.

The compiled queries are checked against these in tests/compiled/test_scene.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyflyt_like.worlds import (
    Box,
    Clutter,
    Cylinder,
    Forest,
    LayoutPool,
    Rooms,
    Sphere,
    World,
    grid,
    pack_layouts,
    pool_distance,
    pool_ray_distance,
)
from pyflyt_like.worlds.arrays import array_bounds

RANGES = (0.3, 2.0, 7.5, 25.0, math.inf)
REACHES = (0.0, 0.25, 1.0, 4.0, math.inf)


def small_layouts() -> list[World]:
    """Generated and hand-made layouts, an empty one among them."""
    return [
        Forest(0.1, extent=30.0).generate(3),
        Rooms(grid=(2, 2), exits=1).generate(4),
        Clutter(count=25, extent=16.0).generate(5),
        Clutter(count=60, extent=10.0, size=(0.1, 2.0), clearing=0.0).generate(6),  # dense
        World([Cylinder(1.0, -2.0, 0.3, 4.0)]),
        World([Box((2.0, 1.0, 1.0), (1.5, 0.4, 1.0), yaw=0.6)]),
        World([Sphere((-1.0, 2.0, 2.0), 0.8)]),
        World([Box((0.0, 0.0, 1.5), (12.0, 0.2, 1.5), yaw=0.3)]),  # across many cells
        World(),
        World([Cylinder(0.0, 0.0, 0.5, 3.0), Box((0.0, 0.0, 4.0), (3.0, 3.0, 0.2)),
               Sphere((0.0, 0.0, 6.0), 1.0), Sphere((7.0, -3.0, 0.5), 0.4)]),
    ]


def unit(vector) -> np.ndarray:
    vector = np.asarray(vector, dtype=float)
    return vector / np.linalg.norm(vector)


def random_rays(world: World, pool: LayoutPool, layout: int, rng: np.random.Generator,
                n: int) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """``n`` rays (origin (3,), unit direction (3,), max_range) of every sort for ``world``,
    layout ``layout`` of ``pool``: about a third uniform, the rest special cases."""
    if len(world):
        low, high = world.bounds()
    else:
        low, high = np.array([-5.0, -5.0, 0.0]), np.array([5.0, 5.0, 3.0])
    low, high = low - (6.0, 6.0, 1.0), high + (6.0, 6.0, 2.0)
    arrays = world.to_arrays()
    centres = np.concatenate([
        np.column_stack([arrays["cylinders"][:, :2], arrays["cylinders"][:, 3] / 2]),
        arrays["boxes"][:, :3], arrays["spheres"][:, :3]]).reshape(-1, 3)
    rays = []
    while len(rays) < n:
        origin = rng.uniform(low, high)
        direction = unit(rng.standard_normal(3))
        case = rng.integers(11)
        if case == 1:  # horizontal
            direction = unit([*rng.standard_normal(2), 0.0])
        elif case == 2:  # vertical, either way
            direction = np.array([0.0, 0.0, rng.choice((-1.0, 1.0))])
        elif case == 3:  # in a vertical plane along x or y (one xy component exactly 0)
            direction[rng.integers(2)] = 0.0
            direction = unit(direction)
        elif case == 4:  # nearly vertical
            tilt = rng.choice((1e-9, 1e-6, 1e-3))
            direction = unit([tilt * rng.standard_normal(), tilt * rng.standard_normal(),
                              rng.choice((-1.0, 1.0))])
        elif case == 5 and len(centres):  # from inside (or at the centre of) a primitive
            origin = centres[rng.integers(len(centres))] + rng.normal(0.0, 0.05, 3)
        elif case == 6 and len(centres):  # aimed at a primitive from afar
            origin = rng.uniform(low - 30.0, high + 30.0)
            direction = unit(centres[rng.integers(len(centres))] - origin)
        elif case == 7 and arrays["cylinders"].shape[0]:  # grazing a cylinder's side
            x, y, radius, height = arrays["cylinders"][rng.integers(
                arrays["cylinders"].shape[0])]
            angle = rng.uniform(0.0, 2.0 * math.pi)
            side = np.array([math.cos(angle), math.sin(angle)])
            along = np.array([-side[1], side[0]])
            offset = radius * (1.0 + rng.choice((-1e-12, 0.0, 1e-12)))
            start = np.array([x, y]) + offset * side - rng.uniform(0.5, 5.0) * along
            origin = np.array([*start, rng.uniform(0.0, height)])
            direction = np.array([*along, 0.0])
        elif case == 8 and arrays["boxes"].shape[0]:  # along a box's face
            cx, cy, cz, hx, hy, hz, yaw = arrays["boxes"][rng.integers(
                arrays["boxes"].shape[0])]
            c, s = math.cos(yaw), math.sin(yaw)
            local = np.array([hx, rng.uniform(-hy, hy) - 3.0 * hy, rng.uniform(-hz, hz)])
            origin = np.array([cx + c * local[0] - s * local[1],
                               cy + s * local[0] + c * local[1], cz + local[2]])
            direction = np.array([-s, c, 0.0])
        elif case == 9 and pool.cells[layout, 0]:  # on a cell boundary line, along it
            k = rng.integers(pool.cells[layout, 0] + 1)
            origin[0] = pool.origin[layout, 0] + k * pool.cell_size
            direction = unit([0.0, rng.choice((-1.0, 1.0)), rng.normal(0.0, 0.3)])
        elif case == 10:  # from a grid corner, diagonally through the cell corners
            origin = np.array([*pool.origin[layout], rng.uniform(low[2], high[2])])
            direction = unit([1.0, 1.0, 0.0])
        rays.append((origin, direction, float(rng.choice(RANGES))))
    return rays


def random_points(world: World, rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """``n`` points around, near and inside the primitives of ``world``."""
    low, high = world.bounds() if len(world) else (np.full(3, -5.0), np.full(3, 5.0))
    bounds = array_bounds(world.to_arrays())
    points = []
    for i in range(n):
        if i % 3 == 0 and len(bounds):  # in or near a primitive's bounds
            row = bounds[rng.integers(len(bounds))]
            points.append(rng.uniform(row[:3] - 0.5, row[3:] + 0.5))
        else:
            points.append(rng.uniform(low - 6.0, high + 6.0))
    return points


@pytest.fixture(scope="module")
def layouts() -> list[World]:
    return small_layouts()


@pytest.fixture(scope="module", params=[None, 0.45, 13.0], ids=["default", "fine", "coarse"])
def pool(request, layouts) -> LayoutPool:
    return pack_layouts(layouts, request.param)


def test_the_ray_distance_is_the_worlds_to_the_bit(layouts, pool):
    rng = np.random.default_rng(11)
    hits = checked = 0
    for layout, world in enumerate(layouts):
        for origin, direction, max_range in random_rays(world, pool, layout, rng, 250):
            expected = world.ray_distance(origin, direction, max_range)
            got = pool_ray_distance(*pool, layout, *origin, *direction, max_range)
            assert got == expected, (layout, origin.tolist(), direction.tolist(), max_range)
            checked += 1
            hits += math.isfinite(expected)
            if math.isfinite(expected) and expected > 0.0:
                # a range ending exactly at the hit sees it; one just short does not
                for reach in (expected, math.nextafter(expected, 0.0)):
                    assert pool_ray_distance(*pool, layout, *origin, *direction, reach) \
                        == world.ray_distance(origin, direction, reach)
    assert checked == 250 * len(layouts)
    assert hits > 400  # not a test of misses only


def test_the_distance_is_the_worlds_within_reach(layouts, pool):
    rng = np.random.default_rng(12)
    near = 0
    for layout, world in enumerate(layouts):
        for point in random_points(world, rng, 80):
            expected = world.distance(point)
            for reach in REACHES:
                got = pool_distance(*pool, layout, *point, reach)
                if expected <= reach:
                    assert got == expected, (layout, point.tolist(), reach)
                    near += 1
                else:
                    assert got > reach, (layout, point.tolist(), reach, got, expected)
            # the collision check of a sphere of radius r
            for r in (0.1, 0.3):
                assert (pool_distance(*pool, layout, *point, r) < r) == (expected < r)
    assert near > 700


def test_the_checked_methods_are_the_queries(layouts):
    pool = pack_layouts(layouts)
    world = layouts[0]
    origin, direction = [0.0, 0.0, 1.0], unit([1.0, 0.3, 0.0])
    assert pool.ray_distance(0, origin, direction, 30.0) == world.ray_distance(
        origin, direction, 30.0)
    assert pool.distance(0, [1.0, 2.0, 1.0]) == world.distance([1.0, 2.0, 1.0])
    assert pool.distance(np.int64(layouts.index(World())), [0.0, 0.0, 1.0], 2.0) == math.inf
    assert pool.n_layouts == len(layouts)


def test_every_query_of_an_empty_layout_sees_nothing():
    pool = pack_layouts([World(), World()])
    assert pool.cells.tolist() == [[0, 0], [0, 0]] and pool.items.shape == (0, 2)
    assert pool.cell_start.tolist() == [0] and pool.cell_size == grid.EMPTY_CELL_SIZE
    for direction in ((1.0, 0.0, 0.0), (0.0, 0.0, -1.0)):
        assert pool_ray_distance(*pool, 1, 0.0, 0.0, 1.0, *direction, math.inf) == math.inf
    assert pool_distance(*pool, 0, 0.0, 0.0, 1.0, math.inf) == math.inf


def test_the_packed_arrays(layouts):
    pool = pack_layouts(layouts)
    n = len(layouts)
    assert isinstance(pool, tuple) and len(pool) == 11
    counts = np.array([[len(w.cylinders), len(w.boxes), len(w.spheres)] for w in layouts])
    np.testing.assert_array_equal(pool.counts, counts)
    assert pool.cylinders.shape == (n, counts[:, 0].max(), 4)
    assert pool.boxes.shape == (n, counts[:, 1].max(), 7)
    assert pool.spheres.shape == (n, counts[:, 2].max(), 4)
    shapes = {"origin": (n, 2), "cells": (n, 2), "z_range": (n, 2), "first_cell": (n,)}
    for name, shape in shapes.items():
        assert getattr(pool, name).shape == shape
    for name, value in pool._asdict().items():
        if name == "cell_size":
            assert isinstance(value, float) and value > 0.0
            continue
        assert value.flags.c_contiguous and not value.flags.writeable, name
        assert value.dtype == {"items": np.int32}.get(
            name, np.int64 if name in ("counts", "cells", "first_cell", "cell_start")
            else np.float64), name
    for layout, world in enumerate(layouts):
        arrays = world.to_arrays()
        for kind, packed in pool.layout_arrays(layout).items():
            np.testing.assert_array_equal(packed, arrays[kind])
        # the padding rows are zeros
        assert not pool.cylinders[layout, counts[layout, 0]:].any()
        assert not pool.boxes[layout, counts[layout, 1]:].any()
    assert pool.cell_start[0] == 0 and pool.cell_start[-1] == pool.items.shape[0]
    assert np.all(np.diff(pool.cell_start) >= 0)
    assert pool.cell_start.shape[0] == int(np.prod(pool.cells, axis=1).sum()) + 1


def test_each_cell_lists_the_primitives_whose_footprint_touches_it(layouts):
    """Brute force over cells and primitives: every (cell, primitive) pair whose padded
    footprint meets the cell is listed once, and no other."""
    pool = pack_layouts(layouts, 0.8)
    size = pool.cell_size
    for layout, world in enumerate(layouts):
        nx, ny = pool.cells[layout]
        if len(world) == 0:
            assert nx == ny == 0
            continue
        bounds = array_bounds(world.to_arrays())
        pad = grid.PAD_ABSOLUTE + grid.PAD_RELATIVE * np.abs(bounds).max()
        low, high = bounds[:, :2] - pad, bounds[:, 3:5] + pad
        x0, y0 = pool.origin[layout]
        # the grid covers every padded footprint and the height range every primitive
        assert np.all(low >= (x0, y0)) and np.all(high <= (x0 + nx * size, y0 + ny * size))
        assert pool.z_range[layout, 0] < bounds[:, 2].min()
        assert pool.z_range[layout, 1] > bounds[:, 5].max()
        kind_offset = np.concatenate([[0], np.cumsum(pool.counts[layout])[:2]])
        for iy in range(ny):
            for ix in range(nx):
                cell = pool.first_cell[layout] + iy * nx + ix
                listed = pool.items[pool.cell_start[cell]:pool.cell_start[cell + 1]]
                index = kind_offset[listed[:, 0]] + listed[:, 1]
                assert len(set(index.tolist())) == len(index)  # each listed once
                # every footprint that meets the cell (by more than a rounding) is listed;
                # every listed one meets it (or misses it by a rounding at most)
                slack = 1e-9 * size
                touching = np.flatnonzero(
                    (low[:, 0] <= x0 + (ix + 1) * size - slack)
                    & (high[:, 0] >= x0 + ix * size + slack)
                    & (low[:, 1] <= y0 + (iy + 1) * size - slack)
                    & (high[:, 1] >= y0 + iy * size + slack))
                assert set(touching.tolist()) <= set(index.tolist()), (layout, ix, iy)
                for i in index:
                    assert low[i, 0] <= x0 + (ix + 1) * size + slack
                    assert high[i, 0] >= x0 + ix * size - slack
                    assert low[i, 1] <= y0 + (iy + 1) * size + slack
                    assert high[i, 1] >= y0 + iy * size - slack


def test_the_default_cell_size():
    forest = Forest(0.1, extent=50.0).generate(0)
    size = grid.default_cell_size([forest])
    assert size == pytest.approx(math.sqrt(1 / 0.1), rel=0.15)  # one tree per cell
    assert pack_layouts([forest]).cell_size == size
    # the median over layouts; empty ones do not count; none at all: the fixed default
    lone = World([Sphere((0.0, 0.0, 1.0), 2.0)])
    assert grid.default_cell_size([lone]) == pytest.approx(2 * (4.0 + 2e-6))  # twice its width
    assert grid.default_cell_size([World(), forest, World()]) == size
    assert grid.default_cell_size([World()]) == grid.EMPTY_CELL_SIZE


def test_the_memory_bounds(monkeypatch, layouts):
    forest = layouts[0]
    with pytest.raises(ValueError, match=r"cell_size=0\.001 m makes grids of \d+ cells, more "
                                         r"than MAX_CELLS=16777216 \(memory\)"):
        pack_layouts([forest], cell_size=0.001)
    monkeypatch.setattr(grid, "MAX_CELLS", 40)
    with pytest.raises(ValueError, match="MAX_CELLS=40"):
        pack_layouts(layouts, cell_size=1.0)
    pool = pack_layouts(layouts)  # the default grows until the pool fits
    assert pool.cell_start.shape[0] - 1 <= 40
    rng = np.random.default_rng(5)
    for origin, direction, max_range in random_rays(forest, pool, 0, rng, 100):
        assert pool_ray_distance(*pool, 0, *origin, *direction, max_range) == \
            forest.ray_distance(origin, direction, max_range)
    monkeypatch.setattr(grid, "MAX_CELLS", 2**24)
    monkeypatch.setattr(grid, "MAX_ITEMS", len(forest) + 10)  # about one cell per tree
    with pytest.raises(ValueError, match=r"cell_size=0\.5 m makes grids of \d+ items, more "
                                         r"than MAX_ITEMS"):
        pack_layouts([forest], cell_size=0.5)
    assert pack_layouts([forest]).items.shape[0] <= len(forest) + 10
    monkeypatch.setattr(grid, "MAX_ITEMS", len(forest) - 1)  # fewer than the primitives
    with pytest.raises(ValueError, match=r"worlds hold \d+ primitives in 1 non-empty"):
        pack_layouts([forest])
    # the padded arrays: one huge layout among many empty ones
    monkeypatch.setattr(grid, "check_memory", _refuse_above(10**6))
    with pytest.raises(ValueError, match=r"worlds \(2000 layouts"):
        pack_layouts([forest] + [World()] * 1999)


def _refuse_above(limit):
    def check(what, n_bytes, hint=""):
        if n_bytes > limit:
            raise ValueError(f"{what} needs {n_bytes} bytes; {hint}")
    return check


@pytest.mark.parametrize(("worlds", "error", "match"), [
    ([], ValueError, "worlds must hold at least one World"),
    (World(), TypeError, r"got one World; pass \[world\]"),
    ("forest", TypeError, "worlds must be a sequence of World"),
    (3, TypeError, "worlds must be a sequence of World"),
    ([World(), Forest(0.1)], TypeError, r"worlds\[1\] must be a pyflyt_like.worlds.World"),
])
def test_bad_worlds_are_refused(worlds, error, match):
    with pytest.raises(error, match=match):
        pack_layouts(worlds)


@pytest.mark.parametrize(("cell_size", "error"), [
    (0.0, ValueError), (-1.0, ValueError), (math.inf, ValueError), (math.nan, ValueError),
    ("1", TypeError), (True, TypeError)])
def test_a_bad_cell_size_is_refused(cell_size, error):
    with pytest.raises(error, match="cell_size"):
        pack_layouts([World([Sphere((0, 0, 1), 1.0)])], cell_size)


def test_the_checked_methods_refuse_bad_arguments(layouts):
    pool = pack_layouts(layouts[:2])
    with pytest.raises(ValueError, match=r"layout must be in \[0, 2\)"):
        pool.distance(2, [0.0, 0.0, 0.0])
    with pytest.raises(TypeError, match="layout"):
        pool.ray_distance(0.0, [0, 0, 0], [1, 0, 0], 1.0)
    with pytest.raises(ValueError, match="direction must be a unit vector"):
        pool.ray_distance(0, [0, 0, 0], [1, 1, 0], 1.0)
    with pytest.raises(ValueError, match="max_range"):
        pool.ray_distance(0, [0, 0, 0], [1, 0, 0], 0.0)
    with pytest.raises(ValueError, match="reach must be a number >= 0"):
        pool.distance(0, [0.0, 0.0, 0.0], -1.0)
    with pytest.raises(TypeError, match="reach"):
        pool.distance(0, [0.0, 0.0, 0.0], "1")
    with pytest.raises(ValueError, match="point"):
        pool.distance(0, [0.0, 0.0], 1.0)


@pytest.mark.parametrize(("wall_x", "ball_x", "ball_radius"), [(1.22, 1.1, 0.05),
                                                                (1.005, 1.05, 0.048)])
def test_the_walk_goes_on_past_a_hit_beyond_the_cell(wall_x, ball_x, ball_radius):
    """A hit found in a cell but lying beyond its exit does not end the walk: a nearer
    primitive may lie in the next cell. Cells of 1 m from x = 0; a ray along +x at y = 0.5
    meets a diagonal wall listed in cells 0 and 1 at ``wall_x``, and before it a ball
    listed in cell 1 only (0.22 m and 3 mm before)."""
    # the wall's face at y = 0.5 is 0.25 - 0.02 sqrt(2) from its centre's x
    wall = Box((wall_x - 0.25 + 0.02 * math.sqrt(2.0), 0.75, 1.0), (0.5, 0.02, 1.0),
               yaw=0.75 * math.pi)
    ball = Sphere((ball_x, 0.5, 1.0), ball_radius)
    corner = Sphere((0.2, 2.5, 1.0), 0.2)  # puts the grid's corner at x = 0
    world = World([wall, ball, corner])
    pool = pack_layouts([world], 1.0)
    assert pool.origin[0, 0] == pytest.approx(0.0, abs=1e-5)
    origin = (0.1, 0.5, 1.0)
    assert World([wall]).ray_distance(origin, (1.0, 0.0, 0.0), 9.0) == pytest.approx(
        wall_x - 0.1)
    assert world.ray_distance(origin, (1.0, 0.0, 0.0), 9.0) == pytest.approx(
        ball_x - ball_radius - 0.1)
    for max_range in (1.0, math.inf):
        assert pool_ray_distance(*pool, 0, *origin, 1.0, 0.0, 0.0, max_range) == \
            world.ray_distance(origin, (1.0, 0.0, 0.0), max_range)


@pytest.mark.parametrize("cell_size", [0.5, 0.07])
def test_a_ray_that_walks_far_stops(cell_size):
    """Long rays through a grid of many cells (at 0.07 m, over 4000 steps: past the exact
    recomputation of the boundaries every RESYNC steps): the walk ends at the grid's edge,
    at the height range's edge and at max_range, whatever the direction, and misses
    nothing on its way."""
    row = World([Sphere((10.0 * i, 0.0, 1.0), 0.5) for i in range(30)]
                + [Sphere((10.0 * i + 5.0, 0.3, 1.0), 0.02) for i in range(29)])
    pool = pack_layouts([row], cell_size)
    assert pool.cells[0, 0] > 2 * grid.RESYNC or cell_size == 0.5
    directions = [(1.0, 0.0, 0.0), (-1.0, 0.0, 0.0), unit([1.0, 1e-12, 0.0]),
                  unit([1.0, 0.0, 1e-3]), unit([1e-300, 1e-300, 1.0]),
                  unit([1.0, 0.0011, 0.0]), unit([-1.0, -0.0009, 0.0])]
    for direction in directions:
        for origin in ((-5.0, 0.0, 1.0), (300.0, 0.0, 1.0), (145.0, 0.2, 1.0),
                       (-0.7, 0.29, 1.0), (290.7, 0.31, 1.0)):
            for max_range in (1.0, 50.0, math.inf):
                assert pool_ray_distance(*pool, 0, *origin, *direction, max_range) == \
                    row.ray_distance(origin, direction, max_range)
    # a ray past every ball, between them, and one that meets only the last small one
    for origin, direction in (((-5.0, 0.7, 1.0), (1.0, 0.0, 0.0)),
                              ((-5.0, 0.3, 1.0), unit([1.0, 0.0, 0.0]))):
        assert pool_ray_distance(*pool, 0, *origin, *direction, math.inf) == \
            row.ray_distance(origin, direction, math.inf)
    far = (-0.5, 0.6, 1.0)
    to_last = unit(np.array([285.0, 0.3, 1.0]) - far)
    assert pool_ray_distance(*pool, 0, *far, *to_last, math.inf) == \
        row.ray_distance(far, to_last, math.inf) < math.inf
