"""The LiDAR on the PyBullet Aviary: ``drone_options["sensors"]["lidar"]`` and
``aviary.read_sensors(i)["lidar"]``.

With the "ideal" preset the PyBullet ranges are the closed form's (``lidar.true_ranges``)
for every ray, within the tolerance of the bodies ``spawn_world`` makes (each hit at most
that far outside the exact surface, so along a beam within 1 mm for cylinders and boxes
up to 84 degrees of incidence); nothing hit reads max_range; turning the vehicle turns the
scan; the same seed gives the same readings; the drone never sees itself, but others.
The obstacles are the Aviary's (``Aviary(world=...)``, bodies of
:func:`pyflyt_like.core.world_bodies.spawn_world`).
"""

from __future__ import annotations

import math

import numpy as np
import pybullet
import pytest

from pyflyt_like.core import Aviary
from pyflyt_like.core.abstractions.lidar import MAX_BATCH, LidarCaster
from pyflyt_like.sensors import lidar
from pyflyt_like.worlds import Box, Cylinder, Forest, Sphere, World

PHYSICS_HZ = 240
SCAN = {"preset": "ideal", "channels": 12, "beams": 120, "vertical_fov_deg": 70.0,
        "max_range": 40.0}
# Bullet may report a hit a few micrometres inside a surface (measured up to 3e-6 m).
INSIDE = 1e-5
# The most a hit on spawn_world's bodies lies outside the exact surface [m]
# (pyflyt_like.core.world_bodies): its cylinder facets (1e-4 m) and Bullet's triangle test
# past an edge (1e-4 of the triangle's size: 0.6 mm at the top rim of a 6 m trunk); a box
# is exact but for its edges; a sphere is Bullet's GJK cast, 1 mm.
CYLINDER_SIDE, CYLINDER_TOP, BOX_EDGE, SPHERE_TOLERANCE = 2e-4, 1e-3, 1e-3, 1e-3 + INSIDE

WORLDS = {
    "cylinder": World([Cylinder(x=3.0, y=0.5, radius=0.3, height=5.0)]),
    "yawed box": World([Box(center=(-2.0, 3.0, 1.5), half_extents=(1.0, 0.2, 1.5),
                            yaw=0.4)]),
    "sphere": World([Sphere(center=(-1.0, -3.0, 2.0), radius=0.7)]),
    "forest": Forest(density=0.1, radius=(0.1, 0.3), height=6.0, extent=24.0,
                     clearing=2.0).generate(seed=3),
    "floor": World(),
}


def _aviary(sensors, positions=((0.0, 0.0, 1.5),), orientations=None, drone_type="quadx",
            seed=0, world: World | None = None) -> Aviary:
    """Drones with one physics step per ``aviary.step()`` among the obstacles of ``world``
    (spawned before the first reset, so the sample at t = 0 sees them)."""
    positions = np.array(positions, dtype=float)
    orientations = np.zeros_like(positions) if orientations is None else np.array(
        orientations, dtype=float)
    options = {"sensors": sensors}
    if drone_type == "quadx":
        options["control_hz"] = PHYSICS_HZ
    return Aviary(start_pos=positions, start_orn=orientations, drone_type=drone_type,
                  physics_hz=PHYSICS_HZ, seed=seed, drone_options=options,
                  world=world if world is not None and len(world) else None)


def _caster(aviary, index=0) -> LidarCaster:
    return aviary.drones[index].sensors._lidar


def _grown(world: World) -> World:
    """Each primitive grown by the most ``spawn_world``'s body lies outside it."""
    grown = []
    for p in world.primitives:
        if isinstance(p, Cylinder):
            grown.append(Cylinder(x=p.x, y=p.y, radius=p.radius + CYLINDER_SIDE,
                                  height=p.height + CYLINDER_TOP))
        elif isinstance(p, Box):
            grown.append(Box(center=p.center, half_extents=tuple(h + BOX_EDGE for h in
                                                                 p.half_extents), yaw=p.yaw))
        else:
            grown.append(Sphere(center=p.center, radius=p.radius + SPHERE_TOLERANCE))
    return World(grown)


def _incidence_cosines(world: World, origin_ranges, params, position, quat) -> np.ndarray:
    """|cos| of the angle between each beam and the surface normal at its closed-form hit
    (the signed distance's gradient, by central differences); NaN where nothing is hit."""
    r = np.array(lidar.rotation_tuple(quat)).reshape(3, 3)
    origin = np.asarray(position) + r @ params.mounting_position
    directions = params.directions @ r.T
    cosines = np.full(params.shape, math.nan)
    h = 1e-6
    for i, j in zip(*np.nonzero(np.isfinite(origin_ranges))):
        point = origin + origin_ranges[i, j] * directions[i, j]
        gradient = np.array([world.distance(point + h * e) - world.distance(point - h * e)
                             for e in np.eye(3)])
        if point[2] < 1e-9 or not np.isfinite(gradient).all():  # the floor
            gradient = np.array([0.0, 0.0, 1.0])
        cosines[i, j] = abs(directions[i, j] @ gradient) / np.linalg.norm(gradient)
    return cosines


# ------------------------------------------------------------------ the closed form
@pytest.mark.parametrize("name", list(WORLDS))
@pytest.mark.parametrize("orientation", [(0.05, -0.03, 0.4), (0.3, 0.2, -2.0)])
def test_ideal_ranges_are_the_closed_form_for_every_ray(name, orientation):
    world = WORLDS[name]
    with _aviary({"lidar": SCAN}, orientations=[orientation], world=world) as aviary:
        drone = aviary.drones[0]
        params = _caster(aviary).params
        position, quat = drone.state[3].copy(), np.array(drone.quaternion)
        truths = _caster(aviary).cast().copy()
        exact = lidar.true_ranges(world, position, quat, params)
        outer = lidar.true_ranges(_grown(world), position, quat, params)
        # every ray hits between the exact surface and the body's outer bound: the same
        # rays miss, and a hit is never beyond the exact one nor before the outer one
        assert np.all(truths <= exact + INSIDE), name
        assert np.all(truths >= outer - INSIDE), name
        hits = np.isfinite(exact)
        assert hits.mean() > 0.2, name
        # the floor and boxes (meshes) to rounding, cylinders within 1 mm along the beam
        # up to 84 degrees of incidence; spheres (Bullet's GJK cast) 1 mm off the surface
        cosines = _incidence_cosines(world, exact, params, position, quat)
        with np.errstate(invalid="ignore"):  # inf - inf where both miss
            error = np.abs(truths - exact)
        if name in ("floor", "yawed box"):
            assert np.all(error[hits & np.isfinite(truths)] < 1e-9), name
        elif name != "sphere":
            assert np.all(error[hits & (cosines >= 0.1)] <= 1e-3), name
        else:
            assert np.all((error * cosines)[hits] <= SPHERE_TOLERANCE), name
        # the readings of the ideal preset are those ranges, max_range where none
        readings = aviary.read_sensors(0)["lidar"]
        assert readings["time"] == 0.0 and readings["ranges"].shape == params.shape
        np.testing.assert_array_equal(readings["ranges"],
                                      np.where(np.isfinite(truths), truths, 40.0))


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
                                   rtol=0, atol=1e-6)


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
