"""The LiDAR and the depth camera on the PyBullet path: Bullet finds what each beam hits,
the closed form how far.

:class:`LidarCaster` measures the true ranges of a scan (:mod:`pyflyt_like.sensors.lidar`
for the beams and the sample), or of a depth camera's pixels
(:mod:`pyflyt_like.sensors.depth`: the same rays, whose ranges the camera turns into
depths); the drone's :class:`~pyflyt_like.core.abstractions.sensors.Sensors` component
samples them at the sensor's rate. See docs/sensors.md ("LiDAR", "Depth camera").

- **Rays.** Every beam runs from the mounting point along its direction, ``cast_range``
  long (a LiDAR's ``max_range``; a depth camera's reaches ``max_range`` of depth at its
  most oblique pixel), given in the frame of the drone's base (``parentObjectUniqueId``):
  PyBullet places them with the base's pose at the time of the call, so the ray lists are
  built once and the call is all the first pass costs. At most :data:`MAX_BATCH` (16 383)
  rays go in one call; a larger scan takes several.
- **The drone's own bodies.** A drone with a LiDAR gets a collision filter group of its
  own, one bit (:data:`GROUP_BITS`) set on every link, its collision mask left at all bits,
  and its rays carry a mask without that bit: Bullet skips the drone's links in the
  broadphase, so no beam sees its own vehicle and none pays for testing it (a ray that
  starts just outside a QuadX's mesh costs about 10 us against it, 1.4 us skipped). Bodies
  collide when each one's group meets the other's mask: every other body keeps its default
  mask of all bits (or all but static for static bodies), so the drone's contacts do not
  change. Other drones stay visible, with or without a LiDAR. Past the
  ``len(GROUP_BITS)``-th drone with a LiDAR in one Aviary no bit is left: that drone's rays
  hit everything, and a ray that hits the drone itself is cast on from just past the hit.
- **Exact ranges.** Bullet's hits are not the closed form's: the bodies of
  :func:`pyflyt_like.core.world_bodies.spawn_world` circumscribe their primitives (a
  cylinder's mesh lies up to 0.1 mm outside it, Bullet's sphere cast stops up to 1 mm
  short), and along a glancing beam the error grows as 1 / cos(incidence) (centimetres for
  a sphere's silhouette). So Bullet says *which* body a beam meets, and the range is the
  closed form along the beam from the mounting point (:mod:`pyflyt_like.worlds.geometry`'s
  arithmetic in numpy, per kind: :func:`_intervals`; equal to
  :func:`~pyflyt_like.sensors.lidar.true_ranges` to the bit in the tests):

  - a body of a world primitive (the Aviary's ``world_body_ids``, one per primitive of
    ``world.primitives``, mapped again when they change): the exact distance to that
    primitive. Every body contains its primitive, so a primitive the beam meets earlier
    would be Bullet's hit, unless it meets the beam between Bullet's hit and the exact one;
    such a primitive comes within the body's tolerance of the hit primitive (the distance
    to a convex shape is convex along a line), so it is one of the primitive's
    *neighbours* (:func:`neighbours`, found once per world), whose exact distances are
    taken as well, the least kept;
  - a body whose primitive the beam misses (it only grazed the outer skin): the beam is cast
    on (:meth:`LidarCaster._cast_on`, the re-cast that also takes beams past the drone's
    own body) from where it leaves the primitive's outer bound (:func:`primitive_tables`;
    a Bullet sphere cast from inside reports a hit at once, so the skin is skipped, and a
    neighbour met in it is taken from the closed form), until a primitive is hit, the
    floor, another body, or ``cast_range``;
  - the Aviary's floor plane, ``z = floor_z``: the closed form
    (:func:`~pyflyt_like.sensors.lidar.floor_ray_distance`), which also bounds every range;
  - any other body (other drones, bodies the user loaded): Bullet's hit fraction times the
    beam's length.

  A beam from inside a primitive reads 0, as in closed form (a mesh reports its far side,
  whose primitive's exact distance is 0; from inside a sphere, whose cast reports nothing
  outward, the whole scan is set to 0).

  Bullet does not report a contact at a single point (a beam exactly tangent to a sphere,
  to the last bit): the range is then what lies behind. The tests' scans (grazing fans down
  to 5e-11 degrees apart at silhouettes, rims and in the planes of faces) met none.
"""

from __future__ import annotations

import math

import numpy as np
import pybullet

