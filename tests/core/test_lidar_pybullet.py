"""The LiDAR on the PyBullet Aviary: ``drone_options["sensors"]["lidar"]`` and
``aviary.read_sensors(i)["lidar"]``.

With the "ideal" preset every PyBullet range is the closed form's
(``lidar.true_ranges``, issue #31): within 1 mm for every ray and to 1e-9 m for nearly
all (to the bit in every scan measured), in seeded Forest, Rooms and Clutter worlds, lone
and touching primitives, from random poses, and along fans of grazing beams (silhouettes of
cylinders and spheres, rims, the planes of box faces); a primitive met in another's outer
skin is found; a redrawn world is mapped again. Nothing hit reads max_range; turning the
vehicle turns the scan; the same seed gives the same readings; the drone never sees
itself, but others. The obstacles are the Aviary's (``Aviary(world=...)`` or
``add_world``, bodies of :func:`pyflyt_like.core.world_bodies.spawn_world`).
"""

from __future__ import annotations

import math

import numpy as np
import pybullet
import pytest

from pyflyt_like.core import Aviary
from pyflyt_like.core.abstractions.lidar import MAX_BATCH, LidarCaster
from pyflyt_like.sensors import lidar, resolve_sensors
from pyflyt_like.worlds import Box, Clutter, Cylinder, Forest, Rooms, Sphere, World

from ._ray_sensing import place, sensing_aviary

PHYSICS_HZ = 240
SCAN = {"preset": "ideal", "channels": 12, "beams": 120, "vertical_fov_deg": 70.0,
        "max_range": 40.0}
# Nearly all the way round, up and down: every primitive is seen from some pose.
WIDE = {"preset": "ideal", "channels": 16, "beams": 180, "vertical_fov_deg": 170.0,
        "max_range": 40.0}
# The bound for every ray [m], and the bound of "to rounding" [m].
EXACT_TO, ROUNDING = 1e-3, 1e-9

WORLDS = {
    "cylinder": World([Cylinder(x=3.0, y=0.5, radius=0.3, height=5.0)]),
    "yawed box": World([Box(center=(-2.0, 3.0, 1.5), half_extents=(1.0, 0.2, 1.5),
                            yaw=0.4)]),
    "sphere": World([Sphere(center=(-1.0, -3.0, 2.0), radius=0.7)]),
    # a ball resting on a crate, a trunk against it, a wall against the trunk
    "touching": World([Box(center=(3.0, 0.0, 0.5), half_extents=(0.5, 0.5, 0.5)),
                       Sphere(center=(3.0, 0.0, 1.5), radius=0.5),
                       Cylinder(x=3.0, y=1.0, radius=0.5, height=2.0),
                       Box(center=(3.0, 2.0, 1.0), half_extents=(0.5, 0.5, 1.0), yaw=0.2)]),
    "forest": Forest(density=0.1, radius=(0.1, 0.3), height=6.0, extent=24.0,
                     clearing=2.0).generate(seed=3),
    "rooms": Rooms(grid=(2, 2), corridor_width=2.0, ceiling=True).generate(seed=1),
    "clutter": Clutter(count=40, extent=12.0).generate(seed=2),
    "floor": World(),
}


def _aviary(sensors, positions=((0.0, 0.0, 1.5),), orientations=None, drone_type="quadx",
            seed=0, world: object = None) -> Aviary:
    return sensing_aviary(sensors, positions, orientations, physics_hz=PHYSICS_HZ,
                          drone_type=drone_type, seed=seed, world=world)


def _caster(aviary, index=0) -> LidarCaster:
    return aviary.drones[index].sensors._lidar


def _extra_caster(aviary, config: dict) -> LidarCaster:
    """Another caster of drone 0, for another scan (the drone keeps its group bit)."""
    params = resolve_sensors({"lidar": config}, PHYSICS_HZ)["lidar"]
    return LidarCaster(aviary.drones[0].p, aviary.drones[0], params)


def _errors(caster: LidarCaster, world: World | None, pose) -> np.ndarray:
    """Cast, and return |range - closed form| (channels, beams) [m] (0 where both are
    inf), after checking that the same rays hit."""
    truths = caster.cast().copy()
    exact = lidar.true_ranges(world if world is not None else World(), *pose, caster.params)
    hits = np.isfinite(exact)
    assert np.array_equal(np.isfinite(truths), hits)
    errors = np.zeros(exact.shape)
    errors[hits] = np.abs(truths[hits] - exact[hits])
    return errors


