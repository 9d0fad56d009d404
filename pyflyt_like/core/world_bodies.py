"""Static PyBullet bodies for the primitives of a :class:`~pyflyt_like.worlds.World`.

One static body (mass 0) per primitive, made with raw pybullet calls on the given client:
its collision shape is what Bullet's contacts and ray tests see, its visual shape (a plain
colour per kind, :data:`COLOURS`) what cameras see. The collision representation was chosen
by measuring ``pybullet.rayTest`` against
:meth:`World.ray_distance <pyflyt_like.worlds.World.ray_distance>` (docs/worlds.md, "On the
PyBullet Aviary", has the figures):

- **Cylinders** are concave triangle meshes (``GEOM_MESH`` with
  ``GEOM_FORCE_CONCAVE_TRIMESH``, whose ray test is exact to rounding): a prism on a
  regular ``n``-gon that *circumscribes* the circle, so the mesh contains the cylinder and
  lies at most ``r (1/cos(pi/n) - 1)`` outside it (the circumscribed form of the chord
  bound ``r (1 - cos(pi/n))``); ``n`` is the least that keeps this within
  :data:`FACET_TOLERANCE` (:func:`cylinder_facets`: 100 facets for a 0.2 m trunk). Bullet's
  ``GEOM_CYLINDER`` is not used: its ray cast stops up to 1 mm short of the surface and its
  rim is rounded by the collision margin (errors up to 1 cm along rays within 84 degrees of
  the normal, tens of cm for grazing ones, measured).
- **Boxes** are 12-triangle meshes of their exact size, yawed by the body's orientation:
  exact to rounding (Bullet's ``GEOM_BOX`` cast stops up to 1 mm short, worse at edges).
- **Spheres** are Bullet's ``GEOM_SPHERE``: its ray cast (btGjkConvexCast) stops within
  1 mm outside the surface (:data:`SPHERE_TOLERANCE`). A geodesic mesh as fine as the
  cylinders' would take about ``6 r / FACET_TOLERANCE`` triangles (35 000, some 5 MB, for a
  0.6 m sphere), which PyBullet could never free.

Every ray hit on a cylinder thus lies within :data:`FACET_TOLERANCE` outside the exact
surface, on a box within rounding, on a sphere within 1 mm; near an edge (a rim, a box's
edge) Bullet's triangle test also accepts hits up to about ``1e-4`` times the triangle's
size past the edge (0.6 mm beside the top rim of a 6 m trunk). The distance *along* a ray
is the distance of its hit from the surface divided by the cosine of the angle of
incidence: within 1 mm for cylinders up to about 84 degrees from the normal; for spheres
only near normal incidence. A ray from inside a mesh meets its far side (the exact
``ray_distance`` is 0 there).

PyBullet never frees a collision shape once a body has used it (``removeBody`` leaves it,
``removeCollisionShape`` refuses: bullet3 issue #4326), and a cylinder mesh takes some
100 kB, so a caller that spawns worlds again and again in one client keeps one
:class:`ShapeCache`, which makes each size once; the Aviary also rounds the sizes of the
worlds it redraws (:func:`snap_world`), so that they recur. (Each body created and removed
also leaves about 0.9 kB behind, measured; PyBullet offers no way around that.)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pybullet

from pyflyt_like.common.validation import check_positive_float
from pyflyt_like.worlds import Box, Cylinder, Sphere, World

#: The most a cylinder's mesh lies outside the circle it circumscribes [m].
FACET_TOLERANCE = 1e-4
#: The most a ray's hit on a sphere lies outside its surface [m] (Bullet's GJK ray cast).
SPHERE_TOLERANCE = 1e-3
#: Bounds on a cylinder's facet count (at MAX_FACETS, radii above about 340 m exceed
#: FACET_TOLERANCE).
MIN_FACETS = 8
MAX_FACETS = 4096
#: The facets of a cylinder's visual shape (cameras only; at most 0.9 % of the radius
#: inside).
VISUAL_FACETS = 24
#: The size grid of :func:`snap_world` [m].
SNAP_STEP = 1e-3
#: Measured memory of PyBullet shapes (pybullet 3.2.7), for :attr:`ShapeCache.bytes`: per
#: mesh triangle, and per shape (collision and visual) [bytes].
BYTES_PER_TRIANGLE = 360
BYTES_PER_SHAPE = 4_000
#: A :class:`ShapeCache` whose shapes hold more than this [bytes] warns once (memory
#: PyBullet will not give back until its client is disconnected).
CACHE_WARNING_BYTES = 512 * 2**20

#: The visual colour (RGBA) of each kind: bark, concrete, a red balloon.
COLOURS = {
    "cylinders": (0.45, 0.32, 0.20, 1.0),
    "boxes": (0.62, 0.62, 0.60, 1.0),
    "spheres": (0.85, 0.30, 0.25, 1.0),
}

_IDENTITY = (0.0, 0.0, 0.0, 1.0)


def cylinder_facets(radius: float) -> int:
    """The facet count ``n`` of a cylinder mesh of ``radius`` > 0 [m]: the least in
    [:data:`MIN_FACETS`, :data:`MAX_FACETS`] with ``radius (1/cos(pi/n) - 1) <=``
    :data:`FACET_TOLERANCE` (the circumscribed ``n``-gon's farthest reach outside the
    circle)."""
    radius = check_positive_float("radius", radius)
    # 1/cos(pi/n) <= 1 + tol/r  <=>  pi/n <= acos(r / (r + tol))
    n = math.ceil(math.pi / math.acos(radius / (radius + FACET_TOLERANCE)))
    return min(max(n, MIN_FACETS), MAX_FACETS)


def cylinder_mesh(radius: float, height: float, facets: int | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """A closed triangle mesh of a vertical cylinder centred on the origin.

    The side is a prism on the regular ``n``-gon circumscribing the circle of ``radius``
    [m] (``n = facets``, by default :func:`cylinder_facets`), a vertex at angle 0; the caps
    are fans from their centres; ``z`` spans ``[-height/2, height/2]`` [m]. Triangles wind
    counter-clockwise seen from outside.

    Returns:
        vertices (2n + 2, 3) float64 [m] and indices (12 n,) int64, three per triangle.
    """
    n = cylinder_facets(radius) if facets is None else facets
    height = check_positive_float("height", height)
    return _prism(radius / math.cos(math.pi / n), n, 0.5 * height)


def _prism(corner: float, n: int, half: float) -> tuple[np.ndarray, np.ndarray]:
    """The closed prism on the regular ``n``-gon of circumradius ``corner`` [m], ``z`` in
    ``[-half, half]`` [m]: vertices (2n + 2, 3) and indices (12 n,)."""
    angles = 2.0 * math.pi * np.arange(n) / n
    ring = np.column_stack([corner * np.cos(angles), corner * np.sin(angles)])
    vertices = np.concatenate([
        np.column_stack([ring, np.full(n, -half)]),  # 0 .. n-1: bottom ring
        np.column_stack([ring, np.full(n, half)]),   # n .. 2n-1: top ring
        [[0.0, 0.0, -half], [0.0, 0.0, half]],       # 2n, 2n+1: cap centres
    ])
    i = np.arange(n)
    j = (i + 1) % n
    bottom, top = np.full(n, 2 * n), np.full(n, 2 * n + 1)
    triangles = np.concatenate([
        np.column_stack([i, j, n + j]),        # each facet's lower triangle
        np.column_stack([i, n + j, n + i]),    # and upper one
        np.column_stack([bottom, j, i]),       # the bottom cap, seen from below
        np.column_stack([top, n + i, n + j]),  # the top cap, seen from above
    ])
    return vertices, triangles.ravel()


def box_mesh(half_extents: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """The 12-triangle mesh of an axis-aligned box centred on the origin, half extents
    (3,) > 0 [m].

    Returns:
        vertices (8, 3) float64 [m] and indices (36,) int64, counter-clockwise from outside.
    """
    hx, hy, hz = (check_positive_float(f"half_extents[{k}]", h)
                  for k, h in enumerate(half_extents))
    # vertex 4 ix + 2 iy + iz sits at (+-hx, +-hy, +-hz), index 1 for the + side
    vertices = np.array([[sx * hx, sy * hy, sz * hz]
                         for sx in (-1.0, 1.0) for sy in (-1.0, 1.0) for sz in (-1.0, 1.0)])
    quads = [(0, 1, 3, 2), (4, 6, 7, 5),  # x = -hx, x = +hx
             (0, 4, 5, 1), (2, 3, 7, 6),  # y = -hy, y = +hy
             (0, 2, 6, 4), (1, 5, 7, 3)]  # z = -hz, z = +hz
    return vertices, np.array([k for a, b, c, d in quads for k in (a, b, c, a, c, d)])


@dataclass
class ShapeCache:
    """The collision and visual shapes made on one PyBullet client, by kind and exact size.

    PyBullet frees no collision shape once a body has used it, so a caller that spawns
    worlds again and again in one client (the Aviary redrawing a world at each reset)
    keeps one cache: :meth:`spawn` makes shapes only for sizes it has not met and shares
    them. Memory then grows with the number of distinct sizes (the Aviary rounds the sizes
    of the worlds it redraws to 1 mm, :func:`snap_world`, so that they recur). The cache
    warns once (``ResourceWarning``) when its estimated memory passes
    :data:`CACHE_WARNING_BYTES`. It is valid for its client only, until that client is
    reset or disconnected.

    Attributes:
        client_id: the PyBullet client the shapes belong to.
        triangles: mesh triangles made so far.
    """

    client_id: int
    triangles: int = 0
    _shapes: dict[tuple, tuple[int, int]] = field(default_factory=dict, repr=False)
    _warned: bool = field(default=False, repr=False)

    def __len__(self) -> int:
        """The number of distinct sizes made."""
        return len(self._shapes)

    @property
    def bytes(self) -> int:
        """The estimated memory PyBullet holds for the shapes [bytes] (the measured rates
        :data:`BYTES_PER_TRIANGLE` and :data:`BYTES_PER_SHAPE`)."""
        return self.triangles * BYTES_PER_TRIANGLE + len(self._shapes) * BYTES_PER_SHAPE

    def spawn(self, world: World) -> list[int]:
        """One static body per primitive of ``world`` (see :func:`spawn_world`).

        Returns:
            The body ids, one per primitive, in the order of ``world.primitives``.
        """
        if not isinstance(world, World):
            raise TypeError(f"world must be a pyflyt_like.worlds.World, got {world!r}")
        client = self.client_id
        # No batchPositions: the client does not learn of bodies made that way until a
        # syncBodyInfo, which costs as much as the calls it saves (measured); the
        # renderer's per-body visual instance dominates either way.
        gui = pybullet.getConnectionInfo(
            physicsClientId=client)["connectionMethod"] == pybullet.GUI
        if gui:  # the GUI would redraw the scene after every body
            pybullet.configureDebugVisualizer(pybullet.COV_ENABLE_RENDERING, 0,
                                              physicsClientId=client)
        try:
            body_ids = []
            for primitive in world.primitives:
                collision, visual = self._shapes_of(_shape_key(primitive))
                position, orientation = _pose(primitive)
                body_ids.append(pybullet.createMultiBody(
                    0.0, collision, visual, basePosition=position,
                    baseOrientation=orientation, physicsClientId=client))
        finally:
            if gui:
                pybullet.configureDebugVisualizer(pybullet.COV_ENABLE_RENDERING, 1,
                                                  physicsClientId=client)
        return body_ids

    def _shapes_of(self, key: tuple) -> tuple[int, int]:
        """The (collision, visual) shape ids of size ``key``, made on first use."""
        found = self._shapes.get(key)
        if found is None:
            found = self._make(key)
            self._shapes[key] = found
            if not self._warned and self.bytes > CACHE_WARNING_BYTES:
                self._warned = True
                warnings.warn(
                    f"the world shapes on PyBullet client {self.client_id} hold about "
                    f"{self.bytes / 2**20:.0f} MB ({len(self)} sizes), which PyBullet frees "
                    "only when the client disconnects; worlds of ever new sizes (a redrawn "
                    "world with continuous sizes) keep adding to it", ResourceWarning,
                    stacklevel=4)
        return found

    def _make(self, key: tuple) -> tuple[int, int]:
        client = self.client_id
        kind = key[0]
        colour = COLOURS[kind]
        if kind == "spheres":
            radius = key[1]
            collision = pybullet.createCollisionShape(pybullet.GEOM_SPHERE, radius=radius,
                                                      physicsClientId=client)
            visual = pybullet.createVisualShape(pybullet.GEOM_SPHERE, radius=radius,
                                                rgbaColor=colour, physicsClientId=client)
            return collision, visual
        if kind == "cylinders":
            radius, height = key[1], key[2]
            vertices, indices = cylinder_mesh(radius, height)
            # A coarse visual mesh: a GEOM_CYLINDER visual costs every body 0.4 ms to
            # instantiate in the renderer, this one 0.2 ms.
            look, look_indices = _prism(radius, VISUAL_FACETS, 0.5 * height)
            visual = pybullet.createVisualShape(
                pybullet.GEOM_MESH, vertices=look.tolist(), indices=look_indices.tolist(),
                rgbaColor=colour, physicsClientId=client)
        else:
            half_extents = key[1:]
            vertices, indices = box_mesh(half_extents)
            visual = pybullet.createVisualShape(pybullet.GEOM_BOX, halfExtents=half_extents,
                                                rgbaColor=colour, physicsClientId=client)
        # Concave (BVH) meshes: their ray test intersects the triangles exactly, where a
        # convex hull would go through the same 1 mm GJK cast as Bullet's primitives.
        collision = pybullet.createCollisionShape(
            pybullet.GEOM_MESH, vertices=vertices.tolist(), indices=indices.tolist(),
            flags=pybullet.GEOM_FORCE_CONCAVE_TRIMESH, physicsClientId=client)
        self.triangles += len(indices) // 3
        return collision, visual


def _shape_key(primitive: Cylinder | Box | Sphere) -> tuple:
    if type(primitive) is Cylinder:
        return "cylinders", primitive.radius, primitive.height
    if type(primitive) is Box:
        return ("boxes", *primitive.half_extents)
    return "spheres", primitive.radius


def _pose(primitive: Cylinder | Box | Sphere
          ) -> tuple[tuple[float, float, float], tuple[float, ...]]:
    """The body's base position [m] and orientation (quaternion x, y, z, w)."""
    if type(primitive) is Cylinder:  # the mesh is centred: its middle at half height
        return (primitive.x, primitive.y, 0.5 * primitive.height), _IDENTITY
    if type(primitive) is Box:
        half = 0.5 * primitive.yaw
        return primitive.center, (0.0, 0.0, math.sin(half), math.cos(half))
    return primitive.center, _IDENTITY


