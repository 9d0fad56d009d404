"""The depth camera on the PyBullet Aviary: the geometry of PyBullet's own camera, and the
sensor (``drone_options["sensors"]["depth"]``, ``aviary.read_sensors(i)["depth"]``) exact.

**The same geometry as PyBullet's camera.** A :class:`Camera` of the drone renders a
32 x 24 depth image of a box, a cylinder, a sphere and the floor; ``depth.true_depths``
from the same pose must agree with it on every pixel whose 3 x 3 neighbourhood sees one
primitive (in the camera's segmentation and in closed form alike), within

    ``8 q(z) + e / cos(incidence)``,  ``q(z) = z^2 (far - near) / (far near) 2^-24``:

``q`` is one step of the depth buffer at depth ``z`` [m] (``ER_TINY_RENDERER`` keeps
``d = (1/near - 1/z) / (1/near - 1/far)`` as a float32, whose steps are 2^-24 for
d in [0.5, 1), i.e. beyond 2 near: a 24-bit depth buffer; dz/dd = z^2 (far - near) /
(far near)); eight of them cover the renderer's float32 interpolation (measured: up to
1.6 q on the box, 4 q on the floor). ``e`` is how far the visual mesh lies from the exact
surface (0 for the box and the floor plane; the cylinder's mesh circumscribes it within
``FACET_TOLERANCE`` = 0.1 mm; the sphere's is inscribed, within its largest triangle's
sagitta, 0.06 mm), over the cosine of the angle of incidence. With near = 0.1 m and
far = 20 m, q is 0.3 um at 1 m and 7 um at 5 m. The bodies are made here with fine visual
meshes: :func:`pyflyt_like.core.world_bodies.spawn_world`'s visuals are coarse (a 24-facet
cylinder, PyBullet's own sphere up to 5 % of its radius inside), which would test the
meshes, not the geometry. Sampling the pixels' centres instead of their bottom-left corners
(what the renderer does) misses by centimetres.

**Exact on the Aviary.** With the ``ideal`` preset, every depth the Aviary's sensor casts
(:class:`~pyflyt_like.core.abstractions.lidar.LidarCaster`, ``cast_range`` far, times the
pixels' scales) equals ``depth.true_depths``, within 1 mm for every pixel and 1e-9 m for
nearly all, from the start pose and random ones, in a seeded forest and the three
primitives; nothing within ``max_range`` reads ``max_range``; the drone never sees itself;
the readings' rate, copies, seeds and streams; errors name the option.
"""

from __future__ import annotations

import math

import numpy as np
import pybullet
import pytest

from pyflyt_like.core import Aviary
from pyflyt_like.core.abstractions.camera import Camera
from pyflyt_like.core.world_bodies import FACET_TOLERANCE, cylinder_mesh
from pyflyt_like.sensors import depth, lidar, resolve_sensor
from pyflyt_like.worlds import Box, Cylinder, Forest, Sphere, World

from ._ray_sensing import place, sensing_aviary

PHYSICS_HZ = 240
HEIGHT, WIDTH, FOV = 24, 32, 60.0
NEAR, FAR = 0.1, 20.0
MOUNT = (0.1, 0.0, 0.03)
SCENE = World([Box(center=(3.0, -1.3, 0.9), half_extents=(0.4, 0.6, 0.9), yaw=0.5),
               Cylinder(x=3.6, y=0.7, radius=0.3, height=2.6),
               Sphere(center=(2.6, 0.1, 1.9), radius=0.5)])
FLOOR, NOTHING = len(SCENE), -1  # labels besides the primitives' indices
# The buffer steps allowed, and the quantum of the float32 buffer in [0.5, 1).
STEPS, QUANTUM = 8.0, 2.0**-24
# The bound for every pixel [m], and the bound of "to rounding" [m].
EXACT_TO, ROUNDING = 1e-3, 1e-9


def _aviary(sensors, positions=((0.0, 0.0, 1.4),), orientations=None, seed=0,
            world: World | None = None) -> Aviary:
    return sensing_aviary(sensors, positions, orientations, physics_hz=PHYSICS_HZ, seed=seed,
                          world=world)