def _assert_exact(errors: np.ndarray, label: str) -> None:
    """Every ray within 1 mm, nearly all to rounding."""
    assert errors.max() <= EXACT_TO, (label, errors.max())
    assert np.mean(errors <= ROUNDING) >= 0.999, (label, np.mean(errors <= ROUNDING))


def _yaw(angle: float) -> tuple[float, float, float, float]:
    return 0.0, 0.0, math.sin(0.5 * angle), math.cos(0.5 * angle)


def _fan(fov_deg: float, beams: int, vertical_fov_deg: float = 0.0, channels: int = 1
         ) -> dict:
    """A fan of beams about the body's x axis."""
    return {"preset": "ideal", "beams": beams, "horizontal_fov_deg": fov_deg,
            "channels": channels, "vertical_fov_deg": vertical_fov_deg, "max_range": 40.0}


# ------------------------------------------------------------------ the closed form
@pytest.mark.parametrize("name", list(WORLDS))
def test_every_ray_is_the_closed_form(name):
    world = WORLDS[name]
    rng = np.random.default_rng(list(WORLDS).index(name))
    with _aviary({"lidar": WIDE}, world=world) as aviary:
        caster = _caster(aviary)
        # at the start pose, the readings of the ideal preset are those ranges
        drone = aviary.drones[0]
        errors = _errors(caster, world, (drone.state[3], drone.quaternion))
        _assert_exact(errors, name)
        readings = aviary.read_sensors(0)["lidar"]
        assert readings["time"] == 0.0 and readings["ranges"].shape == caster.params.shape
        np.testing.assert_array_equal(
            readings["ranges"], np.where(np.isfinite(caster.truths), caster.truths, 40.0))
        # then from poses all over the world: any free point, any attitude
        low, high = world.bounds() if len(world) else (np.full(3, -5.0), np.full(3, 5.0))
        hits = recast = 0
        for _ in range(8):
            while True:
                position = rng.uniform(low - 1.0, high + 1.0)
                position[2] = rng.uniform(0.3, max(high[2], 1.0) + 0.5)
                if not len(world) or world.distance(position) > 0.15:
                    break
            quat = rng.normal(size=4)
            errors = _errors(caster, world, place(aviary, position, quat / np.linalg.norm(
                quat)))
            _assert_exact(errors, name)
            hits += np.isfinite(caster.truths).sum()
            recast += caster.recast_rays
        assert hits > 0.3 * 8 * caster.truths.size, name
        assert recast <= 0.01 * hits, name  # the refinement seldom needs Bullet again


def test_the_worlds_hold_every_kind():
    kinds = {type(p) for p in WORLDS["clutter"].primitives}
    assert kinds == {Box, Cylinder, Sphere}
    assert len(WORLDS["forest"]) > 30 and len(WORLDS["rooms"]) > 10


# grazing fans: (world, position, yaw [rad], scan, label)
_TRUNK = WORLDS["cylinder"]
_TRUNK_AZIMUTH = math.atan2(0.5, 3.0)
_TRUNK_HALF_ANGLE = math.asin(0.3 / math.hypot(3.0, 0.5))
_CRATE = World([Box(center=(3.0, 0.0, 1.5), half_extents=(0.5, 1.0, 1.5))])
_YAWED = World([Box(center=(3.0, 1.0, 1.5), half_extents=(0.5, 1.0, 1.5), yaw=0.3)])
_BALL = World([Sphere(center=(3.0, 0.5, 1.0), radius=0.7)])
_BALL_HALF_ANGLE = math.asin(0.7 / math.hypot(3.0, 0.5))
GRAZING = [
    *[(_TRUNK, (0.0, 0.0, 1.0), _TRUNK_AZIMUTH + side * _TRUNK_HALF_ANGLE, scan,
       f"trunk silhouette {side} {scan['horizontal_fov_deg']} deg")
      for side in (1, -1)
      for scan in (_fan(0.5, 2001, 10.0, 9), _fan(1e-4, 2001), _fan(1e-7, 2001))],
    # in the plane of the top cap, and just above it
    (_TRUNK, (0.0, 0.0, 5.0), _TRUNK_AZIMUTH, _fan(20.0, 801, 0.01, 41), "trunk cap plane"),
    (_TRUNK, (0.0, 0.0, 5.0), _TRUNK_AZIMUTH, _fan(20.0, 801), "trunk cap, level"),
    (_TRUNK, (0.0, 0.0, 5.0001), _TRUNK_AZIMUTH, _fan(20.0, 801, 0.01, 41),
     "trunk above its cap"),
    # along the face y = 1 (the beam at azimuth 0 in its plane, to the bit), and the top
    (_CRATE, (0.0, 1.0, 1.0), 0.0, _fan(0.01, 2001), "box side face plane"),
    (_CRATE, (0.0, 1.0, 1.0), 0.0, _fan(1e-6, 2001), "box side face plane, fine"),
    (_CRATE, (0.0, 0.0, 3.0), 0.0, _fan(60.0, 601, 0.02, 21), "box top face plane"),
    (_CRATE, (0.0, 0.0, 3.0), 0.0, _fan(60.0, 601), "box top face, level"),
    (_YAWED, (0.0, 0.0, 3.0), 0.3, _fan(60.0, 601, 0.02, 21), "yawed box top face"),
    *[(_BALL, (0.0, 0.0, 1.0), _TRUNK_AZIMUTH + side * _BALL_HALF_ANGLE, scan,
       f"sphere silhouette {side} {scan['horizontal_fov_deg']} deg")
      for side in (1, -1)
      for scan in (_fan(1.0, 2001, 10.0, 9), _fan(1e-4, 2001), _fan(1e-7, 2001))],
]


