"""World: the array layout, the queries as minima over the primitives, bounds, the
MAX_PRIMITIVES bound, and the start rule (free_start, nearest_free)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyflyt_like.worlds import (
    COLUMNS,
    MAX_PRIMITIVES,
    Box,
    Clutter,
    Cylinder,
    Forest,
    Rooms,
    Sphere,
    World,
    scene_distance,
)
from pyflyt_like.worlds.world import MAX_RINGS

PRIMITIVES = (Cylinder(3.0, 0.0, 0.5, 4.0), Box((0.0, 5.0, 1.0), (2.0, 0.2, 1.0), 0.3),
              Sphere((-4.0, 1.0, 2.0), 0.8), Cylinder(-1.0, -3.0, 0.3, 2.0))
WORLD = World(PRIMITIVES)


def test_the_arrays_have_the_fixed_layout():
    arrays = WORLD.to_arrays()
    assert list(arrays) == ["cylinders", "boxes", "spheres"] == list(COLUMNS)
    assert arrays["cylinders"].tolist() == [[3.0, 0.0, 0.5, 4.0], [-1.0, -3.0, 0.3, 2.0]]
    assert arrays["boxes"].tolist() == [[0.0, 5.0, 1.0, 2.0, 0.2, 1.0, 0.3]]
    assert arrays["spheres"].tolist() == [[-4.0, 1.0, 2.0, 0.8]]
    for kind, array in arrays.items():
        assert array.dtype == np.float64 and array.flags.c_contiguous
        assert array.shape[1] == len(COLUMNS[kind])
    arrays["cylinders"][0, 0] = 99.0  # a copy: the world is not changed
    assert WORLD.to_arrays()["cylinders"][0, 0] == 3.0


def test_an_empty_world():
    world = World()
    assert len(world) == 0 and world == World([])
    assert {kind: a.shape for kind, a in world.to_arrays().items()} == {
        "cylinders": (0, 4), "boxes": (0, 7), "spheres": (0, 4)}
    assert world.distance((0, 0, 1)) == math.inf
    assert world.ray_distance((0, 0, 1), (1, 0, 0), 10.0) == math.inf
    assert world.free_start((0, 0, 0), 1.0)
    with pytest.raises(ValueError, match="empty World has no bounds"):
        world.bounds()


def test_from_arrays_rebuilds_the_world_by_kind():
    rebuilt = World.from_arrays(WORLD.to_arrays())
    assert rebuilt.cylinders == WORLD.cylinders and rebuilt.boxes == WORLD.boxes
    assert rebuilt.spheres == WORLD.spheres
    assert World.from_arrays({"spheres": [[0, 0, 1, 0.5]]}) == World([Sphere((0, 0, 1), 0.5)])
    with pytest.raises(ValueError, match=r"unknown keys \['planes'\]"):
        World.from_arrays({"planes": np.zeros((0, 4))})
    with pytest.raises(ValueError, match=r'arrays\["boxes"\] must have shape \(n, 7\)'):
        World.from_arrays({"boxes": np.zeros((2, 6))})
    with pytest.raises(ValueError, match=r"Sphere\.radius"):
        World.from_arrays({"spheres": [[0, 0, 1, -0.5]]})


def test_the_queries_are_minima_over_the_primitives():
    rng = np.random.default_rng(0)
    for _ in range(100):
        point = rng.uniform(-6, 6, 3)
        assert WORLD.distance(point) == min(p.distance(point) for p in PRIMITIVES)
        direction = rng.standard_normal(3)
        direction /= np.linalg.norm(direction)
        assert WORLD.ray_distance(point, direction, 20.0) == min(
            p.ray_distance(point, direction, 20.0) for p in PRIMITIVES)


def test_bounds_cover_every_primitive():
    low, high = WORLD.bounds()
    np.testing.assert_allclose(low, np.min([p.bounds()[0] for p in PRIMITIVES], axis=0))
    np.testing.assert_allclose(high, np.max([p.bounds()[1] for p in PRIMITIVES], axis=0))


def test_worlds_are_values():
    assert World(list(PRIMITIVES)) == WORLD and hash(World(PRIMITIVES)) == hash(WORLD)
    assert World(PRIMITIVES[:2]) != WORLD
    assert WORLD.primitives == PRIMITIVES and len(WORLD) == 4


def test_more_than_max_primitives_is_refused():
    sphere = Sphere((0.0, 0.0, 1.0), 0.1)
    with pytest.raises(ValueError, match=rf"more than MAX_PRIMITIVES={MAX_PRIMITIVES}"):
        World([sphere] * (MAX_PRIMITIVES + 1))


@pytest.mark.parametrize(("primitives", "error", "match"), [
    ([Sphere((0, 0, 0), 1.0), (0, 0, 1.0)], TypeError, r"primitives\[1\] must be a Cylinder"),
    ("cylinder", TypeError, "primitives must be a list"),
    (3, TypeError, "primitives must be a list"),
])
def test_bad_primitives_are_named(primitives, error, match):
    with pytest.raises(error, match=match):
        World(primitives)


# ----------------------------------------------------------------------- the start rule
def test_free_start_is_the_distance_against_the_radius():
    assert WORLD.free_start((0.0, 0.0, 1.0), 0.2)
    assert not WORLD.free_start((3.0, 0.0, 1.0), 0.2)         # inside the trunk
    assert not WORLD.free_start((3.6, 0.0, 1.0), 0.2)         # 0.1 m from it
    assert WORLD.free_start((3.7, 0.0, 1.0), 0.2)             # touching it
    assert WORLD.free_start((3.0, 0.0, 5.0), 0.2)             # above it
    with pytest.raises(ValueError, match="radius must be a finite number >= 0"):
        WORLD.free_start((0, 0, 1), -0.1)


def test_a_free_start_is_kept():
    np.testing.assert_array_equal(WORLD.nearest_free((0.0, 0.0, 1.0), 0.2), [0.0, 0.0, 1.0])


@pytest.mark.parametrize("start", [(3.0, 0.0, 1.0), (3.2, 0.1, 2.5), (-1.0, -3.0, 0.5)])
def test_a_start_inside_a_trunk_moves_out_sideways_to_the_nearest_free_spot(start):
    radius = 0.2
    moved = WORLD.nearest_free(start, radius)
    assert moved[2] == start[2] and WORLD.free_start(moved, radius)
    trunk = next(c for c in WORLD.cylinders if c.distance(start) < 0)
    needed = trunk.radius + radius - math.hypot(start[0] - trunk.x, start[1] - trunk.y)
    shift = math.hypot(moved[0] - start[0], moved[1] - start[1])
    assert needed <= shift <= needed + 0.05 + 1e-9  # within one resolution of the nearest


def test_a_start_with_no_free_spot_within_max_shift_is_an_error():
    slab = World([Box((0.0, 0.0, 1.0), (20.0, 20.0, 1.0))])
    with pytest.raises(ValueError, match="no free start .* within max_shift=5 m"):
        slab.nearest_free((0.0, 0.0, 1.0), 0.2)
    moved = slab.nearest_free((19.0, 0.0, 1.0), 0.2, max_shift=2.0, resolution=0.1)
    assert moved[0] == pytest.approx(20.2, abs=0.1 + 1e-9) and moved[1] == 0.0
    with pytest.raises(ValueError, match="max_shift must be a finite number > 0"):
        slab.nearest_free((0.0, 0.0, 1.0), 0.2, max_shift=0.0)
    with pytest.raises(ValueError, match=r"max_shift / resolution must be at most MAX_RINGS=200 "
                                         r".* got max_shift=100 m / resolution=0.001 m"):
        slab.nearest_free((0.0, 0.0, 1.0), 0.2, max_shift=100.0, resolution=1e-3)


def _nearest_free_reference(world: World, start, radius: float, max_shift: float,
                            resolution: float):
    """The start rule's search as written: every candidate tested against every primitive
    near the start (scene_distance), in order; None when none is free."""
    start = np.asarray(start, dtype=float)
    near = world._near(start, max_shift + radius)
    for ring in range(1, math.floor(max_shift / resolution + 1e-9) + 1):
        shift = ring * resolution
        count = max(8, math.ceil(2.0 * math.pi * shift / resolution))
        for k in range(count):
            angle = 2.0 * math.pi * k / count
            x = start[0] + shift * math.cos(angle)
            y = start[1] + shift * math.sin(angle)
            if scene_distance(*near.values(), x, y, start[2]) >= radius:
                return [x, y, start[2]]
    return None


@pytest.mark.parametrize("world", [
    Forest(0.6, radius=(0.1, 0.5), extent=20.0).generate(0), Rooms().generate(0),
    Rooms(grid=(2, 2), ceiling=True).generate(2),
    Clutter(count=200, extent=15.0, clearing=0.5).generate(1),
    World([Box((0.5, 0.25, 1.0), (1.0, 2.0, 1.0)), Box((0.0, 0.0, 1.0), (3.0, 3.0, 3.0), 0.7),
           Sphere((4.0, 0.0, 1.0), 1.5), Cylinder(-3.0, 2.0, 1.5, 5.0)])])
def test_nearest_free_is_the_search_over_every_candidate_to_the_bit(world):
    rng = np.random.default_rng(7)
    low, high = world.bounds()
    for trial in range(40):
        start = rng.uniform(low, high)
        start[2] = rng.uniform(0.2, 3.0)
        if trial % 4 == 0:  # on a 0.25 m grid: starts and spheres touching faces exactly
            start = np.round(start * 4.0) / 4.0
        radius = float(rng.choice([0.0, 0.1, 0.25, 0.5]))
        max_shift, resolution = float(rng.choice([1.0, 3.0])), float(rng.choice([0.05, 0.1]))
        expected = _nearest_free_reference(world, start, radius, max_shift, resolution)
        if world.free_start(start, radius):
            expected = start.tolist()
        if expected is None:
            with pytest.raises(ValueError, match="no free start"):
                world.nearest_free(start, radius, max_shift, resolution)
        else:
            assert world.nearest_free(start, radius, max_shift, resolution).tolist() == expected


def test_the_largest_search_runs_in_a_second_whatever_surrounds_it():
    # none free in MAX_RINGS rings (126 000 candidates): inside a wide slab, among 1000
    # overlapping boxes (each candidate inside all of them) and among 75 000 trees
    trees = Forest(0.3, extent=500.0).generate(0)
    worlds = [World([Box((0.0, 0.0, 1.0), (600.0, 600.0, 5.0))]),
              World([Box((0.0, 0.0, 1.0), (100.0 + 0.01 * i, 100.0, 5.0), 0.001 * i)
                     for i in range(1000)]),
              World([*trees.primitives, Box((0.0, 0.0, 1.0), (600.0, 600.0, 5.0))])]
    for world, (max_shift, resolution) in zip(worlds, [(10.0, 0.05), (10.0, 0.05),
                                                       (200.0, 1.0)]):
        assert max_shift / resolution == MAX_RINGS
        with pytest.raises(ValueError, match="no free start"):
            world.nearest_free((0.0, 0.0, 1.0), 0.1, max_shift, resolution)
