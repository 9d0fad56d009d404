"""Robustness: numerical safety of the controllers, the ground, lifetime, a quiet import."""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
import sys
import weakref
from pathlib import Path

import numpy as np
import pybullet
import pytest

import pyflyt_like
from pyflyt_like.control.allocation import Allocator, actuation_matrix
from pyflyt_like.control.flatness import FlatReference
from pyflyt_like.core import Aviary
from pyflyt_like.core.abstractions import WindFieldClass

HUGE = 1e308  # finite, but any product or sum with it overflows
CF2X_DIR = Path(pyflyt_like.__file__).parent / "models" / "vehicles" / "cf2x"


# ------------------------------------------------------------------------------ numerics
def _commands(drone) -> np.ndarray:
    """Every actuator command a built-in vehicle keeps (motors, rotors, surfaces)."""
    names = ("pwm", "rotor_command", "surface_command", "thrust_command", "lift_command",
             "finlet_command", "throttle_command", "gimbal_command")
    return np.concatenate([np.ravel(getattr(drone, n)) for n in names if hasattr(drone, n)])


def _huge_setpoints(size: int) -> list[np.ndarray]:
    alternating = np.where(np.arange(size) % 2 == 0, HUGE, -HUGE)
    return [np.full(size, HUGE), np.full(size, -HUGE), alternating, -alternating]


def _fly_and_check(aviary, label: str, steps: int = 50) -> None:
    drone = aviary.drones[0]
    for _ in range(steps):
        aviary.step()
        assert np.all(np.isfinite(aviary.state(0))), label
        assert np.all(np.isfinite(aviary.aux_state(0))), label
        assert np.all(np.isfinite(_commands(drone))), label


# Found by this suite: Multirotor mode 2 (thrust + torques) and mode 7 (geometric position
# control) turned a 1e308 setpoint into a NaN state; modes 0/1 and the PID cascade
# overflowed (inf) in the allocation and the position loop, and the Rocket's finlet mixing.
# RuntimeWarnings are errors here, so an overflow to inf fails even when a later clip
# happens to hide it.
@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("drone_type, options, modes", [
    ("quadx", {}, [-1, 0, 1, 2, 3, 4, 5, 6, 7]),
    ("multirotor", {}, [-1, 0, 1, 2, 7]),
    ("multirotor", {"position_controller": "pid"}, [7]),
    ("fixedwing", {}, [-1, 0, 1]),
    ("quadplane", {}, [-1, 0, 1, 2, 3]),
    ("rocket", {}, [0]),
], ids=["quadx", "multirotor", "multirotor-pid", "fixedwing", "quadplane", "rocket"])
def test_huge_finite_setpoints_keep_everything_finite(drone_type, options, modes):
    with Aviary(np.array([[0.0, 0.0, 1.0]]), np.zeros((1, 3)), drone_type=drone_type,
                drone_options=options, seed=0) as aviary:
        for mode in modes:
            aviary.set_mode(mode)
            size = aviary.drones[0].setpoint.shape[0]
            for setpoint in _huge_setpoints(size):
                aviary.reset()
                aviary.set_mode(mode)
                aviary.set_setpoint(0, setpoint)
                _fly_and_check(aviary, f"{drone_type} mode {mode} setpoint {setpoint}")


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("field", ["position", "velocity", "acceleration", "jerk", "snap", "all"])
def test_huge_flat_reference_keeps_the_geometric_controller_finite(field):
    # The feed-forward path of mode 7: a huge jerk used to give inf - inf = NaN body rates.
    with Aviary(np.array([[0.0, 0.0, 1.0]]), np.zeros((1, 3)), drone_type="multirotor",
                seed=0) as aviary:
        drone = aviary.drones[0]
        for sign in (1.0, -1.0):
            vector = (sign * HUGE, -sign * HUGE, sign * HUGE)
            if field == "all":
                kwargs = dict(position=vector, velocity=vector, acceleration=vector, jerk=vector,
                              snap=vector, yaw=sign * HUGE, yaw_rate=sign * HUGE,
                              yaw_acceleration=-sign * HUGE)
            else:
                kwargs = {"position": (0.0, 0.0, 1.0), field: vector}
            aviary.reset()
            drone.set_flat_reference(FlatReference(**kwargs))
            _fly_and_check(aviary, f"{field} {sign}", steps=25)