@pytest.mark.parametrize("world", [_TRUNK, _CRATE, _YAWED, _BALL],
                         ids=["trunk", "box", "yawed box", "sphere"])
def test_grazing_beams_are_exact(world):
    # The bodies lie outside their primitives (a sphere's cast stops centimetres short at
    # its silhouette): fans of beams 5e-11 to 0.1 degrees apart across silhouettes, rims
    # and the planes of faces, where Bullet's hit and the exact surface part most.
    cases = [case for case in GRAZING if case[0] is world]
    with _aviary({"imu": "ideal"}, positions=[(0.0, 0.0, 1.0)]) as aviary:
        aviary.add_world(world)  # after construction: the caster maps the new bodies
        for _, position, yaw, scan, label in cases:
            caster = _extra_caster(aviary, scan)
            pose = place(aviary, position, _yaw(yaw))
            errors = _errors(caster, world, pose)
            _assert_exact(errors, label)
            assert 0.05 < np.isfinite(caster.truths).mean() < 0.95, label  # both sides
            assert pose[0][2] == position[2]  # the planes are met to the bit


def test_a_primitive_in_another_ones_skin_is_found():
    # Beams along the silhouette of a sphere: Bullet's cast stops some 2 cm short of the
    # surface, before a small crate resting against the sphere, so Bullet reports the
    # sphere; the crate is the sphere's neighbour and is found in closed form.
    world = World([Sphere(center=(3.0, 0.0, 1.0), radius=0.5),
                   Box(center=(2.99, 0.505, 1.0), half_extents=(0.005, 0.0055, 0.01))])
    with _aviary({"lidar": _fan(0.004, 201, 0.1, 11)}, positions=[(0.0, 0.4999, 1.0)],
                 world=world) as aviary:
        caster = _caster(aviary)
        ids, _ = caster._first_pass()
        assert np.all(ids == aviary.world_body_ids[0])  # Bullet sees only the sphere
        drone = aviary.drones[0]
        _assert_exact(_errors(caster, world, (drone.state[3], drone.quaternion)), "skin")
        on_crate = lidar.true_ranges(World(world.primitives[1:]), drone.state[3],
                                     drone.quaternion, caster.params)
        assert np.mean(caster.truths == on_crate) > 0.5  # most beams end on the crate


def test_a_beam_past_a_walls_edge_goes_on_behind_it():
    # Beams looking along +y pass the end face x = 1 of a wall within a fraction of a
    # millimetre: Bullet's triangle test hits the wall up to 1e-4 of its size past the edge,
    # where the exact wall is missed. The beam goes on to a pillar behind, though a ceiling
    # touching the wall (its neighbour) is met farther on.
    wall = Box(center=(0.0, 3.0, 1.5), half_extents=(1.0, 0.1, 1.5))
    ceiling = Box(center=(0.0, 6.0, 3.1), half_extents=(2.0, 9.0, 0.1))
    pillar = Box(center=(1.0, 6.0, 1.5), half_extents=(0.5, 0.1, 1.5))
    world = World([wall, ceiling, pillar])
    with _aviary({"imu": "ideal"}, positions=[(3.0, -1.0, 1.0)], world=world) as aviary:
        caster = _extra_caster(aviary, _fan(0.02, 801, 20.0, 21))
        pose = place(aviary, (1.0 + 1e-4, 0.0, 1.0), _yaw(0.5 * math.pi))
        ids, _ = caster._first_pass()
        grazing = ids == aviary.world_body_ids[0]
        exact = lidar.true_ranges(world, *pose, caster.params).reshape(-1)
        past = grazing & (exact > 5.0)
        assert past.sum() > 20  # Bullet's hits on the wall where the beam passes it
        _assert_exact(_errors(caster, world, pose), "past the edge")


