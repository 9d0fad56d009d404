"""Rocket, Boosters and Gimbals: fuel burn, thrust, tank mass, gimbal torque, ignition."""

import math

import numpy as np
import pybullet
import pytest
from scipy.spatial.transform import Rotation

from pyflyt_like.core import Aviary
from pyflyt_like.core.abstractions import Boosters, Gimbals
from pyflyt_like.core.abstractions.gimbals import rodrigues

DT = 1 / 240


@pytest.fixture
def aviary():
    with Aviary(np.array([[0.0, 0.0, 100.0]]), np.zeros((1, 3)), drone_type="rocket",
                seed=0) as world:
        yield world


def rocket_boosters(aviary, **overrides):
    """A Boosters component on the rocket body with the rocket's own parameters."""
    drone = aviary.drones[0]
    bp = drone.params["booster_params"]
    args = dict(booster_ids=[drone.link_id("booster")], fueltank_ids=[drone.link_id("fueltank")],
                tau=[bp["tau"]], total_fuel_mass=[bp["total_fuel_mass"]],
                max_fuel_rate=[bp["max_fuel_rate"]], max_inertia=[bp["max_inertia"]],
                min_thrust=[bp["min_thrust"]], max_thrust=[bp["max_thrust"]],
                thrust_unit=[bp["thrust_unit"]], reignitable=[True], noise_ratio=[0.0])
    args.update(overrides)
    return Boosters(aviary, DT, aviary.np_random, drone.Id, **args)


def test_fuel_burns_by_the_integral_of_throttle_times_rate(aviary):
    boosters = rocket_boosters(aviary)
    rate = boosters.max_fuel_rate[0]
    burnt = 0.0
    for k in range(480):
        command = 0.3 + 0.6 * (k % 120) / 120  # a ramping throttle
        boosters.physics_update(np.ones(1), np.array([command]))
        burnt += boosters.throttle[0] * rate * DT
    assert boosters.total_fuel_mass[0] - boosters.fuel_remaining[0] == pytest.approx(burnt,
                                                                                     rel=1e-12)
    assert burnt > 1.0


def test_full_throttle_thrust_is_max_thrust_and_lag_is_first_order(aviary):
    boosters = rocket_boosters(aviary)
    tau = boosters.tau[0]
    for k in range(1, 241):
        boosters.physics_update(np.ones(1), np.ones(1))
        if k == 12:
            assert boosters.throttle[0] == pytest.approx(1 - math.exp(-k * DT / tau), rel=1e-9)
    assert boosters.thrust[0] == pytest.approx(boosters.max_thrust[0], rel=1e-6)


def test_rocket_accelerates_at_thrust_over_mass(aviary):
    drone = aviary.drones[0]
    aviary.set_setpoint(0, [0, 0, 0, 1, 1, 0, 0])
    for _ in range(240):  # 2 s: the throttle lag (50 ms) has settled
        aviary.step()
    v0, t0 = drone.world_velocity[2], aviary.elapsed_time
    fuel0 = drone.boosters.fuel_remaining[0]
    for _ in range(120):
        aviary.step()
    mass = drone.mass - drone.params["booster_params"]["total_fuel_mass"] + (
        fuel0 + drone.boosters.fuel_remaining[0]) / 2
    expected = drone.boosters.max_thrust[0] / mass - 9.81
    measured = (drone.world_velocity[2] - v0) / (aviary.elapsed_time - t0)
    assert measured == pytest.approx(expected, rel=0.02)  # aero drag at < 20 m/s is ~1 %


def test_tank_mass_and_inertia_shrink_with_fuel(aviary):
    drone = aviary.drones[0]
    tank = drone.link_id("fueltank")
    full_mass, _, full_inertia = pybullet.getDynamicsInfo(drone.Id, tank,
                                                          physicsClientId=aviary._client)[:3]
    aviary.set_setpoint(0, [0, 0, 0, 1, 1, 0, 0])
    for _ in range(600):
        aviary.step()
    mass, _, inertia = pybullet.getDynamicsInfo(drone.Id, tank, physicsClientId=aviary._client)[:3]
    ratio = drone.boosters.fuel_ratio[0]
    assert ratio < 0.98
    assert mass == pytest.approx(drone.boosters.fuel_remaining[0], rel=1e-9)
    assert full_mass == pytest.approx(drone.params["booster_params"]["total_fuel_mass"])
    assert np.allclose(inertia, np.array(full_inertia) * ratio, rtol=1e-6)
    aviary.reset()
    assert pybullet.getDynamicsInfo(drone.Id, tank, physicsClientId=aviary._client)[0] == \
        pytest.approx(full_mass)


def test_no_ignition_no_thrust(aviary):
    drone = aviary.drones[0]
    aviary.set_setpoint(0, [0, 0, 0, 0, 1, 0, 0])
    for _ in range(120):
        aviary.step()
    assert drone.boosters.thrust[0] == 0.0
    assert drone.boosters.fuel_ratio[0] == 1.0
    assert drone.world_velocity[2] == pytest.approx(-9.81 * 1.0, rel=0.02)  # free fall