def _check_client(client_id: object) -> int:
    if isinstance(client_id, bool) or not isinstance(client_id, (int, np.integer)):
        raise TypeError(f"client_id must be a PyBullet client id (an int >= 0), got "
                        f"{client_id!r}")
    client_id = int(client_id)
    if client_id < 0 or not pybullet.getConnectionInfo(
            physicsClientId=client_id)["isConnected"]:
        raise ValueError(f"client_id {client_id} is not a connected PyBullet client")
    return client_id


def spawn_world(client_id: int, world: World, *, cache: ShapeCache | None = None
                ) -> list[int]:
    """Create one static body (mass 0) per primitive of ``world`` on PyBullet client
    ``client_id``.

    Cylinders stand on the floor (``0 <= z <= height``), boxes are turned by their yaw
    about the world z axis, spheres sit at their centres; the collision shapes are those of
    the module docstring (ray hits within :data:`FACET_TOLERANCE` of a cylinder, to
    rounding on a box, within :data:`SPHERE_TOLERANCE` of a sphere), the visual shapes a
    plain colour per kind (:data:`COLOURS`). Primitives of equal size share their shapes.

    Args:
        client_id: a connected PyBullet client.
        world: the primitives to spawn.
        cache: the client's :class:`ShapeCache`, to share shapes with earlier and later
            calls, for a caller that spawns repeatedly in one client; ``None`` shares them
            within this call only.

    Returns:
        The body ids, one per primitive, in the order of ``world.primitives``.

    Raises:
        TypeError: ``world`` is not a World, ``cache`` not a ShapeCache, ``client_id`` not
            an int.
        ValueError: ``client_id`` is not connected, or ``cache`` belongs to another client.
    """
    client_id = _check_client(client_id)
    if not isinstance(world, World):
        raise TypeError(f"world must be a pyflyt_like.worlds.World, got {world!r}")
    if cache is None:
        cache = ShapeCache(client_id)
    elif not isinstance(cache, ShapeCache):
        raise TypeError(f"cache must be a ShapeCache or None, got {cache!r}")
    elif cache.client_id != client_id:
        raise ValueError(f"cache belongs to client {cache.client_id}, not to client_id "
                         f"{client_id}")
    return cache.spawn(world)