@pytest.mark.parametrize("inside", [
    Cylinder(x=0.0, y=0.0, radius=0.5, height=3.0),
    Box(center=(0.0, 0.0, 1.0), half_extents=(0.5, 0.4, 0.6), yaw=0.3),
    Sphere(center=(0.2, 0.0, 1.0), radius=0.5),
], ids=["cylinder", "box", "sphere"])
def test_a_beam_from_inside_an_obstacle_reads_zero(inside):
    world = World([inside, Cylinder(x=3.0, y=0.0, radius=0.3, height=5.0)])
    with _aviary({"lidar": SCAN}, positions=[(6.0, 0.0, 1.0)], world=world) as aviary:
        caster = _caster(aviary)
        pose = place(aviary, (0.0, 0.0, 1.0), (0.1, 0.2, 0.3, math.sqrt(0.86)))
        assert world.distance(pose[0]) < 0.0  # the mounting point too: mounted at 0
        _assert_exact(_errors(caster, world, pose), "inside")
        assert np.all(caster.truths == 0.0)


def test_a_redrawn_world_is_mapped_again():
    forest = Forest(density=0.1, radius=(0.1, 0.3), height=6.0, extent=16.0, clearing=2.0)
    with _aviary({"lidar": SCAN}, world=forest) as aviary:
        caster = _caster(aviary)
        seen = []
        for _ in range(3):
            drone = aviary.drones[0]
            _assert_exact(_errors(caster, aviary.world, (drone.state[3], drone.quaternion)),
                          "redraw")
            seen.append(aviary.world)
            aviary.reset()  # a new layout, on reused body ids
        assert seen[0] != seen[1] != seen[2]


def test_a_ray_that_hits_nothing_reads_max_range():
    # 25 to 85 degrees up, all round: over the trunk 20 m away (10 degrees up at most)
    up = {**SCAN, "vertical_center_deg": 55.0, "vertical_fov_deg": 60.0, "max_range": 25.0}
    far = World([Cylinder(x=20.0, y=0.0, radius=0.3, height=5.0)])
    with _aviary({"lidar": up}, world=far) as aviary:
        assert np.all(np.isinf(_caster(aviary).cast()))
        for _ in range(3):
            aviary.step()
            ranges = aviary.read_sensors(0)["lidar"]["ranges"]
            assert np.all(ranges == 25.0)


def test_a_large_scan_is_split_into_batches():
    big = {"preset": "ideal", "channels": 128, "beams": 160, "vertical_fov_deg": 120.0,
           "max_range": 30.0}
    with _aviary({"lidar": big}, positions=[(0.0, 0.0, 2.0)]) as aviary:
        caster = _caster(aviary)
        assert caster.truths.size == 20480 > MAX_BATCH and len(caster._batches) == 2
        drone = aviary.drones[0]
        exact = lidar.true_ranges(World(), drone.state[3], drone.quaternion, caster.params)
        truths = caster.cast()
        assert np.array_equal(np.isinf(truths), np.isinf(exact))
        np.testing.assert_allclose(truths[np.isfinite(exact)], exact[np.isfinite(exact)],
                                   rtol=0, atol=1e-9)


# ------------------------------------------------------------------ the vehicle's pose
def test_turning_the_vehicle_turns_the_scan():
    beams, k = 72, 7  # yaw by 7 beam spacings of 5 degrees
    ring = {"preset": "ideal", "beams": beams, "max_range": 30.0}
    boxes = World([Box(center=(4.0, 1.0, 1.5), half_extents=(0.5, 2.0, 1.5), yaw=0.3),
                   Box(center=(-3.0, -3.0, 1.5), half_extents=(1.0, 0.4, 1.5), yaw=-0.8),
                   Box(center=(0.5, 6.0, 1.5), half_extents=(3.0, 0.3, 1.5))])
    scans = []
    for yaw in (0.0, math.radians(5.0 * k)):
        with _aviary({"lidar": ring}, orientations=[(0.0, 0.0, yaw)], world=boxes) as aviary:
            scans.append(aviary.read_sensors(0)["lidar"]["ranges"][0])
    # the world seen at body azimuth a after the turn was at body azimuth a + 35 deg before
    np.testing.assert_allclose(scans[1], np.roll(scans[0], -k), rtol=0, atol=1e-9)
    assert np.ptp(scans[0]) > 1.0  # the scan is not uniform


