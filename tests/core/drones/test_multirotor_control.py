"""Multirotor position control: geometric tracking of a figure-eight, tilt recovery, PID."""

import math

import numpy as np
import pytest

from pyflyt_like.control.flatness import FlatReference
from pyflyt_like.core import Aviary

PERIOD, A, B = 6.0, 1.0, 0.5
OMEGA = 2 * math.pi / PERIOD


def figure_eight(t):
    """x = A sin(wt), y = B sin(2wt), z = 1, with derivatives to snap."""
    s1, c1, s2, c2 = math.sin(OMEGA * t), math.cos(OMEGA * t), math.sin(2 * OMEGA * t), \
        math.cos(2 * OMEGA * t)
    w = OMEGA
    return FlatReference(
        position=(A * s1, B * s2, 1.0), velocity=(A * w * c1, 2 * w * B * c2, 0.0),
        acceleration=(-A * w**2 * s1, -4 * w**2 * B * s2, 0.0),
        jerk=(-A * w**3 * c1, -8 * w**3 * B * c2, 0.0),
        snap=(A * w**4 * s1, 16 * w**4 * B * s2, 0.0), yaw=0.3 * math.sin(OMEGA * t),
        yaw_rate=0.3 * w * math.cos(OMEGA * t), yaw_acceleration=-0.3 * w**2 * math.sin(OMEGA * t))


def fly_figure_eight(position_controller="geometric", periods=2):
    with Aviary(np.array([[0.0, 0.0, 1.0]]), np.zeros((1, 3)), drone_type="multirotor",
                drone_options=dict(drone_model="crazyflie21",
                                   position_controller=position_controller),
                seed=0) as aviary:
        drone = aviary.drones[0]
        aviary.set_mode(7)
        errors = []
        for k in range(int(periods * PERIOD * drone.control_hz)):
            reference = figure_eight(k / drone.control_hz)
            if position_controller == "geometric":
                drone.set_flat_reference(reference)
            else:
                x, y, z = reference.position
                aviary.set_setpoint(0, [x, y, reference.yaw, z])
            aviary.step()
            if aviary.elapsed_time > PERIOD:
                target = figure_eight(aviary.elapsed_time).position
                errors.append(np.linalg.norm(drone.state[3] - target))
        return np.array(errors), drone


def test_geometric_controller_tracks_a_figure_eight_within_2_cm():
    errors, drone = fly_figure_eight()
    rms = float(np.sqrt(np.mean(errors**2)))
    # Measured 1.4 mm RMS at 240 Hz (no noise, no rotor lag): well inside the 2 cm bound.
    assert rms < 0.02
    assert errors.max() < 0.03
    assert not drone.allocator.saturated


def test_pid_cascade_flies_the_same_vehicle_but_lags_without_feed_forward():
    pid_errors, _ = fly_figure_eight("pid")
    geometric_errors, _ = fly_figure_eight()
    pid_rms = float(np.sqrt(np.mean(pid_errors**2)))
    assert pid_rms < 0.4  # it follows the figure (measured 0.33 m: lag, no feed-forward) ...
    assert pid_rms > 3 * float(np.sqrt(np.mean(geometric_errors**2)))  # ... less closely


@pytest.mark.parametrize("model", ["crazyflie21", "cf2x", "hexarotor"])
def test_geometric_controller_recovers_from_a_60_degree_tilt(model):
    start_orn = np.array([[math.radians(60), 0.0, 0.0]])
    with Aviary(np.array([[0.0, 0.0, 2.0]]), start_orn, drone_type="multirotor", seed=0,
                drone_options=dict(drone_model=model)) as aviary:
        drone = aviary.drones[0]
        aviary.set_mode(7)
        aviary.set_setpoint(0, [0.0, 0.0, 0.0, 2.0])
        for _ in range(3 * drone.control_hz):
            aviary.step()
        assert np.abs(drone.state[1]).max() < 0.02
        assert np.linalg.norm(drone.state[3] - [0.0, 0.0, 2.0]) < 0.05
        assert drone.state[3, 2] > 1.0  # never fell far


def test_flat_reference_validation():
    with Aviary(np.array([[0.0, 0.0, 1.0]]), np.zeros((1, 3)), drone_type="multirotor",
                drone_options=dict(drone_model="cf2x", position_controller="pid")) as aviary:
        drone = aviary.drones[0]
        with pytest.raises(TypeError, match="FlatReference"):
            drone.set_flat_reference([0, 0, 1])
        with pytest.raises(ValueError, match="geometric"):
            drone.set_flat_reference(FlatReference(position=(0, 0, 1)))
    with pytest.raises(ValueError, match="position_controller"):
        Aviary(np.array([[0.0, 0.0, 1.0]]), np.zeros((1, 3)), drone_type="multirotor",
               drone_options=dict(position_controller="lqr"))


@pytest.mark.parametrize("model", ["racer", "hexarotor", "crazyflie21"])
def test_a_large_yaw_step_stays_level(model):
    with Aviary(np.array([[0.0, 0.0, 2.0]]), np.zeros((1, 3)), drone_type="multirotor", seed=0,
                drone_options=dict(drone_model=model)) as aviary:
        drone = aviary.drones[0]
        aviary.set_mode(7)
        aviary.set_setpoint(0, [0.0, 0.0, 1.5, 2.0])
        tilt = 0.0
        for _ in range(4 * drone.control_hz):
            aviary.step()
            tilt = max(tilt, float(np.abs(drone.state[1, :2]).max()))
        assert tilt < 0.05  # yaw gives way in saturation; roll and pitch stay put
        assert drone.state[1, 2] == pytest.approx(1.5, abs=0.15)
        assert np.linalg.norm(drone.state[3] - [0.0, 0.0, 2.0]) < 0.05
