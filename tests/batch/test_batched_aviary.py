"""BatchedAviary: import isolation, masked resets, seeding, randomisation, array views and
the floor (argument checks: test_errors.py).

Small worlds and few steps keep the module fast once the numba kernels are cached.
"""

import math
import re
import subprocess
import sys

import numpy as np
import pytest

from pyflyt_like.batch import MODES, RANDOMIZE_KEYS, BatchedAviary

from .quaternions import reference_euler, reference_matrix

STATE_FIELDS = ("pos", "quat", "vel", "ang_vel", "rotor_speed", "elapsed_time")


def snapshot(sim: BatchedAviary) -> dict[str, np.ndarray]:
    arrays = {name: np.array(getattr(sim, name), copy=True) for name in STATE_FIELDS}
    arrays["setpoints"] = sim.setpoints
    arrays["contact"] = sim.contact.copy()
    arrays["crashed"] = sim.crashed.copy()
    arrays["wind"] = sim.wind.copy()
    return arrays


def plant_copy(sim: BatchedAviary) -> dict[str, np.ndarray]:
    return {name: np.array(value, copy=True) for name, value in sim.plant._asdict().items()}


# ---------------------------------------------------------------------------- 1. import
def test_importing_batch_does_not_import_pybullet():
    code = "import sys, pyflyt_like.batch; assert 'pybullet' not in sys.modules"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr


def test_module_constants():
    assert tuple(MODES) == (-1, 0, 1, 2, 7)
    assert set(RANDOMIZE_KEYS) == {"mass", "inertia", "kf", "km", "drag", "tau", "com_offset",
                                   "force_disturbance", "torque_disturbance"}


# ---------------------------------------------------------------------------- 2. masked reset
def test_masked_reset_restarts_only_the_masked_worlds():
    sim = BatchedAviary(n_worlds=4, n_drones=1, mode=1, seed=0)
    weight = sim.model.mass * sim.gravity
    command = np.array([0.2, 0.0, 0.0, 1.2 * weight])
    sim.set_setpoints(command)
    sim.step(100)
    start = np.array([0.0, 0.0, 1.0])
    assert np.all(np.abs(sim.pos - start).max(axis=(1, 2)) > 1e-3)  # every world moved
    before = snapshot(sim)

    mask = np.array([True, False, True, False])
    sim.reset(mask=mask)
    after = snapshot(sim)

    np.testing.assert_array_equal(after["pos"][mask], np.broadcast_to(start, (2, 1, 3)))
    np.testing.assert_array_equal(after["quat"][mask],
                                  np.broadcast_to([0.0, 0.0, 0.0, 1.0], (2, 1, 4)))
    for name in ("vel", "ang_vel", "rotor_speed"):
        np.testing.assert_array_equal(after[name][mask], 0.0)
    np.testing.assert_array_equal(after["elapsed_time"][mask], 0.0)
    assert not after["contact"][mask].any() and not after["crashed"][mask].any()
    # the mode-1 hold preset: level, current yaw (zero at the start), nominal weight
    np.testing.assert_array_equal(after["setpoints"][mask],
                                  np.broadcast_to([0.0, 0.0, 0.0, weight], (2, 1, 4)))

    keep = ~mask
    for name in (*STATE_FIELDS, "setpoints"):
        assert np.array_equal(after[name][keep], before[name][keep]), name
    np.testing.assert_allclose(after["elapsed_time"][keep], 100 * sim.dt, rtol=1e-12)
    np.testing.assert_array_equal(after["setpoints"][keep],
                                  np.broadcast_to(command, (2, 1, 4)))

    # the reset worlds fly again from the start, the others carry on
    sim.set_setpoints(command)
    sim.step(100)
    np.testing.assert_allclose(sim.elapsed_time, [0.2, 0.4, 0.2, 0.4], rtol=1e-12)
    np.testing.assert_array_equal(sim.pos[0], sim.pos[2])
    np.testing.assert_array_equal(sim.pos[0], before["pos"][0])


@pytest.mark.parametrize("mask", [
    [1, 0, 1, 0],                       # int dtype
    [True, False, True],                # wrong length
    [[True, False, True, False]],       # wrong ndim
    np.ones(4, dtype=float),            # float dtype
])
def test_bad_reset_mask_raises(mask):
    sim = BatchedAviary(n_worlds=4, n_drones=1)
    with pytest.raises(ValueError, match="mask"):
        sim.reset(mask=mask)


