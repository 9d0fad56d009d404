"""Multirotor: RPM actuation, hover RPM, thrust/torque laws, RPM patterns, modes, allocation."""

import math
import re
from pathlib import Path

import numpy as np
import pytest

from pyflyt_like.common.multirotor_model import MAX_GROUND_GAIN, MULTIROTORS_DIR
from pyflyt_like.control.allocation import Allocator, actuation_matrix
from pyflyt_like.core import Aviary
from pyflyt_like.physics.rotor_aerodynamics import (
    downwash_force,
    ground_effect_gain,
    ground_effect_min_height,
)

MODELS = ["cf2x", "cf2p", "racer", "crazyflie21", "crazyflie21plus", "hexarotor"]


def make(model="cf2x", z=1.0, gravity=9.81, n=1, **options):
    start = np.array([[2.0 * i, 0.0, z] for i in range(n)])
    return Aviary(start, np.zeros((n, 3)), drone_type="multirotor",
                  drone_options=dict(drone_model=model, **options), seed=0, gravity=gravity)


def urdf_properties(model):
    text = Path(MULTIROTORS_DIR, model, f"{model}.urdf").read_text()
    props = dict(re.findall(r'(\w+)="([^"]+)"', re.search(r"<properties ([^/]*)/>", text)[1]))
    mass = float(re.search(r'<mass value="([^"]+)"', text)[1])
    return {k: float(v) for k, v in props.items()}, mass


@pytest.mark.parametrize("gravity, expected", [(9.8, 14468.43), (9.81, 14475.8)])
def test_cf2x_hover_rpm_is_computed_from_the_urdf(gravity, expected):
    props, mass = urdf_properties("cf2x")
    with make(gravity=gravity) as aviary:
        drone = aviary.drones[0]
        assert drone.hover_rpm == pytest.approx(math.sqrt(mass * gravity / (4 * props["kf"])),
                                                rel=1e-12)
        assert drone.hover_rpm == pytest.approx(expected, abs=0.2)
        assert drone.n_propellers == 4


def test_cf2x_at_hover_rpm_holds_altitude_for_10_s():
    with make() as aviary:
        drone = aviary.drones[0]
        for _ in range(10 * drone.control_hz):
            drone.set_propellers_rpm(np.full(4, drone.hover_rpm))
            aviary.step()
        # No noise, no lag, exact hover speed: the only error is the integrator's rounding.
        # 1 mm over 10 s is far below what a 0.1 % thrust error would give (0.5 m).
        assert np.abs(drone.state[3] - [0.0, 0.0, 1.0]).max() < 1e-3
        assert np.abs(drone.state[1]).max() < 1e-6


@pytest.mark.parametrize("model", MODELS)
def test_vertical_acceleration_matches_kf_rpm_squared(model):
    with make(model, z=5.0) as aviary:
        drone = aviary.drones[0]
        speed = min(1.3 * drone.hover_rpm, 0.99 * drone.max_speed[0])
        drone.set_propellers_rpm(np.full(drone.n_propellers, speed))
        aviary.step()  # lets any rotor lag settle a bit; measure over the next half second
        for _ in range(int(drone.control_hz * 0.1)):
            drone.set_propellers_rpm(np.full(drone.n_propellers, speed))
            aviary.step()
        v0, t0 = drone.world_velocity[2], aviary.elapsed_time
        for _ in range(int(drone.control_hz * 0.5)):
            drone.set_propellers_rpm(np.full(drone.n_propellers, speed))
            aviary.step()
        measured = (drone.world_velocity[2] - v0) / (aviary.elapsed_time - t0)
        expected = drone.kf.sum() * speed**2 / drone.mass - 9.81
        assert measured == pytest.approx(expected, rel=1e-3)


def test_yaw_acceleration_matches_km_rpm_squared_times_spin():
    with make(z=5.0) as aviary:
        drone = aviary.drones[0]
        hover = drone.hover_rpm
        pattern = np.array([-1.0, 1.0, -1.0, 1.0])  # spins: speeds up the CCW pair
        speeds = hover * (1 + 0.2 * pattern)
        drone.set_propellers_rpm(speeds)
        aviary.step()
        expected = float(np.sum(drone.km * drone.spins * speeds**2)) / drone.inertia[2, 2]
        assert expected > 0
        r0, t0 = drone.state[0, 2], aviary.elapsed_time
        for _ in range(12):
            drone.set_propellers_rpm(speeds)
            aviary.step()
        measured = (drone.state[0, 2] - r0) / (aviary.elapsed_time - t0)
        assert measured == pytest.approx(expected, rel=1e-3)


