"""Asymmetric motor lag (pyflyt_like.physics.motor_lag) on both engines: the closed-form step
responses of the rise and fall time constants, read from a model YAML's ``rotors.tau`` and
``rotors.tau_fall``, and the two engines flying the same lagged vehicle alike."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml

from pyflyt_like.batch import BatchedAviary
from pyflyt_like.core import Aviary
from pyflyt_like.physics.motor_lag import lag_gain, lag_step

from .crossval import fly_both
from .test_cross_validation import assert_agree

MODELS = Path(__file__).resolve().parents[2] / "pyflyt_like" / "models" / "multirotors"
HZ = 240
TAU_RISE, TAU_FALL = 0.02, 0.06  # s: a motor that spins down three times slower


@pytest.fixture(scope="module")
def lagged_models(tmp_path_factory) -> Path:
    """A folder holding ``crazyflie21`` with rise and fall time constants."""
    folder = tmp_path_factory.mktemp("models")
    shutil.copytree(MODELS / "crazyflie21", folder / "crazyflie21")
    path = folder / "crazyflie21" / "crazyflie21.yaml"
    params = yaml.safe_load(path.read_text())
    params["rotors"]["tau"], params["rotors"]["tau_fall"] = TAU_RISE, TAU_FALL
    path.write_text(yaml.safe_dump(params))
    return folder


def test_lag_step_uses_the_rise_gain_up_and_the_fall_gain_down():
    rise, fall = lag_gain(0.01, 0.02), lag_gain(0.01, 0.06)
    assert rise == pytest.approx(1 - math.exp(-0.5)) and fall == pytest.approx(
        1 - math.exp(-1 / 6))
    assert lag_step(0.0, 1.0, rise, fall) == pytest.approx(rise)
    assert lag_step(1.0, 0.0, rise, fall) == pytest.approx(1 - fall)
    assert lag_step(-0.2, -1.0, rise, fall) == pytest.approx(-0.2 - 0.8 * rise)  # reversed
    assert lag_step(0.5, 0.5, rise, fall) == 0.5
    assert lag_gain(0.01, 0.0) == 1.0  # no lag


def step_responses(speeds: np.ndarray, low: float, high: float, steps: int):
    """Fractions of the way covered after the up step to ``high`` (the first ``steps``, from
    ``low``) and the down step to ``low`` (from where the up step ended)."""
    up = (speeds[:steps] - low) / (high - low)
    top = speeds[steps - 1]
    down = (top - speeds[steps:]) / (top - low)
    return up, down


def expected(steps: int, tau: float) -> np.ndarray:
    return 1.0 - np.exp(-np.arange(1, steps + 1) / (HZ * tau))


def test_both_engines_follow_the_closed_form_rise_and_fall(lagged_models):
    steps = 48  # 0.2 s: 10 rise and 3.3 fall time constants
    sim = BatchedAviary(n_worlds=2, drone_model="crazyflie21", mode=-1, physics_hz=HZ,
                        control_hz=HZ, model_dir=lagged_models, start_pos=[(0, 0, 5)])
    low, high = float(sim.model.min_speed), float(sim.model.max_speed)
    sim.set_setpoints(np.full(4, low))
    sim.step(HZ)  # settle at the low speed
    batched = []
    with Aviary(np.array([[0.0, 0.0, 5.0]]), np.zeros((1, 3)), drone_type="multirotor",
                physics_hz=HZ, drone_options=dict(drone_model="crazyflie21", control_hz=HZ,
                                                  model_dir=lagged_models)) as aviary:
        aviary.set_mode(-1)
        drone = aviary.drones[0]
        aviary.set_setpoint(0, np.full(4, low))
        for _ in range(HZ):
            aviary.step()
        pybullet = []
        for target in (high, low):
            aviary.set_setpoint(0, np.full(4, target))
            sim.set_setpoints(np.full(4, target))
            for _ in range(steps):
                aviary.step()
                sim.step()
                pybullet.append(drone.motors.throttle[0] * high)
                batched.append(sim.rotor_speed[:, 0, 0].copy())
    batched = np.array(batched)
    for speeds in (np.array(pybullet), batched[:, 0], batched[:, 1]):
        up, down = step_responses(speeds, low, high, steps)
        np.testing.assert_allclose(up, expected(steps, TAU_RISE), atol=1e-9)
        np.testing.assert_allclose(down, expected(steps, TAU_FALL), atol=1e-9)
    assert abs(up[9] - down[9]) > 0.2  # the two constants differ visibly


def test_the_engines_fly_a_lagged_vehicle_alike(lagged_models):
    pybullet_states, batch_states = fly_both("crazyflie21", 1, model_dir=lagged_models)
    assert_agree(pybullet_states, batch_states)
    _, symmetric = fly_both("crazyflie21", 1)
    assert np.abs(batch_states[..., 3, :] - symmetric[..., 3, :]).max() > 1e-4  # lag acts


def test_a_negative_fall_constant_is_refused(tmp_path, lagged_models):
    shutil.copytree(lagged_models / "crazyflie21", tmp_path / "crazyflie21")
    path = tmp_path / "crazyflie21" / "crazyflie21.yaml"
    params = yaml.safe_load(path.read_text())
    params["rotors"]["tau_fall"] = -0.01
    path.write_text(yaml.safe_dump(params))
    with pytest.raises(ValueError, match="rotors.tau_fall must be >= 0 s"):
        BatchedAviary(drone_model="crazyflie21", model_dir=tmp_path)
