"""Obstacle worlds on the batched engine: BatchedAviary(world=...), its pool of layouts, the
obstacles stage (a collision is a crash), the start rule and the options.

Few kernels: every engine with a world and no sensors runs its family's cached
``run_worlds`` compiled with ``sensing=(None, None)`` (the obstacles stage, no sensor code),
whatever its pool, so the multirotor engines below share one compiled kernel (and the
engines without a world the one of ``sensing=None``); the fixed-wing flight, which needs its
family's kernel, is marked slow.
"""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.batch import BatchedAviary
from pyflyt_like.batch import pipeline as multirotor_pipeline
from pyflyt_like.batch.fixedwing import pipeline as fixedwing_pipeline
from pyflyt_like.batch.obstacles import MAX_WORLD_LAYOUTS
from pyflyt_like.common import validation
from pyflyt_like.common.loading import model_files
from pyflyt_like.common.urdf_bodies import collision_radius
from pyflyt_like.worlds import Box, Cylinder, Forest, Rooms, Sphere, World, load_world

HZ = 240
SPEED = 2.0  # m/s, the straight glide into the obstacles
MODEL = "cf2x"

TRUNK = Cylinder(x=3.0, y=0.0, radius=0.2, height=5.0)
CRATE = Box(center=(3.0, 10.0, 1.0), half_extents=(0.3, 0.6, 1.0), yaw=0.4)
BALLOON = Sphere(center=(3.0, 20.0, 1.0), radius=0.5)
POLE = Cylinder(x=3.0, y=30.0, radius=0.1, height=3.0)
OBSTACLES = World([TRUNK, CRATE, BALLOON, POLE])


def glide_starts(radius: float) -> tuple[np.ndarray, np.ndarray]:
    """(W, 1, 3) starts and body velocities: worlds 0-2 glide along +x into the trunk, the
    crate and the balloon; world 3 passes the pole 5 mm wide of its collision sphere;
    world 4 hovers 1 cm from the trunk's far side; world 5 glides into the trunk at an
    angle."""
    starts = np.array([[0.0, 0.0, 1.0], [0.0, 10.0, 1.0], [0.0, 20.0, 1.0],
                       [0.0, 30.0 + POLE.radius + radius + 0.005, 1.0],
                       [TRUNK.x + TRUNK.radius + radius + 0.01, 0.0, 1.0],
                       [0.0, -1.0, 1.0]])
    velocity = np.zeros((len(starts), 3))
    velocity[[0, 1, 2, 3], 0] = SPEED
    velocity[5] = SPEED * np.array([0.95, 0.31225, 0.0]) / np.hypot(0.95, 0.31225)
    return starts[:, None, :], velocity[:, None, :]


@pytest.fixture(scope="module")
def glide():
    """One engine among OBSTACLES, flown 2 s one physics step at a time in mode 1 (level,
    the thrust balancing the weight: straight glides); its positions, crash and contact
    flags and velocities after every step."""
    radius = BatchedAviary(drone_model=MODEL, physics_hz=HZ).collision_radius
    starts, velocity = glide_starts(radius)
    sim = BatchedAviary(n_worlds=len(starts), drone_model=MODEL, mode=1, physics_hz=HZ,
                        control_hz=HZ, start_pos=starts, starting_velocity=velocity,
                        world=OBSTACLES)
    sim.set_setpoints(np.array([0.0, 0.0, 0.0, sim.model.mass * sim.gravity]))
    record = {"pos": [], "crashed": [], "contact": [], "vel": []}
    for _ in range(2 * HZ):
        sim.step(1)
        for key in record:
            record[key].append(getattr(sim, key)[:, 0].copy())
    return sim, {key: np.array(value) for key, value in record.items()}


def first_overlap(positions: np.ndarray, radius: float) -> int | None:
    """The first step whose position puts the collision sphere into OBSTACLES (exact
    World.distance, as the start rule), or None."""
    for k, position in enumerate(positions):
        if OBSTACLES.distance(position) < radius:
            return k
    return None


