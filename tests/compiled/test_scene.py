"""The compiled scene queries (pyflyt_like.compiled.scene): the grid queries compiled as the
engines run them give the plain-Python results to the bit, and so the World's; the batch
helpers (rays and points in parallel) agree with them and with the brute-force loops, on
the forest of the benchmark (0.1 trees/m^2, 50 m), buildings and clutter."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyflyt_like.compiled import scene
from pyflyt_like.worlds import (
    Clutter,
    Forest,
    Rooms,
    World,
    pack_layouts,
    pool_distance,
    pool_ray_distance,
    scene_distance,
    scene_ray_distance,
)
from tests.worlds.test_grid import RANGES, REACHES, random_points, random_rays, small_layouts


@pytest.mark.parametrize("cell_size", [None, 0.45, 13.0], ids=["default", "fine", "coarse"])
def test_the_compiled_queries_are_the_plain_ones_to_the_bit(cell_size):
    layouts = small_layouts()
    pool = pack_layouts(layouts, cell_size)
    rng = np.random.default_rng(21)
    hits = 0
    for layout, world in enumerate(layouts):
        for origin, direction, max_range in random_rays(world, pool, layout, rng, 200):
            expected = pool_ray_distance(*pool, layout, *origin, *direction, max_range)
            assert scene.pool_ray_distance(*pool, layout, *origin, *direction, max_range) \
                == expected, (layout, origin.tolist(), direction.tolist(), max_range)
            hits += math.isfinite(expected)
        for point in random_points(world, rng, 60):
            for reach in REACHES:
                assert scene.pool_distance(*pool, layout, *point, reach) == \
                    pool_distance(*pool, layout, *point, reach)
    assert hits > 300


@pytest.fixture(scope="module")
def big():
    """The benchmark's forest (two draws), a building with corridors, clutter sparse and
    dense, and an empty world, in one pool."""
    layouts = [Forest(density=0.1).generate(0), Forest(density=0.1).generate(1),
               Rooms(grid=(3, 3), corridor_width=2.0, exits=2, ceiling=True).generate(2),
               Clutter(count=60).generate(3),
               Clutter(count=150, extent=12.0, size=(0.1, 2.0), clearing=0.0).generate(4),
               World()]
    return layouts, pack_layouts(layouts)


def _rays(rng, n, low, high):
    """``n`` rays from uniform origins in the box ``low``-``high`` (3,): a third uniform in
    direction, a third horizontal, a sixth in vertical planes along x or y, a sixth
    vertical."""
    origins = rng.uniform(low, high, (n, 3))
    directions = rng.standard_normal((n, 3))
    third = n // 3
    directions[third:2 * third, 2] = 0.0
    directions[2 * third:5 * n // 6, rng.integers(2)] = 0.0
    directions[5 * n // 6:, :2] = 0.0
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    return origins, directions


def test_cast_rays_is_the_brute_force_and_the_world(big):
    layouts, pool = big
    rng = np.random.default_rng(22)
    n = 60_000
    index = rng.integers(len(layouts), size=n)
    origins, directions = _rays(rng, n, (-32.0, -32.0, -1.0), (32.0, 32.0, 8.0))
    out = np.empty(n)
    brute = np.empty(n)
    for max_range in RANGES:
        scene.cast_rays(*pool, index, origins, directions, max_range, out)
        for layout, world in enumerate(layouts):
            mine = index == layout
            arrays = world.to_arrays()
            rows = np.flatnonzero(mine)
            scene.cast_rays_brute(arrays["cylinders"], arrays["boxes"], arrays["spheres"],
                                  origins[mine], directions[mine], max_range, brute[:len(rows)])
            np.testing.assert_array_equal(out[mine], brute[:len(rows)])
            # and the plain queries, the World's own, on a few of them
            for i in rows[:25]:
                assert out[i] == world.ray_distance(origins[i], directions[i], max_range)
                assert out[i] == pool_ray_distance(*pool, layout, *origins[i], *directions[i],
                                                   max_range)
        if max_range == math.inf:
            assert 0.05 < np.isfinite(out).mean() < 0.95  # thousands of hits


def test_pool_distances_is_the_brute_force_within_reach(big):
    layouts, pool = big
    rng = np.random.default_rng(23)
    n = 20_000
    index = rng.integers(len(layouts), size=n)
    points = rng.uniform((-30.0, -30.0, -1.0), (30.0, 30.0, 7.0), (n, 3))
    out = np.empty(n)
    for reach in (0.0, 0.2, 1.5, math.inf):
        scene.pool_distances(*pool, index, points, reach, out)
        for i in range(0, n, 7):
            arrays = layouts[index[i]].to_arrays()
            expected = scene.scene_distance(arrays["cylinders"], arrays["boxes"],
                                            arrays["spheres"], *points[i])
            if expected <= reach:
                assert out[i] == expected
            else:
                assert out[i] > reach
        for i in range(0, n, 500):
            assert out[i] == pool_distance(*pool, index[i], *points[i], reach)


def test_the_compiled_brute_force_is_the_plain_one():
    world = Forest(density=0.1, extent=20.0).generate(5)
    arrays = world.to_arrays()
    tables = (arrays["cylinders"], arrays["boxes"], arrays["spheres"])
    rng = np.random.default_rng(24)
    origins, directions = _rays(rng, 300, (-10.0, -10.0, 0.0), (10.0, 10.0, 7.0))
    out = np.empty(300)
    scene.cast_rays_brute(*tables, origins, directions, 15.0, out)
    for i in range(300):
        assert out[i] == scene_ray_distance(*tables, *origins[i], *directions[i], 15.0)
        assert scene.scene_distance(*tables, *origins[i]) == scene_distance(*tables,
                                                                            *origins[i])