@pytest.mark.parametrize("pattern, axis, sign", [
    ((1, 1, -1, -1), 1, +1),   # forward: rear pair up, nose down = +pitch (FLU)
    ((1, -1, -1, 1), 0, +1),   # left pair up: roll right-wing-down = +roll
    ((-1, 1, -1, 1), 2, +1),   # yaw pattern, matching the spins: +yaw
])
def test_differential_rpm_patterns_turn_the_right_way(pattern, axis, sign):
    with make(z=5.0) as aviary:
        drone = aviary.drones[0]
        speeds = drone.hover_rpm * (1 + 0.05 * np.array(pattern, dtype=float))
        for _ in range(24):
            drone.set_propellers_rpm(speeds)
            aviary.step()
        rates = drone.state[0]
        assert sign * rates[axis] > 0.5
        others = [i for i in range(3) if i != axis]
        assert np.abs(rates[others]).max() < 1e-6 * abs(rates[axis]) + 1e-9
        if axis == 1:  # pitching forward accelerates the drone forward
            for _ in range(60):
                drone.set_propellers_rpm(np.full(4, drone.hover_rpm))
                aviary.step()
            assert drone.world_velocity[0] > 0.05


def test_crazyflie21_actuation_matrix_is_the_seeds_b():
    with make("crazyflie21") as aviary:
        drone = aviary.drones[0]
        kf, kt, a = 2.023532265845548e-08, 1.214119359507329e-10, 0.046 / math.sqrt(2)
        b = np.array([[kf, kf, kf, kf], [-kf * a, -kf * a, kf * a, kf * a],
                      [-kf * a, kf * a, kf * a, -kf * a], [-kt, kt, -kt, kt]])
        assert np.allclose(drone.allocator.matrix, b, rtol=1e-12, atol=0)
        assert drone.rotor_speed_unit == "rad/s"