@pytest.mark.parametrize("w, what", [(0, "trunk"), (1, "crate"), (2, "balloon"),
                                     (5, "trunk at an angle")])
def test_a_drone_crashes_at_the_step_its_sphere_first_overlaps(glide, w, what):
    sim, record = glide
    k = first_overlap(record["pos"][:, w], sim.collision_radius)
    assert k is not None, f"the glide never reaches the {what}"
    crashed = record["crashed"][:, w]
    assert not crashed[:k].any() and crashed[k:].all()
    assert record["contact"][k, w]
    # stopped there, as the floor stops a drone: its velocity zeroed at the crash step
    assert np.all(record["vel"][k, w] == 0.0)
    assert np.abs(record["vel"][k - 1, w, 0]) > 1.0
    # the overlap is at most one step's travel deep
    depth = sim.collision_radius - OBSTACLES.distance(record["pos"][k, w])
    assert 0.0 < depth <= SPEED / HZ * 1.01


def test_a_drone_beside_an_obstacle_does_not_crash(glide):
    sim, record = glide
    for w in (3, 4):
        distances = [OBSTACLES.distance(p) for p in record["pos"][:, w]]
        assert min(distances) >= sim.collision_radius
        assert not record["crashed"][:, w].any() and not record["contact"][:, w].any()
    # world 3 really passed the pole, within 1 cm of touching it
    assert record["pos"][-1, 3, 0] > POLE.x + 0.5
    assert min(POLE.distance(p) for p in record["pos"][:, 3]) < sim.collision_radius + 0.01


def test_a_drone_moved_into_an_obstacle_between_steps_crashes_at_the_next(glide):
    # the query a drone skips while it stays within its last clearance must not hide a
    # drone put into a trunk by hand (a write into sim.pos), nor one that crept up to it
    sim = BatchedAviary(n_worlds=2, drone_model=MODEL, mode=1, physics_hz=HZ,
                        start_pos=[[0.0, 0.0, 1.0]], world=World([TRUNK]))
    sim.step(20)
    check = sim.kernel_arguments[0].obstacle_check
    assert check[0, 0, 3] == pytest.approx(1.0)  # 2.75 m clear: the query's whole reach
    sim.pos[0, 0, 0] = TRUNK.x - TRUNK.radius - 0.05  # into the collision sphere's reach
    sim.pos[1, 0, 0] = TRUNK.x - TRUNK.radius - sim.collision_radius - 0.001  # 1 mm clear
    sim.step(1)
    assert sim.crashed[:, 0].tolist() == [True, False]
    np.testing.assert_allclose(check[1, 0, 3], 0.001, atol=1e-4)
    sim.reset()
    assert (check[..., 3] == -1.0).all() and not sim.crashed.any()


def test_the_collision_radius_is_the_pybullet_collision_cylinders(glide):
    sim, _ = glide
    # the cf2x URDF's collision cylinder: the largest rotor offset along x or y + prop radius
    span = np.abs(sim.model.positions[:, :2]).max()
    assert sim.collision_radius == pytest.approx(span + sim.model.prop_radius)
    assert sim.collision_radius == pytest.approx(0.0511348)
    assert sim._config.collision_radius == sim.collision_radius
    urdf, _ = model_files("acrowing")
    assert collision_radius(urdf) == pytest.approx(0.5725, abs=1e-4)


def test_the_obstacles_stage_follows_the_floor_in_both_pipelines():
    for pipeline in (multirotor_pipeline, fixedwing_pipeline):
        names = list(pipeline.STAGES)
        assert names.index("obstacles") == names.index("floor") + 1
        assert not hasattr(pipeline, "run_worlds_full") and not hasattr(pipeline, "advance")


