"""Closed-form geometry of the three primitives, one home for both engines.

Plain Python on floats (the :mod:`math` module only, no allocation, no exception raised on
any finite input; :func:`box_horizontal_half_widths`, for building bounds, excepted), so
that numba compiles each function as it is
(:func:`pyflyt_like.compiled.jit.compile_shared`, the callees named in each docstring) and
the Python path (:class:`~pyflyt_like.worlds.primitives.Cylinder`, ...,
:class:`~pyflyt_like.worlds.world.World`) calls the very same code. The arguments are not
checked here: the primitives' constructors and methods check them once.

Conventions (metres, radians, the world frame ENU with z up):

- **Cylinder** ``(x, y, radius, height)``: vertical, its axis through ``(x, y)``, standing on
  the floor: it fills ``z`` in ``[0, height]``.
- **Box** ``(cx, cy, cz, hx, hy, hz, yaw)``: centre, half extents along its own axes, and
  its rotation about the world z axis (counter-clockwise seen from above): a point of the
  box frame ``l`` is ``c + Rz(yaw) l`` in the world.
- **Sphere** ``(cx, cy, cz, radius)``.

Every primitive is a closed set: its surface belongs to it.

**Distance** is signed: the Euclidean distance [m] from the point to the surface outside,
0 on the surface, minus the distance to the surface inside (the exact signed distance of
each shape, so that ``distance >= r`` says a sphere of radius ``r`` does not overlap it).

**Ray distance** is the ray parameter ``t`` [m] of the first point of the primitive on
``origin + t direction``, ``t >= 0``, for a unit ``direction``; ``0`` when the origin is
inside or on the primitive (a sensor inside an obstacle sees it at zero range); ``inf``
when the ray misses it or first meets it beyond ``max_range``. A ray that only grazes the
surface (tangent to the side, along a face) hits it. Each shape is the intersection of
slabs (two parallel planes) and, for the cylinder's side and the sphere, a quadric: the ray
meets it over ``[enter, leave]``, the intersection of the intervals of each; the first
contact is ``enter`` unless the interval is empty or behind the origin.
"""

from __future__ import annotations

import math

import numpy as np


def slab_interval(origin: float, direction: float, low: float, high: float
                  ) -> tuple[float, float]:
    """The parameter interval ``(enter, leave)`` over which ``origin + t direction`` (one
    coordinate) lies in ``[low, high]``; ``(-inf, inf)`` for a ray parallel to the slab and
    inside it, an empty interval ``(inf, -inf)`` for one parallel and outside it."""
    if direction == 0.0:  # no division by zero: numba's Python error model would raise
        if low <= origin <= high:
            return -math.inf, math.inf
        return math.inf, -math.inf
    t_low = (low - origin) / direction
    t_high = (high - origin) / direction
    if t_low <= t_high:
        return t_low, t_high
    return t_high, t_low


def quadric_interval(a: float, half_b: float, c: float) -> tuple[float, float]:
    """The interval ``(enter, leave)`` where ``a t^2 + 2 half_b t + c <= 0`` for ``a > 0``
    (the ray inside a circle or sphere); empty ``(inf, -inf)`` when there is no real root.

    The roots are taken in the form that does not cancel (``q = -(half_b + sign(half_b)
    sqrt(disc))``, roots ``q / a`` and ``c / q``), so an origin near the surface keeps its
    small root accurate."""
    disc = half_b * half_b - a * c
    if disc < 0.0:
        return math.inf, -math.inf
    root = math.sqrt(disc)
    q = -(half_b + root) if half_b >= 0.0 else -(half_b - root)
    if q == 0.0:  # half_b == 0 and disc == 0, so c == 0: a tangent ray from the surface
        return 0.0, 0.0
    t_a, t_b = q / a, c / q
    if t_a <= t_b:
        return t_a, t_b
    return t_b, t_a


