"""The Aviary: the loop and its timing, arming, contacts, reset, seeding, lifetime, user
vehicles and wind."""

from __future__ import annotations

import math

import numpy as np
import pybullet
import pytest

from pyflyt_like.core import Aviary
from pyflyt_like.core.abstractions import ModalDrone, WindFieldClass
from pyflyt_like.core.drones import QuadX

from ._helpers import AIR_DENSITY, DRAG_COEFS, GRAVITY, NORMAL_AREAS, base_pose, fly, world_velocity


class CountingQuadX(QuadX):
    """A QuadX that records, for each control tick, how many physics updates preceded it."""

    def __init__(self, *args, **kwargs):
        self.physics_updates = 0
        self.tick_steps: list[int] = []
        super().__init__(*args, **kwargs)

    def control(self, mode, setpoint):
        self.tick_steps.append(self.physics_updates)
        super().control(mode, setpoint)

    def update_physics(self):
        self.physics_updates += 1
        super().update_physics()


class Lifter(ModalDrone):
    """A minimal user vehicle on the cf2x body (our ModalDrone style): one mode, setpoint =
    vertical force [N]."""

    modes = (0,)
    setpoint_size = 1

    def __init__(self, p, start_pos, start_orn, physics_hz=240, np_random=None,
                 control_hz=None, drone_model="cf2x", model_dir=None):
        super().__init__(p, start_pos, start_orn, control_hz, physics_hz, drone_model,
                         model_dir, np_random)
        self.force = 0.0
        self.update_state()
        self.set_mode(0)

    def reset_components(self):
        self.force = 0.0

    def reset_controllers(self):
        pass

    def preset_setpoint(self, mode):
        return np.zeros(1)

    def control(self, mode, setpoint):
        self.force = float(setpoint[0])

    def update_physics(self):
        pybullet.applyExternalForce(self.Id, -1, (0.0, 0.0, self.force), (0.0, 0.0, 0.0),
                                    pybullet.WORLD_FRAME, physicsClientId=self.client_id)


RESTING_Z = 0.011  # cf2x collision cylinder half-length (0.01 m) plus contact margin


# ------------------------------------------------------------------------------ timing
def test_mixed_control_rates_tick_at_their_own_rates(make_aviary):
    av = make_aviary(
        [(0.0, 0.0, 1.0), (1.0, 0.0, 1.0), (2.0, 0.0, 1.0)],
        drone_type="counting", drone_type_mappings={"counting": CountingQuadX},
        drone_options=[dict(control_hz=60), dict(control_hz=120), dict(control_hz=240)],
    )
    for drone in av.drones:
        drone.tick_steps.clear()
        drone.physics_updates = 0
    steps = 5
    for k in range(1, steps + 1):
        av.step()
        # One step = one control period of the slowest drone (60 Hz) = 4 physics steps.
        assert av.elapsed_time == pytest.approx(4 * k / 240, abs=1e-12)
        assert [d.physics_updates for d in av.drones] == [4 * k] * 3
    slow, medium, fast = av.drones
    # Each ticks on the physics steps that are multiples of its physics steps per tick.
    assert slow.tick_steps == list(range(0, 20, 4))
    assert medium.tick_steps == list(range(0, 20, 2))
    assert fast.tick_steps == list(range(20))
    # And they all fly: mode 0 at zero throttle still runs the mixer's idle.
    assert np.all(av.all_aux_states > 0)


def test_step_runs_physics_hz_over_control_hz_physics_steps(make_aviary):
    av = make_aviary(physics_hz=480)  # QuadX at 120 Hz: 4 physics steps per step
    for k in range(1, 4):
        av.step()
        assert av.elapsed_time == pytest.approx(4 * k / 480, abs=1e-12)