# ---------------------------------------------------------------- no world: unchanged
def fly_commands(sim: BatchedAviary) -> dict[str, np.ndarray]:
    """A flight of changing mode-1 commands with a masked reset halfway; every state after
    each step(5) call, the crash and contact flags."""
    rng = np.random.default_rng(7)
    hold = sim.setpoints
    out = []
    for k in range(24):
        command = hold + np.array([0.1, 0.1, 0.2, 0.02]) * rng.standard_normal(hold.shape)
        sim.set_setpoints(command)
        sim.step(5)
        out.append(np.concatenate([sim.pos.ravel(), sim.quat.ravel(), sim.vel.ravel(),
                                   sim.ang_vel.ravel()]))
        if k == 12:
            sim.reset(mask=np.arange(sim.n_worlds) % 3 == 0)
    return {"states": np.array(out), "crashed": sim.crashed.copy(),
            "contact": sim.contact.copy()}


def test_without_a_world_the_engine_flies_bit_for_bit_as_before():
    # world=None runs the cached kernel without the obstacles stage; an empty World and a
    # World far from every drone run the kernel with it: the same flight, to the bit
    options = dict(n_worlds=6, n_drones=2, drone_model=MODEL, mode=1, physics_hz=HZ,
                   seed=11, randomize={"mass": (0.9, 1.1)}, turbulence={})
    plain = BatchedAviary(**options)
    assert plain._run_worlds is multirotor_pipeline.run_worlds and plain._sensing is None
    assert plain.layout_pool.n_layouts == 1 and plain.layout_pool.cells.tolist() == [[0, 0]]
    reference = fly_commands(plain)
    far = World([Cylinder(x=500.0, y=500.0, radius=1.0, height=10.0)])
    for world in (World(), far):
        sim = BatchedAviary(**options, world=world)
        assert sim._run_worlds is multirotor_pipeline.run_worlds
        assert sim._sensing == (None, None)  # the obstacles stage, no sensor code
        flown = fly_commands(sim)
        for key, value in reference.items():
            np.testing.assert_array_equal(flown[key], value, err_msg=f"{key} with {world}")
    assert reference["crashed"].shape == (6, 2)


# ---------------------------------------------------------------- generators: the pool
FOREST = Forest(density=0.1, radius=(0.1, 0.3), height=6.0, extent=30.0, clearing=2.0)


def layout_seeds(seed: int, n_layouts: int) -> np.ndarray:
    """The generator seeds of a pool's layouts, as docs/batch.md says they are drawn."""
    child = np.random.SeedSequence(seed).spawn(1)[0]
    return np.random.default_rng(child).integers(2**63, size=n_layouts)


@pytest.fixture(scope="module")
def forests():
    """16 worlds, 8 forest layouts, drone 0 at the origin (the clearing), drones 1 and 2 on
    the axes of a tree of layout 0 and of layout 1 (so that some resets must move them);
    the same with world_redraw=False."""
    seeds = layout_seeds(21, 8)
    trees = [FOREST.generate(int(seeds[layout])).cylinders[0] for layout in (0, 1)]
    start = np.array([[0.0, 0.0, 1.0], [trees[0].x, trees[0].y, 1.5],
                      [trees[1].x + 0.05, trees[1].y, 2.0]])
    options = dict(n_worlds=16, n_drones=3, drone_model=MODEL, physics_hz=HZ, seed=21,
                   start_pos=start, world=FOREST, world_layouts=8)
    return (BatchedAviary(**options), BatchedAviary(**options, world_redraw=False),
            options)


