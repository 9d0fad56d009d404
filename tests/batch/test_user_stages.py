"""User stages: the user's compiled functions inside the batched step and reset, on both
vehicle families (pyflyt_like.batch.user_stages)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from pyflyt_like.batch import BatchedAviary, UserStage

FORCE = np.array((0.3, -0.2, 0.1))  # N, world frame
HZ = 240


@njit(cache=False)
def push_fixedwing(state, plant, nominal, config, w):
    """Replace each aircraft's load by the world force FORCE at its centre of mass."""
    for d in range(state.pos.shape[1]):
        x, y, z, s = state.quat[w, d]
        # body components of FORCE: R^T F
        r00, r01, r02 = 1 - 2 * (y * y + z * z), 2 * (x * y - z * s), 2 * (x * z + y * s)
        r10, r11, r12 = 2 * (x * y + z * s), 1 - 2 * (x * x + z * z), 2 * (y * z - x * s)
        r20, r21, r22 = 2 * (x * z - y * s), 2 * (y * z + x * s), 1 - 2 * (x * x + y * y)
        fx = r00 * 0.3 + r10 * -0.2 + r20 * 0.1
        fy = r01 * 0.3 + r11 * -0.2 + r21 * 0.1
        fz = r02 * 0.3 + r12 * -0.2 + r22 * 0.1
        c = nominal.com
        wrench = state.wrench[w, d]
        wrench[0], wrench[1], wrench[2] = fx, fy, fz
        # at the base origin: the force's moment about it, so none about the centre of mass
        wrench[3] = c[1] * fz - c[2] * fy
        wrench[4] = c[2] * fx - c[0] * fz
        wrench[5] = c[0] * fy - c[1] * fx


@njit(cache=False)
def push_multirotor(state, plant, nominal, config, w):
    """Add the world force FORCE to each drone's body force (multirotor wrenches are about
    the centre of mass)."""
    for d in range(state.pos.shape[1]):
        x, y, z, s = state.quat[w, d]
        r00, r01, r02 = 1 - 2 * (y * y + z * z), 2 * (x * y - z * s), 2 * (x * z + y * s)
        r10, r11, r12 = 2 * (x * y + z * s), 1 - 2 * (x * x + z * z), 2 * (y * z - x * s)
        r20, r21, r22 = 2 * (x * z - y * s), 2 * (y * z + x * s), 1 - 2 * (x * x + y * y)
        state.wrench[w, d, 0] += r00 * 0.3 + r10 * -0.2 + r20 * 0.1
        state.wrench[w, d, 1] += r01 * 0.3 + r11 * -0.2 + r21 * 0.1
        state.wrench[w, d, 2] += r02 * 0.3 + r12 * -0.2 + r22 * 0.1


@njit(cache=False)
def draw_mass(state, plant, nominal, config, worlds, rng):
    """A reset stage: each reset world draws one mass for all its vehicles."""
    for w in worlds:
        mass = rng.uniform(0.6, 0.8)
        for d in range(plant.mass.shape[1]):
            plant.mass[w, d] = mass


def drift(n_steps: int, mass: float) -> np.ndarray:
    """Semi-implicit Euler from rest under a constant acceleration a: x_n = a dt^2 n(n+1)/2."""
    return FORCE / mass * (1.0 / HZ) ** 2 * n_steps * (n_steps + 1) / 2


@pytest.mark.slow
def test_a_user_stage_gives_the_closed_form_drift_of_a_fixedwing():
    start = np.array([[0.0, 0.0, 50.0], [10.0, 0.0, 50.0]])
    sim = BatchedAviary(n_worlds=3, n_drones=2, drone_model="acrowing", mode=-1,
                        physics_hz=HZ, gravity=0.0, start_pos=start,
                        starting_velocity=(0.0, 0.0, 0.0),
                        user_stages=[UserStage(push_fixedwing, after="aerodynamics")])
    sim.set_setpoints(np.zeros(6))
    sim.step(2 * HZ)
    expected = start + drift(2 * HZ, sim.model.body.mass)
    np.testing.assert_allclose(sim.pos, np.broadcast_to(expected, sim.pos.shape), rtol=1e-9)
    np.testing.assert_allclose(sim.quat[..., 3], 1.0, atol=1e-12)  # no torque: no turn