# ------------------------------------------------------------------------------ arming
def test_disarmed_drone_gets_no_updates(make_aviary):
    # No motor noise, so that full throttle (7.5 g of thrust) goes straight up.
    av = make_aviary([(0.0, 0.0, RESTING_Z), (1.0, 0.0, RESTING_Z)], drone_options=dict(noise=0.0))
    av.set_mode(-1)
    av.set_all_setpoints(np.ones((2, 4)))
    av.set_armed([True, False])
    resting_pose = base_pose(av, 1)
    resting_state = av.state(1)
    fly(av, 0.5)
    assert av.state(0)[3, 2] > 1.0  # the armed one took off
    # The disarmed one: motors never spun, it did not move, and its state was not updated.
    assert np.all(av.aux_state(1) == 0.0)
    np.testing.assert_allclose(base_pose(av, 1)[0], resting_pose[0], atol=1e-4)
    np.testing.assert_array_equal(av.state(1), resting_state)
    av.set_armed(True)
    fly(av, 0.5)
    assert av.state(1)[3, 2] > 1.0


# ------------------------------------------------------------------------------ contacts
def test_contact_array_marks_floor_contact(make_aviary):
    av = make_aviary([(0.0, 0.0, RESTING_Z), (1.0, 0.0, 1.0)])
    av.set_mode(-1)
    av.set_all_setpoints(np.zeros((2, 4)))
    n_bodies = pybullet.getNumBodies(physicsClientId=av._client)
    assert av.contact_array.shape == (n_bodies, n_bodies)
    assert av.contact_array.dtype == bool
    plane = av.planeId
    resting, flying = (d.Id for d in av.drones)
    for _ in range(5):
        av.step()
        contacts = av.contact_array
        assert contacts[plane, resting] and contacts[resting, plane]
        assert not contacts[plane, flying] and not contacts[flying, plane]
        assert contacts.sum() == 2  # only that pair
    # The falling drone lands within 0.5 s (1 m at g: 0.45 s): then it touches too.
    fly(av, 0.6)
    assert av.contact_array[plane, flying]


def test_register_all_new_bodies_resizes_contact_array(make_aviary):
    av = make_aviary()
    client = av._client
    n_bodies = av.contact_array.shape[0]
    shape = pybullet.createCollisionShape(pybullet.GEOM_BOX, halfExtents=(0.1, 0.1, 0.1),
                                          physicsClientId=client)
    box = pybullet.createMultiBody(0.5, shape, basePosition=(2.0, 0.0, 0.1),
                                   physicsClientId=client)
    av.register_all_new_bodies()
    assert av.contact_array.shape == (n_bodies + 1, n_bodies + 1)
    av.step()
    assert av.contact_array[box, av.planeId] and av.contact_array[av.planeId, box]
    assert not av.contact_array[box, av.drones[0].Id]


# ------------------------------------------------------------------------------ reset
def test_reset_restores_the_start_state(make_aviary):
    av = make_aviary([(0.3, -0.2, 1.0)], [(0.0, 0.0, 0.5)])
    client = av._client
    start_state, start_aux = av.state(0), av.aux_state(0)
    n_bodies = pybullet.getNumBodies(physicsClientId=client)
    drone_ids = [d.Id for d in av.drones]
    np.testing.assert_allclose(start_state[3], [0.3, -0.2, 1.0], atol=1e-12)
    np.testing.assert_allclose(start_state[1], [0.0, 0.0, 0.5], atol=1e-12)
    av.set_mode(7)
    av.set_setpoint(0, np.array([1.0, 1.0, 0.0, 2.0]))
    fly(av, 1.0)
    assert np.linalg.norm(av.state(0)[3] - start_state[3]) > 0.5
    av.reset()
    np.testing.assert_allclose(av.state(0), start_state, atol=1e-12)
    np.testing.assert_array_equal(av.aux_state(0), start_aux)
    assert np.all(av.aux_state(0) == 0.0)
    assert av.elapsed_time == 0.0
    assert not av.contact_array.any()
    np.testing.assert_allclose(base_pose(av, 0)[0], [0.3, -0.2, 1.0], atol=1e-12)
    np.testing.assert_allclose(world_velocity(av, 0), 0.0, atol=1e-12)
    # The world is not rebuilt.
    assert pybullet.getNumBodies(physicsClientId=client) == n_bodies
    assert [d.Id for d in av.drones] == drone_ids
    # The drone's own view is the start too: a mode-7 hold presets the start pose.
    av.set_mode(7)
    np.testing.assert_allclose(av.drones[0].setpoint, [0.3, -0.2, 0.5, 1.0], atol=1e-12)


