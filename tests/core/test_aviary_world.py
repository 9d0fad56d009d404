"""Obstacle worlds on the PyBullet Aviary: the bodies spawn_world makes (their ray accuracy
against World.ray_distance, kind by kind), and Aviary(world=...): kept or redrawn at reset,
add_world, contacts, the start rule, bad arguments, a PyFlyt-style mission."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pybullet
import pytest

from pyflyt_like.core import Aviary, world_bodies
from pyflyt_like.core.aviary import WORLD_DRAWS
from pyflyt_like.core.world_bodies import (
    FACET_TOLERANCE,
    SNAP_STEP,
    SPHERE_TOLERANCE,
    ShapeCache,
    cylinder_facets,
    remove_world,
    snap_world,
    spawn_world,
)
from pyflyt_like.worlds import Box, Clutter, Cylinder, Forest, Rooms, Sphere, World, load_world

REACH = 40.0  # m, length of every test ray
ROUNDING = 1e-9  # m, what a triangle mesh's exact ray test may be off by


@pytest.fixture
def client():
    """A bare DIRECT client (no floor: rays see the world's primitives only)."""
    client_id = pybullet.connect(pybullet.DIRECT)
    yield client_id
    pybullet.disconnect(client_id)


def _rotation(yaw: float) -> np.ndarray:
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _face_points(primitive, rng, count: int, margin: float = 0.02):
    """Points on ``primitive``'s surface at least ``margin`` [m] from any edge (rims, box
    edges), with the outward unit normal there: (count, 3), (count, 3)."""
    if type(primitive) is Sphere:
        normals = rng.normal(size=(count, 3))
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)
        return np.array(primitive.center) + primitive.radius * normals, normals
    if type(primitive) is Cylinder:
        r, h = primitive.radius, primitive.height
        angle = rng.uniform(0.0, 2.0 * math.pi, count)
        on_side = rng.random(count) < 0.7
        radial = np.where(on_side, r, (r - margin) * np.sqrt(rng.random(count)))
        z = np.where(on_side, rng.uniform(margin, h - margin, count), h)
        points = np.column_stack([primitive.x + radial * np.cos(angle),
                                  primitive.y + radial * np.sin(angle), z])
        normals = np.where(on_side[:, None],
                           np.column_stack([np.cos(angle), np.sin(angle), np.zeros(count)]),
                           [0.0, 0.0, 1.0])
        return points, normals
    half = np.array(primitive.half_extents)
    local = rng.uniform(-1.0, 1.0, (count, 3)) * (half - margin)
    axis = rng.integers(0, 3, count)
    sign = rng.choice([-1.0, 1.0], count)
    local[np.arange(count), axis] = sign * half[axis]
    normals = np.zeros((count, 3))
    normals[np.arange(count), axis] = sign
    rotation = _rotation(primitive.yaw)
    return local @ rotation.T + np.array(primitive.center), normals @ rotation.T


def _aimed_rays(primitive, rng, count: int, distance=(0.5, 30.0)):
    """Rays from outside onto face points, from every side of the normal's half-space:
    origins, unit directions and the cosine of the incidence angle."""
    points, normals = _face_points(primitive, rng, count)
    back = rng.normal(size=(count, 3))
    back /= np.linalg.norm(back, axis=1, keepdims=True)
    back *= np.sign(np.einsum("ij,ij->i", back, normals))[:, None]  # into the outer side
    origins = points + back * rng.uniform(*distance, count)[:, None]
    return origins, -back, np.abs(np.einsum("ij,ij->i", back, normals))