# ---------------------------------------------------------------------------- 3. seeding
SEEDED = dict(n_worlds=4, n_drones=2, mode=1, rotor_drag=True, wind=(1.0, 0.5, 0.0),
              turbulence=dict(wind_speed_20ft=5),
              randomize=dict(mass=(0.9, 1.1), inertia=(0.9, 1.1), kf=(0.95, 1.05),
                             tau=(0.01, 0.03), com_offset=0.002, force_disturbance=0.005,
                             torque_disturbance=1e-5))


def seeded_commands(sim: BatchedAviary) -> np.ndarray:
    weight = sim.model.mass * sim.gravity
    commands = np.zeros((sim.n_worlds, sim.n_drones, 4))
    commands[..., 0] = np.linspace(-0.1, 0.1, sim.n_worlds)[:, None]
    commands[..., 1] = 0.05
    commands[..., 3] = 1.1 * weight
    return commands


def rollout(sim: BatchedAviary, seed=None, steps=(200,)):
    if seed is not None:
        sim.reset(seed=seed)
    sim.set_setpoints(seeded_commands(sim))
    for n in steps:
        sim.step(n)
    return snapshot(sim), plant_copy(sim)


def assert_same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        assert np.array_equal(a[name], b[name]), name


def test_same_seed_gives_bit_identical_rollouts():
    first, first_plant = rollout(BatchedAviary(seed=3, **SEEDED))
    second, second_plant = rollout(BatchedAviary(seed=3, **SEEDED))
    assert_same(first, second)
    assert_same(first_plant, second_plant)
    assert np.abs(first["wind"] - (1.0, 0.5, 0.0)).max() > 0.01  # turbulence is on

    other, other_plant = rollout(BatchedAviary(seed=4, **SEEDED))
    for name in ("pos", "quat", "vel", "wind"):
        assert not np.array_equal(first[name], other[name]), name
    for name in ("mass", "inertia", "kf", "tau", "lag_gain", "com_offset",
                 "disturbance_force", "disturbance_torque"):
        assert not np.array_equal(first_plant[name], other_plant[name]), name


def test_reset_with_seed_repeats_the_rollout():
    sim = BatchedAviary(seed=0, **SEEDED)
    sim.step(50)
    first, first_plant = rollout(sim, seed=11)
    sim.step(30)
    second, second_plant = rollout(sim, seed=11)
    assert_same(first, second)
    assert_same(first_plant, second_plant)
    # the fused step equals smaller steps (the turbulence noise is drawn in step order)
    split, split_plant = rollout(sim, seed=11, steps=(120, 1, 79))
    assert_same(first, split)
    # reseeding reproduces a fresh engine with that seed
    fresh, fresh_plant = rollout(BatchedAviary(seed=11, **SEEDED))
    assert_same(first, fresh)
    assert_same(first_plant, fresh_plant)


# ---------------------------------------------------------------------------- 4. randomisation
FULL_RANDOMIZE = dict(mass=(0.8, 1.2), inertia=(0.7, 1.3), kf=(0.9, 1.1), km=(0.85, 1.15),
                      drag=(0.5, 1.5), tau=(0.01, 0.05), com_offset=0.005,
                      force_disturbance=0.01, torque_disturbance=1e-4)


def check_drawn(sim: BatchedAviary, worlds: np.ndarray) -> None:
    """The plant of ``worlds`` lies in FULL_RANDOMIZE's ranges and varies between worlds."""
    plant, model = sim.plant, sim.model
    factors = {
        "mass": plant.mass[worlds] / model.mass,
        "inertia": plant.inertia[worlds] / model.inertia,
        "kf": plant.kf[worlds] / model.kf,
        "km": plant.km[worlds] / model.km,
        "drag": plant.drag_scale[worlds],
        "tau": plant.tau[worlds],
    }
    for key, values in factors.items():
        low, high = FULL_RANDOMIZE[key]
        assert values.min() >= low - 1e-12 and values.max() <= high + 1e-12, key
        assert values.std() > 0.2 * (high - low) / math.sqrt(12), key
        assert abs(values.mean() - 0.5 * (low + high)) < 0.1 * (high - low), key
        assert len(np.unique(values)) > 200, key
    com = plant.com_offset[worlds]
    assert np.abs(com).max() <= FULL_RANDOMIZE["com_offset"]
    assert (com > 0).any(axis=(0, 1)).all() and (com < 0).any(axis=(0, 1)).all()
    assert len(np.unique(com)) > 200
    for name, key in (("disturbance_force", "force_disturbance"),
                      ("disturbance_torque", "torque_disturbance")):
        vectors = getattr(plant, name)[worlds]
        norms = np.linalg.norm(vectors, axis=-1)
        assert norms.max() <= FULL_RANDOMIZE[key] * (1 + 1e-12), name
        assert norms.std() > 0 and len(np.unique(norms)) > 200, name
        assert (vectors > 0).any(axis=(0, 1)).all() and (vectors < 0).any(axis=(0, 1)).all()
    tau = plant.tau[worlds]
    np.testing.assert_allclose(plant.lag_gain[worlds], 1.0 - np.exp(-sim.dt / tau),
                               rtol=1e-12)
    assert np.all(plant.lag_gain[worlds] < 1.0)


