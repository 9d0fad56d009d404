"""Navigate's forest and LiDAR, built once for either engine: the pool of forest layouts
(a group per curriculum level) and the default LiDAR (docs/vector_tasks.md, "Navigate").

The pool depends on the options only (``world_seed`` included, not the env's seed), so the
VectorEnv and its PyBullet twin fly the same forests: layout ``l`` of both is the same
World, and the same episode draws the same ``l``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from pyflyt_like.common.validation import (
    check_non_negative_float,
    check_positive_int,
    check_seed,
)
from pyflyt_like.rules import multirotor_tasks as rules
from pyflyt_like.worlds import Cylinder, Forest, LayoutPool, World, pack_layouts

DEFAULT_DENSITY = 0.1  # trees/m^2: the recipe forest
TRUNK_RADIUS = (0.1, 0.3)  # m
TREE_HEIGHT = 6.0  # m, above the task's ceiling (4 m)
FOREST_EXTENT = 50.0  # m, the square's side: the 20 m goal stays 5 m inside it
CLEARING = 2.0  # m around the start
DEFAULT_LAYOUTS = 16  # per curriculum level
MAX_LAYOUTS = 4096  # per level: ~4 ms and ~14 KiB each at the default density
MAX_LEVELS = 64
#: The densest forest [trees/m^2]: about 5000 trunks of 0.1-0.3 m covering a quarter of the
#: ground. Denser ones jam (a random placement finds no room for more and tries every tree
#: ``max_tries`` times: 40 trees/m^2, the MAX_PRIMITIVES bound, drew for tens of seconds
#: a layout) and are no flight.
MAX_DENSITY = 2.0
#: The most layouts of a pool (``curriculum_levels x world_layouts``): even empty, a layout
#: costs about 0.13 ms to draw and pack, and 64 x 4096 took 35 s.
MAX_POOL_LAYOUTS = 4096
#: The most trees a pool may expect in all: drawn at construction at 16-24 us a tree on two
#: cores, about 10 s (64 x 64 layouts of the default density, 517 000 trees: 8.6 s; 64 x
#: 4096 of them took minutes).
MAX_POOL_TREES = 2**19
DEFAULT_SECTORS = 16
#: The options of Navigate only, with their defaults (None: not given).
NAVIGATE_OPTIONS = {"world_density": DEFAULT_DENSITY, "curriculum_levels": 1,
                    "world_layouts": DEFAULT_LAYOUTS, "world_seed": 0,
                    "lidar_sectors": DEFAULT_SECTORS}


def navigate_settings(task: int, options) -> dict:
    """The checked Navigate options of ``options`` (a TaskOptions) for ``task`` (a rules
    number), defaults filled in; {} for the other tasks.

    Raises:
        TypeError, ValueError: a Navigate option given to another task, or out of range,
            naming it.
    """
    given = {name: getattr(options, name) for name in NAVIGATE_OPTIONS
             if getattr(options, name) is not None}
    if task != rules.NAVIGATE:
        if given:
            raise ValueError(f"{sorted(given)} are options of Navigate only, not of "
                             f"{rules.TASK_NAMES[task]}")
        return {}
    values = {**NAVIGATE_OPTIONS, **given}
    density = check_non_negative_float("world_density", values["world_density"])
    if density > MAX_DENSITY:
        raise ValueError(f"world_density must be at most {MAX_DENSITY:g} trees/m^2 (MAX_DENSITY:"
                         f" denser forests of 0.1-0.3 m trunks jam, and take seconds a layout "
                         f"to draw), got {density:g}")
    settings = {
        "world_density": density,
        "curriculum_levels": check_positive_int("curriculum_levels",
                                                values["curriculum_levels"], MAX_LEVELS),
        "world_layouts": check_positive_int("world_layouts", values["world_layouts"],
                                            MAX_LAYOUTS),
        "world_seed": check_seed("world_seed", values["world_seed"]),
        "lidar_sectors": check_positive_int("lidar_sectors", values["lidar_sectors"]),
    }
    _check_pool_size(settings)
    return settings


def _check_pool_size(settings: dict) -> None:
    """Refuse a pool that would take more than about 10 s to draw (:data:`MAX_POOL_LAYOUTS`
    layouts, :data:`MAX_POOL_TREES` trees expected), before any is drawn."""
    levels, size = settings["curriculum_levels"], settings["world_layouts"]
    layouts = levels * size
    what = f"curriculum_levels={levels} x world_layouts={size} = {layouts} forests"
    if layouts > MAX_POOL_LAYOUTS:
        raise ValueError(f"{what}, more than MAX_POOL_LAYOUTS={MAX_POOL_LAYOUTS} (all drawn "
                         "at construction); lower world_layouts or curriculum_levels")
    trees = pool_trees(settings["world_density"], levels, size)
    if trees > MAX_POOL_TREES:
        raise ValueError(f"{what} of world_density up to {settings['world_density']:g} "
                         f"trees/m^2 expect {trees:,.0f} trees, more than MAX_POOL_TREES="
                         f"{MAX_POOL_TREES:,} (drawn at construction at about 20 us a tree: "
                         f"about {trees * 20e-6:.0f} s); lower world_layouts, "
                         "curriculum_levels or world_density")


def pool_trees(density: float, levels: int, size: int) -> float:
    """The mean number of trees of a pool: ``size`` layouts at each of ``levels`` levels of
    density ``density (i + 1) / levels`` [trees/m^2] (:func:`level_densities`)."""
    return size * float(level_densities(density, levels).sum()) * _forest(1.0).area


def _snapped(world: World) -> World:
    """``world``'s trunks with radius and height rounded to 1 mm (positions kept): the sizes
    recur across layouts, so the twin's PyBullet meshes (which PyBullet never frees) stay
    about 200 in all (measured: 28 MB instead of ~36 MB per new layout)."""
    return World([Cylinder(c.x, c.y, max(round(c.radius, 3), 0.001), round(c.height, 3))
                  for c in world.cylinders])


def default_lidar(agent_hz: int) -> dict:
    """Navigate's LiDAR when ``sensors`` is not given: the ``default`` preset (a 64-beam
    360-degree ring of 12 m, 1 % dropout) scanning once per agent step."""
    return {"preset": "default", "update_rate": agent_hz}


def level_densities(density: float, levels: int) -> np.ndarray:
    """(levels,) [trees/m^2]: level ``i`` has ``density (i + 1) / levels`` (the last is the
    task's ``density``)."""
    return density * np.arange(1, levels + 1) / levels


def _forest(density: float) -> Forest:
    """Navigate's forest of ``density`` [trees/m^2]."""
    return Forest(density=density, radius=TRUNK_RADIUS, height=TREE_HEIGHT,
                  extent=FOREST_EXTENT, clearing=CLEARING)


def navigate_pool(settings: dict) -> LayoutPool:
    """The pool of Navigate's forests: ``world_layouts`` layouts per curriculum level,
    level after level (layout ``level * world_layouts + i``), each a
    :class:`~pyflyt_like.worlds.Forest` of its level's density drawn from a seed of
    ``world_seed``'s sequence."""
    levels, size = settings["curriculum_levels"], settings["world_layouts"]
    seeds = np.random.SeedSequence(settings["world_seed"]).generate_state(levels * size,
                                                                          np.uint64)
    layouts = []
    for level, density in enumerate(level_densities(settings["world_density"], levels)):
        forest = _forest(float(density))
        layouts += [_snapped(forest.generate(int(seed) >> 1))
                    for seed in seeds[level * size:(level + 1) * size]]
    return pack_layouts(layouts)


def with_navigate_lidar(task: int, options):
    """``options`` (a TaskOptions) with Navigate's default LiDAR mounted when ``sensors``
    holds none and was not given (with ``observation="sensors"``, beside the default
    sensors); the options as they are for the other tasks or a LiDAR given."""
    if task != rules.NAVIGATE or "lidar" in options.sensor_params:
        return options
    if options.observation == "truth" and options.sensors is not None:
        return options  # sensors given without a LiDAR: task_parameters names the error
    mounted = dict(options.sensors or {})
    mounted["lidar"] = default_lidar(options.agent_hz)
    return dataclasses.replace(options, sensors=mounted)