def test_a_generator_gives_a_pool_of_layouts_drawn_per_world(forests):
    sim, _, _ = forests
    pool = sim.layout_pool
    assert pool.n_layouts == 8
    assert sim.world_layout.shape == (16,) and sim.world_layout.dtype == np.int64
    assert len(set(sim.world_layout.tolist())) > 1
    worlds = [World.from_arrays(pool.layout_arrays(layout)) for layout in range(8)]
    assert len(set(worlds)) == 8  # eight different forests
    for w in range(16):
        assert sim.world_of(w) == worlds[sim.world_layout[w]]
    # the layouts are the generator's, seeded from a child of the engine's seed
    seeds = layout_seeds(21, 8)
    assert worlds[3] == World.from_arrays(FOREST.generate(int(seeds[3])).to_arrays())
    with pytest.raises(ValueError, match="read-only"):
        sim.world_layout[0] = 1
    # the kernels read the pool from the config, under the LayoutPool's names and order
    config = sim.kernel_arguments[3]
    for name, array in zip(("cylinders", "counts", "items"), (0, 3, 10)):
        assert getattr(config, f"world_{name}") is pool[array]


def test_the_same_seed_gives_the_same_pool_and_indices(forests):
    _, _, options = forests
    sim, again = BatchedAviary(**options), BatchedAviary(**options)
    for mine, theirs in zip(sim.layout_pool, again.layout_pool):
        np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_array_equal(again.world_layout, sim.world_layout)
    other = BatchedAviary(**{**options, "seed": 22})
    assert not np.array_equal(other.layout_pool.counts, sim.layout_pool.counts) or \
        not np.array_equal(other.layout_pool.cylinders, sim.layout_pool.cylinders)
    # reset(seed=s) replays the construction's first draw of the indices
    again.step(3)
    again.reset(mask=np.ones(16, bool))
    again.reset(seed=21)
    np.testing.assert_array_equal(again.world_layout, sim.world_layout)


def test_a_masked_reset_redraws_only_the_masked_worlds_layouts(forests):
    sim, kept, _ = forests
    mask = np.arange(16) >= 8
    for engine, redraw in ((sim, True), (kept, False)):
        before = engine.world_layout.copy()
        changed = np.zeros(16, bool)
        for _ in range(3):
            engine.reset(mask=mask)
            changed |= engine.world_layout != before
        np.testing.assert_array_equal(engine.world_layout[~mask], before[~mask])
        assert changed[mask].any() == redraw and not changed[~mask].any()


def test_starts_inside_trees_are_moved_out_deterministically(forests):
    sim, _, options = forests
    radius = sim.collision_radius
    requested = options["start_pos"]
    moved_any = False
    for _ in range(6):  # resets into other layouts
        sim.reset()
        for w in range(16):
            world = sim.world_of(w)
            for d in range(3):
                position = sim.pos[w, d]
                assert world.free_start(position, radius)
                assert position[2] == requested[d, 2]  # moved horizontally only
                expected = world.nearest_free(requested[d], radius)
                np.testing.assert_array_equal(position, expected)
                moved_any |= not np.array_equal(position, requested[d])
    assert moved_any, "no start fell in a tree: the test checks nothing"
    np.testing.assert_array_equal(sim.pos[:, 0], np.tile(requested[0], (16, 1)))


def test_a_start_in_a_building_wall_is_moved_out():
    # (3, 3) is where four 6 m rooms meet: walls in both directions, whatever the doors
    sim = BatchedAviary(n_worlds=2, drone_model=MODEL, physics_hz=HZ, seed=1,
                        start_pos=[[3.0, 3.0, 1.0]], world=Rooms(), world_layouts=2)
    for w in range(2):
        assert sim.world_of(w).free_start(sim.pos[w, 0], sim.collision_radius)
        assert 0.1 < np.hypot(*(sim.pos[w, 0, :2] - 3.0)) < 0.5