@pytest.mark.parametrize("model", MODELS)
def test_modes_track_attitude_and_rates(model):
    with make(model, z=3.0) as aviary:
        drone = aviary.drones[0]
        weight = drone.mass * 9.81
        aviary.set_mode(1)
        aviary.set_setpoint(0, [0.1, -0.1, 0.5, weight / math.cos(0.1) ** 2])
        for _ in range(2 * drone.control_hz):
            aviary.step()
        assert drone.state[1] == pytest.approx([0.1, -0.1, 0.5], abs=0.01)
        aviary.set_mode(0)
        aviary.set_setpoint(0, [0.0, 0.0, 1.0, weight])
        for _ in range(drone.control_hz // 2):
            aviary.step()
        assert drone.state[0] == pytest.approx([0.0, 0.0, 1.0], abs=0.03)


def test_force_torque_mode_hovers_and_commands_are_held_between_ticks():
    with make(z=2.0) as aviary:
        drone = aviary.drones[0]
        aviary.set_mode(2)
        aviary.set_setpoint(0, [drone.mass * 9.81, 0.0, 0.0, 0.0])
        for _ in range(240):
            aviary.step()
        assert abs(drone.state[3, 2] - 2.0) < 1e-3
        assert drone.rotor_command == pytest.approx(np.full(4, drone.hover_rpm), rel=1e-9)


def test_allocation_saturates_keeping_attitude_first():
    positions = np.array([[-0.028, 0.028, 0], [-0.028, -0.028, 0], [0.028, -0.028, 0],
                          [0.028, 0.028, 0]])
    spins = np.array([-1.0, 1.0, -1.0, 1.0])
    kf, km = np.full(4, 3.16e-10), np.full(4, 7.94e-12)
    matrix = actuation_matrix(positions, spins, kf, km)
    allocator = Allocator(matrix, np.full(4, 1000.0), np.full(4, 21700.0))
    weight = 0.027 * 9.81
    # A roll torque the rotors can give only if the collective thrust gives way.
    wrench = np.array([weight * 1.9, 4e-3, 0.0, 0.0])
    speeds = allocator.allocate(wrench)
    assert allocator.saturated
    assert np.all(speeds >= 1000.0 - 1e-9) and np.all(speeds <= 21700.0 + 1e-9)
    achieved = matrix @ speeds**2
    assert achieved[1] == pytest.approx(4e-3, rel=1e-3)  # attitude kept ...
    assert achieved[0] < wrench[0]  # ... thrust gave way
    # Beyond any authority: the torque direction is kept, every rotor within limits.
    huge = allocator.allocate(np.array([weight, 1.0, 0.5, 0.0]))
    got = (matrix @ huge**2)[1:3]
    assert np.all(huge >= 1000.0 - 1e-9) and np.all(huge <= 21700.0 + 1e-9)
    assert got[0] > 0 and got[1] > 0
    assert got[1] / got[0] == pytest.approx(0.5, rel=0.05)
    # Feasible requests are solved exactly by B^-1.
    exact = allocator.allocate(np.array([weight, 1e-5, -1e-5, 1e-7]))
    assert not allocator.saturated
    assert matrix @ exact**2 == pytest.approx([weight, 1e-5, -1e-5, 1e-7], rel=1e-9)


def test_batched_setter_for_all_drones():
    with make(n=3) as aviary:
        hover = aviary.drones[0].hover_rpm
        rpms = np.full((3, 4), hover)
        rpms[1] *= 1.1
        for _ in range(120):
            aviary.set_all_propellers_rpm(rpms)
            aviary.step()
        z = aviary.all_states[:, 3, 2]
        assert z[0] == pytest.approx(1.0, abs=1e-3) and z[2] == pytest.approx(1.0, abs=1e-3)
        # 21 % extra thrust for 0.5 s: z = 1 + 0.21 g t^2 / 2.
        assert z[1] == pytest.approx(1.0 + 0.5 * 0.21 * 9.81 * 0.5**2, rel=1e-2)


@pytest.mark.parametrize("rpms, error, match", [
    (np.ones(3), ValueError, "rpms"),
    (np.full(4, -1.0), ValueError, "non-negative"),
    (np.full(4, 1e6), ValueError, "within"),
    (np.array([np.nan, 1.0, 1.0, 1.0]), ValueError, "finite"),
    (np.array([np.inf, 1.0, 1.0, 1.0]), ValueError, "finite"),
    (["1", "2", "3", "4"], TypeError, "rpms must be a numeric array"),
    (np.ones((1, 4)), ValueError, "rpms must have shape"),
])
def test_bad_rotor_speeds_raise(rpms, error, match):
    with make() as aviary, pytest.raises(error, match=match):
        aviary.drones[0].set_propellers_rpm(rpms)


@pytest.mark.parametrize("kind", [list, lambda v: np.asarray(v, dtype=np.float32)])
def test_rotor_speeds_of_other_types_take_the_same_path(kind):
    with make() as aviary:
        drone = aviary.drones[0]
        drone.set_propellers_rpm(kind([drone.hover_rpm] * 4))
        np.testing.assert_allclose(drone.setpoint, drone.hover_rpm, rtol=1e-6)
        assert drone.setpoint.dtype == np.float64


def test_second_rpm_call_in_one_tick_raises():
    with make() as aviary:
        drone = aviary.drones[0]
        drone.set_propellers_rpm(np.full(4, drone.hover_rpm))
        with pytest.raises(RuntimeError, match="once per control tick"):
            drone.set_propellers_rpm(np.full(4, drone.hover_rpm))
        aviary.step()
        drone.set_propellers_rpm(np.full(4, drone.hover_rpm))  # a new tick: allowed again


def test_unknown_parameter_set_and_user_yaml(tmp_path):
    with pytest.raises(FileNotFoundError, match="nosuchcopter"):
        make("nosuchcopter")
    # A user's set needs only a YAML: the URDF is generated on load.
    folder = tmp_path / "mine"
    folder.mkdir()
    text = Path(MULTIROTORS_DIR, "hexarotor", "hexarotor.yaml").read_text()
    (folder / "mine.yaml").write_text(text.replace("mass: 1.5", "mass: 1.2"))
    with make("mine", model_dir=tmp_path) as aviary:
        drone = aviary.drones[0]
        assert drone.mass == pytest.approx(1.2)
        assert drone.n_propellers == 6
        assert drone.hover_rpm == pytest.approx(math.sqrt(1.2 * 9.81 / (6 * 1.0e-5)))


def hover_force_ratio(height, **effects):
    """Vertical acceleration at hover RPM, as a fraction of g, at a given height."""
    with make(z=height, **effects) as aviary:
        drone = aviary.drones[0]
        for _ in range(2):
            drone.set_propellers_rpm(np.full(4, drone.hover_rpm))
            aviary.step()
        return drone.world_velocity[2] / (aviary.elapsed_time * 9.81)


def test_ground_effect_adds_thrust_near_the_floor_and_vanishes_higher_up():
    radius = 0.0231348
    floor = ground_effect_min_height(radius, 11.36859, 1.0)
    assert hover_force_ratio(0.06) == pytest.approx(0.0, abs=1e-9)  # off by default
    near = hover_force_ratio(0.06, ground_effect=True)
    # At 6 cm the extra thrust is c (r / 4h)^2 of hover: 11.37 (0.0231 / 0.24)^2 = 10 %.
    assert near == pytest.approx(ground_effect_gain(0.06, radius, 11.36859, floor),
                                 rel=0.02)
    far = hover_force_ratio(5 * radius + 0.5, ground_effect=True)
    assert 0 < far < 0.003
    assert ground_effect_gain(5 * radius, radius, 11.36859, floor) < 0.03
    assert ground_effect_gain(0.0, radius, 11.36859, floor) == pytest.approx(1.0)


def test_ground_effect_is_capped_at_gym_pybullet_drones_clip_height_gain():
    """gym-pybullet-drones clips h at r/4 sqrt(15 kf w_max^2 c / T_max); there the gain is
    T_max / (15 kf w_max^2) = 4/15 for a quadrotor. The default cap is that value."""
    radius, coefficient, kf, rpm_max = 0.0231348, 11.36859, 3.16e-10, 21702.6
    clip = 0.25 * radius * math.sqrt(15 * rpm_max**2 * kf * coefficient / (4 * kf * rpm_max**2))
    floor = ground_effect_min_height(radius, coefficient, MAX_GROUND_GAIN)
    gains = [ground_effect_gain(h, radius, coefficient, floor)
             for h in (0.0, clip / 2, clip, 2 * clip)]
    assert MAX_GROUND_GAIN == pytest.approx(4 / 15)
    np.testing.assert_allclose(gains[:3], 4 / 15, rtol=1e-12)  # flat below the clip height
    assert gains[3] == pytest.approx(4 / 15 / 4)  # and the 1/h^2 law above it


@pytest.mark.parametrize("fraction, lifts_off", [(0.75, False), (0.85, False), (1.0, True)])
def test_a_landed_drone_below_hover_thrust_stays_on_the_ground(fraction, lifts_off):
    """On the floor with ground effect: 0.75x hover RPM is 56 % of the weight in thrust,
    at most 71 % with the 4/15 gain, so it stays down (the old cap of 1 lifted it 35 mm);
    0.85x (72 %, at most 92 %) too; hover RPM lifts off."""
    with make(z=0.02, ground_effect=True) as aviary:
        drone = aviary.drones[0]
        for _ in range(60):  # settle on the floor with the rotors off
            drone.set_propellers_rpm(np.zeros(4))
            aviary.step()
        rest = drone.state[3][2]
        highest = rest
        for _ in range(240):  # 1 s
            drone.set_propellers_rpm(np.full(4, fraction * drone.hover_rpm))
            aviary.step()
            highest = max(highest, drone.state[3][2])
        assert bool(highest - rest > 0.01) is lifts_off


def test_downwash_is_bounded_and_continuous_everywhere_below_another_drone():
    """The near-field model: no needle, no jump. On a fine grid of positions below a cf2x the
    force never exceeds its bound alpha(d_z*) (30 % of the weight) and changes by less than
    1.5 % of that bound between neighbouring points 1 mm apart (the steepest slope of the
    Gaussian, alpha / (beta sqrt(e)) with beta = 2 r, is 1.3 % per mm)."""
    radius, coefficients = 0.0231348, (2267.18, 0.16, -0.11)
    near_end = (2 * radius + 0.11) / 0.16
    bound = 2267.18 * (radius / (4 * near_end)) ** 2
    weight = 0.027 * 9.81
    assert bound == pytest.approx(0.30 * weight, rel=0.02)
    heights = np.arange(0.001, 2.0, 0.001)
    offsets = np.arange(0.0, 0.3, 0.001)
    grid = np.array([[downwash_force(dxy, dz, radius, *coefficients) for dxy in offsets]
                     for dz in heights])
    assert np.all(np.isfinite(grid)) and np.all(grid <= 0.0)
    assert grid.min() == pytest.approx(-bound, rel=1e-9)
    assert np.abs(np.diff(grid, axis=0)).max() < 0.015 * bound
    assert np.abs(np.diff(grid, axis=1)).max() < 0.015 * bound
    # Far field unchanged: beyond d_z* it is the fitted model.
    far = 1.5
    fitted = -2267.18 * (radius / (4 * far)) ** 2 * math.exp(-0.5 * (0.1 / (0.16 * far - 0.11))
                                                              ** 2)
    assert downwash_force(0.1, far, radius, *coefficients) == pytest.approx(fitted, rel=1e-12)


def test_rotor_drag_opposes_air_velocity():
    with make(z=5.0, rotor_drag=True) as aviary:
        drone = aviary.drones[0]
        aviary.register_wind_field_function(lambda t, pos: np.tile([-3.0, 0.0, 0.0],
                                                                    (len(pos), 1)))
        for _ in range(24):
            drone.set_propellers_rpm(np.full(4, drone.hover_rpm))
            aviary.step()
        # Air velocity is +3 m/s in x (velocity minus a -3 m/s wind): drag pushes along -x,
        # F = c_xy * 3 * sum(w) with w in rad/s.
        total = 4 * drone.hover_rpm * 2 * math.pi / 60
        expected = -9.1785e-7 * 3.0 * total / drone.mass
        measured = drone.world_velocity[0] / aviary.elapsed_time
        assert measured == pytest.approx(expected, rel=0.05)


def test_downwash_pushes_only_the_lower_drone():
    start = np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.3], [3.0, 0.0, 1.0]])
    with Aviary(start, np.zeros((3, 3)), drone_type="multirotor", seed=0,
                drone_options=dict(drone_model="cf2x", downwash=True)) as aviary:
        hover = aviary.drones[0].hover_rpm
        for _ in range(24):
            aviary.set_all_propellers_rpm(np.full((3, 4), hover))
            aviary.step()
        vz = [d.world_velocity[2] for d in aviary.drones]
        assert vz[0] < -0.01  # beneath the second: pushed down
        assert vz[1] == pytest.approx(0.0, abs=1e-6)  # above: unaffected
        assert vz[2] == pytest.approx(0.0, abs=1e-6)  # far to the side: unaffected


def test_each_mode_runs_at_its_own_rate_and_holds_its_command(tmp_path):
    folder = tmp_path / "slowcf"
    folder.mkdir()
    text = Path(MULTIROTORS_DIR, "cf2x", "cf2x.yaml").read_text()
    (folder / "slowcf.yaml").write_text(text + "\nmode_hz: {7: 60, 1: 120}\n")
    with make("slowcf", z=1.0, model_dir=tmp_path) as aviary:
        drone = aviary.drones[0]
        assert drone.mode_steps == {-1: 1, 0: 1, 1: 2, 2: 1, 7: 4}
        aviary.set_mode(7)
        aviary.set_setpoint(0, [0.5, 0.0, 0.0, 1.2])
        commands = []
        for _ in range(40):
            aviary.step()  # one physics step (control at 240 Hz)
            commands.append(drone.rotor_command.copy())
        changes = [i for i in range(1, 40) if not np.array_equal(commands[i], commands[i - 1])]
        assert changes and all(i % 4 == 0 for i in changes)  # 60 Hz ticks, held between
    (folder / "slowcf.yaml").write_text(text + "\nmode_hz: {7: 7}\n")
    with pytest.raises(ValueError, match="mode_hz"):
        make("slowcf", model_dir=tmp_path)