def remove_world(client_id: int, body_ids: Sequence[int]) -> None:
    """Remove the bodies ``body_ids`` (from :func:`spawn_world`) from client ``client_id``.

    Every id is checked before any body is removed. The shapes stay in PyBullet (it frees
    none a body has used); a :class:`ShapeCache` reuses them.

    Raises:
        TypeError: an id that is not an int.
        ValueError: ``client_id`` not connected; an id that is no body of it, or repeated
            (named).
    """
    client_id = _check_client(client_id)
    ids = list(body_ids)
    seen: set[int] = set()
    for i, body in enumerate(ids):
        if isinstance(body, bool) or not isinstance(body, (int, np.integer)):
            raise TypeError(f"body_ids[{i}] must be an int body id, got {body!r}")
        if int(body) in seen:
            raise ValueError(f"body_ids[{i}] = {body} is repeated")
        seen.add(int(body))
        try:
            pybullet.getBodyInfo(int(body), physicsClientId=client_id)
        except pybullet.error:
            raise ValueError(f"body_ids[{i}] = {body} is no body of client {client_id}"
                             ) from None
    for body in ids:
        pybullet.removeBody(int(body), physicsClientId=client_id)


def snap_world(world: World, step: float = SNAP_STEP) -> World:
    """``world`` with every size rounded to the nearest multiple of ``step`` > 0 [m] (at
    least one ``step``): cylinder radii and heights, box half extents, sphere radii.
    Positions and yaws are kept.

    The Aviary snaps the worlds it redraws at each reset, so that their sizes recur and its
    :class:`ShapeCache` makes each shape once (PyBullet frees none): a forest of radii in
    [0.1, 0.3] m and one height then needs at most 201 trunk meshes, about 20 MB, however
    many times it is redrawn.
    """
    if not isinstance(world, World):
        raise TypeError(f"world must be a pyflyt_like.worlds.World, got {world!r}")
    step = check_positive_float("step", step)

    def snap(value: float) -> float:
        return max(round(value / step), 1) * step

    primitives = []
    for primitive in world.primitives:
        if type(primitive) is Cylinder:
            primitive = replace(primitive, radius=snap(primitive.radius),
                                height=snap(primitive.height))
        elif type(primitive) is Box:
            primitive = replace(primitive, half_extents=tuple(
                snap(h) for h in primitive.half_extents))
        else:
            primitive = replace(primitive, radius=snap(primitive.radius))
        primitives.append(primitive)
    return World(primitives)
