"""The batched fixed-wing against the PyBullet ``Fixedwing``: same model, start, wind and
commands, 10 s of flight.

The commands jump to new random values every second, in every mode,
with a constant wind. Both engines agreed to about 1e-12 m, 2e-14 rad and 2e-13 m/s when
this was written (docs/batch_fixedwing.md, "Agreement with PyBullet"): the kernels compute the same
formulas (the shared modules of :mod:`pyflyt_like.physics` and :mod:`pyflyt_like.control`,
compiled) in the same order, on the composite rigid body PyBullet builds from the URDF,
with PyBullet's integration step. The tests allow 1e-6, far inside the issue's 1 cm,
0.01 rad and 0.01 m/s, so that a change of a formula or its order in one engine only
fails here.
"""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.batch import BatchedAviary
from pyflyt_like.core import Aviary

HZ = 240
SECONDS = 10.0
START = np.array([[0.0, 0.0, 60.0]])
WIND = np.array([2.0, -1.0, 0.3])
TOLERANCE = 1e-6  # m, rad, m/s


def command(mode: int, second: int) -> np.ndarray:
    """The setpoint of ``mode`` during ``second``: new random values every second, within
    what keeps the aircraft airborne for 10 s."""
    rng = np.random.default_rng(second)
    if mode == -1:
        return np.r_[rng.uniform(-0.3, 0.3, 5), rng.uniform(0.3, 0.8)]
    if mode == 0:
        return np.r_[rng.uniform(-0.05, 0.05), rng.uniform(-0.04, 0.0),
                     rng.uniform(-0.05, 0.05), rng.uniform(0.4, 0.8)]
    if mode == 1:
        return np.array((rng.uniform(-0.5, 0.5), rng.uniform(-0.2, 0.1),
                         rng.uniform(-0.2, 0.2), rng.uniform(0.3, 0.8)))
    if mode == 2:
        return np.array((rng.uniform(-3, 3), rng.uniform(13, 18), 0.0,
                         START[0, 2] + rng.uniform(-5, 5)))
    return np.array((rng.uniform(-0.5, 0.5), rng.uniform(13, 18), 0.0, rng.uniform(-1, 1)))


def fly_both(model: str, mode: int, shear: dict | None = None) -> dict[str, np.ndarray]:
    """Per control step: (states (n, 2, 4, 3), airspeeds (n, 2), aux states (n, 2, 6)) of
    PyBullet (index 0) and the batched engine (index 1), in the constant WIND or in a
    ``shear`` wind (its options)."""
    wind = dict(wind=WIND) if shear is None else dict(shear=shear)
    sim = BatchedAviary(n_worlds=1, n_drones=1, drone_model=model, mode=mode, physics_hz=HZ,
                        start_pos=START, **wind)
    field = (dict(wind_type="constant", wind_options=dict(velocity=WIND)) if shear is None
             else dict(wind_type="shear", wind_options=shear))
    states, airspeeds, aux = [], [], []
    with Aviary(START, np.zeros((1, 3)), drone_type="fixedwing", physics_hz=HZ,
                drone_options=dict(drone_model=model), **field) as aviary:
        aviary.set_mode(mode)
        per_step = aviary.updates_per_step  # physics steps per Aviary.step
        drone = aviary.drones[0]
        for k in range(int(SECONDS * HZ / per_step)):
            setpoint = command(mode, int(k * per_step / HZ))
            aviary.set_setpoint(0, setpoint)
            sim.set_setpoints(setpoint)
            aviary.step()
            sim.step(per_step)
            states.append((aviary.state(0), sim.state[0, 0].copy()))
            airspeeds.append((drone.airspeed, sim.airspeed[0, 0]))
            aux.append((drone.aux_state.copy(), sim.aux_state[0, 0]))
    return {"states": np.array(states), "airspeeds": np.array(airspeeds),
            "aux": np.array(aux)}


def assert_agree(flown: dict[str, np.ndarray]) -> None:
    states = flown["states"]
    pybullet_path = states[:, 0, 3]
    assert np.abs(pybullet_path - pybullet_path[0]).max() > 50.0  # 10 s of real flight
    assert pybullet_path[:, 2].min() > 5.0  # airborne throughout: no floor contact
    position = np.abs(states[:, 0, 3] - states[:, 1, 3]).max()
    attitude = np.abs(np.angle(np.exp(1j * (states[:, 0, 1] - states[:, 1, 1])))).max()
    airspeed = np.abs(np.diff(flown["airspeeds"], axis=1)).max()
    aux = np.abs(np.diff(flown["aux"], axis=1)).max()
    assert position < TOLERANCE, f"position differs by {position:.3g} m"
    assert attitude < TOLERANCE, f"attitude differs by {attitude:.3g} rad"
    assert airspeed < TOLERANCE, f"airspeed differs by {airspeed:.3g} m/s"
    assert aux < TOLERANCE, f"deflections or throttle differ by {aux:.3g}"


# Each case is 10 s of flight on both engines. The default suite flies every mode on the
# acrowing and the power-law shear; the fixedwing model (the same kernels and formulas with
# other parameters, also in tests/batch/fixedwing/test_closed_forms.py) and the log-law
# shear (its wind also in tests/batch/test_cross_validation.py) fly in the slow stage.
@pytest.mark.parametrize("mode", [-1, 0, 1, 2, 3])
@pytest.mark.parametrize("model", ["acrowing", pytest.param("fixedwing", marks=pytest.mark.slow)])
def test_batched_fixedwing_flies_as_the_pybullet_fixedwing(model, mode):
    assert_agree(fly_both(model, mode))


@pytest.mark.parametrize("shear", [
    dict(reference_velocity=(4.0, -3.0, 0.0), law="power", exponent=0.2),
    pytest.param(dict(reference_velocity=(-2.0, 5.0, 0.0), law="log", roughness_length=0.03,
                      reference_height=20.0), marks=pytest.mark.slow),
])
def test_in_a_shear_wind_too(shear):
    """Mode 2 changes altitude by up to 5 m every second: the wind changes with it."""
    assert_agree(fly_both("acrowing", 2, shear))
