"""The obstacle worlds of a PyBullet :class:`~pyflyt_like.core.Aviary`: the worlds given to
it (``world=``, :meth:`~pyflyt_like.core.Aviary.add_world`,
:meth:`~pyflyt_like.core.Aviary.use_world`), their bodies, their redraws, the size check on
their union and the start rule (no drone's start inside an obstacle).

:mod:`.world_bodies` makes the PyBullet bodies of a World; this module keeps the aviary's
account of them. The Aviary holds one :class:`AviaryWorlds` and drives it: the saved state
and ``contact_array`` stay the Aviary's, so its ``register_all_new_bodies`` and ``reset``
say when a world's bodies are taken out, put back or drawn anew.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pybullet

from pyflyt_like.worlds import World

from .abstractions.base_drone import DroneClass
from .aviary_options import WORLD_GENERATORS, WorldSpec
from .world_bodies import ShapeCache, snap_world

if TYPE_CHECKING:
    from .aviary import Aviary

#: Draws of a generator tried for a layout that traps no drone's start, before an error.
WORLD_DRAWS = 10


@dataclass
class WorldPart:
    """One world given to the aviary (``world=`` or an ``add_world``): its spec, whether
    it is drawn anew at every reset, the World now spawned and its body ids."""

    spec: WorldSpec
    redraw: bool
    world: World | None = None
    body_ids: list[int] = field(default_factory=list)
    #: A World put in by :meth:`Aviary.use_world`: spawned anew at every reset, as a
    #: redrawn generator's layout.
    swapped: bool = False

    @property
    def drawn(self) -> bool:
        """Whether the spec is a generator (its world drawn from ``np_random``)."""
        return isinstance(self.spec, WORLD_GENERATORS)

    @property
    def live(self) -> bool:
        """Whether it is drawn anew at every reset: its bodies are then kept out of the
        saved state (removed before each restore, created again after it)."""
        return (self.redraw and self.drawn) or self.swapped


class AviaryWorlds:
    """The worlds of one aviary: its parts, their bodies, and the union the sensors see.

    Args:
        aviary: a weak proxy of the Aviary, built up to its drones (as the drones hold
            theirs: no aviary <-> worlds cycle, so a dropped Aviary disconnects at once).
            Its ``_client``, ``start_pos``, ``np_random`` and ``world_redraw`` are read
            when used, so they follow the Aviary's as they did when it kept its worlds.

    Attributes:
        parts: the worlds given, in order (:class:`WorldPart`).
        world: the World now spawned (the union of every part's), or ``None``; the
            Aviary's ``world``.
        body_ids: its body ids, one per primitive in the order of ``world.primitives``;
            the Aviary's ``world_body_ids``. Both are new objects after each change (and
            only then, or at a register): the LiDAR compares them by identity.
        drone_radii: (n,) each drone's bounding radius [m] for the start rule.
    """

    def __init__(self, aviary: Aviary) -> None:
        self._aviary = aviary
        client = aviary._client
        self.drone_radii = bounding_radii(client, aviary.drones, aviary.start_pos)
        # One cache for the aviary's life: PyBullet never frees a shape once used, so
        # redrawn layouts reuse the shapes of sizes already met.
        self.shapes = ShapeCache(client)
        self.parts: list[WorldPart] = []
        self.world: World | None = None
        self.body_ids: list[int] = []

    def live_parts(self) -> list[WorldPart]:
        """The parts drawn anew at every reset (:attr:`WorldPart.live`)."""
        return [p for p in self.parts if p.live]

    def add(self, spec: WorldSpec, name: str, draw: bool = False) -> WorldPart:
        """Keep ``spec`` as a world part; spawn it now if it is a World (its start rule
        checked), or a generator's layout if ``draw`` (:meth:`draw`), else leave its
        drawing to the caller.

        A refused world changes nothing: no part is kept, no body stays, and ``np_random``
        is put back as it was (so the next resets draw what they would have drawn).

        Raises:
            ValueError: the World, or every draw of the generator, traps a drone's start,
                or the union would pass ``MAX_PRIMITIVES`` (the messages name ``name``).
        """
        part = WorldPart(spec, redraw=self._aviary.world_redraw)
        if isinstance(spec, World):
            self._check_size(spec, name)
            trapped = self._trapped(spec)
            if trapped is not None:
                raise ValueError(self._trap_message(*trapped, name))
            part.world = spec
            part.body_ids = self.shapes.spawn(spec)
        self.parts.append(part)
        if draw and part.drawn:
            random_state = self._aviary.np_random.bit_generator.state
            try:
                self.draw(part)
            except BaseException:
                # A part kept after a refusal would be drawn again at every reset, which
                # would raise again: the aviary would be lost.
                self.parts.remove(part)
                self.take_out([part])
                self._aviary.np_random.bit_generator.state = random_state
                raise
        self._update()
        return part

    def draw_first(self) -> bool:
        """Draw the layouts of the generators not redrawn at every reset
        (``world_redraw=False``) that are not drawn yet; whether there were any."""
        first = [p for p in self.parts if p.drawn and not p.redraw and p.world is None]
        for part in first:
            self.draw(part)
        return bool(first)

    def draw(self, part: WorldPart) -> None:
        """Draw ``part``'s layout from ``np_random`` (snapped to 1 mm if it is redrawn at
        every reset) until one traps no drone's start, up to :data:`WORLD_DRAWS` draws, and
        spawn it (the part's old bodies were taken out)."""
        if part.swapped:
            self._spawn(part, part.spec)
            return
        generator = part.spec
        for _ in range(WORLD_DRAWS):
            # One draw of a seed, however many numbers the layout takes: np_random's later
            # draws (motor noise, wind) do not depend on the layout.
            world = generator.generate(int(self._aviary.np_random.integers(2**63)))
            if part.redraw:
                world = snap_world(world)
            trapped = self._trapped(world)
            if trapped is None:
                break
        else:
            raise ValueError(self._trap_message(
                *trapped, f"each of {WORLD_DRAWS} draws of {type(generator).__name__}"))
        self._spawn(part, world)

    def use(self, world: World) -> list[int]:
        """Put ``world`` in place of every part (all given by this method), spawned now;
        the checks and errors of :meth:`Aviary.use_world`. Returns the new body ids."""
        if not isinstance(world, World):
            raise TypeError(f"world must be a World, got {type(world).__name__}")
        if any(not part.swapped for part in self.parts):
            raise ValueError("use_world replaces only a world it gave; this aviary has a "
                             "world from world= or add_world")
        trapped = self._trapped(world)
        if trapped is not None:
            raise ValueError(self._trap_message(*trapped, "world"))
        self.take_out(self.parts)
        part = WorldPart(world, redraw=True, swapped=True)
        self.parts = [part]
        self._spawn(part, world)
        return list(part.body_ids)

    def take_out(self, parts: list[WorldPart]) -> None:
        """Remove the bodies of ``parts``, last first: PyBullet reuses freed ids last in,
        first out, so the next spawn gets the same ids back in the same order."""
        client = self._aviary._client
        for part in reversed(parts):
            for body in reversed(part.body_ids):
                pybullet.removeBody(body, physicsClientId=client)
            part.body_ids = []
        if parts:
            self._update()

    def put_back(self, parts: list[WorldPart]) -> None:
        """Spawn the same layouts of ``parts`` again (after a :meth:`take_out`)."""
        for part in parts:
            part.body_ids = self.shapes.spawn(part.world)
        self._update()

    def _spawn(self, part: WorldPart, world: World) -> None:
        self._check_size(world, "world", part)
        part.world = world
        part.body_ids = self.shapes.spawn(world)
        self._update()

    def _check_size(self, world: World, name: str, replaced: WorldPart | None = None
                    ) -> None:
        """A union of more than MAX_PRIMITIVES primitives raises before anything spawns."""
        others = [p.world for p in self.parts if p is not replaced and p.world]
        try:
            World([q for w in (*others, world) for q in w.primitives])
        except ValueError as error:
            raise ValueError(f"{name}: the aviary's worlds together: {error}") from None

    def _update(self) -> None:
        """:attr:`world` and :attr:`body_ids` from the parts spawned now."""
        worlds = [p.world for p in self.parts
                  if p.world is not None and len(p.body_ids) == len(p.world)]
        if not worlds:
            self.world, self.body_ids = None, []
        elif len(worlds) == 1:
            self.world = worlds[0]
        else:
            self.world = World([q for w in worlds for q in w.primitives])
        self.body_ids = [b for p in self.parts for b in p.body_ids]

    def _trapped(self, world: World) -> tuple[int, object] | None:
        """The first drone whose bounding sphere at its start overlaps ``world`` (the start
        rule, :meth:`World.free_start`), and the primitive it overlaps most; or None."""
        for i, (position, radius) in enumerate(zip(self._aviary.start_pos, self.drone_radii)):
            if not world.free_start(position, radius):
                return i, min(world.primitives, key=lambda p: p.distance(position))
        return None

    def _trap_message(self, index: int, primitive: object, where: str) -> str:
        position, radius = self._aviary.start_pos[index].tolist(), self.drone_radii[index]
        return (f"start_pos[{index}] = {position} overlaps {primitive!r} in {where}: the "
                f"drone's bounding sphere (radius {radius:.3f} m) must keep clear of every "
                f"obstacle; move the start (World.nearest_free(position, {radius:.3f}) finds "
                "a free one) or the obstacle")


def bounding_radii(client: int, drones: Sequence[DroneClass], start_pos: np.ndarray
                   ) -> np.ndarray:
    """Each drone's bounding radius [m] for the start rule: the farthest corner of its
    collision AABB (every link, at its start pose, Bullet's margins included) from its
    start position (0.075 m for the cf2x QuadX).

    Args:
        client: the PyBullet client of the drones.
        drones: the ``n`` drones, at their start poses.
        start_pos: (n, 3) their start positions [m].

    Returns:
        (n,) the radii [m].
    """
    radii = []
    for drone, start in zip(drones, start_pos):
        links = range(-1, pybullet.getNumJoints(drone.Id, physicsClientId=client))
        boxes = np.array([pybullet.getAABB(drone.Id, link, physicsClientId=client)
                          for link in links])  # (links, 2, 3)
        low, high = boxes[:, 0].min(axis=0), boxes[:, 1].max(axis=0)
        corners = np.maximum(np.abs(low - start), np.abs(high - start))
        radii.append(float(np.linalg.norm(corners)))
    return np.array(radii)