def test_flat_reference_saturates_only_beyond_physical_values():
    reference = FlatReference(position=(HUGE, 0.0, 1.0), velocity=(2.0, -HUGE, 0.0),
                              jerk=(1e8, 0.0, 0.0), yaw=HUGE, yaw_rate=-HUGE)
    np.testing.assert_array_equal(reference.position, [1e9, 0.0, 1.0])
    assert reference.yaw == HUGE  # an angle: cos and sin stay finite
    np.testing.assert_array_equal(reference.velocity, [2.0, -1e9, 0.0])
    np.testing.assert_array_equal(reference.jerk, [1e8, 0.0, 0.0])
    assert reference.yaw_rate == -1e9


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_allocator_gives_finite_speeds_within_limits_for_any_finite_wrench():
    arm = 0.04
    positions = np.array([[arm, -arm, 0.0], [-arm, arm, 0.0], [arm, arm, 0.0], [-arm, -arm, 0.0]])
    spins = np.array([-1.0, -1.0, 1.0, 1.0])
    kf, km = np.full(4, 3.16e-10), np.full(4, 7.94e-12)
    allocator = Allocator(actuation_matrix(positions, spins, kf, km), np.zeros(4),
                          np.full(4, 2.2e4))
    hover = allocator.allocate(np.array([0.27, 0.0, 0.0, 0.0]))
    np.testing.assert_allclose(kf @ hover**2, 0.27)  # ordinary wrenches are untouched
    for wrench in ([HUGE, HUGE, -HUGE, HUGE], [-HUGE] * 4, [HUGE, -HUGE, HUGE, -HUGE]):
        speeds = allocator.allocate(np.array(wrench))
        assert np.all(np.isfinite(speeds)) and np.all((speeds >= 0.0) & (speeds <= 2.2e4))


# ------------------------------------------------------------------------------ ground
def test_ground_holds_a_drone_far_from_the_origin():
    # plane.urdf's collision box ends at |x|, |y| = 100 m; the implicit plane is infinite. A
    # drone at the origin is the reference for the resting height.
    far = np.array([1000.0, -1000.0, 1.0])
    with Aviary(np.array([[0.0, 0.0, 1.0], far]), np.zeros((2, 3)), seed=0) as aviary:
        aviary.set_mode(-1)  # motor commands: all zero, motors off
        heights = []
        for _ in range(360):  # 3 s: a 1 m drop takes 0.45 s
            aviary.step()
            heights.append(aviary.all_states[:, 3, 2])
        heights = np.array(heights)
        rest = heights[-1, 0]
        assert 0.0 < rest < 0.05  # the cf2x sits on its collision box
        np.testing.assert_allclose(heights[-60:, 1], rest, atol=1e-3)  # stable, not sinking
        # The impact (4.4 m/s, 18 mm per physics step) penetrates for a step or two, the same
        # far away as at the origin: the same ground, not a different or missing one.
        np.testing.assert_allclose(heights[:, 1], heights[:, 0], atol=1e-3)
        np.testing.assert_allclose(aviary.state(1)[3, :2], far[:2], atol=0.05)
        assert np.max(np.abs(aviary.state(1)[2])) < 1e-2  # at rest


# ------------------------------------------------------------------------------ lifetime
def _open_connections() -> set[int]:
    return {i for i in range(1024)
            if pybullet.getConnectionInfo(physicsClientId=i)["isConnected"]}