def test_a_world_that_overlaps_a_start_is_refused():
    with pytest.raises(ValueError, match=r"start_pos\[1\] = \[3.2, 0.0, 1.0\] overlaps "
                                         r"Cylinder\(x=3.0.*collision sphere \(radius 0.051"):
        BatchedAviary(n_drones=2, drone_model=MODEL, start_pos=[[0, 0, 1], [3.2, 0, 1]],
                      world=World([TRUNK]))
    with pytest.raises(ValueError, match=r"start_pos\[2, 0\]"):
        starts = np.zeros((3, 1, 3))
        starts[..., 2] = 1.0
        starts[2, 0, 0] = 3.0 - 0.2 - 0.05  # 5 cm from the bark: within the radius
        BatchedAviary(n_worlds=3, drone_model=MODEL, start_pos=starts, world=World([TRUNK]))
    with pytest.raises(ValueError, match=r"the default start of drone 3"):  # (3, 0, 1)
        BatchedAviary(n_drones=4, drone_model=MODEL, world=World([TRUNK]))
    # a start a micrometre clear of the bark is free
    sim = BatchedAviary(drone_model=MODEL, world=World([TRUNK]),
                        start_pos=[[2.8 - 0.0511348 - 1e-6, 0.0, 1.0]])
    assert TRUNK.distance(sim.pos[0, 0]) >= sim.collision_radius


def test_world_files_pin_a_world_or_give_a_generator():
    # the shipped forest has a seed: its World, shared by every simulated world
    pinned = BatchedAviary(drone_model=MODEL, world="forest", n_worlds=3)
    assert pinned.layout_pool.n_layouts == 1 and isinstance(pinned.world_spec, World)
    assert pinned.world_of(2) == World.from_arrays(load_world("forest").to_arrays())
    # a file without a seed gives its generator, drawn by the engine
    drawn = BatchedAviary(drone_model=MODEL, world={"forest": {"density": 0.05,
                                                               "extent": 20.0}},
                          n_worlds=3, seed=0)
    assert drawn.world_spec == Forest(density=0.05, extent=20.0)
    assert drawn.layout_pool.n_layouts == 3


# ---------------------------------------------------------------- options
@pytest.mark.parametrize("options, error, match", [
    (dict(world=3), TypeError, "world must be None, a World, a Forest"),
    (dict(world="jungle"), ValueError, "world: world name 'jungle'"),
    (dict(world_layouts=4), ValueError, "world_layouts sizes the pool of a generator"),
    (dict(world=World([TRUNK]), world_layouts=4), ValueError, "not with world=World"),
    (dict(world=FOREST, world_layouts=0), ValueError, "world_layouts must be a positive"),
    (dict(world=FOREST, world_layouts="4"), TypeError, "world_layouts must be a positive"),
    (dict(world=FOREST, world_layouts=2.0), TypeError, "world_layouts must be a positive"),
    (dict(world=FOREST, world_layouts=MAX_WORLD_LAYOUTS + 1), ValueError,
     f"world_layouts must be a positive integer <= {MAX_WORLD_LAYOUTS}"),
    (dict(world=FOREST, world_redraw="yes"), TypeError, "world_redraw"),
])
def test_bad_world_options_are_named(options, error, match):
    with pytest.raises(error, match=match):
        BatchedAviary(drone_model=MODEL, **options)


def test_a_bad_world_file_keeps_its_error_and_names_world(tmp_path):
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(bytes(range(256)))
    with pytest.raises(ValueError, match=r"world: .*binary\.yaml is not a UTF-8 text file"):
        BatchedAviary(drone_model=MODEL, world=binary)
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text('a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]\n' + "".join(
        f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]\n" for p, n in zip("abcdefg", "bcdefgh"))
        + "forest: *h\n")
    with pytest.raises(ValueError, match=r"world: .*bomb\.yaml: its aliases \(\*name\) repeat"):
        BatchedAviary(drone_model=MODEL, world=bomb)


def test_world_of_checks_its_index(forests):
    sim, _, _ = forests
    with pytest.raises(ValueError, match=r"w must be a world index in \[0, 16\)"):
        sim.world_of(16)
    with pytest.raises(TypeError, match="w"):
        sim.world_of(1.0)


