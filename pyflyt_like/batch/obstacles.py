"""Obstacle worlds on the batched engine: the pool of layouts, its arrays in the kernels'
config, the collision radius and the start rule (docs/batch.md, "Obstacle worlds").

Words: the engine's simulated worlds (``n_worlds``, W) are independent simulations; an
obstacle *layout* is a set of primitives (a :class:`~pyflyt_like.worlds.World`). The
engine holds a :class:`~pyflyt_like.worlds.LayoutPool` of ``L`` layouts, each with its
spatial grid, and every simulated world flies among one of them: ``state.world_layout[w]``
(W,) int64 is its index in the pool. Redrawing a world's obstacles is pointing it at
another layout, so a reset costs no geometry.

- ``world=None``: a pool of one empty layout (every query returns ``inf`` at once), so the
  kernels' arguments have one type with or without a world.
- a :class:`~pyflyt_like.worlds.World`: a pool of that one layout (L = 1).
- a generator (``Forest``, ``Rooms``, ``Clutter``): ``world_layouts`` layouts drawn at
  construction (:func:`draw_layouts`), each simulated world given an index at reset.

The pool's arrays go into the engine's ``Config`` under the names
:data:`~.arrays.WORLD_FIELDS`, in the :class:`~pyflyt_like.worlds.LayoutPool` order, so
that a compiled stage passes them to :func:`~pyflyt_like.compiled.scene.pool_distance` or
``pool_ray_distance`` as they are (the ``obstacles`` stage of :mod:`.pipeline`).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from pyflyt_like.common.multirotor_model import MultirotorModel
from pyflyt_like.compiled.scene import pool_distances
from pyflyt_like.worlds import LayoutPool, World, pack_layouts
from pyflyt_like.worlds.specs import WORLD_GENERATORS
from pyflyt_like.worlds.world import MAX_SHIFT

from .arrays import WORLD_FIELDS
from .memory import check_pool_memory

#: The default pool size of a generator is ``min(n_worlds, DEFAULT_LAYOUTS)``: 64 forests
#: of 250 trees take 0.83 MiB and 0.12 s to draw and pack, and an agent meeting one of 64
#: layouts per episode rarely meets the same one twice in a row.
DEFAULT_LAYOUTS = 64
#: The most layouts a pool may hold (drawing each costs ~2 ms for a 250-tree forest: this
#: many take about 2 minutes); the memory bound (:func:`check_pool_memory`) may refuse fewer.
MAX_WORLD_LAYOUTS = 65536


def world_fields(pool: LayoutPool) -> dict[str, object]:
    """The ``Config`` fields of ``pool`` (:data:`WORLD_FIELDS` -> its arrays)."""
    return dict(zip(WORLD_FIELDS, pool))


@cache
def empty_pool() -> LayoutPool:
    """A pool of one empty layout: the pool of an engine without a world (shared, read-only)."""
    return pack_layouts([World()])


def pool_bytes(pool: LayoutPool) -> int:
    """The memory [bytes] of ``pool``'s arrays."""
    return sum(array.nbytes for array in pool if isinstance(array, np.ndarray))


def draw_layouts(generator: object, n_layouts: int, seed: int | None,
                 engine_estimate: float) -> LayoutPool:
    """The pool of ``n_layouts`` layouts of ``generator`` (a Forest, Rooms or Clutter).

    Layout ``l`` is ``generator.generate(s_l)``, the seeds ``s_l`` drawn from a child of the
    engine's seed (``numpy.random.SeedSequence(seed).spawn(1)[0]``): the same ``seed``
    gives the same pool, and drawing it takes no number from the engine's own generator
    (so the draws of a reset, the sensors' streams included, are those of an engine without
    a world). ``seed=None`` draws fresh entropy, as the engine's generator does.

    The memory is checked before the layouts are drawn, from the first one's (``n_layouts``
    times it, against the engine's ``engine_estimate`` bytes), and again on the pool made.

    Raises:
        ValueError: a pool beyond the memory bound, naming ``world_layouts``.
    """
    child = np.random.SeedSequence(seed).spawn(1)[0]
    seeds = np.random.default_rng(child).integers(2**63, size=n_layouts)
    first = generator.generate(int(seeds[0]))
    # the padded arrays grow with the largest layout: twice the first's is the estimate
    what = f"world_layouts={n_layouts}"
    check_pool_memory(what, 2.0 * n_layouts * pool_bytes(pack_layouts([first])),
                      engine_estimate)
    layouts = [first, *(generator.generate(int(s)) for s in seeds[1:])]
    pool = pack_layouts(layouts)
    check_pool_memory(what, pool_bytes(pool), engine_estimate)
    return pool


def pack_world(world: World, engine_estimate: float) -> LayoutPool:
    """The pool of the one layout ``world`` (every simulated world flies among it), its
    memory checked with the engine's ``engine_estimate`` bytes (ValueError naming
    ``world``)."""
    pool = pack_layouts([world])
    check_pool_memory("world", pool_bytes(pool), engine_estimate)
    return pool


def layout_world(pool: LayoutPool, layout: int) -> World:
    """The :class:`~pyflyt_like.worlds.World` of ``pool``'s layout ``layout`` (its
    primitives ordered by kind)."""
    return World.from_arrays(pool.layout_arrays(layout))


def multirotor_collision_radius(model: MultirotorModel) -> float:
    """A multirotor's collision radius [m]: the largest rotor offset along body x or y plus
    the propeller radius, the radius of the collision cylinder of its PyBullet URDF
    (:mod:`pyflyt_like.core.utils.multirotor_urdf`), so that both engines register a
    contact at the same distance from a trunk (0.051 m for the cf2x, 0.056 m for the
    crazyflie21, 0.38 m for the hexarotor)."""
    return float(np.abs(model.positions[:, :2]).max() + model.prop_radius)