def first_contact(enter: float, leave: float, max_range: float) -> float:
    """The ray distance of an intersection interval: ``inf`` if it is empty, behind the
    origin or begins beyond ``max_range``; ``0`` if it holds the origin; else ``enter``."""
    if enter > leave or leave < 0.0:
        return math.inf
    if enter <= 0.0:
        return 0.0
    if enter > max_range:
        return math.inf
    return enter


def signed_extent_distance(qx: float, qy: float, qz: float) -> float:
    """The signed distance of a point to a box from its per-axis excesses ``q = |l| - h``
    (``l`` the point in the box frame, ``h`` the half extents); a 2-D shape passes
    ``qz = -inf``."""
    ox, oy, oz = max(qx, 0.0), max(qy, 0.0), max(qz, 0.0)
    outside = math.sqrt(ox * ox + oy * oy + oz * oz)
    inside = min(max(qx, max(qy, qz)), 0.0)
    return outside + inside


def cylinder_distance(px: float, py: float, pz: float,
                      x: float, y: float, radius: float, height: float) -> float:
    """Signed distance [m] of the point ``(px, py, pz)`` to the cylinder (callee:
    :func:`signed_extent_distance`). The shape is a 2-D box in (radial, z) coordinates."""
    rx, ry = px - x, py - y
    # sqrt of the sum, not math.hypot: numba's hypot (C's) and Python's may differ in the
    # last bit, and both engines must agree to the bit
    radial = math.sqrt(rx * rx + ry * ry) - radius
    half = 0.5 * height
    axial = abs(pz - half) - half
    return signed_extent_distance(radial, axial, -math.inf)


def box_distance(px: float, py: float, pz: float, cx: float, cy: float, cz: float,
                 hx: float, hy: float, hz: float, yaw: float) -> float:
    """Signed distance [m] of the point ``(px, py, pz)`` to the box (callee:
    :func:`signed_extent_distance`)."""
    c, s = math.cos(yaw), math.sin(yaw)
    dx, dy = px - cx, py - cy
    lx = c * dx + s * dy  # Rz(yaw)^T (p - c): the point in the box frame
    ly = -s * dx + c * dy
    return signed_extent_distance(abs(lx) - hx, abs(ly) - hy, abs(pz - cz) - hz)


def sphere_distance(px: float, py: float, pz: float,
                    cx: float, cy: float, cz: float, radius: float) -> float:
    """Signed distance [m] of the point ``(px, py, pz)`` to the sphere."""
    dx, dy, dz = px - cx, py - cy, pz - cz
    return math.sqrt(dx * dx + dy * dy + dz * dz) - radius


def cylinder_ray_interval(ox: float, oy: float, oz: float, dx: float, dy: float, dz: float,
                          x: float, y: float, radius: float, height: float
                          ) -> tuple[float, float]:
    """The interval ``(enter, leave)`` [m] of the ray parameter over which ``(ox, oy, oz) +
    t (dx, dy, dz)`` lies in the cylinder: the side (a circle in the horizontal plane) and
    the caps (the slab ``0 <= z <= height``); empty (``enter > leave``) when the line misses
    it (callees: :func:`slab_interval`, :func:`quadric_interval`)."""
    rx, ry = ox - x, oy - y
    a = dx * dx + dy * dy
    c = rx * rx + ry * ry - radius * radius
    if a == 0.0:  # a vertical ray: inside the circle all along, or never
        if c > 0.0:
            return math.inf, -math.inf
        side_enter, side_leave = -math.inf, math.inf
    else:
        side_enter, side_leave = quadric_interval(a, rx * dx + ry * dy, c)
    z_enter, z_leave = slab_interval(oz, dz, 0.0, height)
    return max(side_enter, z_enter), min(side_leave, z_leave)