def test_randomisation_ranges_and_masked_redraw():
    n_worlds = 256
    sim = BatchedAviary(n_worlds=n_worlds, n_drones=1, seed=5, randomize=FULL_RANDOMIZE)
    every = np.ones(n_worlds, bool)
    check_drawn(sim, every)
    before = plant_copy(sim)

    mask = np.zeros(n_worlds, bool)
    mask[::3] = True
    mask[1::7] = True
    assert mask.sum() < n_worlds and (~mask).sum() > 0
    sim.reset(mask=mask)
    check_drawn(sim, every)
    after = plant_copy(sim)
    drawn = ("mass", "inertia", "kf", "km", "tau", "lag_gain", "drag_scale", "com_offset",
             "disturbance_force", "disturbance_torque")
    for name in drawn:
        assert np.array_equal(after[name][~mask], before[name][~mask]), name
        assert np.all(after[name][mask] != before[name][mask]), name
    for name in ("wind_mean", "turbulence_axes"):
        assert np.array_equal(after[name], before[name]), name


def test_no_randomisation_keeps_the_nominal_plant():
    sim = BatchedAviary(n_worlds=3, n_drones=2, drone_model="hexarotor", seed=1)
    model = sim.model
    np.testing.assert_array_equal(sim.plant.mass, model.mass)
    np.testing.assert_array_equal(sim.plant.inertia, np.broadcast_to(model.inertia, (3, 2, 3)))
    np.testing.assert_array_equal(sim.plant.kf, model.kf)
    np.testing.assert_array_equal(sim.plant.tau, model.tau)
    assert model.tau == 0.02
    np.testing.assert_allclose(sim.plant.lag_gain, 1.0 - math.exp(-sim.dt / 0.02), rtol=1e-12)
    for name in ("com_offset", "disturbance_force", "disturbance_torque"):
        np.testing.assert_array_equal(getattr(sim.plant, name), 0.0)


@pytest.mark.parametrize(("randomize", "key"), [
    (dict(masss=(0.9, 1.1)), "masss"),
    (dict(mass=(1.2, 0.8)), "mass"),
    (dict(kf=(math.nan, 1.1)), "kf"),
    (dict(km=(0.9, math.inf)), "km"),
    (dict(inertia=(-0.1, 1.1)), "inertia"),
    (dict(drag=(0.0, 1.0)), "drag"),
    (dict(tau=(-0.01, 0.02)), "tau"),
    (dict(com_offset=-0.01), "com_offset"),
    (dict(force_disturbance=math.nan), "force_disturbance"),
    (dict(torque_disturbance=-1.0), "torque_disturbance"),
])
def test_bad_randomize_raises_naming_the_key(randomize, key):
    with pytest.raises(ValueError, match=re.escape(key)):
        BatchedAviary(n_worlds=2, randomize=randomize)


def test_randomize_of_wrong_type_raises_type_error():
    with pytest.raises(TypeError, match="mass"):
        BatchedAviary(randomize=dict(mass=1.1))
    with pytest.raises(TypeError, match="com_offset"):
        BatchedAviary(randomize=dict(com_offset=(0.0, 0.1)))
    with pytest.raises(TypeError, match="randomize"):
        BatchedAviary(randomize=[("mass", (0.9, 1.1))])