def _camera_params(tilt_deg: float, **overrides) -> depth.DepthParams:
    """The depth sensor of a Camera tilted up by ``tilt_deg`` at MOUNT: ideal, far plane
    FAR."""
    return resolve_sensor("depth", {
        "preset": "ideal", "width": WIDTH, "height": HEIGHT, "fov_deg": FOV, "min_range": 0.0,
        "max_range": FAR, "mounting_position": list(MOUNT),
        "mounting_orientation_deg": [0.0, -tilt_deg, 0.0], **overrides}, PHYSICS_HZ)


def _uv_sphere(radius: float, around: int, down: int) -> tuple[np.ndarray, np.ndarray]:
    """A closed mesh with its vertices on a sphere of ``radius`` [m] about the origin:
    ``around`` meridians, ``down`` bands; vertices (n, 3) and triangles (m, 3)."""
    polar = math.pi * np.arange(1, down) / down
    azimuth = 2.0 * math.pi * np.arange(around) / around
    rings = np.stack([np.outer(np.sin(polar), np.cos(azimuth)),
                      np.outer(np.sin(polar), np.sin(azimuth)),
                      np.repeat(np.cos(polar)[:, None], around, axis=1)], axis=-1)
    vertices = radius * np.concatenate([[[0.0, 0.0, 1.0]], rings.reshape(-1, 3),
                                        [[0.0, 0.0, -1.0]]])
    south = len(vertices) - 1
    j = np.arange(around)
    k = np.arange(around)[None, :] + 1 + around * np.arange(down - 2)[:, None]  # ring i, j
    k_next = (j + 1) % around + 1 + around * np.arange(down - 2)[:, None]
    bands = [np.stack([k, k + around, k_next + around], axis=-1).reshape(-1, 3),
             np.stack([k, k_next + around, k_next], axis=-1).reshape(-1, 3)]
    caps = [np.stack([np.zeros(around, int), j + 1, (j + 1) % around + 1], axis=-1),
            np.stack([np.full(around, south), (j + 1) % around + 1 + around * (down - 2),
                      j + 1 + around * (down - 2)], axis=-1)]
    return vertices, np.concatenate(bands + caps)


def _sagitta(vertices: np.ndarray, triangles: np.ndarray, radius: float) -> float:
    """How far [m] the flat triangles of a mesh inscribed in a sphere of ``radius`` lie
    inside it, at most: ``r - sqrt(r^2 - R^2)`` for a triangle of circumradius R (its plane's
    distance from the centre)."""
    a, b, c = (vertices[triangles[:, k]] for k in range(3))
    ab, bc, ca = (np.linalg.norm(u - v, axis=1) for u, v in ((a, b), (b, c), (c, a)))
    area = 0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=1)
    circumradius = ab * bc * ca / (4.0 * area)
    return float(np.max(radius - np.sqrt(radius**2 - circumradius**2)))


def _spawn_fine(client: int, world: World) -> tuple[list[int], list[float]]:
    """Visual-only bodies of the primitives of ``world`` with fine meshes; their ids and how
    far [m] each mesh lies from its exact surface."""
    ids, offsets = [], []
    for p in world.primitives:
        if type(p) is Box:
            shape = pybullet.createVisualShape(pybullet.GEOM_BOX, halfExtents=p.half_extents,
                                               physicsClientId=client)
            pose, offset = (p.center, (0.0, 0.0, math.sin(0.5 * p.yaw),
                                       math.cos(0.5 * p.yaw))), 0.0
        elif type(p) is Cylinder:
            vertices, indices = cylinder_mesh(p.radius, p.height)
            shape = pybullet.createVisualShape(
                pybullet.GEOM_MESH, vertices=vertices.tolist(), indices=indices.tolist(),
                physicsClientId=client)
            pose, offset = ((p.x, p.y, 0.5 * p.height), (0.0, 0.0, 0.0, 1.0)), FACET_TOLERANCE
        else:
            vertices, triangles = _uv_sphere(p.radius, 256, 128)
            shape = pybullet.createVisualShape(
                pybullet.GEOM_MESH, vertices=vertices.tolist(),
                indices=triangles.reshape(-1).tolist(), physicsClientId=client)
            pose = (p.center, (0.0, 0.0, 0.0, 1.0))
            offset = _sagitta(vertices, triangles, p.radius)
        ids.append(pybullet.createMultiBody(0.0, -1, shape, basePosition=list(pose[0]),
                                            baseOrientation=list(pose[1]),
                                            physicsClientId=client))
        offsets.append(offset)
    return ids, offsets