from pyflyt_like.common.rotations import quat_to_matrix
from pyflyt_like.sensors.depth import DepthParams
from pyflyt_like.sensors.lidar import LidarParams
from pyflyt_like.worlds import Box, Cylinder, World
from pyflyt_like.worlds.geometry import box_horizontal_half_widths
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
        # The closed forms divide by zero and make inf - inf where a beam is parallel to a
        # face or misses: those are replaced by the rules of geometry.py. One errstate for
        # the whole refinement (each costs microseconds, as much as a small scan's maths).
        self.recast_rays = 0
        with np.errstate(divide="ignore", invalid="ignore"):
            # The floor bounds every range: the re-casts stop there, and a beam that misses
            # every primitive ends on it (also one cast on from below it, past a trunk's
            # foot).
            best = self.truths.reshape(-1)
            best[:] = _floor_distances(origin[2], directions[:, 2], scene.floor_z,
                                       self.cast_range)
            if scene.in_a_sphere(origin):
                # From inside a primitive every beam reads 0. Bullet's meshes report
                # their far side, so their exact distance is 0 below; its sphere cast
                # from inside reports nothing outward.
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
    each kind's exact and outer (grown) parameters, each primitive's neighbours, the
    floor's body id and height."""

    def __init__(self, body_to_primitive: np.ndarray, kinds: np.ndarray, rows: np.ndarray,
                 exact: list[np.ndarray], grown: list[np.ndarray], neighbour_ptr: np.ndarray,
                 neighbour_index: np.ndarray, floor_id: int, floor_z: float):
        self.body_to_primitive = body_to_primitive
        self.kinds, self.rows = kinds, rows
        self.exact, self.grown = exact, grown
        self.neighbour_ptr, self.neighbour_index = neighbour_ptr, neighbour_index
        self.floor_id, self.floor_z = floor_id, floor_z
        present = [kind for kind in (CYLINDER, BOX, SPHERE) if exact[kind].shape[0]]
        #: The one kind of the world's primitives, -1 for several (or none).
        self.single_kind = present[0] if len(present) == 1 else -1
        self.has_neighbours = neighbour_index.size > 0

    @classmethod
    def empty(cls) -> _Scene:
        return cls.build(None, None, None, -1)

    @classmethod
    def build(cls, world: World | None, body_ids, plane: int | None, client_id: int
              ) -> _Scene:
        primitives = world.primitives if world is not None else ()
        body_ids = list(body_ids) if body_ids is not None else []
        if len(body_ids) != len(primitives):
            raise RuntimeError(f"the aviary's world_body_ids ({len(body_ids)} ids) do not "
                               f"match its world ({len(primitives)} primitives)")
        exact, grown, kinds, rows = primitive_tables(primitives)
        size = 1 + max(body_ids, default=-1)
        body_to_primitive = np.full(size, -1, np.int64)
        body_to_primitive[np.array(body_ids, np.int64)] = np.arange(len(body_ids))
        pointer, index = neighbours(exact, grown, kinds, rows)
        if plane is None:
            floor_id, floor_z = -2, -math.inf  # no floor: no id matches, none is met
        else:
            floor_id = int(plane)
            floor_z = float(pybullet.getBasePositionAndOrientation(
                floor_id, physicsClientId=client_id)[0][2])
        return cls(body_to_primitive, kinds, rows, exact, grown, pointer, index, floor_id,
                   floor_z)

    def in_a_sphere(self, origin: np.ndarray) -> bool:
        """Whether ``origin`` (3,) [m] is inside (or on) one of the spheres, as
        :func:`~pyflyt_like.worlds.geometry.sphere_ray_distance` tells it."""
        spheres = self.exact[SPHERE]
        if not spheres.shape[0]:
            return False
        rx, ry, rz = (origin[k] - spheres[:, k] for k in range(3))
        radius = spheres[:, 3]
        return bool(np.any(rx * rx + ry * ry + rz * rz - radius * radius <= 0.0))

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
        kinds, rows = self.kinds[primitives], self.rows[primitives]
        if self.single_kind >= 0:  # no masks to build for a world of one kind
            enter, leave = _intervals(self.single_kind, self.exact[self.single_kind][rows],
                                      origin, directions)
            return _first_contact(enter, leave, max_range)
        exact = np.empty(primitives.size)
        for kind in (CYLINDER, BOX, SPHERE):
            chosen = kinds == kind
            if chosen.any():
                enter, leave = _intervals(kind, self.exact[kind][rows[chosen]], origin,
                                          directions[chosen])
                exact[chosen] = _first_contact(enter, leave, max_range)
        return exact

    def outer_leave(self, primitives: np.ndarray, origin: np.ndarray,
                    directions: np.ndarray) -> np.ndarray:
        """Where each beam (k, 3) from ``origin`` (3,) leaves the outer bound of its
        primitive (k,) [m] (-inf where it misses it)."""
        kinds, rows = self.kinds[primitives], self.rows[primitives]
        out = np.empty(primitives.size)
        for kind in (CYLINDER, BOX, SPHERE):
            chosen = kinds == kind
            if chosen.any():
                enter, leave = _intervals(kind, self.grown[kind][rows[chosen]], origin,
                                          directions[chosen])
                out[chosen] = np.where(enter <= leave, leave, -math.inf)
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
        exact = self.ray_distances(others, origin, directions[beam], max_range)
        np.minimum.at(out, beam, exact)
        return out