def test_the_mounting_point_moves_with_the_vehicle():
    forward = {"preset": "ideal", "beams": 1, "horizontal_fov_deg": 0.0,
               "mounting_position": [0.2, 0.0, 0.1], "max_range": 30.0}
    wall = World([Box(center=(5.0, 0.0, 1.5), half_extents=(0.5, 4.0, 1.5))])
    with _aviary({"lidar": forward}, orientations=[(0.0, 0.2, 0.0)], world=wall) as aviary:
        drone = aviary.drones[0]
        expected = lidar.true_ranges(wall, drone.state[3], drone.quaternion,
                                     _caster(aviary).params)
        assert aviary.read_sensors(0)["lidar"]["ranges"][0, 0] == pytest.approx(
            expected[0, 0], abs=1e-9)


# ------------------------------------------------------------------ the drone itself
@pytest.mark.parametrize("drone_type", ["quadx", "fixedwing", "rocket", "quadplane"])
def test_the_drone_never_sees_itself(drone_type):
    # beams all round, from a point on the drone's skin: every ray starts next to it
    sphere = {"preset": "ideal", "channels": 19, "beams": 72, "vertical_fov_deg": 180.0,
              "max_range": 30.0, "mounting_position": [0.05, 0.02, 0.03]}
    with _aviary({"lidar": sphere}, positions=[(0.0, 0.0, 3.0)], drone_type=drone_type
                 ) as aviary:
        caster = _caster(aviary)
        assert caster.group_bit is not None
        for _ in range(2):
            drone = aviary.drones[0]
            floor = lidar.true_ranges(World(), drone.state[3], drone.quaternion,
                                      caster.params)
            truths = caster.cast()
            assert np.array_equal(np.isinf(truths), np.isinf(floor)), drone_type
            np.testing.assert_allclose(truths[np.isfinite(floor)], floor[np.isfinite(floor)],
                                       rtol=0, atol=1e-9)
            aviary.reset()  # a restored state keeps the drone's collision group


def test_without_a_group_bit_rays_are_cast_on_past_the_drone():
    sphere = {"preset": "ideal", "channels": 19, "beams": 72, "vertical_fov_deg": 180.0,
              "max_range": 30.0, "mounting_position": [0.0, 0.0, 0.02]}
    with _aviary({"lidar": sphere}, positions=[(0.0, 0.0, 3.0)], drone_type="fixedwing"
                 ) as aviary:
        drone = aviary.drones[0]
        params = _caster(aviary).params
        fallback = LidarCaster(aviary.drones[0].p, drone, params, exclude_self=False)
        assert fallback.group_bit is None and fallback.mask == -1
        # without the filter, a third of these rays meet the wings
        results = pybullet.rayTestBatch(*fallback._batches[0],
                                        parentObjectUniqueId=drone.Id, parentLinkIndex=-1,
                                        physicsClientId=aviary._client)
        assert np.mean([result[0] == drone.Id for result in results]) > 0.2
        floor = lidar.true_ranges(World(), drone.state[3], drone.quaternion, params)
        truths = fallback.cast()
        assert np.array_equal(np.isinf(truths), np.isinf(floor))
        np.testing.assert_allclose(truths[np.isfinite(floor)], floor[np.isfinite(floor)],
                                   rtol=0, atol=ROUNDING)
        assert fallback.recast_rays > 0.2 * truths.size  # cast on past the wings


def test_other_drones_are_seen():
    ahead = {"preset": "ideal", "beams": 1, "horizontal_fov_deg": 0.0, "max_range": 10.0}
    positions = [(0.0, 0.0, 1.0), (2.0, 0.0, 1.0)]
    with _aviary({"lidar": ahead}, positions=positions,
                 orientations=[(0.0, 0.0, 0.0), (0.0, 0.0, math.pi)]) as aviary:
        # each looks at the other, 2 m away, and meets its body a few cm short of its centre
        for i in range(2):
            reading = aviary.read_sensors(i)["lidar"]["ranges"][0, 0]
            assert 1.9 < reading < 2.0, i


