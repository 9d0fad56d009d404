"""The LiDAR on the PyBullet path: its beams cast with ``pybullet.rayTestBatch``.

:class:`LidarCaster` measures the true ranges of a scan (:mod:`pyflyt_like.sensors.lidar`
for the beams and the sample); the drone's :class:`~pyflyt_like.core.abstractions.sensors.
Sensors` component samples them at the LiDAR's rate. See docs/sensors.md ("LiDAR").

- **Rays.** Every beam runs from the mounting point along its direction, ``max_range``
  long, given in the frame of the drone's base (``parentObjectUniqueId``): PyBullet places
  them with the base's pose at the time of the call, so the ray lists are built once and
  the call is all a sample costs. At most :data:`MAX_BATCH` (16 383) rays go in one call;
  a larger scan takes several.
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
- **Precision.** The range is Bullet's hit fraction times ``max_range``, in double
  precision; how close it is to the closed form depends on the bodies. The floor plane
  and triangle meshes are exact to rounding (about 1e-14 m); the obstacles of
  :func:`pyflyt_like.core.world_bodies.spawn_world` lie within its tolerances outside the
  exact surfaces (cylinders 1e-4 m, boxes 1e-5 m, spheres 1 mm), and Bullet's convex
  primitives (``GEOM_CYLINDER``, ``GEOM_SPHERE``) are ray-tested by a GJK cast that stops
  within 1 mm of the surface. Along a beam an error d from the surface becomes
  d / cos(incidence): a few millimetres for a sphere at grazing incidence.
"""

from __future__ import annotations

import math

import numpy as np
import pybullet

from pyflyt_like.sensors.lidar import LidarParams

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
#: Without a bit of its own, a ray that hits its own drone is cast on from this far [m] past
#: the hit, this many times at most.
_SKIP = 1e-6
_SELF_HITS = 8

# The bits taken in each PyBullet client: client id -> body id -> bit. The drones hold a
# weak proxy of their Aviary, which cannot be a weak key, so the map is by client id and
# outlives the client: a later client of the same id finds its body ids mapped already.
# Harmless: the map stays one to one, so no two bodies of a client share a bit; stale
# entries only take bits that a later drone with a LiDAR might have had.
_TAKEN: dict[int, dict[int, int]] = {}


class LidarCaster:
    """Casts one drone's LiDAR beams into a PyBullet world.

    Args:
        p: the aviary (a pybullet BulletClient).
        drone: the vehicle; its ``Id`` and, without a group bit of its own, its
            ``rotation_matrix`` (3, 3) are read.
        params: the LiDAR (``resolve_sensors(...)["lidar"]``).
        exclude_self: give the drone a collision filter group bit of its own (module
            docstring); False casts on past its own hits instead (the fallback, kept
            testable).
    """

    def __init__(self, p, drone, params: LidarParams, exclude_self: bool = True):
        self.client_id: int = p._client
        self.drone = drone
        self.uav_id = int(drone.Id)
        self.params = params
        self.max_range = float(params.max_range)
        directions = params.directions.reshape(-1, 3)
        self._directions = directions
        mount = np.asarray(params.mounting_position, dtype=float)
        starts = np.repeat(mount[None, :], directions.shape[0], axis=0)
        ends = mount + self.max_range * directions
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
        #: The true ranges [m] of the last :meth:`cast`, (channels, beams); inf: no hit.
        self.truths = np.full(params.shape, math.inf)

    def cast(self) -> np.ndarray:
        """Cast every beam from the drone's current pose; returns :attr:`truths` (channels,
        beams) [m]: the distance from the mounting point to the first body other than the
        drone itself, ``inf`` when none is hit within ``max_range`` (a hit exactly at
        ``max_range`` reads ``inf`` too: either reads ``max_range`` once sampled)."""
        flat = self.truths.reshape(-1)
        start = 0
        for starts, ends in self._batches:
            results = pybullet.rayTestBatch(
                starts, ends, parentObjectUniqueId=self.uav_id, parentLinkIndex=-1,
                numThreads=THREADS, collisionFilterMask=self.mask,
                physicsClientId=self.client_id)
            count = len(starts)
            if len(results) != count:  # a guard on PyBullet's batch limit (MAX_BATCH)
                raise RuntimeError(f"rayTestBatch returned {len(results)} results for "
                                   f"{count} rays")
            part = flat[start:start + count]
            part[:] = np.fromiter((result[2] for result in results), float, count)
            if self.group_bit is None:
                self._cast_past_self(results, start, part)
            start += count
        missed = flat >= 1.0  # Bullet's hit fraction is 1 for a ray that hits nothing
        flat *= self.max_range
        flat[missed] = math.inf
        return self.truths

    def _cast_past_self(self, results, start: int, fractions: np.ndarray) -> None:
        """Replace the hit fractions of the rays that hit the drone itself by those of the
        first other body past it (the fallback without a group bit)."""
        own = [k for k, result in enumerate(results) if result[0] == self.uav_id]
        if not own:
            return
        rotation = np.asarray(self.drone.rotation_matrix, dtype=float).reshape(3, 3)
        directions = self._directions[start + np.array(own)] @ rotation.T
        travelled = fractions[own] * self.max_range
        hits = np.array([results[k][3] for k in own], dtype=float)
        pending = np.arange(len(own))
        reached = np.full(len(own), math.inf)  # distance to the first other body
        for _ in range(_SELF_HITS):
            travelled[pending] += _SKIP
            origins = hits[pending] + _SKIP * directions[pending]
            remaining = self.max_range - travelled[pending]
            alive = remaining > 0.0
            pending, origins, remaining = pending[alive], origins[alive], remaining[alive]
            if pending.size == 0:
                break
            ends = origins + remaining[:, None] * directions[pending]
            again = pybullet.rayTestBatch(origins.tolist(), ends.tolist(), numThreads=THREADS,
                                          physicsClientId=self.client_id)
            ids = np.array([result[0] for result in again])
            fraction = np.array([result[2] for result in again])
            other = ids >= 0
            other[ids == self.uav_id] = False
            reached[pending[other]] = travelled[pending[other]] + fraction[other] * remaining[
                other]
            self_hit = ids == self.uav_id
            travelled[pending[self_hit]] += fraction[self_hit] * remaining[self_hit]
            pending = pending[self_hit]
            if pending.size == 0:
                break
            hits[pending] = [again[k][3] for k in np.flatnonzero(self_hit)]
        fractions[own] = np.minimum(reached / self.max_range, 1.0)


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