@pytest.fixture
def no_gc():
    """Run with the cyclic GC off: what is freed must be freed by reference counting."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@pytest.mark.parametrize("kwargs", [
    dict(),
    dict(drone_type=["quadx", "fixedwing", "multirotor"], wind_type="constant",
         drone_options=[dict(use_camera=True, camera_resolution=(16, 16)), {}, {}]),
], ids=["one-quadx", "three-drones-wind-camera"])
def test_dropped_aviary_disconnects_at_once(no_gc, kwargs):
    n = len(kwargs.get("drone_type", [None]))
    aviary = Aviary(np.array([[i, 0.0, 1.0] for i in range(n)]), np.zeros((n, 3)), seed=0,
                    **kwargs)
    aviary.set_mode(0)
    aviary.step()
    aviary.reset()
    aviary.step()
    ref, client = weakref.ref(aviary), aviary._client
    assert pybullet.getConnectionInfo(physicsClientId=client)["isConnected"] == 1
    del aviary
    assert ref() is None  # no reference cycle kept it alive
    assert pybullet.getConnectionInfo(physicsClientId=client)["isConnected"] == 0


class _WrongShapeWind(WindFieldClass):
    def __call__(self, time, position):
        return np.zeros(3)


class _FailingWind(WindFieldClass):
    def __init__(self, strength=1.0, np_random=None):
        super().__init__(np_random)
        raise ValueError("strength is not what this field expected")


def _model_without_yaml(tmp_path: Path) -> Path:
    (tmp_path / "mine").mkdir()
    shutil.copy(CF2X_DIR / "cf2x.urdf", tmp_path / "mine" / "mine.urdf")
    return tmp_path


# Every path out of Aviary.__init__ that raises: those after connecting (wind, drones,
# rates; each must close the connection) and those before it (which must not connect).
FAILING_CONSTRUCTORS = {
    "wind-unknown-name": dict(wind_type="no_such_wind"),
    "wind-not-a-class": dict(wind_type=lambda t, p: np.zeros_like(p)),
    "wind-unknown-option": dict(wind_type="constant", wind_options=dict(colour=1)),
    "wind-bad-option-value": dict(wind_type="constant", wind_options=dict(velocity="x")),
    "wind-class-wrong-output": dict(wind_type=_WrongShapeWind),
    "wind-class-raises": dict(wind_type=_FailingWind),
    "drone-unknown-option": dict(drone_options=dict(colour="red")),
    "drone-missing-model": dict(drone_options=dict(drone_model="no_such_model")),
    "drone-model-without-yaml": dict(drone_options=dict(drone_model="mine",
                                                        model_dir="<tmp>")),
    "drone-bad-noise": dict(drone_options=dict(noise=-1.0)),
    "drone-bad-camera": dict(drone_options=dict(use_camera=True, camera_fps=7)),
    "drone-rate-not-dividing": dict(drone_options=dict(control_hz=7)),
    "physics-rate-not-divided": dict(physics_hz=100),
    "physics-rate-pathological": dict(physics_hz=10**9 + 7),
    "second-drone-fails": dict(n=2, drone_options=[{}, dict(noise=-1.0)]),
    "rates-not-multiples": dict(n=2, drone_options=[dict(control_hz=80),
                                                    dict(control_hz=120)]),
    "multirotor-bad-controller": dict(drone_type="multirotor",
                                      drone_options=dict(position_controller="lqr")),
    "fixedwing-bad-velocity": dict(drone_type="fixedwing",
                                   drone_options=dict(starting_velocity=(1.0, 2.0))),
    "user-drone-raises": dict(drone_type="broken"),
    # Before connecting:
    "world-scale-zero": dict(world_scale=0.0),
    "world-scale-inf": dict(world_scale=float("inf")),
    "world-scale-str": dict(world_scale="1"),
    "unknown-drone-type": dict(drone_type="quadz"),
    "render-not-bool": dict(render="no"),
    "wind-options-not-dict": dict(wind_options=[1, 2, 3]),
    "wind-options-without-wind": dict(wind_options=dict(velocity=(1.0, 0.0, 0.0))),
    "bad-seed": dict(seed=-1),
    "bad-start-pos": dict(start_pos=[["0", "0", "1"]]),
}


@pytest.mark.parametrize("name", list(FAILING_CONSTRUCTORS))
def test_failing_constructor_leaves_no_connection_open(no_gc, tmp_path, name):
    from pyflyt_like.core.drones import QuadX

    class Broken(QuadX):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            raise RuntimeError("a user vehicle that fails after loading its body")

    kwargs = dict(FAILING_CONSTRUCTORS[name])
    n = kwargs.pop("n", 1)
    if kwargs.get("drone_options", {}) == dict(drone_model="mine", model_dir="<tmp>"):
        kwargs["drone_options"] = dict(drone_model="mine", model_dir=_model_without_yaml(tmp_path))
    start_pos = kwargs.pop("start_pos", np.array([[i, 0.0, 1.0] for i in range(n)]))
    before = _open_connections()
    with pytest.raises((ValueError, TypeError, FileNotFoundError, RuntimeError)) as info:
        Aviary(start_pos, np.zeros((n, 3)), drone_type_mappings={"broken": Broken}, seed=0,
               **kwargs)
    # The exception (and its traceback, holding the half-built Aviary) is still alive here:
    # only an explicit close in the constructor can have released the connection.
    assert info.value is not None
    assert _open_connections() == before


# ------------------------------------------------------------------------------ import
def test_import_and_a_first_flight_print_nothing():
    # PyBullet prints its build banner on import and "argv[0]=" on connect, from C.
    code = ("import pyflyt_like; import pyflyt_like.core; from pyflyt_like.core import Aviary; "
            "a = Aviary(start_pos=[[0,0,1]], start_orn=[[0,0,0]], drone_type='quadx'); "
            "a.step(); a.close()")
    root = str(Path(pyflyt_like.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [root, *filter(None, [os.environ.get("PYTHONPATH")])])}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=env, cwd=root, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert result.stderr == ""