# ---------------------------------------------------------------------------- 5. views, layout
def test_views_shapes_layout_and_frames():
    n_worlds, n_drones = 3, 2
    sim = BatchedAviary(n_worlds=n_worlds, n_drones=n_drones, drone_model="hexarotor",
                        mode=0)
    assert sim.model.n_rotors == 6
    shapes = dict(pos=(3, 2, 3), quat=(3, 2, 4), vel=(3, 2, 3), ang_vel=(3, 2, 3),
                  rotor_speed=(3, 2, 6), setpoints=(3, 2, 4), state=(3, 2, 4, 3),
                  contact=(3, 2), crashed=(3, 2), wind=(3, 3), elapsed_time=(3,))
    for name, shape in shapes.items():
        assert getattr(sim, name).shape == shape, name
    assert sim.contact.dtype == bool and sim.crashed.dtype == bool
    # default start: drone i at (i, 0, 1) in every world, level, at rest
    expected = np.broadcast_to([[0.0, 0.0, 1.0], [1.0, 0.0, 1.0]], (3, 2, 3))
    np.testing.assert_array_equal(sim.pos, expected)
    np.testing.assert_array_equal(sim.quat, np.broadcast_to([0.0, 0.0, 0.0, 1.0], (3, 2, 4)))
    np.testing.assert_array_equal(sim.state[..., 3, :], expected)
    np.testing.assert_array_equal(sim.state[..., :3, :], 0.0)

    weight = sim.model.mass * sim.gravity
    np.testing.assert_array_equal(sim.setpoints,
                                  np.broadcast_to([0.0, 0.0, 0.0, weight], (3, 2, 4)))
    sim.set_setpoints([0.5, -0.3, 0.8, weight])
    sim.step(500)
    np.testing.assert_allclose(sim.elapsed_time, 1.0, rtol=1e-12)

    quat = sim.quat.copy()
    np.testing.assert_allclose(np.linalg.norm(quat, axis=-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(sim.ang_vel, np.broadcast_to([0.5, -0.3, 0.8], (3, 2, 3)),
                               atol=0.05)
    state = sim.state.copy()
    np.testing.assert_array_equal(state[..., 0, :], sim.ang_vel)
    np.testing.assert_array_equal(state[..., 3, :], sim.pos)
    euler = reference_euler(quat)
    assert np.abs(euler).max() > 0.3  # the drones turned: the comparison is not trivial
    np.testing.assert_allclose(state[..., 1, :], euler, atol=1e-12)
    body_vel = np.einsum("wdji,wdj->wdi", reference_matrix(quat), sim.vel)
    assert np.abs(sim.vel).max() > 0.1 and np.abs(body_vel - sim.vel).max() > 0.01
    np.testing.assert_allclose(state[..., 2, :], body_vel, atol=1e-12)
    # all worlds and drones fly the same command from the same relative start
    np.testing.assert_allclose(state[..., :3, :], np.broadcast_to(state[0, 0, :3],
                                                                  (3, 2, 3, 3)), atol=1e-12)

    # writing the views changes the simulation; state is a fresh fill on access
    sim.pos[1, 1] = (5.0, 6.0, 7.0)
    np.testing.assert_array_equal(sim.state[1, 1, 3], (5.0, 6.0, 7.0))

    sim.set_mode(-1)
    assert sim.setpoints.shape == (3, 2, 6)
    np.testing.assert_array_equal(sim.setpoints, 0.0)


def test_start_orn_sets_the_reset_attitude():
    start_orn = np.array([[0.1, -0.2, 0.3], [-0.4, 0.05, -1.0]])
    sim = BatchedAviary(n_worlds=2, n_drones=2, start_orn=start_orn,
                        start_pos=[[0.0, 0.0, 2.0], [3.0, 1.0, 2.0]])
    np.testing.assert_allclose(sim.state[..., 1, :], np.broadcast_to(start_orn, (2, 2, 3)),
                               atol=1e-12)
    np.testing.assert_allclose(reference_euler(sim.quat), np.broadcast_to(start_orn, (2, 2, 3)),
                               atol=1e-12)
    # the mode-1 preset holds the start yaw
    np.testing.assert_allclose(sim.setpoints[..., 2], np.broadcast_to([0.3, -1.0], (2, 2)),
                               atol=1e-12)


@pytest.mark.parametrize("mode", [-1, 0, 1, 2, 7])
def test_a_masked_reset_presets_the_hold_setpoint_of_the_masked_worlds_only(mode):
    start_pos = np.array([[[0.5, -1.0, 2.0]], [[1.5, 2.0, 3.0]], [[-2.0, 0.5, 1.0]]])
    start_orn = np.array([[[0.1, -0.2, 0.7]], [[0.0, 0.3, -2.0]], [[-0.1, 0.0, 2.5]]])
    sim = BatchedAviary(n_worlds=3, n_drones=1, mode=mode, start_pos=start_pos,
                        start_orn=start_orn)
    weight = sim.model.mass * sim.gravity
    k = sim.setpoint_size
    commands = np.full((3, 1, k), sim.hover_speed) if mode == -1 else np.tile(
        [0.01, 0.02, 0.03, weight] if mode != 2 else [weight, 0.0, 0.0, 0.0], (3, 1, 1))
    sim.set_setpoints(commands)
    sim.step(20)
    mask = np.array([True, False, True])
    sim.reset(mask=mask)
    setpoints = sim.setpoints
    yaw = start_orn[mask, 0, 2]
    pos = start_pos[mask, 0]
    expected = {-1: np.zeros((2, k)),
                0: np.tile([0.0, 0.0, 0.0, weight], (2, 1)),
                1: np.column_stack((np.zeros(2), np.zeros(2), yaw, np.full(2, weight))),
                2: np.tile([weight, 0.0, 0.0, 0.0], (2, 1)),
                7: np.column_stack((pos[:, 0], pos[:, 1], yaw, pos[:, 2]))}[mode]
    np.testing.assert_allclose(setpoints[mask, 0], expected, atol=1e-12)
    np.testing.assert_array_equal(setpoints[1], commands[1])


# ---------------------------------------------------------------------------- 6. floor, crash
def drop(**kwargs) -> BatchedAviary:
    sim = BatchedAviary(n_worlds=1, n_drones=1, drone_model="cf2x", mode=-1,
                        start_pos=[[0.0, 0.0, 0.5]], **kwargs)
    assert sim.model.min_speed == 0.0
    sim.set_setpoints(np.zeros(4))
    sim.step(50)  # 0.1 s: still falling
    assert 0.4 < sim.pos[0, 0, 2] < 0.5
    assert not sim.contact[0, 0] and not sim.crashed[0, 0]
    sim.step(450)  # 1 s in all
    return sim


def test_a_dropped_drone_lands_and_crashes():
    sim = drop()
    assert sim.pos[0, 0, 2] == 0.0
    np.testing.assert_array_equal(sim.pos[0, 0, :2], 0.0)
    np.testing.assert_array_equal(sim.vel, 0.0)
    np.testing.assert_array_equal(sim.rotor_speed, 0.0)
    assert sim.contact[0, 0] and sim.crashed[0, 0]
    sim.reset()
    assert not sim.contact[0, 0] and not sim.crashed[0, 0]
    assert sim.pos[0, 0, 2] == 0.5


def test_a_slow_landing_is_contact_without_crash():
    sim = drop(crash_speed=10.0)
    assert sim.pos[0, 0, 2] == 0.0
    assert sim.contact[0, 0] and not sim.crashed[0, 0]


def test_floor_height_holds_the_drone():
    sim = drop(floor_height=0.2)
    assert sim.pos[0, 0, 2] == 0.2
    np.testing.assert_array_equal(sim.vel, 0.0)
    assert sim.contact[0, 0] and sim.crashed[0, 0]
    sim.step(100)  # it stays there
    assert sim.pos[0, 0, 2] == 0.2 and sim.contact[0, 0]


# ---------------------------------------------------------------------------- 7. control rate
@pytest.mark.parametrize(("physics_hz", "expected"), [(480, 240), (500, 500), (240, 240)])
def test_the_default_control_rate_is_one_rule_on_both_engines(physics_hz, expected):
    """The YAML's 240 Hz where it divides the physics rate, else the physics rate: the
    batched engine and the PyBullet Multirotor choose alike."""
    from pyflyt_like.core import Aviary

    sim = BatchedAviary(drone_model="crazyflie21", physics_hz=physics_hz)
    with Aviary(start_pos=np.array([[0.0, 0.0, 1.0]]), start_orn=np.zeros((1, 3)),
                drone_type="multirotor", drone_options=dict(drone_model="crazyflie21"),
                physics_hz=physics_hz, seed=0) as aviary:
        assert aviary.drones[0].control_hz == sim.control_hz == expected


def test_a_given_control_rate_must_divide_the_physics_rate_on_both_engines():
    from pyflyt_like.core import Aviary

    with pytest.raises(ValueError, match="control_hz"):
        BatchedAviary(drone_model="crazyflie21", physics_hz=500, control_hz=240)
    with pytest.raises(ValueError, match="control_hz"):
        Aviary(start_pos=np.array([[0.0, 0.0, 1.0]]), start_orn=np.zeros((1, 3)),
               drone_type="multirotor",
               drone_options=dict(drone_model="crazyflie21", control_hz=240), physics_hz=500)