def _episode(av, seconds=1.0):
    av.set_mode([7, 6])
    av.set_all_setpoints(np.array([[1.0, 0.5, 0.3, 1.5], [0.3, -0.2, 0.5, 0.1]]))
    return fly(av, seconds)


TWO = [(0.0, 0.0, 1.0), (1.0, 1.0, 1.0)]


@pytest.mark.parametrize("seed", [0, 123])
def test_same_seed_gives_bit_identical_trajectories(make_aviary, seed):
    first = _episode(make_aviary(TWO, seed=seed))
    second = _episode(make_aviary(TWO, seed=seed))
    np.testing.assert_array_equal(first, second)


@pytest.mark.parametrize("seed", [0, 7])
def test_reset_with_seed_replays_the_first_episode(make_aviary, seed):
    av = make_aviary(TWO, seed=seed)
    first = _episode(av)
    av.reset(seed=seed)
    np.testing.assert_array_equal(_episode(av), first)
    av.reset(seed=seed)
    np.testing.assert_array_equal(_episode(av), first)
    av.reset(seed=seed + 1)
    assert not np.array_equal(_episode(av), first)


def test_different_seeds_give_different_trajectories(make_aviary):
    first = _episode(make_aviary(TWO, seed=0))
    second = _episode(make_aviary(TWO, seed=1))
    assert not np.array_equal(first, second)
    # ... by the motor noise only: the same flight plan, positions apart by centimetres.
    assert 0 < np.abs(first[:, :, 3] - second[:, :, 3]).max() < 0.3


def test_seed_none_draws_a_fresh_seed(make_aviary):
    first = _episode(make_aviary(TWO, seed=None))
    second = _episode(make_aviary(TWO, seed=None))
    assert not np.array_equal(first, second)


def test_np_random_is_the_only_source_of_randomness(make_aviary):
    seeded = _episode(make_aviary(TWO, seed=5))
    given = _episode(make_aviary(TWO, seed=None, np_random=np.random.default_rng(5)))
    np.testing.assert_array_equal(seeded, given)
    # Without motor noise nothing random is left: any seed gives the same flight.
    quiet_a = _episode(make_aviary(TWO, seed=0, drone_options=dict(noise=0.0)))
    quiet_b = _episode(make_aviary(TWO, seed=1, drone_options=dict(noise=0.0)))
    np.testing.assert_array_equal(quiet_a, quiet_b)


# ------------------------------------------------------------------------------ observations
def test_state_layout_and_frames(make_aviary):
    av = make_aviary([(0.5, -0.5, 2.0)], [(0.0, 0.0, math.pi / 2)])  # facing +y
    drone = av.drones[0]
    state = av.state(0)
    assert state.shape == (4, 3) and state.dtype == np.float64
    np.testing.assert_allclose(state[1], [0.0, 0.0, math.pi / 2], atol=1e-12)
    np.testing.assert_allclose(state[3], [0.5, -0.5, 2.0], atol=1e-12)
    pybullet.resetBaseVelocity(drone.Id, (1.0, 0.0, 0.5), (0.0, 0.0, 0.7),
                               physicsClientId=av._client)
    drone.update_state()
    state = av.state(0)
    # FLU body facing +y: world +x is to its right (-y body), world z is body z.
    np.testing.assert_allclose(state[2], [0.0, -1.0, 0.5], atol=1e-12)
    np.testing.assert_allclose(state[0], [0.0, 0.0, 0.7], atol=1e-12)


def test_state_is_a_copy(make_aviary):
    av = make_aviary(TWO)
    av.step()
    state, states, aux = av.state(0), av.all_states, av.aux_state(0)
    expected = state.copy()
    state[:] = 99.0
    states[:] = 99.0
    aux[:] = 99.0
    np.testing.assert_array_equal(av.state(0), expected)
    np.testing.assert_array_equal(av.all_states[0], expected)
    assert av.all_states.shape == (2, 4, 3)
    assert np.all(av.aux_state(0) < 2.0)
    assert av.all_aux_states.shape == (2, 4)