@pytest.mark.slow
def test_a_user_stage_gives_the_closed_form_drift_of_a_multirotor():
    sim = BatchedAviary(n_worlds=2, drone_model="hexarotor", mode=-1, physics_hz=HZ,
                        control_hz=HZ, gravity=0.0,
                        user_stages=[UserStage(push_multirotor, before="integrate")])
    sim.set_setpoints(np.zeros(6))  # rotors stopped
    sim.step(2 * HZ)
    expected = np.array((0.0, 0.0, 1.0)) + drift(2 * HZ, sim.model.mass)
    np.testing.assert_allclose(sim.pos[:, 0], np.broadcast_to(expected, (2, 3)), rtol=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["acrowing", "crazyflie21"])
def test_a_kernel_with_a_stage_that_does_nothing_flies_bit_for_bit_as_the_default(model):
    @njit(cache=False)
    def nothing(state, plant, nominal, config, w):
        pass

    options = dict(n_worlds=3, n_drones=2, drone_model=model, mode=1, physics_hz=HZ,
                   start_pos=[[0.0, 0.0, 60.0], [5.0, 0.0, 60.0]], seed=1,
                   wind=(1.0, 0.5, 0.0), turbulence={})
    default = BatchedAviary(**options)
    spliced = BatchedAviary(**options, user_stages=[UserStage(nothing, before="integrate"),
                                                    UserStage(nothing, after="clock")])
    default.step(500)
    spliced.step(500)
    for name in ("pos", "quat", "vel", "ang_vel", "wind"):
        assert np.array_equal(getattr(default, name), getattr(spliced, name)), name


@pytest.mark.parametrize("model", ["acrowing", "crazyflie21"])
def test_a_reset_stage_draws_a_parameter_per_world_on_the_reset_worlds(model):
    options = dict(n_worlds=6, n_drones=2, drone_model=model, seed=3,
                   start_pos=[[0.0, 0.0, 60.0], [5.0, 0.0, 60.0]],
                   user_stages=[UserStage(draw_mass, after="reset")])
    sim = BatchedAviary(**options)
    masses = sim.plant.mass.copy()
    assert (0.6 <= masses).all() and (masses <= 0.8).all()
    assert (masses[:, 0] == masses[:, 1]).all()  # one draw per world
    assert len(np.unique(masses[:, 0])) == 6
    np.testing.assert_array_equal(BatchedAviary(**options).plant.mass, masses)  # seeded
    mask = np.array([True, False, True, False, False, False])
    sim.reset(mask=mask)
    assert (sim.plant.mass[~mask] == masses[~mask]).all()
    assert (sim.plant.mass[mask] != masses[mask]).all()


@njit(cache=False)
def noop(state, plant, nominal, config, w):
    pass


@pytest.mark.parametrize(("stages", "error", "match"), [
    ([UserStage(noop, after="rotors")], ValueError,
     r"user stage after='rotors' names no stage; stages are \['wind', 'control', "
     r"'aerodynamics', 'integrate', 'floor', 'obstacles', 'sensors', 'turbulence', 'clock', "
     r"'reset'\]"),
    ([UserStage(noop, before="reset")], ValueError, r"before='reset' names no stage"),
    ([UserStage(noop)], ValueError, "needs exactly one of before= and after="),
    ([UserStage(noop, before="wind", after="clock")], ValueError, "exactly one"),
    ([UserStage(noop.py_func, after="wind")], TypeError, "must be compiled with numba.njit"),
    ([noop], TypeError, "user_stages must be a list of pyflyt_like.batch.UserStage"),
    (UserStage(noop, after="wind"), TypeError, "must be a list"),
])
def test_bad_user_stages_are_clear_errors(stages, error, match):
    with pytest.raises(error, match=match):
        BatchedAviary(drone_model="acrowing", start_pos=[[0.0, 0.0, 50.0]],
                      user_stages=stages)
