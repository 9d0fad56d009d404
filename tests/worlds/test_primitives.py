"""The primitives' closed forms: signed distance, ray distance (side, cap, face, edge-on,
miss, from inside, range), bounds; a yawed box is the axis-aligned one turned; the ray
distance agrees with sphere tracing on the signed distance; checks at construction."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pyflyt_like.worlds import Box, Cylinder, Sphere

ROOT2 = math.sqrt(2.0)
DIAGONAL = (1.0 / ROOT2, 0.0, -1.0 / ROOT2)

CYLINDER = Cylinder(0.0, 0.0, 0.5, 2.0)
BOX = Box((1.0, 2.0, 3.0), (2.0, 1.0, 0.5))
SPHERE = Sphere((0.0, 0.0, 5.0), 1.0)


# ------------------------------------------------------------------------------ distance
@pytest.mark.parametrize(("point", "expected"), [
    ((2.0, 0.0, 1.0), 1.5),            # beside the side
    ((0.0, 0.0, 3.0), 1.0),            # above the top cap
    ((0.0, 0.0, -1.0), 1.0),           # below the bottom cap (under the floor)
    ((1.5, 0.0, 3.0), ROOT2),          # nearest the rim
    ((0.5, 0.0, 1.0), 0.0),            # on the side
    ((0.2, 0.0, 1.0), -0.3),           # inside, nearest the side
    ((0.0, 0.0, 1.9), -0.1),           # inside, nearest the top
])
def test_cylinder_distance(point, expected):
    assert CYLINDER.distance(point) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("point", "expected"), [
    ((4.0, 2.0, 3.0), 1.0),            # off the +x face
    ((4.0, 4.0, 4.0), 1.5),            # off a corner: sqrt(1 + 1 + 0.25)
    ((1.0, 2.0, 3.0), -0.5),           # the centre: the nearest face is z's
    ((1.0, 3.0, 3.0), 0.0),            # on the +y face
])
def test_box_distance(point, expected):
    assert BOX.distance(point) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("point", "expected"), [
    ((0.0, 0.0, 8.0), 2.0), ((0.0, 0.0, 5.0), -1.0), ((0.0, 1.0, 5.0), 0.0)])
def test_sphere_distance(point, expected):
    assert SPHERE.distance(point) == pytest.approx(expected, abs=1e-12)


# -------------------------------------------------------------------------- ray distance
@pytest.mark.parametrize(("origin", "direction", "max_range", "expected"), [
    ((-5.0, 0.0, 1.0), (1.0, 0.0, 0.0), 100.0, 4.5),           # the side
    ((0.1, 0.1, 10.0), (0.0, 0.0, -1.0), 100.0, 8.0),          # the top cap, from above
    ((0.0, 0.0, -1.0), (0.0, 0.0, 1.0), 100.0, 1.0),           # the bottom cap
    ((-2.0, 0.0, 4.0), DIAGONAL, 100.0, 2.0 * ROOT2),           # over the rim onto the cap
    ((-5.0, 0.5, 1.0), (1.0, 0.0, 0.0), 100.0, 5.0),           # tangent to the side
    ((-5.0, 0.0, 2.0), (1.0, 0.0, 0.0), 100.0, 4.5),           # along the top plane
    ((-5.0, 0.5 + 1e-9, 1.0), (1.0, 0.0, 0.0), 100.0, math.inf),  # just past the side
    ((-5.0, 0.0, 2.5), (1.0, 0.0, 0.0), 100.0, math.inf),      # over the top
    ((5.0, 0.0, 1.0), (1.0, 0.0, 0.0), 100.0, math.inf),       # pointing away
    ((1.0, 0.0, 5.0), (0.0, 0.0, -1.0), 100.0, math.inf),      # vertical, outside
    ((-5.0, 0.0, 1.0), (1.0, 0.0, 0.0), 4.0, math.inf),        # beyond max_range
    ((-5.0, 0.0, 1.0), (1.0, 0.0, 0.0), 4.5, 4.5),             # at max_range
    ((0.1, 0.0, 1.0), (1.0, 0.0, 0.0), 100.0, 0.0),            # from inside
    ((0.5, 0.0, 1.0), (1.0, 0.0, 0.0), 100.0, 0.0),            # from the surface, outwards
])
def test_cylinder_ray_distance(origin, direction, max_range, expected):
    assert CYLINDER.ray_distance(origin, direction, max_range) == pytest.approx(expected,
                                                                                abs=1e-12)


@pytest.mark.parametrize(("origin", "direction", "expected"), [
    ((-5.0, 2.0, 3.0), (1.0, 0.0, 0.0), 4.0),             # the -x face
    ((1.0, 2.0, 10.0), (0.0, 0.0, -1.0), 6.5),            # the top face
    ((-5.0, 3.0, 3.0), (1.0, 0.0, 0.0), 4.0),             # edge-on along the +y face
    ((-5.0, 3.0, 3.5), (1.0, 0.0, 0.0), 4.0),             # along the edge of two faces
    ((-5.0, 3.0 + 1e-9, 3.0), (1.0, 0.0, 0.0), math.inf),  # just past the face
    ((-3.0, 0.0, 3.0), (1.0 / ROOT2, 1.0 / ROOT2, 0.0), 2.0 * ROOT2),  # onto a vertical edge
    ((5.0, 2.0, 3.0), (1.0, 0.0, 0.0), math.inf),         # pointing away
    ((1.0, 2.0, 3.0), (0.0, 1.0, 0.0), 0.0),              # from inside
])
def test_box_ray_distance(origin, direction, expected):
    assert BOX.ray_distance(origin, direction, 100.0) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("origin", "direction", "expected"), [
    ((0.0, 0.0, 0.0), (0.0, 0.0, 1.0), 4.0),
    ((1.0, -5.0, 5.0), (0.0, 1.0, 0.0), 5.0),             # tangent
    ((1.0 + 1e-9, -5.0, 5.0), (0.0, 1.0, 0.0), math.inf),
    ((0.0, 0.0, 0.0), (0.0, 0.0, -1.0), math.inf),
    ((0.0, 0.0, 5.5), (1.0, 0.0, 0.0), 0.0),              # from inside
])
def test_sphere_ray_distance(origin, direction, expected):
    assert SPHERE.ray_distance(origin, direction, 100.0) == pytest.approx(expected, abs=1e-12)


def test_an_origin_near_the_surface_keeps_its_small_root():
    """The quadratic's roots in the form that does not cancel: 1e-9 m outside, 1e-9 m."""
    sphere = Sphere((0.0, 0.0, 0.0), 1000.0)
    t = sphere.ray_distance((-1000.0 - 1e-9, 0.0, 0.0), (1.0, 0.0, 0.0), 10.0)
    assert t == pytest.approx(1e-9, rel=1e-3)


