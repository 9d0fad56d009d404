"""Compile-readiness: the world's queries over its arrays, compiled as the engines will
compile them (:func:`pyflyt_like.compiled.jit.compile_shared`, no reference-counted
allocation, numpy's error model), return exactly the plain-Python results."""

from __future__ import annotations

import math

import numpy as np

from pyflyt_like.compiled.jit import compile_shared
from pyflyt_like.worlds import Box, Clutter, Forest, Sphere, World, arrays, geometry

slab = compile_shared(geometry.slab_interval)
quadric = compile_shared(geometry.quadric_interval)
contact = compile_shared(geometry.first_contact)
extent = compile_shared(geometry.signed_extent_distance)
cylinder_distance = compile_shared(geometry.cylinder_distance, extent)
box_distance = compile_shared(geometry.box_distance, extent)
sphere_distance = compile_shared(geometry.sphere_distance)
cylinder_ray = compile_shared(geometry.cylinder_ray_distance, slab, quadric, contact)
box_ray = compile_shared(geometry.box_ray_distance, slab, contact)
sphere_ray = compile_shared(geometry.sphere_ray_distance, quadric, contact)
scene_distance = compile_shared(arrays.scene_distance, cylinder_distance, box_distance,
                                sphere_distance)
scene_ray_distance = compile_shared(arrays.scene_ray_distance, cylinder_ray, box_ray,
                                    sphere_ray)


def test_the_compiled_queries_are_the_python_ones_to_the_bit():
    world = World(Forest(0.2, extent=16.0, clearing=1.0).generate(0).primitives
                  + Clutter(count=20, extent=16.0).generate(0).primitives
                  + (Box((0.0, 0.0, 8.0), (2.0, 1.0, 0.5), 0.7), Sphere((0, 0, -2), 1.0)))
    tables = tuple(world.to_arrays().values())
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(300):
        origin = rng.uniform(-9.0, 9.0, 3)
        direction = rng.standard_normal(3)
        direction /= np.linalg.norm(direction)
        expected = arrays.scene_ray_distance(*tables, *origin, *direction, 12.0)
        assert scene_ray_distance(*tables, *origin, *direction, 12.0) == expected
        assert scene_distance(*tables, *origin) == arrays.scene_distance(*tables, *origin)
        hits += math.isfinite(expected)
    assert hits > 30
    # the branches for rays along an axis (no division by zero) and the empty world
    for direction in np.eye(3):
        for origin in ((0.0, 0.0, 1.0), (3.0, 3.0, 9.0)):
            assert scene_ray_distance(*tables, *origin, *direction, 12.0) == \
                arrays.scene_ray_distance(*tables, *origin, *direction, 12.0)
    empty = tuple(World().to_arrays().values())
    assert scene_ray_distance(*empty, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 5.0) == math.inf
    assert scene_distance(*empty, 0.0, 0.0, 0.0) == math.inf
