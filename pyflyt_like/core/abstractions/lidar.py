"""The LiDAR and the depth camera on the PyBullet path: Bullet finds what each beam hits,
the closed form how far.

:class:`LidarCaster` measures the true ranges of a scan (:mod:`pyflyt_like.sensors.lidar`
for the beams and the sample), or of a depth camera's pixels
(:mod:`pyflyt_like.sensors.depth`: the same rays, whose ranges the camera turns into
depths); the drone's :class:`~pyflyt_like.core.abstractions.sensors.Sensors` component
samples them at the sensor's rate.

One ``rayTestBatch`` pass (the rays in the frame of the drone's base, built once; the
drone's own links skipped by a collision filter group bit of its own) says *which* body
each beam meets. The range is then the closed form of
:mod:`pyflyt_like.worlds.geometry`, compiled (:mod:`pyflyt_like.compiled.scene`), along
the beam from the mounting point: to the hit body's primitive and its neighbours, to the
floor, and past a body whose primitive the beam only grazed, cast on; Bullet's own
distance only for bodies of no primitive (other drones, the user's). So every range
equals :func:`~pyflyt_like.sensors.lidar.true_ranges` to the bit. The rules, why each is
needed and what they cost: docs/sensors.md ("LiDAR", "LiDAR cost").
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pybullet

from pyflyt_like.common.rotations import quat_to_matrix
from pyflyt_like.compiled import scene as closed_forms
from pyflyt_like.sensors.depth import DepthParams
from pyflyt_like.sensors.lidar import LidarParams
from pyflyt_like.worlds import Box, Cylinder, Sphere, World
from pyflyt_like.worlds.arrays import KINDS, array_bounds
from pyflyt_like.worlds.grid import KIND_BOX, KIND_CYLINDER, KIND_SPHERE

#: The most rays given to one ``rayTestBatch`` call: one less than PyBullet's
#: MAX_RAY_INTERSECTION_BATCH_SIZE (16384), because a batch of exactly that many returns one
#: result too few (pybullet 3.2.x, measured) and a larger one raises.
MAX_BATCH = pybullet.MAX_RAY_INTERSECTION_BATCH_SIZE - 1
#: ``rayTestBatch``'s ``numThreads``: the calling thread. Bullet's worker threads were no
#: faster (pybullet 3.2.7 wheel, 2 cores: 0.317, 0.319 and 0.322 M rays/s with 1, 2 and
#: "Bullet decides" threads on the 28 800 rays of a VLP-16 scan in a 250-tree forest).
THREADS = 1
#: The collision filter group bits given to the drones with a LiDAR, one each (Bullet's
#: predefined groups use bits 0-5).
GROUP_BITS = tuple(range(6, 31))
#: A beam cast on past a hit starts this far [m] past it (past the drone's own body, or
#: past the outer bound of a primitive it missed), this many times at most (then it keeps
#: the least range found).
_SKIP = 1e-6
_RECASTS = 16
#: The outer bound of a primitive [m]: Bullet's hits on its body lie within
#: ``OUTER_MARGIN + OUTER_PER_SIZE * size`` of it (size: its largest dimension). Measured:
#: a cylinder mesh 0.1 mm outside the circle, Bullet's sphere cast stopping within 1 mm,
#: and the triangle test's edge tolerance, 1e-4 of a triangle's size past an edge (0.6 mm
#: above the rim of a 6 m trunk); twice that here, as a margin.
OUTER_MARGIN = 2e-3
OUTER_PER_SIZE = 2e-4
#: Kind numbers of the primitive tables: the worlds' own (``worlds/grid.py``).
CYLINDER, BOX, SPHERE = KIND_CYLINDER, KIND_BOX, KIND_SPHERE
KIND_OF = {Cylinder: CYLINDER, Box: BOX, Sphere: SPHERE}

# The bits taken in each PyBullet client: client id -> body id -> bit. The drones hold a
# weak proxy of their Aviary, which cannot be a weak key, so the map is by client id and
# outlives the client: a later client of the same id finds its body ids mapped already.
# Harmless: the map stays one to one, so no two bodies of a client share a bit; stale
# entries only take bits that a later drone with a LiDAR might have had.
_TAKEN: dict[int, dict[int, int]] = {}


class LidarCaster:
    """Casts one drone's LiDAR beams, or its depth camera's pixel rays, into a PyBullet
    world (module docstring).

    Args:
        p: the aviary (a pybullet BulletClient); its ``world``, ``world_body_ids`` and
            ``planeId`` are read at every cast where it has them (an :class:`Aviary
            <pyflyt_like.core.aviary.Aviary>` does), so a world redrawn or added is seen;
            without them every hit keeps Bullet's distance.
        drone: the vehicle; its ``Id`` is read (its pose is Bullet's at each cast).
        params: the LiDAR (``resolve_sensors(...)["lidar"]``) or the depth camera
            (``resolve_sensors(...)["depth"]``): its ``directions`` are cast
            ``cast_range`` far.
        exclude_self: give the drone a collision filter group bit of its own (module
            docstring); False casts on past its own hits instead (the fallback, kept
            testable).
    """

    def __init__(self, p, drone, params: LidarParams | DepthParams,
                 exclude_self: bool = True):
        self.client_id: int = p._client
        self.aviary = p
        self.drone = drone
        self.uav_id = int(drone.Id)
        self.params = params
        #: How far [m] each beam is cast (``params.cast_range``).
        self.cast_range = float(params.cast_range)
        directions = params.directions.reshape(-1, 3)
        self._directions = directions
        # the body-frame components, each contiguous: the world directions are built from
        # them with world_ray's arithmetic at every cast
        self._components = [np.ascontiguousarray(directions[:, k]) for k in range(3)]
        self._mount = tuple(float(m) for m in params.mounting_position)
        mount = np.asarray(params.mounting_position, dtype=float)
        starts = np.repeat(mount[None, :], directions.shape[0], axis=0)
        ends = mount + self.cast_range * directions
        self._batches = [(starts[k:k + MAX_BATCH].tolist(), ends[k:k + MAX_BATCH].tolist())
                         for k in range(0, directions.shape[0], MAX_BATCH)]
        #: The collision filter group bit of the drone (None: none was left, or not asked).
        self.group_bit = _take_bit(self.client_id, self.uav_id) if exclude_self else None
        if self.group_bit is None:
            self.mask = -1  # every group
        else:
            group = 1 << self.group_bit
            for link in range(-1, pybullet.getNumJoints(self.uav_id,
                                                        physicsClientId=self.client_id)):
                pybullet.setCollisionFilterGroupMask(self.uav_id, link, group, -1,
                                                     physicsClientId=self.client_id)
            self.mask = ~group  # every group but the drone's (a C int: negative is fine)
        #: The true ranges [m] of the last :meth:`cast`, ``params.shape`` (channels, beams;
        #: a depth camera's height, width); inf: no hit.
        self.truths = np.full(params.shape, math.inf)
        #: Rays cast again in the last :meth:`cast` (past the drone, or past a body whose
        #: primitive they missed), summed over the re-casts.
        self.recast_rays = 0
        self._scene_key: tuple = (None, None, None)
        self._scene = _Scene.empty()

    def cast(self) -> np.ndarray:
        """Cast every beam from the drone's current pose; returns :attr:`truths` (channels,
        beams) [m]: the distance from the mounting point to the first body other than the
        drone itself, in closed form for the world's primitives and the floor (module
        docstring), ``inf`` when none is hit within :attr:`cast_range`."""
        ids, hits = self._first_pass()
        scene = self._current_scene()
        origin, directions = self._world_rays()
        self.recast_rays = 0
        # The floor bounds every range: the re-casts stop there, and a beam that misses
        # every primitive ends on it (also one cast on from below it, past a trunk's foot).
        best = self.truths.reshape(-1)
        closed_forms.floor_ray_distances(origin[2], directions[:, 2], scene.floor_z,
                                         self.cast_range, best)
        if scene.in_a_sphere(origin):
            # From inside a primitive every beam reads 0. Bullet's meshes report their far
            # side, so their exact distance is 0 below; its sphere cast from inside
            # reports nothing outward.
            best[:] = 0.0
            return self.truths
        rays = np.arange(ids.size)
        for attempt in range(_RECASTS + 1):
            rays, starts = self._settle(scene, rays, ids, hits, origin, directions, best)
            if rays.size == 0 or attempt == _RECASTS:
                break
            ids, hits = self._cast_on(origin, directions[rays], starts,
                                      np.minimum(best[rays], self.cast_range))
            self.recast_rays += rays.size
        return self.truths

    # ----------------------------------------------------------------- internals
    def _first_pass(self) -> tuple[np.ndarray, np.ndarray]:
        """Bullet's first hit of every beam: body ids (rays,) (-1: none) and distances
        (rays,) [m] from the mounting point (inf: none)."""
        count = self._directions.shape[0]
        ids = np.empty(count, np.int64)
        fractions = np.empty(count)
        start = 0
        for starts, ends in self._batches:
            results = pybullet.rayTestBatch(
                starts, ends, parentObjectUniqueId=self.uav_id, parentLinkIndex=-1,
                numThreads=THREADS, collisionFilterMask=self.mask,
                physicsClientId=self.client_id)
            n = len(starts)
            if len(results) != n:  # a guard on PyBullet's batch limit (MAX_BATCH)
                raise RuntimeError(f"rayTestBatch returned {len(results)} results for "
                                   f"{n} rays")
            body, _, fraction, _, _ = zip(*results)  # one pass in C over the tuples
            ids[start:start + n] = body
            fractions[start:start + n] = fraction
            start += n
        hits = fractions * self.cast_range
        hits[ids < 0] = math.inf
        return ids, hits

    def _cast_on(self, origin: np.ndarray, directions: np.ndarray, starts: np.ndarray,
                 ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Cast the beams ``directions`` (k, 3) again in the world frame, from ``starts``
        to ``ends`` (k,) [m] along them from ``origin`` (3,): Bullet's body ids (k,) and
        hit distances (k,) [m] from ``origin`` (inf: none)."""
        froms = origin + starts[:, None] * directions
        tos = origin + ends[:, None] * directions
        ids = np.empty(starts.size, np.int64)
        fractions = np.empty(starts.size)
        for k in range(0, starts.size, MAX_BATCH):
            results = pybullet.rayTestBatch(
                froms[k:k + MAX_BATCH].tolist(), tos[k:k + MAX_BATCH].tolist(),
                numThreads=THREADS, collisionFilterMask=self.mask,
                physicsClientId=self.client_id)
            body, _, fraction, _, _ = zip(*results)
            ids[k:k + MAX_BATCH] = body
            fractions[k:k + MAX_BATCH] = fraction
        hits = starts + fractions * (ends - starts)
        hits[ids < 0] = math.inf
        return ids, hits

    def _settle(self, scene: _Scene, rays: np.ndarray, ids: np.ndarray, hits: np.ndarray,
                origin: np.ndarray, directions: np.ndarray, best: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
        """Take Bullet's hits ``ids``, ``hits`` (k,) of the beams ``rays`` (k,) into
        ``best`` (the ranges, (rays,), lowered in place); returns the beams to cast on and
        the distances [m] to cast them from (module docstring's rules)."""
        own = ids == self.uav_id
        on_floor = ids == scene.floor_id
        primitive = scene.primitive_of(ids)
        in_world = primitive >= 0
        other = (ids >= 0) & ~own & ~on_floor & ~in_world
        # (each beam is once in rays: plain fancy indexing, no ufunc.at)
        beams = rays[other]
        best[beams] = np.minimum(best[beams], hits[other])
        go_on = [rays[own]]
        go_from = [hits[own] + _SKIP]
        if in_world.any():
            beams, primitives = rays[in_world], primitive[in_world]
            beam_directions = directions[beams]
            exact = scene.ray_distances(primitives, origin, beam_directions,
                                        self.cast_range)
            nearest = exact
            if scene.has_neighbours:
                nearest = np.minimum(exact, scene.neighbour_distances(
                    primitives, origin, beam_directions, self.cast_range))
            best[beams] = np.minimum(best[beams], nearest)
            # its own primitive missed (only the body's outer skin was hit): cast on from
            # where the beam leaves the outer bound (or from just past the hit), unless a
            # neighbour was met before the hit; one met beyond only bounds the re-cast
            missed = ~(exact <= self.cast_range)
            missed &= best[beams] > hits[in_world]
            if missed.any():
                leave = scene.outer_leave(primitives[missed], origin,
                                          beam_directions[missed])
                go_on.append(beams[missed])
                go_from.append(np.maximum(hits[in_world][missed], leave) + _SKIP)
        rays, starts = np.concatenate(go_on), np.concatenate(go_from)
        keep = starts < np.minimum(best[rays], self.cast_range)
        return rays[keep], starts[keep]

    def _world_rays(self) -> tuple[np.ndarray, np.ndarray]:
        """The beams in the world frame now: the mounting point (3,) [m] and the unit
        directions (rays, 3), with :func:`pyflyt_like.sensors.lidar.world_ray`'s arithmetic
        (so the closed form is that of :func:`~pyflyt_like.sensors.lidar.true_ranges` to
        the bit), from the base's pose as Bullet has it (the frame the rays were cast
        in)."""
        (px, py, pz), quat = pybullet.getBasePositionAndOrientation(
            self.uav_id, physicsClientId=self.client_id)
        r = quat_to_matrix(*quat)
        mx, my, mz = self._mount
        origin = np.array([px + r[0] * mx + r[1] * my + r[2] * mz,
                           py + r[3] * mx + r[4] * my + r[5] * mz,
                           pz + r[6] * mx + r[7] * my + r[8] * mz])
        bx, by, bz = self._components
        directions = np.empty((bx.size, 3))
        for k in range(3):
            directions[:, k] = r[3 * k] * bx + r[3 * k + 1] * by + r[3 * k + 2] * bz
        return origin, directions

    def _current_scene(self) -> _Scene:
        """The primitives of the aviary's world by body id, rebuilt when the world or its
        ids change (a redraw, an added world)."""
        aviary = self.aviary
        key = (getattr(aviary, "world", None), getattr(aviary, "world_body_ids", None),
               getattr(aviary, "planeId", None))
        if any(new is not old for new, old in zip(key, self._scene_key)):
            world, body_ids, plane = key
            self._scene = _Scene.build(world, body_ids, plane, self.client_id)
            self._scene_key = key  # held: an identity compared stays that object's
        return self._scene


class _Scene:
    """The world's primitives as the caster needs them: a table from body id to primitive,
    the exact and outer (grown) arrays in :meth:`World.to_arrays
    <pyflyt_like.worlds.World.to_arrays>`'s layout with each primitive's kind and row,
    each primitive's neighbours, the floor's body id and height."""

    def __init__(self, body_to_primitive: np.ndarray, exact: _Tables, grown: _Tables,
                 neighbour_ptr: np.ndarray, neighbour_index: np.ndarray, floor_id: int,
                 floor_z: float):
        self.body_to_primitive = body_to_primitive
        self.exact, self.grown = exact, grown
        self.neighbour_ptr, self.neighbour_index = neighbour_ptr, neighbour_index
        self.floor_id, self.floor_z = floor_id, floor_z
        self.has_neighbours = neighbour_index.size > 0

    @classmethod
    def empty(cls) -> _Scene:
        return cls.build(None, None, None, -1)

    @classmethod
    def build(cls, world: World | None, body_ids, plane: int | None, client_id: int
              ) -> _Scene:
        world = world if world is not None else World()
        body_ids = list(body_ids) if body_ids is not None else []
        if len(body_ids) != len(world.primitives):
            raise RuntimeError(f"the aviary's world_body_ids ({len(body_ids)} ids) do not "
                               f"match its world ({len(world.primitives)} primitives)")
        exact, grown = primitive_tables(world)
        size = 1 + max(body_ids, default=-1)
        body_to_primitive = np.full(size, -1, np.int64)
        body_to_primitive[np.array(body_ids, np.int64)] = np.arange(len(body_ids))
        pointer, index = neighbours(world, exact, grown)
        if plane is None:
            floor_id, floor_z = -2, -math.inf  # no floor: no id matches, none is met
        else:
            floor_id = int(plane)
            floor_z = float(pybullet.getBasePositionAndOrientation(
                floor_id, physicsClientId=client_id)[0][2])
        return cls(body_to_primitive, exact, grown, pointer, index, floor_id, floor_z)

    def in_a_sphere(self, origin: np.ndarray) -> bool:
        """Whether ``origin`` (3,) [m] is inside (or on) one of the spheres."""
        return bool(closed_forms.inside_a_sphere(self.exact.spheres, *origin))

    def primitive_of(self, ids: np.ndarray) -> np.ndarray:
        """The primitive index (k,) of each body id (k,); -1 for bodies of no primitive."""
        table = self.body_to_primitive
        known = (ids >= 0) & (ids < table.size)
        out = np.full(ids.size, -1, np.int64)
        out[known] = table[ids[known]]
        return out

    def ray_distances(self, primitives: np.ndarray, origin: np.ndarray,
                      directions: np.ndarray, max_range: float) -> np.ndarray:
        """The exact ray distance (k,) [m] of each beam (k, 3) from ``origin`` (3,) to its
        primitive (k,): inf where it misses, or meets it beyond ``max_range``."""
        out = np.empty(primitives.size)
        closed_forms.primitive_ray_distances(*self.exact, primitives, origin, directions,
                                      max_range, out)
        return out

    def outer_leave(self, primitives: np.ndarray, origin: np.ndarray,
                    directions: np.ndarray) -> np.ndarray:
        """Where each beam (k, 3) from ``origin`` (3,) leaves the outer bound of its
        primitive (k,) [m] (-inf where it misses it)."""
        out = np.empty(primitives.size)
        closed_forms.primitive_ray_leaves(*self.grown, primitives, origin, directions, out)
        return out

    def neighbour_distances(self, primitives: np.ndarray, origin: np.ndarray,
                            directions: np.ndarray, max_range: float) -> np.ndarray:
        """The least exact ray distance (k,) [m] of each beam (k, 3) to the neighbours of
        its primitive (k,); inf for a primitive without any."""
        pointer = self.neighbour_ptr
        counts = pointer[primitives + 1] - pointer[primitives]
        out = np.full(primitives.size, math.inf)
        total = int(counts.sum())
        if total == 0:
            return out
        beam = np.repeat(np.arange(primitives.size), counts)
        first = np.repeat(pointer[primitives] - (np.cumsum(counts) - counts), counts)
        others = self.neighbour_index[first + np.arange(total)]
        exact = self.ray_distances(others, origin, np.ascontiguousarray(directions[beam]),
                                   max_range)
        np.minimum.at(out, beam, exact)
        return out


class _Tables(NamedTuple):
    """A world's primitives for the compiled closed forms
    (:func:`pyflyt_like.compiled.scene.primitive_ray_distances`' first six arguments)."""

    cylinders: np.ndarray  # (n_c, 4) x, y, radius, height [m]
    boxes: np.ndarray  # (n_b, 7) cx, cy, cz, hx, hy, hz [m], yaw [rad]
    spheres: np.ndarray  # (n_s, 4) cx, cy, cz, radius [m]
    lift: np.ndarray  # (n,) [m]: how far each cylinder reaches below the floor
    kinds: np.ndarray  # (n,) int: the kind of each primitive (the worlds' kind numbers)
    rows: np.ndarray  # (n,) int: its row in its kind's array


def primitive_tables(world: World) -> tuple[_Tables, _Tables]:
    """The primitives of ``world`` in the order of ``world.primitives``: exact, and grown
    to their outer bound (:data:`OUTER_MARGIN` + :data:`OUTER_PER_SIZE` x size larger every
    way; a cylinder also below the floor, by ``lift``)."""
    arrays = world.to_arrays()
    kinds = np.array([KIND_OF[type(p)] for p in world.primitives], np.int64).reshape(-1)
    rows = np.zeros(kinds.size, np.int64)
    for kind in (CYLINDER, BOX, SPHERE):
        chosen = kinds == kind
        rows[chosen] = np.arange(np.count_nonzero(chosen))
    cylinders, boxes, spheres = (arrays[name] for name in KINDS)
    grow = [OUTER_MARGIN + OUTER_PER_SIZE * np.maximum(2.0 * cylinders[:, 2],
                                                       cylinders[:, 3]),
            OUTER_MARGIN + OUTER_PER_SIZE * 2.0 * boxes[:, 3:6].max(axis=1, initial=0.0),
            OUTER_MARGIN + OUTER_PER_SIZE * 2.0 * spheres[:, 3]]
    g = grow[CYLINDER]
    grown_cylinders = np.column_stack([cylinders[:, :2], cylinders[:, 2] + g,
                                       cylinders[:, 3] + 2.0 * g])
    grown_boxes = boxes.copy()
    grown_boxes[:, 3:6] += grow[BOX][:, None]
    grown_spheres = spheres.copy()
    grown_spheres[:, 3] += grow[SPHERE]
    lift = np.zeros(kinds.size)
    lift[kinds == CYLINDER] = g
    exact = _Tables(cylinders, boxes, spheres, np.zeros(kinds.size), kinds, rows)
    grown = _Tables(np.ascontiguousarray(grown_cylinders), grown_boxes, grown_spheres, lift,
                    kinds, rows)
    return exact, grown


def neighbours(world: World, exact: _Tables, grown: _Tables
               ) -> tuple[np.ndarray, np.ndarray]:
    """Each primitive's neighbours, as ``(pointer (n + 1,), index)``: the neighbours of
    primitive ``i`` are ``index[pointer[i]:pointer[i + 1]]``, the other primitives whose
    axis-aligned bounds meet its outer bound's, grown by the same margin again (a superset
    of those that come within its tolerance of it). Sort and sweep along x."""
    kinds, rows = exact.kinds, exact.rows
    n = kinds.size
    # array_bounds lists cylinders, then boxes, then spheres: each primitive's row there
    offsets = np.array([0, exact.cylinders.shape[0],
                        exact.cylinders.shape[0] + exact.boxes.shape[0]])
    bounds = array_bounds(world.to_arrays())[offsets[kinds] + rows].reshape(n, 6)
    margin = 2.0 * _margins(exact, grown)[:, None]  # twice the outer bound's margin
    low, high = bounds[:, :3] - margin, bounds[:, 3:] + margin
    order = np.argsort(low[:, 0], kind="stable")
    low_sorted, high_sorted = low[order], high[order]
    ends = np.searchsorted(low_sorted[:, 0], high_sorted[:, 0], side="right")
    firsts, seconds = [], []
    for a in range(n):
        b = np.arange(a + 1, ends[a])
        if b.size == 0:
            continue
        meet = np.all((low_sorted[b, 1:] <= high_sorted[a, 1:]) &
                      (low_sorted[a, 1:] <= high_sorted[b, 1:]), axis=1)
        b = b[meet]
        firsts.append(np.full(b.size, order[a]))
        seconds.append(order[b])
    if not firsts:
        return np.zeros(n + 1, np.int64), np.zeros(0, np.int64)
    i = np.concatenate(firsts + seconds)
    j = np.concatenate(seconds + firsts)  # both ways
    by_first = np.lexsort((j, i))
    i, j = i[by_first], j[by_first]
    pointer = np.zeros(n + 1, np.int64)
    pointer[1:] = np.cumsum(np.bincount(i, minlength=n))
    return pointer, j.astype(np.int64)


def _margins(exact: _Tables, grown: _Tables) -> np.ndarray:
    """How much larger (n,) [m] each primitive's outer bound is than it: the growth of its
    radius (cylinders, spheres) or first half extent (boxes)."""
    column = {CYLINDER: (exact.cylinders, grown.cylinders, 2),
              BOX: (exact.boxes, grown.boxes, 3), SPHERE: (exact.spheres, grown.spheres, 3)}
    out = np.empty(exact.kinds.size)
    for kind, (e, g, c) in column.items():
        chosen = exact.kinds == kind
        out[chosen] = g[exact.rows[chosen], c] - e[exact.rows[chosen], c]
    return out


def _take_bit(client_id: int, uav_id: int) -> int | None:
    """A collision filter group bit of its own for the body ``uav_id`` of the PyBullet
    client ``client_id``, or None when every bit of :data:`GROUP_BITS` is taken there."""
    taken = _TAKEN.setdefault(client_id, {})
    if uav_id in taken:
        return taken[uav_id]
    free = [bit for bit in GROUP_BITS if bit not in taken.values()]
    if not free:
        return None
    taken[uav_id] = free[0]
    return free[0]