# ------------------------------------------------------------------------- the yawed box
def _turn(vector, yaw):
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([c * vector[0] - s * vector[1], s * vector[0] + c * vector[1], vector[2]])


def test_a_quarter_turn_swaps_the_box_axes():
    box = Box((0.0, 0.0, 1.0), (2.0, 0.5, 1.0), yaw=math.pi / 2)
    assert box.ray_distance((-5.0, 0.0, 1.0), (1.0, 0.0, 0.0), 100.0) == pytest.approx(4.5)
    assert box.ray_distance((0.0, -5.0, 1.0), (0.0, 1.0, 0.0), 100.0) == pytest.approx(3.0)
    assert box.distance((0.0, 3.0, 1.0)) == pytest.approx(1.0)
    assert box.distance((3.0, 0.0, 1.0)) == pytest.approx(2.5)


def test_a_yawed_box_is_the_axis_aligned_box_turned():
    """Turning the point, the ray and the box by the same yaw about the box's centre leaves
    every distance unchanged."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        centre, half = rng.uniform(-3, 3, 3), rng.uniform(0.2, 2.0, 3)
        yaw = rng.uniform(-math.pi, math.pi)
        aligned, turned = Box(centre, half), Box(centre, half, yaw)
        point = rng.uniform(-6, 6, 3)
        moved = centre + _turn(point - centre, yaw)
        assert turned.distance(moved) == pytest.approx(aligned.distance(point), abs=1e-9)
        direction = rng.standard_normal(3)
        direction /= np.linalg.norm(direction)
        expected = aligned.ray_distance(point, direction, 50.0)
        got = turned.ray_distance(moved, _turn(direction, yaw), 50.0)
        assert got == pytest.approx(expected, abs=1e-9)


# ------------------------------------------------------------ ray against sphere tracing
def _sphere_trace(primitive, origin, direction, max_range):
    """The first contact found by marching along the ray by the signed distance, which
    never steps past a surface; None where it did not settle (a grazing ray)."""
    t = 0.0
    for _ in range(5000):
        d = primitive.distance(origin + t * direction)
        if d <= 1e-10:
            return t if t <= max_range else math.inf
        t += d
        if t > max_range:
            return math.inf
    return None


def _random_primitive(rng):
    kind = rng.integers(3)
    if kind == 0:
        return Cylinder(*rng.uniform(-2, 2, 2), rng.uniform(0.2, 1.5), rng.uniform(0.5, 4.0))
    if kind == 1:
        return Box(rng.uniform(-2, 2, 3), rng.uniform(0.2, 1.5, 3), rng.uniform(-4, 4))
    return Sphere(rng.uniform(-2, 2, 3), rng.uniform(0.2, 1.5))


def test_the_ray_distance_is_where_sphere_tracing_lands():
    rng = np.random.default_rng(1)
    hits = settled = 0
    for _ in range(600):
        primitive = _random_primitive(rng)
        origin = rng.uniform(-6, 6, 3)
        target = rng.uniform(*primitive.bounds())  # aim into the bounds: many rays hit
        direction = (target - origin) / np.linalg.norm(target - origin)
        exact = primitive.ray_distance(origin, direction, 12.0)
        traced = _sphere_trace(primitive, origin, direction, 12.0)
        if traced is None:
            continue
        settled += 1
        hits += math.isfinite(exact)
        assert exact == pytest.approx(traced, abs=1e-6)
    assert settled > 580 and hits > 200


# -------------------------------------------------------------------------------- bounds
def test_bounds():
    low, high = CYLINDER.bounds()
    assert low.tolist() == [-0.5, -0.5, 0.0] and high.tolist() == [0.5, 0.5, 2.0]
    low, high = Box((0.0, 0.0, 1.0), (1.0, 1.0, 1.0), yaw=math.pi / 4).bounds()
    np.testing.assert_allclose(low, [-ROOT2, -ROOT2, 0.0])
    np.testing.assert_allclose(high, [ROOT2, ROOT2, 2.0])
    low, high = SPHERE.bounds()
    assert low.tolist() == [-1.0, -1.0, 4.0] and high.tolist() == [1.0, 1.0, 6.0]


def test_every_surface_point_lies_within_the_bounds():
    rng = np.random.default_rng(2)
    for _ in range(100):
        primitive = _random_primitive(rng)
        low, high = primitive.bounds()
        for _ in range(20):  # points found by rays from inside the bounds box outwards
            origin = rng.uniform(-8, 8, 3)
            direction = rng.standard_normal(3)
            direction /= np.linalg.norm(direction)
            t = primitive.ray_distance(origin, direction, 30.0)
            if 0.0 < t < math.inf:
                point = origin + t * direction
                assert np.all(point >= low - 1e-9) and np.all(point <= high + 1e-9)


# --------------------------------------------------------------------------------- checks
def test_primitives_are_frozen_values():
    assert Cylinder(1, 2, 0.5, 3) == Cylinder(1.0, 2.0, 0.5, 3.0)
    assert Box([0, 0, 1], [1, 1, 1]).center == (0.0, 0.0, 1.0)
    with pytest.raises(AttributeError):
        CYLINDER.radius = 2.0  # type: ignore[misc]
    assert len({CYLINDER, Cylinder(0.0, 0.0, 0.5, 2.0), BOX, SPHERE}) == 3


@pytest.mark.parametrize(("make", "error", "match"), [
    (lambda: Cylinder(0, 0, -1.0, 2.0), ValueError, r"Cylinder\.radius must be .* > 0"),
    (lambda: Cylinder(0, 0, 0.5, 0.0), ValueError, r"Cylinder\.height"),
    (lambda: Cylinder(math.nan, 0, 0.5, 1.0), ValueError, r"Cylinder\.x must be a finite"),
    (lambda: Cylinder("1", 0, 0.5, 1.0), TypeError, r"Cylinder\.x"),
    (lambda: Cylinder(0, True, 0.5, 1.0), TypeError, r"Cylinder\.y"),
    (lambda: Box((0, 0, 0), (1, 0, 1)), ValueError, r"Box\.half_extents must have every"),
    (lambda: Box((0, 0), (1, 1, 1)), ValueError, r"Box\.center must have shape \(3,\)"),
    (lambda: Box((0, 0, 0), (1, 1, 1), yaw=math.inf), ValueError, r"Box\.yaw"),
    (lambda: Box("abc", (1, 1, 1)), TypeError, r"Box\.center"),
    (lambda: Sphere((0, 0, 0), 0.0), ValueError, r"Sphere\.radius"),
    (lambda: Sphere((0, 0, math.nan), 1.0), ValueError, r"Sphere\.center must be finite"),
])
def test_bad_primitives_name_the_field(make, error, match):
    with pytest.raises(error, match=match):
        make()


@pytest.mark.parametrize(("args", "error", "match"), [
    (((0, 0, 0), (1, 1, 0), 10.0), ValueError, "direction must be a unit vector"),
    (((0, 0, 0), (0, 0, 0), 10.0), ValueError, "direction must be a unit vector"),
    (((0, 0, 0), (1, 0, 0), 0.0), ValueError, "max_range must be a number > 0"),
    (((0, 0, 0), (1, 0, 0), math.nan), ValueError, "max_range"),
    (((0, 0, 0), (1, 0, 0), "10"), TypeError, "max_range"),
    (((0, 0, math.nan), (1, 0, 0), 10.0), ValueError, "origin must be finite"),
    (((0, 0), (1, 0, 0), 10.0), ValueError, r"origin must have shape \(3,\)"),
])
def test_bad_rays_name_the_argument(args, error, match):
    with pytest.raises(error, match=match):
        SPHERE.ray_distance(*args)


def test_an_unbounded_range_and_a_nearly_unit_direction_are_accepted():
    assert SPHERE.ray_distance((0, 0, 0), (0, 0, 1.0 + 5e-7), math.inf) == pytest.approx(4.0)
    with pytest.raises(ValueError, match="point must have shape"):
        SPHERE.distance((0.0, 0.0))