def _closed_form(world: World, pose, params: depth.DepthParams
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pixel: the label of what its ray meets first (a primitive's index, FLOOR or
    NOTHING within max_range of depth), the cosine of the angle of incidence there, and
    true_depths."""
    r = lidar.rotation_tuple(pose[1])
    coefficients, directions = params.coefficients, params.directions
    labels = np.full(params.shape, NOTHING)
    cosines = np.ones(params.shape)
    truths = depth.true_depths(world, *pose, params)
    for i, j in np.ndindex(params.shape):
        ox, oy, oz, dx, dy, dz = lidar.world_ray(r, *pose[0], coefficients, *directions[i, j])
        ranges = [World([p]).ray_distance((ox, oy, oz), (dx, dy, dz), params.cast_range)
                  for p in world.primitives]
        ranges.append(lidar.floor_ray_distance(oz, dz, 0.0, params.cast_range))
        k = int(np.argmin(ranges))
        if not np.isfinite(truths[i, j]):
            continue
        labels[i, j] = k
        if k < FLOOR and type(world.primitives[k]) is Box:
            continue  # its visual is exact: no offset to divide
        hit = np.array([ox, oy, oz]) + ranges[k] * np.array([dx, dy, dz])
        if k == FLOOR:
            normal = np.array([0.0, 0.0, 1.0])
        elif type(world.primitives[k]) is Sphere:
            normal = hit - np.array(world.primitives[k].center)
        else:
            p = world.primitives[k]
            on_cap = min(abs(hit[2]), abs(hit[2] - p.height)) < 1e-9
            normal = np.array([0.0, 0.0, 1.0]) if on_cap else np.array(
                [hit[0] - p.x, hit[1] - p.y, 0.0])
        cosines[i, j] = abs(normal @ (dx, dy, dz)) / np.linalg.norm(normal)
    return labels, cosines, truths


def _interior(labels: np.ndarray) -> np.ndarray:
    """Pixels whose 3 x 3 neighbourhood (within the image) holds one label."""
    padded = np.pad(labels, 1, mode="edge")
    same = np.ones(labels.shape, bool)
    for di in range(3):
        for dj in range(3):
            same &= padded[di:di + labels.shape[0], dj:dj + labels.shape[1]] == labels
    return same


# ------------------------------------------------------------------ PyBullet's camera
@pytest.mark.parametrize(("tilt", "attitude"), [(-15.0, (0.05, -0.04, 0.1)),
                                                (-40.0, (0.0, 0.0, 0.0)),
                                                (10.0, (-0.2, 0.1, -0.15))])
def test_the_depth_image_is_pybullets_camera_depth(tilt, attitude, monkeypatch):
    with _aviary({"imu": "ideal"}, orientations=[attitude]) as aviary:
        client, drone = aviary._client, aviary.drones[0]
        ids, offsets = _spawn_fine(client, SCENE)
        camera = Camera(aviary, drone.Id, -1, use_gimbal=False, camera_FOV_degrees=FOV,
                        camera_angle_degrees=tilt, camera_resolution=(HEIGHT, WIDTH),
                        camera_position_offset=MOUNT, near=NEAR, far=FAR)
        camera.state_update()
        image = pybullet.getCameraImage(WIDTH, HEIGHT, camera.view_mat, camera.proj_mat,
                                        renderer=pybullet.ER_TINY_RENDERER, flags=0,
                                        physicsClientId=client)
        # the buffer converted in float64 (capture_image's float32 would add its rounding)
        rendered = camera.depth_from_buffer(np.asarray(image[3], np.float64).reshape(
            HEIGHT, WIDTH))
        seg = np.asarray(image[4]).reshape(HEIGHT, WIDTH)
        seen = np.full(seg.shape, -2)  # -2: anything else (the drone)
        for k, body in enumerate(ids):
            seen[seg == body] = k
        seen[seg == aviary.planeId] = FLOOR
        seen[seg == -1] = NOTHING
        pose = pybullet.getBasePositionAndOrientation(drone.Id, physicsClientId=client)
        params = _camera_params(tilt)
        labels, cosines, truths = _closed_form(SCENE, pose, params)

        compared = _interior(labels) & _interior(seen) & (labels == seen)
        assert compared.mean() > 0.6  # most of the image
        def quanta(z):
            return z**2 * (FAR - NEAR) / (FAR * NEAR) * QUANTUM

        # the sky reads the far plane (to a step of the buffer), nothing in closed form
        sky = compared & (labels == NOTHING)
        assert np.all(np.abs(rendered[sky] - FAR) <= STEPS * quanta(FAR))
        assert np.all(np.isinf(truths[sky]))
        surface = compared & (labels != NOTHING)
        offset = np.array([*offsets, 0.0])[np.where(surface, labels, FLOOR)]
        tolerance = STEPS * quanta(truths) + offset / cosines
        errors = np.abs(rendered - truths)
        assert np.all(errors[surface] <= tolerance[surface]), np.max(
            errors[surface] / tolerance[surface])
        for label in (*range(len(SCENE)), FLOOR):  # each is compared somewhere
            if label != 2 or tilt != -40.0:  # (looking down, the sphere is out of view)
                assert np.sum(surface & (labels == label)) >= 6, label

        # pixel centres instead of PyBullet's corners: centimetres off
        monkeypatch.setattr(depth, "COLUMN_SAMPLE", 0.5)
        monkeypatch.setattr(depth, "ROW_SAMPLE", 0.5)
        centred = depth.true_depths(SCENE, *pose, _camera_params(tilt))
        shifted = surface & np.isfinite(centred)
        assert np.max(np.abs(rendered - centred)[shifted]) > 0.01


# ------------------------------------------------------------------ the sensor, exact
def _depth_errors(caster, world: World, pose) -> np.ndarray:
    """The caster's depths against true_depths: |difference| (height, width) [m], 0 where
    both are inf, after checking that the same pixels see a surface."""
    depths = depth.depths_from_ranges(caster.params, caster.cast().copy())
    exact = depth.true_depths(world, *pose, caster.params)
    hits = np.isfinite(exact)
    assert np.array_equal(np.isfinite(depths), hits)
    errors = np.zeros(exact.shape)
    errors[hits] = np.abs(depths[hits] - exact[hits])
    return errors


def _assert_exact(errors: np.ndarray, label: str) -> None:
    assert errors.max() <= EXACT_TO, (label, errors.max())
    assert np.mean(errors <= ROUNDING) >= 0.999, (label, np.mean(errors <= ROUNDING))


WIDE = {"preset": "ideal", "width": 48, "height": 36, "fov_deg": 100.0, "max_range": 30.0,
        "mounting_position": [0.08, 0.0, 0.02]}


@pytest.mark.parametrize("world", [
    SCENE, Forest(density=0.1, radius=(0.1, 0.3), height=6.0, extent=20.0,
                  clearing=2.0).generate(seed=3)], ids=["scene", "forest"])
def test_every_depth_is_the_closed_form(world):
    rng = np.random.default_rng(len(world))
    with _aviary({"depth": WIDE}, world=world) as aviary:
        caster = aviary.drones[0].sensors._depth
        assert caster.cast_range == pytest.approx(30.0 / caster.params.scales.min())
        drone = aviary.drones[0]
        pose = (drone.state[3], drone.quaternion)
        _assert_exact(_depth_errors(caster, world, pose), "start")
        reading = aviary.read_sensors(0)["depth"]
        exact = depth.true_depths(world, *pose, caster.params)
        assert reading["time"] == 0.0 and reading["depth"].shape == (36, 48)
        np.testing.assert_allclose(reading["depth"], np.where(np.isfinite(exact), exact, 30.0),
                                   rtol=0.0, atol=EXACT_TO)
        low, high = world.bounds()
        hits = 0
        for _ in range(6):
            while True:
                position = rng.uniform(low - 1.0, high + 1.0)
                position[2] = rng.uniform(0.3, high[2] + 0.5)
                if world.distance(position) > 0.15:
                    break
            quat = rng.normal(size=4)
            pose = place(aviary, position, quat / np.linalg.norm(quat))
            _assert_exact(_depth_errors(caster, world, pose), "random pose")
            hits += np.isfinite(caster.truths).sum()
        assert hits > 0.2 * 6 * caster.truths.size  # surfaces seen, not only the sky


def test_nothing_within_the_far_plane_reads_max_range():
    # a wall 5.5 m ahead, beyond the 5 m far plane: the corner pixels' rays reach it
    # (cast_range > 5.5 m) but their depth is beyond max_range
    # (the floor 20 m below, farther still)
    wall = World([Box(center=(5.6, 0.0, 20.0), half_extents=(0.1, 20.0, 20.0))])
    config = {"preset": "ideal", "width": 16, "height": 12, "max_range": 5.0}
    with _aviary({"depth": config}, positions=[(0.0, 0.0, 20.0)], world=wall) as aviary:
        caster = aviary.drones[0].sensors._depth
        assert caster.cast_range > 5.5
        assert np.any(np.isfinite(caster.cast()))
        assert np.all(aviary.read_sensors(0)["depth"]["depth"] == 5.0)


def test_the_drone_never_sees_itself_and_a_downward_camera_reads_its_height():
    down = {"preset": "ideal", "width": 16, "height": 12, "fov_deg": 90.0,
            "mounting_position": [0.0, 0.0, 0.0], "mounting_orientation_deg": [0.0, 90.0, 0.0]}
    with _aviary({"depth": down}, positions=[(0.0, 0.0, 2.5)]) as aviary:
        # from the centre of mass, through the body: every pixel sees the floor plane,
        # whose depth along the vertical axis is the height
        image = aviary.read_sensors(0)["depth"]["depth"]
        np.testing.assert_allclose(image, aviary.drones[0].state[3][2], rtol=1e-12)


# ------------------------------------------------------------------ sampling
def test_the_same_seed_gives_the_same_readings_and_streams_stay_apart():
    noisy = {"preset": "default", "update_rate": None, "dropout": 0.2, "width": 16,
             "height": 12}
    lidar_config = {"preset": "default", "update_rate": None, "beams": 32}

    def record(sensors, seed, name, reset_seed=None):
        with _aviary(sensors, seed=seed, world=SCENE) as aviary:
            if reset_seed is not None:
                aviary.reset(seed=reset_seed)
            key = {"depth": "depth", "lidar": "ranges"}[name]
            frames = [aviary.read_sensors(0)[name][key]]
            for _ in range(5):
                aviary.step()
                frames.append(aviary.read_sensors(0)[name][key])
            return np.array(frames)

    first = record({"depth": noisy}, 7, "depth")
    assert np.array_equal(first, record({"depth": noisy}, 7, "depth"))
    assert np.array_equal(record({"depth": noisy}, 7, "depth", reset_seed=11),
                          record({"depth": noisy}, 3, "depth", reset_seed=11))
    assert not np.array_equal(first, record({"depth": noisy}, 8, "depth"))
    assert 0.1 < np.mean(first == 10.0) < 0.9  # dropouts (and the sky) read max_range
    assert np.all((first >= 0.3) & (first <= 10.0))
    # the depth camera draws from its own stream: the LiDAR's readings do not change
    # with it, and its own do not change with the LiDAR
    both = {"depth": noisy, "lidar": lidar_config}
    assert np.array_equal(record({"lidar": lidar_config}, 7, "lidar"),
                          record(both, 7, "lidar"))
    assert np.array_equal(first, record(both, 7, "depth"))


def test_the_depth_camera_samples_at_its_rate_and_reads_copies():
    with _aviary({"depth": "tiny", "imu": "ideal"}, world=SCENE) as aviary:
        times = []
        for _ in range(30):
            aviary.step()
            times.append(aviary.read_sensors(0)["depth"]["time"])
        # 20 Hz at 240 Hz physics: a sample every 12 steps, from t = 0
        assert sorted(set(times)) == pytest.approx([0.0, 0.05, 0.1])
        readings = aviary.read_sensors(0)
        readings["depth"]["depth"][:] = -1.0
        assert np.all(aviary.read_sensors(0)["depth"]["depth"] > 0.0)
        assert list(readings) == ["imu", "depth"]
        assert readings["depth"]["depth"].shape == (12, 16)


@pytest.mark.parametrize(("config", "error", "match"), [
    ({"preset": "tiny", "width": 0}, ValueError,
     r'drone_options\["sensors"\]\["depth"\]\["width"\] must be an integer >= 1'),
    ({"preset": "tiny", "fov_deg": 180.0}, ValueError,
     r'drone_options\["sensors"\]\["depth"\]\["fov_deg"\]=180 must be in \(0, 180\)'),
    ("kinect", ValueError, r'drone_options\["sensors"\]\["depth"\] names an unknown preset'),
])
def test_bad_depth_options_name_the_option(config, error, match):
    with pytest.raises(error, match=match):
        _aviary({"depth": config})
