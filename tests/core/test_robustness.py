"""Robustness: absurd-but-finite commands, far from the origin, object lifetime, quiet import."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref

import numpy as np
import pybullet
import pytest

from pyflyt_like.core import Aviary
from pyflyt_like.core.abstractions import WindFieldClass

ONE_POS = np.array([[0.0, 0.0, 5.0]])
ONE_ORN = np.zeros((1, 3))
HUGE = 1e308


@pytest.mark.parametrize("drone_type, options, mode", [
    ("quadx", {}, 1), ("quadx", {}, 4), ("quadx", {}, 5), ("quadx", {}, 6), ("quadx", {}, 7),
    ("multirotor", dict(position_controller="geometric"), 7),
    ("multirotor", dict(position_controller="pid"), 7),
])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_huge_finite_setpoints_keep_every_controller_finite(drone_type, options, mode, sign):
    """A setpoint jump of +-1e308 in every entry: errors saturate, outputs stay in range."""
    with Aviary(ONE_POS, ONE_ORN, drone_type=drone_type, drone_options=options, seed=0) as env:
        env.set_mode(mode)
        env.set_setpoint(0, [sign * HUGE] * 4)
        for _ in range(50):
            env.step()  # a non-finite state would raise NumericalError
        drone = env.drones[0]
        assert np.all(np.isfinite(env.state(0)))
        assert np.all(np.isfinite(env.aux_state(0)))
        commands = drone.aux_state if drone_type == "quadx" else drone.motors.throttle
        assert np.all((commands >= 0.0) & (commands <= 1.0))


def test_a_drone_lands_on_the_ground_1000_m_from_the_origin():
    start = np.array([[1000.0, -1000.0, 1.0]])
    with Aviary(start, ONE_ORN, seed=0) as env:
        env.set_armed(False)  # motors off: it drops
        for _ in range(2 * 120):
            env.step()
        position, _ = env.getBasePositionAndOrientation(env.drones[0].Id)
        velocity, _ = env.getBaseVelocity(env.drones[0].Id)
        np.testing.assert_allclose(position[:2], [1000.0, -1000.0], atol=0.05)
        # Resting on the ground (the cf2x collision cylinder is 2 cm tall), not falling.
        assert 0.0 < position[2] < 0.03
        assert np.linalg.norm(velocity) < 0.05
        assert env.contact_array[env.planeId, env.drones[0].Id]


def _connected(client_id: int) -> bool:
    return bool(pybullet.getConnectionInfo(physicsClientId=client_id)["isConnected"])


def _open_connections() -> int:
    return sum(_connected(i) for i in range(64))


class _Breeze(WindFieldClass):
    def __call__(self, time, position):
        return np.ones_like(position)


def test_dropping_an_aviary_frees_its_connection_at_once():
    gc.collect()
    gc.disable()  # prove it is freed by reference counting, not by the cyclic collector
    try:
        env = Aviary(np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 1.0]]), np.zeros((2, 3)),
                     drone_type=["quadx", "fixedwing"], wind_type=_Breeze,
                     drone_options=[dict(use_camera=True), {}])
        env.step()
        alive, client = weakref.ref(env), env._client
        assert _connected(client)
        del env
        assert alive() is None
        assert not _connected(client)
    finally:
        gc.enable()


class _BadWind(WindFieldClass):
    def __call__(self, time, position):
        return np.zeros(2)


@pytest.mark.parametrize("kwargs", [
    dict(drone_type="nope"),
    dict(drone_options=dict(not_an_option=1)),
    dict(drone_options=dict(drone_model="no_such_model")),
    dict(drone_options=dict(control_hz=7)),
    dict(drone_type=["quadx", "multirotor"], start_pos=np.array([[0, 0, 1], [1, 0, 1.0]]),
         start_orn=np.zeros((2, 3)), drone_options=[dict(control_hz=120), dict(control_hz=80)]),
    dict(wind_type="no_such_wind"),
    dict(wind_type=_BadWind),
    dict(wind_type="constant", wind_options=dict(velocity="fast")),
    dict(drone_options=dict(use_camera="yes")),
    dict(drone_options=dict(noise=float("nan"))),
], ids=["drone-type", "option", "model", "rate", "rate-mix", "wind-name", "wind-output",
        "wind-option", "camera-flag", "noise"])
def test_a_failing_constructor_leaves_no_connection_open(kwargs):
    gc.collect()
    before = _open_connections()
    start_pos = kwargs.pop("start_pos", ONE_POS)
    start_orn = kwargs.pop("start_orn", ONE_ORN)
    with pytest.raises((TypeError, ValueError, FileNotFoundError)):
        Aviary(start_pos, start_orn, **kwargs)
    assert _open_connections() == before


def test_importing_and_flying_prints_nothing():
    program = ("import pyflyt_like, pyflyt_like.core, pyflyt_like.envs\n"
               "from pyflyt_like.core import Aviary\n"
               "a = Aviary(start_pos=[[0, 0, 1]], start_orn=[[0, 0, 0]], drone_type='quadx')\n"
               "a.step()\n"
               "a.close()\n")
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                            timeout=120, check=True)
    assert result.stdout == "" and result.stderr == ""