def test_a_pool_beyond_the_memory_bound_names_world_layouts(monkeypatch):
    # a limit just above the engine's own estimate: 4096 forests do not fit, and the first
    # layout tells so before the others are drawn
    monkeypatch.setattr(validation, "memory_limit_bytes", lambda: 40e6)
    with pytest.raises(ValueError, match=r"world_layouts=4096 \(a pool of obstacle layouts"):
        BatchedAviary(n_worlds=8, drone_model=MODEL, world=FOREST, world_layouts=4096)


# ---------------------------------------------------------------- fixed-wings
@pytest.mark.slow  # the fixed-wing's kernel with the obstacles stage: a compile of its own
def test_a_fixed_wing_crashes_into_a_wall_and_flies_unchanged_without_one():
    wall = World([Box(center=(40.0, 0.0, 25.0), half_extents=(0.5, 30.0, 25.0))])
    options = dict(n_worlds=2, drone_model="acrowing", mode=1, seed=0,
                   start_pos=[[[0.0, 0.0, 30.0]], [[0.0, 100.0, 30.0]]])
    sim = BatchedAviary(**options, world=wall)
    plain = BatchedAviary(**options)
    for _ in range(4 * 240):  # 4 s at 14 m/s: the wall is 40 m ahead
        sim.step(1)
        plain.step(1)
        if not sim.crashed[0, 0]:
            np.testing.assert_array_equal(sim.pos, plain.pos)
    radius = sim.collision_radius
    assert sim.crashed[0, 0] and not sim.crashed[1, 0] and not plain.crashed.any()
    assert wall.distance(sim.pos[0, 0]) < radius  # it stopped in the wall's sphere
    np.testing.assert_array_equal(sim.pos[1], plain.pos[1])  # the free world flew on


# ---------------------------------------------------------------- PyBullet
def test_the_crash_into_a_trunk_agrees_with_pybullet():
    # A level glide (mode 1, pitched 0.1 rad, the thrust holding the height) into a trunk on
    # both engines: the same flight to rounding until the contact, which both register at
    # the same physics step (PyBullet's flat collision disc reaches r cos(pitch) ahead, the
    # batched sphere r: at 0.1 rad they differ by 0.3 mm, far less than a step's travel).
    from pyflyt_like.core import Aviary

    world = World([Cylinder(x=1.0, y=0.0, radius=0.15, height=4.0)])
    start = np.array([[0.0, 0.0, 1.0]])
    sim = BatchedAviary(drone_model=MODEL, mode=1, physics_hz=HZ, control_hz=HZ,
                        start_pos=start, world=world)
    pitch = 0.1
    command = np.array([0.0, pitch, 0.0, sim.model.mass * sim.gravity / np.cos(pitch)])
    sim.set_setpoints(command)
    batched_step = pybullet_step = None
    with Aviary(start, np.zeros((1, 3)), drone_type="multirotor", physics_hz=HZ,
                drone_options=dict(drone_model=MODEL, control_hz=HZ),
                world=world) as aviary:
        aviary.set_mode(1)
        aviary.set_setpoint(0, command)
        trunk, drone = aviary.world_body_ids[0], aviary.drones[0].Id
        for k in range(3 * HZ):
            aviary.step()
            sim.step()
            if batched_step is None and sim.crashed[0, 0]:
                batched_step = k
            if pybullet_step is None and aviary.contact_array[drone, trunk]:
                pybullet_step = k
            if batched_step is None and pybullet_step is None:  # the same flight till then
                assert np.abs(aviary.state(0)[3] - sim.pos[0, 0]).max() < 1e-6
            if batched_step is not None and k == batched_step + 10:
                # both stopped at the bark, within a step's travel of each other
                speed = 1.3  # m/s, about the glide's at the trunk
                assert np.abs(aviary.state(0)[3] - sim.pos[0, 0]).max() < speed / HZ
                break
    assert batched_step is not None and pybullet_step is not None
    assert abs(batched_step - pybullet_step) <= 1, (batched_step, pybullet_step)