def test_a_quadx_flies_the_same_with_or_without_a_lidar():
    def flight(sensors):
        with _aviary(sensors, positions=[(0.0, 0.0, 0.5), (0.6, 0.0, 0.05)], seed=2
                     ) as aviary:
            aviary.set_mode(7)
            states = []
            for _ in range(240):  # a second: drone 0 descends to the floor and lands
                aviary.set_setpoint(0, np.zeros(4))
                aviary.step()
                states.append(aviary.all_states.copy())
            return np.array(states)

    without = flight({"imu": "ideal"})
    with_lidar = flight({"imu": "ideal", "lidar": "default"})
    assert np.array_equal(without, with_lidar)
    assert without[-1, 0, 3, 2] < 0.05  # on the floor: contacts included


# ------------------------------------------------------------------ sampling
def test_the_same_seed_gives_the_same_readings():
    noisy = {"preset": "default", "update_rate": None, "dropout": 0.2, "beams": 90}

    def record(seed, reset_seed=None):
        with _aviary({"lidar": noisy}, seed=seed, world=WORLDS["forest"]) as aviary:
            if reset_seed is not None:
                aviary.reset(seed=reset_seed)
            frames = [aviary.read_sensors(0)["lidar"]["ranges"]]
            for _ in range(10):
                aviary.step()
                frames.append(aviary.read_sensors(0)["lidar"]["ranges"])
            return np.array(frames)

    first = record(7)
    assert np.array_equal(first, record(7))
    # reset(seed) restarts the streams, whatever came before
    assert np.array_equal(record(7, reset_seed=11), record(3, reset_seed=11))
    assert not np.array_equal(first, record(8))
    dropped = np.mean(first == 12.0)
    assert 0.2 < dropped < 0.9  # dropouts and empty directions read max_range
    assert np.all((first >= 0.15) & (first <= 12.0))


def test_the_lidar_samples_at_its_rate_and_reads_copies():
    with _aviary({"lidar": {"preset": "default", "beams": 8}, "imu": "ideal"}) as aviary:
        times = []
        for _ in range(60):
            aviary.step()
            times.append(aviary.read_sensors(0)["lidar"]["time"])
        # 10 Hz at 240 Hz physics: a sample every 24 steps, from t = 0
        assert sorted(set(times)) == pytest.approx([0.0, 0.1, 0.2])
        readings = aviary.read_sensors(0)
        readings["lidar"]["ranges"][:] = -1.0
        assert np.all(aviary.read_sensors(0)["lidar"]["ranges"] > 0.0)
        assert list(readings) == ["imu", "lidar"]
        assert aviary.drones[0].sensors.read()["lidar"]["ranges"].shape == (1, 8)


def test_a_downward_lidar_reads_the_rangefinder():
    sensors = {"range": "ideal", "lidar": {"preset": "tfmini_down", "noise": 0.0,
                                           "update_rate": None, "max_range": 1000.0,
                                           "min_range": 0.0}}
    with _aviary(sensors, orientations=[(0.2, -0.1, 0.5)]) as aviary:
        for _ in range(5):
            aviary.step()
            readings = aviary.read_sensors(0)
            assert readings["lidar"]["ranges"][0, 0] == pytest.approx(
                readings["range"]["range"], abs=1e-9)


@pytest.mark.parametrize(("lidar_config", "error", "match"), [
    ({"preset": "default", "beams": 0}, ValueError,
     r'drone_options\["sensors"\]\["lidar"\]\["beams"\] must be an integer >= 1'),
    ({"preset": "default", "update_rate": 7}, ValueError,
     r'drone_options\["sensors"\]\["lidar"\]\["update_rate"\]=7 Hz must divide'),
    ("hdl64", ValueError, r'drone_options\["sensors"\]\["lidar"\] names an unknown preset'),
])
def test_bad_lidar_options_name_the_option(lidar_config, error, match):
    with pytest.raises(error, match=match):
        _aviary({"lidar": lidar_config})


def test_group_bits_are_one_per_body_until_none_is_left():
    from pyflyt_like.core.abstractions.lidar import GROUP_BITS, _take_bit

    client = 10**6  # no real client: the registry alone
    bits = [_take_bit(client, body) for body in range(len(GROUP_BITS))]
    assert sorted(bits) == list(GROUP_BITS)
    assert _take_bit(client, 3) == bits[3]  # a body keeps its bit
    assert _take_bit(client, len(GROUP_BITS)) is None  # then the fallback
