"""Obstacle worlds, engine-independent: the description both engines read.

A :class:`World` is a tuple of primitives — vertical :class:`Cylinder` s standing on the
floor, yawed :class:`Box` es, :class:`Sphere` s — with closed-form geometry (signed
distance, ray distance, bounds), a fixed array layout for the engines
(:meth:`World.to_arrays`) and the start rule (:meth:`World.free_start`,
:meth:`World.nearest_free`). The seeded generators :class:`Forest`, :class:`Rooms` and
:class:`Clutter` make worlds (``generate(seed)``); :func:`load_world` reads either form from
YAML (shipped examples in ``pyflyt_like/models/worlds/``).

Pure maths: the standard library, numpy, pyyaml and :mod:`pyflyt_like.common` only, neither
pybullet nor numba. The geometry (:mod:`.geometry`) and the loops over a world's arrays
(:mod:`.arrays`) are plain Python on floats that numba compiles as they are
(:func:`pyflyt_like.compiled.jit.compile_shared`). :func:`pack_layouts` packs many worlds
into a :class:`LayoutPool` with a spatial grid each (:mod:`.grid`), for ray casting and
proximity queries whose cost grows with what is near (:func:`pool_ray_distance`,
:func:`pool_distance` of :mod:`.grid_queries`, compile-ready likewise). See docs/worlds.md.
"""

from .arrays import COLUMNS, scene_distance, scene_ray_distance
from .clutter import CLUTTER_KINDS, Clutter
from .files import load_spec, load_world, save_world, spec_to_dict, world_names
from .forest import Forest
from .grid import LayoutPool, pack_layouts
from .grid_queries import pool_distance, pool_ray_distance
from .primitives import Box, Cylinder, Sphere
from .rooms import Rooms
from .world import MAX_PRIMITIVES, World

__all__ = [
    "CLUTTER_KINDS",
    "COLUMNS",
    "MAX_PRIMITIVES",
    "Box",
    "Clutter",
    "Cylinder",
    "Forest",
    "LayoutPool",
    "Rooms",
    "Sphere",
    "World",
    "load_spec",
    "load_world",
    "pack_layouts",
    "pool_distance",
    "pool_ray_distance",
    "save_world",
    "scene_distance",
    "scene_ray_distance",
    "spec_to_dict",
    "world_names",
]