# ------------------------------------------------------------------ closed form (numpy)
def primitive_tables(primitives) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray,
                                          np.ndarray]:
    """The parameters of ``primitives`` by kind, for :func:`_intervals`: ``exact`` and
    ``grown`` (the outer bound, :data:`OUTER_MARGIN` + :data:`OUTER_PER_SIZE` x size
    larger), each a list indexed by kind of arrays: cylinders (n, 5) x, y, radius, z_low,
    z_high; boxes (n, 8) cx, cy, cz, hx, hy, hz, cos(yaw), sin(yaw); spheres (n, 4) cx, cy,
    cz, radius [m]; and each primitive's kind (n,) and row in its kind's table (n,)."""
    rows_by_kind: list[list] = [[], [], []]
    grown_by_kind: list[list] = [[], [], []]
    kinds = np.empty(len(primitives), np.int64)
    rows = np.empty(len(primitives), np.int64)
    for i, p in enumerate(primitives):
        if type(p) is Cylinder:
            kind = CYLINDER
            row = (p.x, p.y, p.radius, 0.0, p.height)
            g = OUTER_MARGIN + OUTER_PER_SIZE * max(2.0 * p.radius, p.height)
            outer = (p.x, p.y, p.radius + g, -g, p.height + g)
        elif type(p) is Box:
            kind = BOX
            # math's cos and sin, as geometry.box_ray_distance takes them
            c, s = math.cos(p.yaw), math.sin(p.yaw)
            row = (*p.center, *p.half_extents, c, s)
            g = OUTER_MARGIN + OUTER_PER_SIZE * 2.0 * max(p.half_extents)
            outer = (*p.center, *(h + g for h in p.half_extents), c, s)
        else:
            kind = SPHERE
            row = (*p.center, p.radius)
            g = OUTER_MARGIN + OUTER_PER_SIZE * 2.0 * p.radius
            outer = (*p.center, p.radius + g)
        kinds[i], rows[i] = kind, len(rows_by_kind[kind])
        rows_by_kind[kind].append(row)
        grown_by_kind[kind].append(outer)
    widths = (5, 8, 4)
    exact = [np.array(r, dtype=float).reshape(-1, w) for r, w in zip(rows_by_kind, widths)]
    grown = [np.array(r, dtype=float).reshape(-1, w) for r, w in zip(grown_by_kind, widths)]
    return exact, grown, kinds, rows


def neighbours(exact: list[np.ndarray], grown: list[np.ndarray], kinds: np.ndarray,
               rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each primitive's neighbours, as ``(pointer (n + 1,), index)``: the neighbours of
    primitive ``i`` are ``index[pointer[i]:pointer[i + 1]]``, the other primitives whose
    axis-aligned bounds meet its outer bound's, grown by the same margin again (a superset
    of those that come within its tolerance of it). Sort and sweep along x."""
    n = kinds.size
    low, high = np.empty((n, 3)), np.empty((n, 3))
    for kind in (CYLINDER, BOX, SPHERE):
        chosen = kinds == kind
        if not chosen.any():
            continue
        e, g = exact[kind][rows[chosen]], grown[kind][rows[chosen]]
        margin = 2.0 * _margin(kind, e, g)[:, None]  # twice the outer bound's margin
        lo, hi = _bounds(kind, e)
        low[chosen], high[chosen] = lo - margin, hi + margin
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


def _margin(kind: int, exact: np.ndarray, grown: np.ndarray) -> np.ndarray:
    """How much larger (k,) [m] the outer bound is than the primitive."""
    column = {CYLINDER: 2, BOX: 3, SPHERE: 3}[kind]
    return grown[:, column] - exact[:, column]


def _bounds(kind: int, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Axis-aligned bounds (k, 3), (k, 3) [m] of primitives of one kind (their tables)."""
    if kind == CYLINDER:
        x, y, r, z_low, z_high = p.T
        return (np.column_stack([x - r, y - r, z_low]),
                np.column_stack([x + r, y + r, z_high]))
    if kind == BOX:
        centre, (hx, hy, hz) = p[:, :3], p[:, 3:6].T
        wx, wy = box_horizontal_half_widths(hx, hy, np.arctan2(p[:, 7], p[:, 6]))
        half = np.column_stack([wx, wy, hz])
        return centre - half, centre + half
    return p[:, :3] - p[:, 3:4], p[:, :3] + p[:, 3:4]


