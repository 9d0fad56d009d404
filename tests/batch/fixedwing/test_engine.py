"""The batched fixed-wing as an engine: spawn and reset, hold presets, aux state,
randomisation, and the errors a user meets."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.batch import BatchedAviary
from pyflyt_like.batch.fixedwing.randomization import LIMITS
from pyflyt_like.common.loading import load_yaml, model_files

START = [[0.0, 0.0, 80.0]]


def make(**options) -> BatchedAviary:
    return BatchedAviary(**{"drone_model": "acrowing", "start_pos": START, **options})


def test_spawns_at_the_yaml_starting_velocity_turned_by_the_start_attitude():
    sim = make(n_worlds=2, start_orn=[[0.0, 0.0, np.pi / 2]])
    speed = load_yaml(model_files("acrowing")[1])["starting_velocity"][0]
    np.testing.assert_allclose(sim.vel[:, 0], [[0.0, speed, 0.0]] * 2, atol=1e-12)
    np.testing.assert_allclose(sim.state[:, 0, 2], [[speed, 0.0, 0.0]] * 2, atol=1e-12)
    assert sim.physics_hz == 240 and sim.control_hz == 120  # the PyBullet defaults
    assert sim.family_name == "fixedwing" and sim.modes == (-1, 0, 1, 2, 3)


def test_default_start_is_side_by_side_at_50_m():
    sim = BatchedAviary(n_worlds=2, n_drones=3, drone_model="fixedwing")
    np.testing.assert_array_equal(sim.pos[1], [[0, 0, 50], [0, 10, 50], [0, 20, 50]])


def test_a_given_starting_velocity_and_a_masked_reset():
    sim = make(n_worlds=3, starting_velocity=[[12.0, 0.0, 1.0]], mode=1)
    sim.set_setpoints([0.3, -0.1, 0.0, 0.6])
    sim.step(240)
    moved = sim.pos.copy()
    mask = np.array([False, True, False])
    sim.reset(mask=mask)
    np.testing.assert_allclose(sim.pos[1], START)
    np.testing.assert_allclose(sim.vel[1], [[12.0, 0.0, 1.0]])
    assert np.array_equal(sim.pos[~mask], moved[~mask])
    assert (sim.aux_state[1] == 0.0).all() and (sim.aux_state[0] != 0.0).any()


def test_aux_state_is_deflections_then_throttle():
    sim = make(mode=-1)
    sim.set_setpoints([1.0, -1.0, 0.5, 0.0, 0.0, 1.0])
    sim.step(240 * 2)  # 2 s: every lag (30 ms) has settled
    limits = np.radians([25.0, 25.0, 25.0, 25.0, 10.0])  # YAML order: h-tail, v-tail, ...
    np.testing.assert_allclose(sim.aux_state[0, 0], [0.5 * limits[0], 0.0, limits[2],
                                                     -limits[3], 0.0, 1.0], atol=1e-9)


@pytest.mark.parametrize("mode", [1, 2, 3])
def test_a_mode_change_presets_setpoints_that_hold_the_flight(mode):
    sim = make(mode=-1)
    sim.set_setpoints([0.0, 0.0, 0.0, 0.0, 0.0, 0.45])
    sim.step(240)
    sim.set_mode(mode)
    setpoint = sim.setpoints[0, 0]
    if mode == 1:
        np.testing.assert_allclose(setpoint, [*sim.state[0, 0, 1, :2], 0.0, 0.45], atol=1e-12)
    elif mode == 2:
        course = np.arctan2(sim.vel[0, 0, 1], sim.vel[0, 0, 0])
        np.testing.assert_allclose(setpoint, [course, sim.airspeed[0, 0], 0.0,
                                              sim.pos[0, 0, 2]], atol=1e-9)
    else:
        np.testing.assert_allclose(setpoint, [0.0, sim.airspeed[0, 0], 0.0, 0.0], atol=1e-9)
    altitude, attitude = sim.pos[0, 0, 2], sim.state[0, 0, 1, :2].copy()
    sim.step(240 * 5)
    if mode == 1:  # the attitude is held
        np.testing.assert_allclose(sim.state[0, 0, 1, :2], attitude, atol=0.02)
    else:  # so is the altitude
        assert sim.pos[0, 0, 2] == pytest.approx(altitude, abs=1.0)


def test_the_heading_autopilot_turns_to_the_heading_and_holds_the_altitude():
    sim = make(mode=2)
    sim.set_setpoints([np.pi / 2, 15.0, 0.0, 90.0])  # north, 15 m/s, 10 m higher
    sim.step(240 * 30)
    course = np.arctan2(sim.vel[0, 0, 1], sim.vel[0, 0, 0])
    assert course == pytest.approx(np.pi / 2, abs=0.05)
    assert sim.airspeed[0, 0] == pytest.approx(15.0, abs=0.3)
    assert sim.pos[0, 0, 2] == pytest.approx(90.0, abs=0.5)


def test_randomize_draws_each_key_within_its_range_per_world_and_aircraft():
    ranges = dict(mass=(0.8, 1.2), inertia=(0.7, 1.3), thrust=(0.5, 1.5), tau=(0.02, 0.08),
                  lift_slope=(0.9, 1.1), cd_0=(0.5, 2.0), stall=(0.8, 1.2),
                  force_disturbance=0.5, torque_disturbance=0.01)
    sim = make(n_worlds=64, n_drones=2, randomize=ranges, seed=5,
               start_pos=[[0.0, 0.0, 80.0], [5.0, 0.0, 80.0]])
    plant, model = sim.plant, sim.model
    mass = plant.mass / model.body.mass
    assert 0.8 <= mass.min() and mass.max() <= 1.2 and mass.std() > 0.05
    diagonal = plant.inertia.reshape(64, 2, 3, 3)[..., [0, 1, 2], [0, 1, 2]]
    factor = diagonal / np.diag(model.body.inertia)
    assert 0.7 <= factor.min() and factor.max() <= 1.3
    inverse = plant.inertia_inv.reshape(64, 2, 3, 3)
    np.testing.assert_allclose(inverse @ plant.inertia.reshape(64, 2, 3, 3),
                               np.broadcast_to(np.eye(3), (64, 2, 3, 3)), atol=1e-9)
    assert 0.5 <= plant.thrust_scale.min() and plant.thrust_scale.max() <= 1.5
    tau = -1.0 / (240 * np.log(1.0 - plant.motor_gain))
    assert 0.02 - 1e-9 <= tau.min() and tau.max() <= 0.08 + 1e-9
    slope = plant.cl_alpha / model.surfaces.cl_alpha
    assert 0.9 <= slope.min() and slope.max() <= 1.1 and slope.std() > 0.01
    stall = (plant.stall_p - model.surfaces.alpha_0_base) / (
        model.surfaces.stall_p_base - model.surfaces.alpha_0_base)
    assert 0.8 <= stall.min() and stall.max() <= 1.2
    assert np.linalg.norm(plant.disturbance_force, axis=-1).max() <= 0.5
    assert np.linalg.norm(plant.disturbance_torque, axis=-1).max() <= 0.01
    sim.step(240)  # flies with them
    assert np.isfinite(sim.pos).all() and not sim.diverged.any()


def test_without_randomize_the_plant_is_the_nominal_aircraft():
    sim = make()
    np.testing.assert_array_equal(sim.plant.stall_p[0, 0], sim.model.surfaces.stall_p_base)
    np.testing.assert_array_equal(sim.plant.inertia[0, 0],
                                  sim.model.body.inertia.ravel())
    assert sim.plant.thrust_scale[0, 0] == 1.0


@pytest.mark.parametrize(("options", "error", "match"), [
    (dict(mode=7), ValueError, r"mode must be one of \[-1, 0, 1, 2, 3\], got 7"),
    (dict(ground_effect=True), ValueError, "ground_effect is a rotor model of multirotors"),
    (dict(downwash=True), ValueError, "downwash is a rotor model"),
    (dict(integrator="rk4"), ValueError, r"integrator must be one of \['semi_implicit', "
                                         r"'euler'\] for a fixed-wing"),
    (dict(physics_hz=500), ValueError, "control_hz 120 does not divide physics_hz=500"),
    (dict(randomize=dict(kf=(0.9, 1.1))), ValueError,
     r"randomize has unknown keys \['kf'\]; keys of a fixed-wing are"),
    (dict(randomize=dict(mass=(0.1, 1.0))), ValueError, r"randomize\['mass'\]\[0\]"),
    (dict(starting_velocity=(400.0, 0.0, 0.0)), ValueError,
     "starting_velocity must be at most 340 m/s fast"),
    (dict(starting_velocity=(1.0, 2.0)), ValueError, "starting_velocity must have shape"),
    (dict(shear=dict(velocity=(1.0, 0.0, 0.0))), ValueError,
     r"shear has unknown options \['velocity'\]"),
    (dict(shear=dict(law="log")), ValueError, "shear needs reference_velocity"),
    (dict(shear=dict(reference_velocity=(1.0, 0.0, 0.5))), ValueError, "must be horizontal"),
    (dict(shear=dict(reference_velocity=(150.0, 0.0, 0.0))), ValueError,
     "shear reference_velocity must be at most 100 m/s fast, got 150 m/s"),
    (dict(shear=dict(reference_velocity=(1.0, 0.0, 0.0), exponent=3.0)), ValueError,
     r"shear exponent must be in \(0, 1\], got 3.0"),
    (dict(shear=dict(reference_velocity=(1.0, 0.0, 0.0), law="log")), ValueError,
     "roughness_length .* is required with law='log'"),
    (dict(shear=[1.0, 0.0, 0.0]), TypeError, "shear must be None or a dict"),
    (dict(drone_model="quadplane"), ValueError, "flies on the PyBullet Aviary only"),
    (dict(drone_model="rocket"), ValueError, "flies on the PyBullet Aviary only"),
    (dict(drone_model="glider"), FileNotFoundError, r"fixed-wings: \['acrowing', 'fixedwing'\]"),
])
def test_bad_options_are_clear_errors(options, error, match):
    with pytest.raises(error, match=match):
        make(**options)


def test_airspeed_includes_the_shear_at_each_height():
    shear = dict(reference_velocity=(3.0, 4.0, 0.0), reference_height=10.0, law="power",
                 exponent=0.25)
    sim = make(n_drones=2, start_pos=[[0.0, 0.0, 10.0], [0.0, 5.0, 160.0]], shear=shear,
               starting_velocity=(0.0, 0.0, 0.0))
    # at rest: the airspeed is the wind's speed, 5 m/s at 10 m and 5 (160/10)^0.25 = 10 m/s
    np.testing.assert_allclose(sim.airspeed[0], [5.0, 10.0], rtol=1e-12)


def test_turbulence_moves_fixedwings_and_is_seeded():
    options = dict(n_worlds=4, mode=2, seed=11, wind=(3.0, 0.0, 0.0),
                   turbulence=dict(wind_speed_20ft=6.0, airspeed=15.0, altitude=80.0))
    one, two, calm = make(**options), make(**options), make(n_worlds=4, mode=2, seed=11,
                                                            wind=(3.0, 0.0, 0.0))
    for sim in (one, two, calm):
        sim.step(240 * 5)
    assert np.array_equal(one.pos, two.pos)  # the same seed, the same gusts
    assert np.abs(one.pos - calm.pos).max() > 0.5  # the gusts move the aircraft
    assert np.abs(one.pos[0] - one.pos[1]).max() > 0.1  # each world its own turbulence
    assert np.isfinite(one.pos).all() and (one.pos[..., 2] > 60.0).all()  # still flying


def test_multirotor_only_members_say_so():
    sim = make()
    for name in ("hover_speed", "rotor_speed"):
        with pytest.raises(TypeError, match=f"{name} is a multirotor's"):
            getattr(sim, name)
    with pytest.raises(TypeError, match="set_flat_reference is a multirotor's"):
        sim.set_flat_reference(np.zeros((1, 1, 3)))


def test_setpoints_of_the_wrong_size_name_the_shapes():
    sim = make(mode=-1)
    with pytest.raises(ValueError, match=r"setpoints must have shape \(6,\) or \(1, 6\) "
                                         r"or \(1, 1, 6\), got \(4,\)"):
        sim.set_setpoints([0.0, 0.0, 0.0, 0.5])


def test_a_glide_into_the_floor_is_contact_then_crash_flags():
    sim = make(n_worlds=2, mode=1, start_pos=[[0.0, 0.0, 3.0]], crash_speed=0.5)
    sim.set_setpoints([0.0, 0.4, 0.0, 0.0])  # nose down, motor off
    sim.step(240 * 5)
    assert sim.contact.all() and sim.crashed.all()
    assert (sim.pos[..., 2] == 0.0).all() and (sim.vel == 0.0).all()


def test_limits_table_and_docs_agree():
    assert set(LIMITS) == {"mass", "inertia", "thrust", "tau", "lift_slope", "cd_0", "stall",
                           "force_disturbance", "torque_disturbance"}