def test_gimbal_deflection_gives_torque_of_expected_sign_and_size(aviary):
    drone = aviary.drones[0]
    aviary.set_setpoint(0, [0, 0, 0, 1, 1, 1, 0])  # full gimbal 1: thrust tilts about +x
    for _ in range(6):  # 50 ms: gimbal (10 ms lag) and throttle (50 ms) mostly settled
        aviary.step()
    rate0, t0 = drone.state[0, 0], aviary.elapsed_time
    for _ in range(6):
        aviary.step()
    roll_acceleration = (drone.state[0, 0] - rate0) / (aviary.elapsed_time - t0)
    # Thrust rotated by +5 deg about x points toward -y at the booster, below the centre of
    # mass: a negative moment about x of T sin(5 deg) * lever.
    com_z = sum(pybullet.getDynamicsInfo(drone.Id, link, physicsClientId=aviary._client)[0]
                * (pybullet.getLinkState(drone.Id, link, physicsClientId=aviary._client)[0][2]
                   if link >= 0 else drone.state[3, 2])
                for link in range(-1, 6)) / drone.mass
    booster_z = pybullet.getLinkState(drone.Id, drone.link_id("booster"),
                                      physicsClientId=aviary._client)[4][2]
    lever = com_z - booster_z
    assert roll_acceleration < 0
    thrust = drone.boosters.thrust[0]
    moment = thrust * math.sin(drone.gimbals.angles[0, 0]) * lever
    # The roll inertia about the centre of mass, from pybullet's own link data.
    inertia = 0.0
    for link in range(-1, 6):
        info = pybullet.getDynamicsInfo(drone.Id, link, physicsClientId=aviary._client)
        z = (pybullet.getLinkState(drone.Id, link, physicsClientId=aviary._client)[0][2]
             if link >= 0 else drone.state[3, 2])
        inertia += info[2][0] + info[0] * (z - com_z) ** 2
    assert -roll_acceleration == pytest.approx(moment / inertia, rel=0.1)


def test_two_boosters_and_latching_ignition(aviary):
    drone = aviary.drones[0]
    boosters = rocket_boosters(
        aviary, booster_ids=[drone.link_id("booster"), drone.link_id("finlet_pos_x")],
        fueltank_ids=[None, None], tau=[0.05, 0.05], total_fuel_mass=[10.0, 10.0],
        max_fuel_rate=[1.0, 2.0], max_inertia=[[0, 0, 0], [0, 0, 0]],
        min_thrust=[100.0, 50.0], max_thrust=[1000.0, 500.0],
        thrust_unit=[[0, 0, 1], [0, 0, 1]], reignitable=[False, True], noise_ratio=[0.0, 0.0])
    for _ in range(240):
        boosters.physics_update(np.array([1.0, 1.0]), np.array([1.0, 0.0]))
    assert boosters.thrust == pytest.approx([1000.0, 50.0], rel=1e-6)
    for _ in range(10):
        boosters.physics_update(np.array([0.0, 0.0]), np.array([1.0, 0.0]))
    assert boosters.ignited.tolist() == [True, False]  # first latches, second shuts down
    assert boosters.thrust[1] == 0.0
    for _ in range(240 * 10):  # burn the first dry
        boosters.physics_update(np.array([0.0, 0.0]), np.array([1.0, 0.0]))
    assert boosters.fuel_remaining[0] == 0.0 and boosters.thrust[0] == 0.0


def test_rodrigues_matches_scipy_and_gimbal_lags_and_limits():
    rng = np.random.default_rng(0)
    axes = rng.normal(size=(5, 3))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    angles = rng.uniform(-3, 3, size=5)
    expected = Rotation.from_rotvec(axes * angles[:, None]).as_matrix()
    assert np.allclose(rodrigues(axes, angles), expected, atol=1e-12)
    gimbals = Gimbals(None, DT, rng, [[1, 0, 0]], [[0, 1, 0]], [0.01], [[5.0, 3.0]])
    for k in range(1, 4):
        gimbals.compute_rotation(np.array([[2.0, -1.0]]))  # beyond +-1 saturates
        lag = 1 - math.exp(-k * DT / 0.01)
        assert gimbals.angles[0] == pytest.approx(np.radians([5.0, -3.0]) * lag, rel=1e-9)


@pytest.mark.parametrize("field, value", [("total_fuel_mass", [0.0]), ("tau", [-1.0]),
                                          ("max_thrust", [10.0]), ("thrust_unit", [[0, 0]]),
                                          ("reignitable", [True, False])])
def test_bad_booster_parameters_raise(aviary, field, value):
    with pytest.raises(ValueError, match=field.split("_")[0]):
        rocket_boosters(aviary, **{field: value})


def test_bad_gimbal_parameters_raise():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="gimbal_range_degrees"):
        Gimbals(None, DT, rng, [[1, 0, 0]], [[0, 1, 0]], [0.01], [[95.0, 3.0]])
    with pytest.raises(ValueError, match="gimbal_unit_2"):
        Gimbals(None, DT, rng, [[1, 0, 0]], [[0, 1]], [0.01], [[5.0, 3.0]])