def cylinder_ray_distance(ox: float, oy: float, oz: float, dx: float, dy: float,
                          dz: float, max_range: float,
                          x: float, y: float, radius: float, height: float) -> float:
    """Ray distance [m] from ``(ox, oy, oz)`` along the unit ``(dx, dy, dz)`` to the
    cylinder (callees: :func:`cylinder_ray_interval`, :func:`first_contact`)."""
    enter, leave = cylinder_ray_interval(ox, oy, oz, dx, dy, dz, x, y, radius, height)
    return first_contact(enter, leave, max_range)


def box_ray_interval(ox: float, oy: float, oz: float, dx: float, dy: float, dz: float,
                     cx: float, cy: float, cz: float, hx: float, hy: float, hz: float,
                     yaw: float) -> tuple[float, float]:
    """The interval ``(enter, leave)`` [m] of the ray parameter over which the ray lies in
    the box: the slab test in the box frame (callee: :func:`slab_interval`)."""
    c, s = math.cos(yaw), math.sin(yaw)
    rx, ry = ox - cx, oy - cy
    lox, loy = c * rx + s * ry, -s * rx + c * ry  # origin and direction in the box frame
    ldx, ldy = c * dx + s * dy, -s * dx + c * dy
    x_enter, x_leave = slab_interval(lox, ldx, -hx, hx)
    y_enter, y_leave = slab_interval(loy, ldy, -hy, hy)
    z_enter, z_leave = slab_interval(oz - cz, dz, -hz, hz)
    return max(x_enter, max(y_enter, z_enter)), min(x_leave, min(y_leave, z_leave))


def box_ray_distance(ox: float, oy: float, oz: float, dx: float, dy: float, dz: float,
                     max_range: float, cx: float, cy: float, cz: float,
                     hx: float, hy: float, hz: float, yaw: float) -> float:
    """Ray distance [m] from ``(ox, oy, oz)`` along the unit ``(dx, dy, dz)`` to the box
    (callees: :func:`box_ray_interval`, :func:`first_contact`)."""
    enter, leave = box_ray_interval(ox, oy, oz, dx, dy, dz, cx, cy, cz, hx, hy, hz, yaw)
    return first_contact(enter, leave, max_range)


def sphere_ray_interval(ox: float, oy: float, oz: float, dx: float, dy: float, dz: float,
                        cx: float, cy: float, cz: float, radius: float
                        ) -> tuple[float, float]:
    """The interval ``(enter, leave)`` [m] of the ray parameter over which the ray lies in
    the sphere (callee: :func:`quadric_interval`)."""
    rx, ry, rz = ox - cx, oy - cy, oz - cz
    a = dx * dx + dy * dy + dz * dz
    c = rx * rx + ry * ry + rz * rz - radius * radius
    if a == 0.0:  # no direction: only an origin inside sees the sphere
        return (-math.inf, math.inf) if c <= 0.0 else (math.inf, -math.inf)
    return quadric_interval(a, rx * dx + ry * dy + rz * dz, c)


def sphere_ray_distance(ox: float, oy: float, oz: float, dx: float, dy: float, dz: float,
                        max_range: float, cx: float, cy: float, cz: float,
                        radius: float) -> float:
    """Ray distance [m] from ``(ox, oy, oz)`` along the unit ``(dx, dy, dz)`` to the sphere
    (callees: :func:`sphere_ray_interval`, :func:`first_contact`)."""
    enter, leave = sphere_ray_interval(ox, oy, oz, dx, dy, dz, cx, cy, cz, radius)
    return first_contact(enter, leave, max_range)


def box_horizontal_half_widths(hx, hy, yaw):
    """Half widths [m] along world x and y of a box yawed by ``yaw`` [rad], for its axis-
    aligned bounds: ``(|cos| hx + |sin| hy, |sin| hx + |cos| hy)``. Floats or numpy arrays
    (numpy's functions, so one formula serves a primitive and a whole array; this one is
    for building bounds, not for the kernels)."""
    c, s = np.abs(np.cos(yaw)), np.abs(np.sin(yaw))
    return c * hx + s * hy, s * hx + c * hy