def start_label(start_pos: np.ndarray | None, w: int, d: int) -> str:
    """How to name drone ``d`` of world ``w``'s start in a message: ``start_pos[d]`` or
    ``start_pos[w, d]`` as the option was given, or the default's."""
    if start_pos is None:
        return f"the default start of drone {d} (start_pos=None)"
    return f"start_pos[{d}]" if start_pos.ndim == 2 else f"start_pos[{w}, {d}]"


class StartRule:
    """The start rule of an engine with obstacles (docs/batch.md, "Obstacle worlds").

    A drone's start overlaps its world's layout when its collision sphere (``radius`` [m])
    there overlaps a primitive (``pool_distance < radius``; touching is allowed, the floor
    is not counted), as :meth:`World.free_start <pyflyt_like.worlds.World.free_start>`.

    - A fixed :class:`~pyflyt_like.worlds.World` (L = 1): :meth:`check_fixed` raises at
      construction for any start that overlaps it, default starts included (the PyBullet
      ``Aviary``'s rule for a World).
    - A generator's pool: :meth:`starts` moves an overlapping start with
      :meth:`World.nearest_free <pyflyt_like.worlds.World.nearest_free>` (horizontally, its
      height kept, to the first free point on rings about it), each time the world is reset
      into that layout. Deterministic: the same start in the same layout always moves to
      the same place (the moves are remembered per layout and start).

    Args:
        pool: the engine's pool; radius: the collision radius [m]; start_pos: (W, D, 3)
            the engine's start positions [m]; given: the ``start_pos`` option as given
            (``None``, (D, 3) or (W, D, 3)), for the messages.
    """

    def __init__(self, pool: LayoutPool, radius: float, start_pos: np.ndarray,
                 given: np.ndarray | None):
        self.pool, self.radius = pool, radius
        self.start_pos, self.given = start_pos, given
        self._moved: dict[tuple[int, float, float, float], np.ndarray] = {}
        self._worlds: dict[int, World] = {}

    def _overlapping(self, points: np.ndarray, layouts: np.ndarray) -> np.ndarray:
        """Indices of ``points`` (n, 3) whose collision sphere overlaps their layout."""
        distance = np.empty(len(points))
        pool_distances(*self.pool, np.ascontiguousarray(layouts, np.int64),
                       np.ascontiguousarray(points), self.radius, distance)
        return np.flatnonzero(distance < self.radius)

    def _world(self, layout: int) -> World:
        if layout not in self._worlds:
            if len(self._worlds) >= 256:  # a bound on the Worlds kept alive at once
                self._worlds.clear()
            self._worlds[layout] = layout_world(self.pool, layout)
        return self._worlds[layout]

    def check_fixed(self) -> None:
        """Every start must be free in the pool's one layout.

        Raises:
            ValueError: the first overlapping start, naming it (``start_pos[...]``), the
                primitive it overlaps and the collision radius.
        """
        n_worlds, n_drones = self.start_pos.shape[:2]
        points = self.start_pos.reshape(-1, 3)
        bad = self._overlapping(points, np.zeros(len(points), np.int64))
        if bad.size:
            w, d = divmod(int(bad[0]), n_drones)
            position = points[bad[0]]
            world = self._world(0)
            primitive = min(world.primitives, key=lambda p: p.distance(position))
            raise ValueError(
                f"{start_label(self.given, w, d)} = {position.tolist()} overlaps {primitive!r} "
                f"in world: the drone's collision sphere (radius {self.radius:.3f} m) must keep "
                f"clear of every obstacle; move the start (World.nearest_free(position, "
                f"{self.radius:.3f}) finds a free one) or the obstacle")

    def starts(self, worlds: np.ndarray, layouts: np.ndarray) -> np.ndarray:
        """(k, D, 3) start positions [m] of the reset ``worlds`` (k,) flying among
        ``layouts`` (k,): the engine's starts, those that overlap moved (a new array).

        Raises:
            ValueError: a start with no free point within ``MAX_SHIFT`` (5 m) at its
                height (inside a wide box), naming it and the layout.
        """
        positions = self.start_pos[worlds]  # fancy indexing: a copy
        n_drones = positions.shape[1]
        points = positions.reshape(-1, 3)
        per_point = np.repeat(layouts, n_drones)
        for i in self._overlapping(points, per_point):
            layout = int(per_point[i])
            key = (layout, *map(float, points[i]))
            if key not in self._moved:
                try:
                    self._moved[key] = self._world(layout).nearest_free(points[i],
                                                                         self.radius)
                except ValueError as error:
                    w, d = int(worlds[i // n_drones]), i % n_drones
                    raise ValueError(
                        f"{start_label(self.given, w, d)} = {points[i].tolist()} lies inside "
                        f"layout {layout} of the world pool and cannot be moved out within "
                        f"{MAX_SHIFT:g} m at its height ({error}); move the start") from None
            points[i] = self._moved[key]
        return positions


def is_generator(spec: object) -> bool:
    """Whether a checked world spec gives a pool of layouts the engine draws from at reset:
    a generator, or a :class:`~pyflyt_like.worlds.LayoutPool` packed by the caller."""
    return isinstance(spec, (*WORLD_GENERATORS, LayoutPool))


def default_world_layouts(n_worlds: int) -> int:
    """The pool size of a generator when ``world_layouts`` is None: ``min(n_worlds,``
    :data:`DEFAULT_LAYOUTS` ``)``."""
    return min(n_worlds, DEFAULT_LAYOUTS)