def _random_rays(primitive, rng, count: int):
    """Rays from a shell around the primitive towards random points near it: hits, misses
    and every grazing case in between."""
    low, high = primitive.bounds()
    centre, size = 0.5 * (low + high), float(np.max(high - low))
    targets = centre + rng.uniform(-0.6, 0.6, (count, 3)) * (high - low)
    directions = rng.normal(size=(count, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    # Twice the size back: outside the primitive's circumscribed sphere.
    origins = targets - directions * (2.0 * size + rng.uniform(0.5, 20.0, count))[:, None]
    return origins, directions


def _cast(client_id: int, origins: np.ndarray, directions: np.ndarray) -> np.ndarray:
    """pybullet.rayTestBatch distances [m] (inf for a miss)."""
    results = pybullet.rayTestBatch(origins.tolist(), (origins + REACH * directions).tolist(),
                                    physicsClientId=client_id)
    return np.array([r[2] * REACH if r[0] >= 0 else math.inf for r in results])


def _exact(world: World, origins: np.ndarray, directions: np.ndarray) -> np.ndarray:
    return np.array([world.ray_distance(o, d, REACH) for o, d in zip(origins, directions)])


def _tolerance(primitive) -> float:
    """How far outside the exact surface a hit may lie [m]: the facets, Bullet's GJK cast
    for spheres, and near an edge Bullet's triangle edge tolerance (1e-4 of the
    triangle's size)."""
    if type(primitive) is Sphere:
        return SPHERE_TOLERANCE
    low, high = primitive.bounds()
    return FACET_TOLERANCE + 1e-4 * float(np.max(high - low))


PRIMITIVES = [
    Cylinder(x=1.0, y=2.0, radius=0.1, height=6.0),     # a thin trunk
    Cylinder(x=-2.0, y=1.0, radius=0.3, height=5.0),
    Cylinder(x=0.5, y=-0.5, radius=2.0, height=1.0),    # a wide, low drum
    Box(center=(1.0, 2.0, 1.5), half_extents=(2.0, 0.1, 1.5), yaw=0.3),  # a wall
    Box(center=(-1.0, 0.5, 0.5), half_extents=(0.2, 0.3, 0.4), yaw=-1.1),  # a crate
    Sphere(center=(0.0, 1.0, 2.0), radius=0.1),
    Sphere(center=(0.0, 1.0, 3.0), radius=3.0),
]


# ------------------------------------------------------------------------------ bodies
@pytest.mark.parametrize("primitive", PRIMITIVES, ids=repr)
def test_rays_onto_faces_match_the_exact_distance(client, primitive):
    """Aimed at faces (side, caps, box faces, sphere) from 0.5-30 m at every incidence:
    the error is within the surface tolerance over the cosine of the incidence angle, so
    within 1 mm up to 84 degrees on cylinders and boxes."""
    world = World([primitive])
    spawn_world(client, world)
    rng = np.random.default_rng(1)
    origins, directions, cosine = _aimed_rays(primitive, rng, 1500)
    far_origins, far_directions, far_cosine = _aimed_rays(primitive, rng, 300, (28.0, 30.0))
    origins = np.concatenate([origins, far_origins])
    directions = np.concatenate([directions, far_directions])
    cosine = np.concatenate([cosine, far_cosine])
    exact, cast = _exact(world, origins, directions), _cast(client, origins, directions)
    assert np.all(np.isfinite(exact)) and np.all(np.isfinite(cast))
    error = np.abs(cast - exact)
    surface = SPHERE_TOLERANCE if type(primitive) is Sphere else FACET_TOLERANCE
    assert np.all(error <= surface / np.maximum(cosine, 1e-12) + ROUNDING)
    assert np.all(cast <= exact + ROUNDING)  # the shapes contain the primitive
    if type(primitive) is not Sphere:
        assert error[cosine >= 0.1].max() <= 1e-3
    if type(primitive) is Box:  # flat faces: exact to rounding but for rays along a face
        assert error[cosine >= 0.01].max() <= ROUNDING


@pytest.mark.parametrize("primitive", PRIMITIVES, ids=repr)
def test_every_ray_hits_within_the_tolerance_of_the_surface(client, primitive):
    """Random rays, grazing edges and silhouettes included: every ray the exact shape
    stops is stopped, and every hit lies within the tolerance outside the surface."""
    world = World([primitive])
    spawn_world(client, world)
    origins, directions = _random_rays(primitive, np.random.default_rng(2), 3000)
    exact, cast = _exact(world, origins, directions), _cast(client, origins, directions)
    assert np.all(np.isfinite(cast[np.isfinite(exact)]))
    assert 0.2 < np.isfinite(exact).mean() < 0.9  # both hits and misses were tried
    hits = np.isfinite(cast)
    surface = [world.distance(p) for p in origins[hits] + cast[hits, None] * directions[hits]]
    assert -ROUNDING <= min(surface) and max(surface) <= _tolerance(primitive)


def test_spawn_world_makes_one_static_body_per_primitive(client):
    trunk = Cylinder(x=3.0, y=0.0, radius=0.2, height=4.0)
    world = World([trunk, Box(center=(0.0, 5.0, 1.0), half_extents=(1.0, 0.1, 1.0), yaw=0.5),
                   Sphere(center=(-3.0, 0.0, 2.0), radius=0.4),
                   Cylinder(x=-3.0, y=3.0, radius=0.2, height=4.0)])
    cache = ShapeCache(client)
    ids = spawn_world(client, world, cache=cache)
    assert len(ids) == len(world) == pybullet.getNumBodies(physicsClientId=client)
    assert len(cache) == 3  # the two trunks share their shapes
    for body, primitive in zip(ids, world.primitives):
        assert pybullet.getDynamicsInfo(body, -1, physicsClientId=client)[0] == 0.0
        position, orientation = pybullet.getBasePositionAndOrientation(
            body, physicsClientId=client)
        if type(primitive) is Cylinder:  # stands on the floor
            np.testing.assert_allclose(position, [primitive.x, primitive.y, 2.0])
        else:
            np.testing.assert_allclose(position, primitive.center)
        colour = pybullet.getVisualShapeData(body, physicsClientId=client)[0][7]
        kind = {Cylinder: "cylinders", Box: "boxes", Sphere: "spheres"}[type(primitive)]
        np.testing.assert_allclose(colour, world_bodies.COLOURS[kind])
    box_orientation = pybullet.getBasePositionAndOrientation(ids[1], physicsClientId=client)[1]
    assert pybullet.getEulerFromQuaternion(box_orientation)[2] == pytest.approx(0.5)
    # A second spawn from the same cache makes no new shape.
    spawn_world(client, World([trunk]), cache=cache)
    assert len(cache) == 3
    remove_world(client, ids)
    assert pybullet.getNumBodies(physicsClientId=client) == 1
    assert spawn_world(client, World()) == []


def test_facet_count_is_the_least_within_the_tolerance():
    for radius in (0.01, 0.1, 0.2, 0.3, 2.0, 10.0):
        n = cylinder_facets(radius)
        assert radius * (1.0 / math.cos(math.pi / n) - 1.0) <= FACET_TOLERANCE
        assert n == world_bodies.MIN_FACETS or \
            radius * (1.0 / math.cos(math.pi / (n - 1)) - 1.0) > FACET_TOLERANCE
    assert cylinder_facets(0.2) == 100


def test_a_250_tree_forest_spawns_one_body_per_tree(client):
    forest = Forest(density=0.1, radius=(0.1, 0.3), height=6.0, extent=50.0).generate(3)
    assert 200 < len(forest) < 300
    ids = spawn_world(client, forest)
    assert len(ids) == len(forest)
    assert pybullet.getNumBodies(physicsClientId=client) >= len(forest)


def test_snap_world_rounds_sizes_and_keeps_places():
    world = World([Cylinder(1.23456, -2.0, 0.12345, 5.99951),
                   Box((1.0, 2.0, 3.0), (0.10049, 2.0004, 0.0001), yaw=0.7),
                   Sphere((0.5, 0.5, 0.5), 0.33349)])
    snapped = snap_world(world)
    cylinder, box, sphere = snapped.primitives
    assert (cylinder.x, cylinder.y) == (1.23456, -2.0)
    assert cylinder.radius == pytest.approx(0.123) and cylinder.height == pytest.approx(6.0)
    assert box.half_extents == pytest.approx((0.1, 2.0, SNAP_STEP))  # never below a step
    assert box.center == (1.0, 2.0, 3.0) and box.yaw == 0.7
    assert sphere.radius == pytest.approx(0.333)


def test_spawn_world_and_remove_world_check_their_arguments(client):
    with pytest.raises(TypeError, match="world must be a pyflyt_like.worlds.World"):
        spawn_world(client, [Cylinder(0.0, 0.0, 1.0, 1.0)])
    with pytest.raises(TypeError, match="client_id must be"):
        spawn_world("0", World())
    with pytest.raises(ValueError, match="not a connected PyBullet client"):
        spawn_world(client + 50, World())
    with pytest.raises(ValueError, match="cache belongs to client"):
        spawn_world(client, World(), cache=ShapeCache(client + 1))
    with pytest.raises(TypeError, match="cache must be a ShapeCache"):
        spawn_world(client, World(), cache={})
    ids = spawn_world(client, World([Sphere((0.0, 0.0, 1.0), 0.5)]))
    with pytest.raises(ValueError, match=r"body_ids\[1\] = 77 is no body"):
        remove_world(client, [ids[0], 77])
    with pytest.raises(ValueError, match="repeated"):
        remove_world(client, [ids[0], ids[0]])
    with pytest.raises(TypeError, match=r"body_ids\[0\] must be an int"):
        remove_world(client, [0.0])
    assert pybullet.getNumBodies(physicsClientId=client) == 1  # nothing removed


def test_the_shape_cache_warns_when_it_grows_large(client, monkeypatch):
    monkeypatch.setattr(world_bodies, "CACHE_WARNING_BYTES", 100_000)
    cache = ShapeCache(client)
    with pytest.warns(ResourceWarning, match="frees only when the client disconnects"):
        spawn_world(client, World([Cylinder(float(i), 0.0, 0.2 + 0.01 * i, 2.0)
                                   for i in range(3)]), cache=cache)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once only
        spawn_world(client, World([Cylinder(0.0, 5.0, 0.5, 2.0)]), cache=cache)


# ------------------------------------------------------------------------------ the Aviary
START = ((0.0, 0.0, 1.0),)
SMALL_FOREST = Forest(density=0.1, radius=(0.1, 0.3), height=4.0, extent=16.0, clearing=1.5)


def _sizes_on_the_grid(world: World) -> bool:
    sizes = [s for p in world.primitives for s in
             ((p.radius, p.height) if type(p) is Cylinder else
              p.half_extents if type(p) is Box else (p.radius,))]
    return all(abs(s / SNAP_STEP - round(s / SNAP_STEP)) < 1e-6 for s in sizes)


def test_a_world_is_spawned_once_and_kept_across_resets(make_aviary):
    world = World([Cylinder(3.0, 0.0, 0.3, 5.0), Box((0.0, 4.0, 1.0), (2.0, 0.1, 1.0), 0.2),
                   Sphere((-3.0, 0.0, 2.0), 0.5)])
    av = make_aviary(START, world=world)
    client = av._client
    assert av.world == world and len(av.world_body_ids) == 3
    n_bodies = pybullet.getNumBodies(physicsClientId=client)
    assert n_bodies == 2 + len(world)  # floor, drone, primitives
    assert av.contact_array.shape == (n_bodies, n_bodies)
    ids = list(av.world_body_ids)
    for _ in range(3):
        av.reset()
    assert av.world == world and av.world_body_ids == ids
    assert pybullet.getNumBodies(physicsClientId=client) == n_bodies
    # The body ids are the world's: a ray along +x beside the drone meets the trunk.
    hit = pybullet.rayTest((0.2, 0.0, 1.0), (10.2, 0.0, 1.0), physicsClientId=client)[0]
    assert hit[0] == ids[0] and hit[2] * 10.0 == pytest.approx(2.5, abs=FACET_TOLERANCE)


def test_a_generator_is_redrawn_at_each_reset_the_same_seed_the_same_layouts(make_aviary):
    first = make_aviary(START, world=SMALL_FOREST, seed=11)
    second = make_aviary(START, world=SMALL_FOREST, seed=11)
    layouts = [first.world]
    assert second.world == first.world
    for _ in range(2):
        first.reset()
        second.reset()
        assert second.world == first.world
        layouts.append(first.world)
    assert layouts[0] != layouts[1] != layouts[2]
    for world in layouts:  # redrawn layouts have 1 mm sizes, so their shapes recur
        assert _sizes_on_the_grid(world) and world.free_start(START[0], 0.07)
    n = pybullet.getNumBodies(physicsClientId=first._client)
    assert n == 2 + len(first.world) == 2 + len(first.world_body_ids)
    assert first.contact_array.shape[0] > max(first.world_body_ids)
    # reset(seed) replays the construction: the same layout and the same flight.
    first.reset(seed=11)
    assert first.world == layouts[0]
    other = make_aviary(START, world=SMALL_FOREST, seed=11)
    for av in (first, other):
        av.set_mode(6)
        av.set_all_setpoints(np.array([[0.5, 0.2, 0.0, 0.3]]))
    flights = [np.array([(av.step(), av.state(0))[1] for _ in range(30)]) for av in (first,
                                                                                   other)]
    np.testing.assert_array_equal(flights[0], flights[1])


def test_world_redraw_false_draws_once(make_aviary):
    av = make_aviary(START, world=SMALL_FOREST, world_redraw=False, seed=4)
    world, ids = av.world, list(av.world_body_ids)
    av.reset()
    av.reset(seed=9)
    assert av.world == world and av.world_body_ids == ids
    assert not _sizes_on_the_grid(world)  # drawn once: exact, not snapped


def test_add_world_spawns_after_construction_and_adds_up(make_aviary):
    av = make_aviary(START)
    assert av.world is None and av.world_body_ids == []
    trunk = World([Cylinder(2.0, 0.0, 0.2, 3.0)])
    ids = av.add_world(trunk)
    assert av.world == trunk and av.world_body_ids == ids
    assert av.contact_array.shape[0] > max(ids)
    wall = World([Box((0.0, 3.0, 1.0), (2.0, 0.1, 1.0))])
    av.add_world(wall)
    assert av.world == World(trunk.primitives + wall.primitives)
    av.reset()
    assert av.world == World(trunk.primitives + wall.primitives)
    assert len(av.world_body_ids) == 2
    av.add_world(SMALL_FOREST)  # drawn now, and again at each reset
    before = av.world
    assert len(before) > 2 and before.primitives[:2] == av.world.primitives[:2]
    av.reset()
    assert av.world != before and av.world.primitives[:2] == before.primitives[:2]
    with pytest.raises(TypeError, match="spec must be"):
        av.add_world(None)
    with pytest.raises(ValueError, match=r"start_pos\[0\]"):
        av.add_world(World([Sphere((0.0, 0.0, 1.0), 0.5)]))


def test_a_drone_flying_into_a_tree_touches_it_and_stops(make_aviary):
    tree = Cylinder(x=1.0, y=0.0, radius=0.2, height=3.0)
    av = make_aviary(START, world=World([tree]))
    trunk_id, drone_id = av.world_body_ids[0], av.drones[0].Id
    av.set_mode(6)  # velocity control: 1 m/s along +x, into the trunk
    av.set_all_setpoints(np.array([[1.0, 0.0, 0.0, 0.0]]))
    touched = None
    for step in range(300):
        av.step()
        if av.contact_array[drone_id, trunk_id]:
            touched = step
            break
    assert touched is not None
    assert av.contact_array[trunk_id, drone_id]
    for _ in range(30):
        av.step()
    x = av.state(0)[3][0]
    assert x < tree.x - tree.radius  # it did not pass through
    assert abs(av.state(0)[2][0]) < 0.5  # and was stopped


def test_a_start_inside_an_obstacle_is_refused(make_aviary):
    with pytest.raises(ValueError, match=r"start_pos\[1\] = \[3\.0, 0\.0, 1\.0\] overlaps "
                                         r"Cylinder\(x=3\.0"):
        Aviary(start_pos=np.array([[0.0, 0.0, 1.0], [3.0, 0.0, 1.0]]),
               start_orn=np.zeros((2, 3)), world=World([Cylinder(3.0, 0.0, 0.3, 5.0)]))
    # Beside the trunk, closer than the drone's bounding radius (0.075 m for the cf2x).
    with pytest.raises(ValueError, match="bounding sphere"):
        Aviary(start_pos=np.array([[3.35, 0.0, 1.0]]), start_orn=np.zeros((1, 3)),
               world=World([Cylinder(3.0, 0.0, 0.3, 5.0)]))
    make_aviary([(3.4, 0.0, 1.0)], world=World([Cylinder(3.0, 0.0, 0.3, 5.0)]))  # clear
    # A start in a wall of every drawn building: refused after WORLD_DRAWS draws.
    rooms = Rooms(grid=(1, 1), room_size=6.0)
    with pytest.raises(ValueError, match=f"each of {WORLD_DRAWS} draws of Rooms"):
        Aviary(start_pos=np.array([[3.0, 0.0, 1.0]]), start_orn=np.zeros((1, 3)),
               world=rooms)
    # A dense forest without a clearing traps the start now and then: it is drawn again.
    dense = Forest(density=0.3, radius=0.3, height=3.0, extent=6.0, clearing=0.0)
    av = make_aviary(START, world=dense, seed=0)
    for _ in range(5):
        assert av.world.free_start(START[0], 0.07)
        av.reset()


@pytest.mark.parametrize("world, error, match", [
    (3, TypeError, "world must be None, a World, a Forest, Rooms or Clutter generator, or "
                   "a world file"),
    ([Cylinder(0.0, 0.0, 1.0, 1.0)], TypeError, "world must be None, a World"),
    ("jungle", ValueError, "world: world name 'jungle' is not a shipped world"),
    (Path("/nonexistent/world.yaml"), FileNotFoundError, "world: world file .* not found"),
    ({"forest": {"density": -1.0}}, ValueError, "world: world spec: Forest.density"),
])
def test_bad_world_arguments_name_world(world, error, match):
    with pytest.raises(error, match=match):
        Aviary(start_pos=np.array([[0.0, 0.0, 1.0]]), start_orn=np.zeros((1, 3)), world=world)


def test_world_redraw_must_be_a_bool():
    with pytest.raises(TypeError, match="world_redraw must be a bool"):
        Aviary(start_pos=np.array([[0.0, 0.0, 1.0]]), start_orn=np.zeros((1, 3)),
               world=SMALL_FOREST, world_redraw="yes")


def test_world_files_a_seed_pins_the_world_none_draws_it(make_aviary, tmp_path):
    av = make_aviary(START, world="rooms")  # the shipped building, its seed in the file
    assert av.world == load_world("rooms")
    av.reset()
    assert av.world == load_world("rooms")
    path = tmp_path / "clutter.yaml"
    path.write_text("clutter: {count: 6, extent: 10.0, clearing: 1.5}\n")
    av = make_aviary(START, world=path)
    layout = av.world
    assert len(layout) == 6
    av.reset()
    assert av.world != layout and len(av.world) == 6
    assert isinstance(av.world, World) and isinstance(av.options.world, Clutter)


def test_a_pyflyt_style_mission_flies_between_the_trees():
    """PyFlyt-style user code: build the aviary, load the obstacles, fly a waypoint."""
    env = Aviary(start_pos=np.array([[0.0, 0.0, 1.0]]), start_orn=np.zeros((1, 3)),
                 render=False, drone_type="quadx", seed=0)
    try:
        trees = World([Cylinder(x=2.0, y=y, radius=0.15, height=4.0)
                       for y in (-1.5, -0.5, 0.5, 1.5)] +
                      [Cylinder(x=4.0, y=y, radius=0.15, height=4.0) for y in (-1.0, 0.0, 1.0)])
        tree_ids = env.add_world(trees)
        env.set_mode(7)  # position control: x, y, yaw, z
        env.set_setpoint(0, np.array([3.0, 0.0, 0.0, 1.5]))  # through a gap, before a tree
        touched = False
        for _ in range(15 * 30):  # 15 s at the 30 Hz default
            env.step()
            touched |= bool(env.contact_array[env.drones[0].Id, tree_ids].any())
        np.testing.assert_allclose(env.state(0)[3], [3.0, 0.0, 1.5], atol=0.1)
        assert not touched
        # A ray ahead of the drone sees the trunk of the next row, at x = 4.0 - 0.15 m.
        origin = env.state(0)[3] + [0.2, 0.0, 0.0]
        hit = pybullet.rayTest(origin, origin + [5.0, 0.0, 0.0], physicsClientId=env._client)[0]
        assert hit[0] == tree_ids[5]
        assert hit[3][0] == pytest.approx(3.85, abs=1e-3)
    finally:
        env.close()


def _bad_file(folder: Path) -> Path:
    path = folder / "binary.yaml"
    path.write_bytes(bytes(range(256)))
    return path


@pytest.mark.parametrize("spec", [
    Rooms(grid=(2, 2)),                        # its walls cross at the origin: every draw traps
    World([Sphere((0.0, 0.0, 1.0), 0.5)]),      # traps the start
    {"forest": {"density": -1.0}},              # not a world
    _bad_file,                                  # not a text file
])
def test_a_refused_add_world_changes_nothing(make_aviary, tmp_path, spec):
    av = make_aviary(START)
    av.add_world(World([Cylinder(3.0, 0.0, 0.2, 3.0)]))
    av.add_world(SMALL_FOREST)
    av.reset(seed=1)
    world, ids = av.world, list(av.world_body_ids)
    random_state = av.np_random.bit_generator.state
    bodies = pybullet.getNumBodies(physicsClientId=av._client)
    with pytest.raises((TypeError, ValueError)):
        av.add_world(spec(tmp_path) if callable(spec) else spec)
    assert av.world == world and av.world_body_ids == ids
    assert av.np_random.bit_generator.state == random_state
    assert pybullet.getNumBodies(physicsClientId=av._client) == bodies
    av.reset()   # a part left behind by the refusal would be drawn here, and raise again
    av.step()
    assert len(av.world_body_ids) == len(av.world) and av.world.primitives[0] == world.primitives[0]
    av.reset(seed=1)  # the resets draw what they drew before the refusal
    assert av.world == world


def test_a_bad_world_file_keeps_its_error_and_names_world(tmp_path):
    with pytest.raises(ValueError, match=r"world: .*binary\.yaml is not a UTF-8 text file"):
        Aviary(start_pos=np.array([[0.0, 0.0, 1.0]]), start_orn=np.zeros((1, 3)),
               world=_bad_file(tmp_path))