def _intervals(kind: int, p: np.ndarray, origin: np.ndarray, d: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """The intervals ``(enter, leave)`` (k,) [m] over which the beams ``origin`` (3,) +
    t ``d`` (k, 3) lie in primitives of one kind (their table rows ``p``, (k, w)): the
    arithmetic of :mod:`pyflyt_like.worlds.geometry`'s ray distances, per kind."""
    ox, oy, oz = origin
    dx, dy, dz = d[:, 0], d[:, 1], d[:, 2]
    if kind == CYLINDER:
        rx, ry = ox - p[:, 0], oy - p[:, 1]
        radius = p[:, 2]
        a = dx * dx + dy * dy
        c = rx * rx + ry * ry - radius * radius
        side_enter, side_leave = _quadric(a, rx * dx + ry * dy, c)
        vertical = a == 0.0  # inside the circle all along, or never
        inside = c <= 0.0
        side_enter = np.where(vertical, np.where(inside, -math.inf, math.inf), side_enter)
        side_leave = np.where(vertical, np.where(inside, math.inf, -math.inf), side_leave)
        z_enter, z_leave = _slab(oz, dz, p[:, 3], p[:, 4])
        return np.maximum(side_enter, z_enter), np.minimum(side_leave, z_leave)
    if kind == BOX:
        c, s = p[:, 6], p[:, 7]
        rx, ry = ox - p[:, 0], oy - p[:, 1]
        lox, loy = c * rx + s * ry, -s * rx + c * ry  # origin and direction in the box frame
        ldx, ldy = c * dx + s * dy, -s * dx + c * dy
        hx, hy, hz = p[:, 3], p[:, 4], p[:, 5]
        x_enter, x_leave = _slab(lox, ldx, -hx, hx)
        y_enter, y_leave = _slab(loy, ldy, -hy, hy)
        z_enter, z_leave = _slab(oz - p[:, 2], dz, -hz, hz)
        return (np.maximum(x_enter, np.maximum(y_enter, z_enter)),
                np.minimum(x_leave, np.minimum(y_leave, z_leave)))
    rx, ry, rz = ox - p[:, 0], oy - p[:, 1], oz - p[:, 2]
    radius = p[:, 3]
    return _quadric(dx * dx + dy * dy + dz * dz, rx * dx + ry * dy + rz * dz,
                    rx * rx + ry * ry + rz * rz - radius * radius)


def _slab(origin, direction, low, high) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~pyflyt_like.worlds.geometry.slab_interval` over arrays."""
    parallel = direction == 0.0
    t_low = (low - origin) / direction  # +-inf or NaN where parallel: replaced below
    t_high = (high - origin) / direction
    enter, leave = np.minimum(t_low, t_high), np.maximum(t_low, t_high)
    if parallel.any():
        inside = (low <= origin) & (origin <= high)
        enter = np.where(parallel, np.where(inside, -math.inf, math.inf), enter)
        leave = np.where(parallel, np.where(inside, math.inf, -math.inf), leave)
    return enter, leave


def _quadric(a, half_b, c) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~pyflyt_like.worlds.geometry.quadric_interval` over arrays (the roots in the
    form that does not cancel)."""
    disc = half_b * half_b - a * c
    none = disc < 0.0
    root = np.sqrt(np.where(none, 0.0, disc))
    q = np.where(half_b >= 0.0, -(half_b + root), -(half_b - root))
    tangent = q == 0.0  # half_b == 0 and disc == 0: a tangent ray from the surface
    t_a, t_b = q / a, c / q  # inf or NaN where tangent (or a == 0): replaced
    enter, leave = np.minimum(t_a, t_b), np.maximum(t_a, t_b)
    enter = np.where(none, math.inf, np.where(tangent, 0.0, enter))
    leave = np.where(none, -math.inf, np.where(tangent, 0.0, leave))
    return enter, leave


def _first_contact(enter: np.ndarray, leave: np.ndarray, max_range: float) -> np.ndarray:
    """:func:`~pyflyt_like.worlds.geometry.first_contact` over arrays."""
    t = np.where(enter <= 0.0, 0.0, enter)
    return np.where((enter > leave) | (leave < 0.0) | (enter > max_range), math.inf, t)


def _floor_distances(oz: float, dz: np.ndarray, floor_z: float, max_range: float
                     ) -> np.ndarray:
    """:func:`~pyflyt_like.sensors.lidar.floor_ray_distance` over the beams' z components
    ``dz`` (rays,) from the height ``oz`` [m]."""
    height = oz - floor_z
    if height <= 0.0:
        return np.zeros(dz.size)
    t = height / -dz  # inf where level: replaced
    return np.where((dz >= 0.0) | (t > max_range), math.inf, t)


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