def test_set_mode_list_and_set_all_setpoints(make_aviary):
    av = make_aviary(TWO)
    av.set_mode([7, 3])
    assert [d.mode for d in av.drones] == [7, 3]
    setpoints = np.array([[0.5, 0.0, 0.0, 1.5], [0.0, 0.0, 0.3, 0.5]])
    av.set_all_setpoints(setpoints)
    for drone, row in zip(av.drones, setpoints):
        np.testing.assert_array_equal(drone.setpoint, row)
    states = fly(av, 4.0)
    np.testing.assert_allclose(states[-1, 0, 3], [0.5, 0.0, 1.5], atol=0.1)
    assert abs(states[-1, 1, 3, 2] - 0.5) < 0.05
    assert abs(states[-1, 1, 1, 2] - 0.3) < 0.05


# ------------------------------------------------------------------------------ lifetime
def test_close_disconnects_and_is_idempotent():
    av = Aviary(np.array([[0.0, 0.0, 1.0]]), np.zeros((1, 3)), seed=0)
    client = av._client
    av.step()
    assert pybullet.isConnected(physicsClientId=client)
    av.close()
    assert not pybullet.isConnected(physicsClientId=client)
    av.close()
    with pytest.raises(pybullet.error):
        av.step()


def test_context_manager_closes_even_on_error():
    with Aviary(np.array([[0.0, 0.0, 1.0]]), np.zeros((1, 3)), seed=0) as av:
        client = av._client
        av.step()
        assert pybullet.isConnected(physicsClientId=client)
    assert not pybullet.isConnected(physicsClientId=client)
    with pytest.raises(RuntimeError, match="boom"):
        with Aviary(np.array([[0.0, 0.0, 1.0]]), np.zeros((1, 3)), seed=0) as av:
            client = av._client
            raise RuntimeError("boom")
    assert not pybullet.isConnected(physicsClientId=client)


# ------------------------------------------------------------------------------ user vehicles
def test_user_vehicle_from_drone_type_mappings(make_aviary):
    z0 = 5.0
    av = make_aviary([(0.0, 0.0, z0), (1.0, 0.0, z0), (2.0, 0.0, z0)],
                     drone_type=["lifter", "lifter", "quadx"],
                     drone_type_mappings={"lifter": Lifter})
    hover, drop, quad = av.drones
    assert isinstance(hover, Lifter) and isinstance(drop, Lifter) and isinstance(quad, QuadX)
    av.set_mode(0)
    av.set_setpoint(0, [hover.mass * GRAVITY])
    av.set_setpoint(1, [0.0])
    dt = av.physics_period
    for _ in range(120):
        av.step()
    t = av.elapsed_time
    assert t == pytest.approx(1.0)
    # Force = weight: it stays put (the drone has no drag and PyBullet's damping is off).
    np.testing.assert_allclose(av.state(0)[3], [0.0, 0.0, z0], atol=1e-9)
    # No force: free fall; semi-implicit Euler is ahead of the parabola by g dt t / 2.
    assert av.state(1)[3, 2] == pytest.approx(z0 - 0.5 * GRAVITY * t * (t + dt), abs=1e-9)
    assert av.state(1)[2, 2] == pytest.approx(-GRAVITY * t, rel=1e-9)
    # Mixed vehicles: auxiliary states of different shapes come back as a list.
    aux = av.all_aux_states
    assert isinstance(aux, list) and [a.shape for a in aux] == [(0,), (0,), (4,)]


# ------------------------------------------------------------------------------ wind
class SteadyWind(WindFieldClass):
    """Uniform wind with a configurable velocity; counts resets."""

    def __init__(self, np_random, velocity=(0.0, 0.0, 0.0)):
        super().__init__(np_random)
        self.velocity = np.asarray(velocity, dtype=float)
        self.resets = 0

    def __call__(self, time, position):
        return np.tile(self.velocity, (len(position), 1))

    def reset(self):
        self.resets += 1


def _drift_in_level_hold(av, seconds):
    """Hold level at constant altitude (mode 3, noise off) and record the states."""
    av.set_mode(3)
    return fly(av, seconds)[:, 0]


def test_wind_function_pushes_the_drone_by_drag(make_aviary):
    wind = 2.0
    av = make_aviary(drone_options=dict(noise=0.0))
    av.register_wind_field_function(lambda t, p: np.tile([wind, 0.0, 0.0], (len(p), 1)))
    states = _drift_in_level_hold(av, 1.0)
    # Level, so body x is world x: m du/dt = 1/2 rho A_x Cd (w - u)^2, solved exactly by
    # u(t) = w * cwt / (1 + cwt) with c = rho A_x Cd / (2 m). The discrete drag lags one
    # physics step and the integrator errs by O(dt): < 0.5 % at 1 s. Allow 1 %.
    c = 0.5 * AIR_DENSITY * NORMAL_AREAS[0] * DRAG_COEFS[0] / av.drones[0].mass
    times = np.arange(1, len(states) + 1) / 120
    expected = wind * c * wind * times / (1 + c * wind * times)
    late = times >= 0.25
    np.testing.assert_allclose(states[late, 2, 0], expected[late], rtol=0.01)
    assert np.abs(states[:, 2, 1]).max() < 1e-9
    assert np.abs(states[:, 1]).max() < 1e-9


def test_wind_field_class_equals_the_same_wind_function(make_aviary):
    velocity = (0.5, -1.5, 0.0)
    by_class = make_aviary(drone_options=dict(noise=0.0), wind_type=SteadyWind,
                           wind_options=dict(velocity=velocity))
    assert isinstance(by_class.wind_field, SteadyWind)
    assert by_class.wind_field.np_random is by_class.np_random
    by_function = make_aviary(drone_options=dict(noise=0.0))
    by_function.register_wind_field_function(lambda t, p: np.tile(velocity, (len(p), 1)))
    still = make_aviary(drone_options=dict(noise=0.0))
    a = _drift_in_level_hold(by_class, 1.0)
    b = _drift_in_level_hold(by_function, 1.0)
    calm = _drift_in_level_hold(still, 1.0)
    np.testing.assert_array_equal(a, b)
    # Downwind drift in both axes (x ~ c w_x^2 t^2 / 2 = 4 mm, y ~ 9 times that); without
    # wind the level hold does not drift at all.
    assert a[-1, 3, 0] > 0.002 and a[-1, 3, 1] < -0.02
    assert np.abs(calm[:, 3, :2]).max() < 1e-9
    resets = by_class.wind_field.resets
    by_class.reset()
    assert by_class.wind_field.resets == resets + 1


def test_wind_depends_on_position(make_aviary):
    av = make_aviary([(0.0, 0.0, 1.0), (2.0, 0.0, 1.0)], drone_options=dict(noise=0.0))

    def gusty_east(t, position):
        wind = np.zeros((len(position), 3))
        wind[position[:, 0] > 1.0, 1] = 3.0  # a northward wind, east of x = 1 only
        return wind

    av.register_wind_field_function(gusty_east)
    av.set_mode(3)
    states = fly(av, 1.0)
    assert np.abs(states[:, 0, 3, :2]).max() < 1e-9
    assert states[-1, 1, 3, 1] > 0.05


def test_wind_is_sampled_at_each_physics_step(make_aviary):
    calls = []

    def recording(t, position):
        calls.append((t, position.copy()))
        return np.zeros((len(position), 3))

    av = make_aviary([(0.0, 0.0, 1.0), (1.0, 0.0, 1.0)],
                     drone_options=[dict(control_hz=60), dict(control_hz=240)])
    av.register_wind_field_function(recording)
    assert len(calls) == 1 and calls[0][1].shape == (5, 3)  # the output check's probe
    calls.clear()
    for _ in range(3):
        av.step()
    dt = av.physics_period
    # Two drones, 12 physics steps: each drone asks once per physics step, for its position
    # (shape (1, 3)) and the time of that physics step (not the time of the last step()).
    assert len(calls) == 24
    times = np.array([t for t, _ in calls])
    np.testing.assert_allclose(np.unique(times), np.arange(12) * dt, atol=1e-12)
    assert all(p.shape == (1, 3) for _, p in calls)
    np.testing.assert_allclose(calls[-1][1][0], av.state(1)[3], atol=0.01)
