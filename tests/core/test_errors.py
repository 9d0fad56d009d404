"""Bad input raises early, clear exceptions that name the argument (DESIGN.md §Errors)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pybullet
import pytest

import pyflyt_like
from pyflyt_like.core import Aviary
from pyflyt_like.core.abstractions import PID, BoringBodies, ControlClass, Motors
from pyflyt_like.core.utils.validation import NumericalError

ONE_POS = np.array([[0.0, 0.0, 1.0]])
ONE_ORN = np.zeros((1, 3))
CF2X_DIR = Path(pyflyt_like.__file__).parent / "models" / "vehicles" / "cf2x"


@pytest.fixture
def aviary():
    with Aviary(ONE_POS, ONE_ORN, seed=0) as av:
        yield av


def _build(**kwargs):
    """Construct an aviary (closing it if construction unexpectedly succeeds)."""
    start_pos = kwargs.pop("start_pos", ONE_POS)
    start_orn = kwargs.pop("start_orn", ONE_ORN)
    Aviary(start_pos, start_orn, **kwargs).close()


# ------------------------------------------------------------------------------ constructor
@pytest.mark.parametrize("kwargs, error, match", [
    (dict(start_pos=np.zeros(3)), ValueError, "start_pos"),
    (dict(start_pos=np.zeros((1, 4))), ValueError, "start_pos"),
    (dict(start_pos=np.zeros((0, 3)), start_orn=np.zeros((0, 3))), ValueError, "start_pos"),
    (dict(start_pos=np.array([[0.0, 0.0, np.nan]])), ValueError, "start_pos"),
    (dict(start_pos="abc"), TypeError, "start_pos"),
    (dict(start_orn=np.zeros((2, 3))), ValueError, "start_orn"),
    (dict(start_orn=np.zeros(3)), ValueError, "start_orn"),
    (dict(start_orn=np.array([[0.0, np.inf, 0.0]])), ValueError, "start_orn"),
], ids=["pos-1d", "pos-4-cols", "pos-empty", "pos-nan", "pos-str", "orn-rows", "orn-1d",
        "orn-inf"])
def test_bad_start_pose(kwargs, error, match):
    with pytest.raises(error, match=match):
        _build(**kwargs)


def test_unknown_drone_type_lists_the_allowed_ones():
    with pytest.raises(ValueError, match=r"drone_type.*'quadz'.*quadx"):
        _build(drone_type="quadz")


def test_drone_type_list_of_wrong_length():
    with pytest.raises(ValueError, match="drone_type"):
        _build(drone_type=["quadx", "quadx"])


@pytest.mark.parametrize("value", [int, "quadx", None], ids=["class", "str", "none"])
def test_drone_type_mappings_must_map_to_drone_classes(value):
    # Found by this suite: a non-DroneClass value used to fail later, inside its "constructor",
    # with an unrelated TypeError.
    with pytest.raises((TypeError, ValueError), match="drone_type_mappings"):
        _build(drone_type="thing", drone_type_mappings={"thing": value})


def test_drone_type_mappings_reject_a_drone_instance(aviary):
    with pytest.raises((TypeError, ValueError), match="drone_type_mappings"):
        _build(drone_type="thing", drone_type_mappings={"thing": aviary.drones[0]})


@pytest.mark.parametrize("kwargs, match", [
    (dict(drone_options=dict(control_hz=7)), "control_hz"),  # 240 % 7 != 0
    (dict(drone_options=dict(control_hz=0)), "control_hz"),
    (dict(drone_options=dict(control_hz=480)), "control_hz"),  # faster than physics
    (dict(physics_hz=100), "control_hz"),  # QuadX's 120 Hz does not divide 100 Hz
    (dict(physics_hz=0), "physics_hz"),
    (dict(world_scale=0.0), "world_scale"),
], ids=["7Hz", "0Hz", "480Hz", "physics100", "physics0", "scale0"])
def test_bad_rates_and_scale(kwargs, match):
    with pytest.raises(ValueError, match=match):
        _build(**kwargs)


def test_control_rates_that_are_not_multiples_of_each_other():
    # 80 and 120 both divide 240, but a step of 3 physics steps is not a whole number of
    # 120 Hz ticks.
    with pytest.raises(ValueError, match="control"):
        _build(start_pos=np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 1.0]]), start_orn=np.zeros((2, 3)),
               drone_options=[dict(control_hz=80), dict(control_hz=120)])


def test_missing_drone_model():
    with pytest.raises(FileNotFoundError, match="no_such_model"):
        _build(drone_options=dict(drone_model="no_such_model"))


def test_model_dir_without_the_model(tmp_path):
    with pytest.raises(FileNotFoundError, match="cf2x"):
        _build(drone_options=dict(model_dir=str(tmp_path)))


def test_model_dir_with_urdf_but_no_yaml(tmp_path):
    (tmp_path / "mine").mkdir()
    shutil.copy(CF2X_DIR / "cf2x.urdf", tmp_path / "mine" / "mine.urdf")
    with pytest.raises(FileNotFoundError, match=r"mine\.yaml"):
        _build(drone_options=dict(drone_model="mine", model_dir=tmp_path))


def test_model_dir_with_a_complete_model_works(tmp_path):
    # The positive case of the two above: a copied model under another name loads and flies.
    (tmp_path / "mine").mkdir()
    shutil.copy(CF2X_DIR / "cf2x.urdf", tmp_path / "mine" / "mine.urdf")
    shutil.copy(CF2X_DIR / "cf2x.yaml", tmp_path / "mine" / "mine.yaml")
    with Aviary(ONE_POS, ONE_ORN, drone_options=dict(drone_model="mine", model_dir=tmp_path),
                seed=0) as av:
        av.set_mode(7)
        for _ in range(240):
            av.step()
        np.testing.assert_allclose(av.state(0)[3], [0.0, 0.0, 1.0], atol=0.1)


def test_unknown_drone_option_lists_the_allowed_ones():
    with pytest.raises(ValueError, match=r"drone_options.*colour.*noise"):
        _build(drone_options=dict(colour="red"))


def test_drone_options_list_of_wrong_length():
    with pytest.raises(ValueError, match="drone_options"):
        _build(drone_options=[{}, {}])


@pytest.mark.parametrize("noise, error", [(-1.0, ValueError), ("loud", TypeError),
                                          (float("nan"), ValueError), (float("inf"), ValueError)])
def test_bad_noise_is_reported_under_its_own_name(noise, error):
    with pytest.raises(error, match=r"^noise must be a finite number"):
        _build(drone_options=dict(noise=noise))


def test_unknown_wind_name():
    with pytest.raises(ValueError, match="wind_type"):
        _build(wind_type="no_such_wind")


def test_wind_type_must_be_a_name_or_a_class():
    with pytest.raises(TypeError, match="wind_type"):
        _build(wind_type=lambda t, p: np.zeros_like(p))


@pytest.mark.parametrize("seed", [-1, 1.5, "1", True, [1]])
def test_bad_seed(seed):
    with pytest.raises(ValueError, match="seed"):
        _build(seed=seed)


def test_bad_seed_on_reset(aviary):
    with pytest.raises(ValueError, match="seed"):
        aviary.reset(seed=-3)


def test_np_random_must_be_a_generator():
    with pytest.raises(TypeError, match="np_random"):
        _build(np_random=np.random.RandomState(0))


# ------------------------------------------------------------------------------ setpoints
@pytest.mark.parametrize("setpoint, error", [
    (np.zeros(3), ValueError),
    (np.zeros(5), ValueError),
    (np.zeros((1, 4)), ValueError),
    (np.array([0.0, 0.0, np.nan, 0.5]), ValueError),
    (np.array([0.0, np.inf, 0.0, 0.5]), ValueError),
    (np.array([0.0, 0.0, 0.0, -np.inf]), ValueError),
    ("abcd", TypeError),
], ids=["3", "5", "1x4", "nan", "inf", "-inf", "str"])
def test_bad_setpoint(aviary, setpoint, error):
    before = aviary.drones[0].setpoint.copy()
    with pytest.raises(error, match="setpoint"):
        aviary.set_setpoint(0, setpoint)
    np.testing.assert_array_equal(aviary.drones[0].setpoint, before)  # nothing half-applied


@pytest.mark.parametrize("setpoints", [
    np.zeros((2, 4)), np.zeros(4), np.full((1, 4), np.nan),
], ids=["rows", "1d", "nan"])
def test_bad_setpoints_for_all(aviary, setpoints):
    with pytest.raises(ValueError, match="setpoints"):
        aviary.set_all_setpoints(setpoints)


@pytest.mark.parametrize("index", [1, -2, 0.0, True])
def test_bad_drone_index(aviary, index):
    with pytest.raises(IndexError, match="index"):
        aviary.set_setpoint(index, np.zeros(4))
    with pytest.raises(IndexError, match="index"):
        aviary.state(index)


# ------------------------------------------------------------------------------ modes, arming
# Found by this suite: non-int scalars (1.0, None) used to fail inside list() with
# "'float' object is not iterable".
@pytest.mark.parametrize("mode", [8, -2, 100, "7", 1.0, 7.5, None, True])
def test_unknown_mode_lists_the_allowed_ones(aviary, mode):
    with pytest.raises(ValueError, match=r"mode.*\[-1, 0, 1, 2, 3, 4, 5, 6, 7\]"):
        aviary.set_mode(mode)
    with pytest.raises(ValueError, match=r"mode.*\[-1, 0, 1, 2, 3, 4, 5, 6, 7\]"):
        aviary.set_mode([mode])


def test_mode_list_of_wrong_length(aviary):
    with pytest.raises(ValueError, match="flight_modes"):
        aviary.set_mode([1, 2])


def test_arming_list_of_wrong_length(aviary):
    with pytest.raises(ValueError, match="settings"):
        aviary.set_armed([True, False])


@pytest.mark.parametrize("settings", [2, -1, "yes", 0.5, None, [2], [None]])
def test_bad_arming_settings(aviary, settings):
    with pytest.raises(ValueError, match="settings"):
        aviary.set_armed(settings)


@pytest.mark.parametrize("settings", [0, [0], np.array([False])])
def test_integer_arming_is_accepted_as_pyflyt_does(aviary, settings):
    # Found by this suite: set_armed(0) used to fail inside list() ("'int' object is not
    # iterable"); PyFlyt accepts 0/1 here.
    aviary.set_armed(settings)
    aviary.set_mode(-1)
    aviary.set_setpoint(0, np.ones(4))
    aviary.step()
    assert np.all(aviary.aux_state(0) == 0.0)  # disarmed: the motors never spun
    aviary.set_armed(1)
    aviary.step()
    assert np.all(aviary.aux_state(0) > 0.0)


class Fixed(ControlClass):
    def reset(self):
        pass

    def step(self, state, setpoint):
        return np.zeros(3)  # one number short for QuadX


def test_register_controller_errors(aviary):
    drone = aviary.drones[0]
    with pytest.raises(ValueError, match="controller_id"):
        drone.register_controller(7, Fixed, base_mode=7)  # collides with a built-in mode
    with pytest.raises(ValueError, match="base_mode"):
        drone.register_controller(9, Fixed, base_mode=12)
    with pytest.raises(TypeError, match="controller_constructor"):
        drone.register_controller(9, int, base_mode=7)
    with pytest.raises(TypeError, match="controller_constructor"):
        drone.register_controller(9, Fixed(), base_mode=7)  # an instance, not a class


def test_user_controller_with_a_wrong_output_shape(aviary):
    aviary.drones[0].register_controller(8, Fixed, base_mode=7)
    aviary.set_mode(8)
    with pytest.raises(ValueError, match="controller"):
        aviary.step()


# ------------------------------------------------------------------------------ wind
def test_wind_function_must_be_callable(aviary):
    with pytest.raises(TypeError, match="callable"):
        aviary.register_wind_field_function(3.0)


@pytest.mark.parametrize("wind", [np.zeros(3), np.zeros((2, 3)), 0.0],
                         ids=["flat", "rows", "scalar"])
def test_wind_function_with_a_wrong_output_shape(aviary, wind):
    # Found at registration by the five-point probe, not later inside a step.
    with pytest.raises(ValueError, match="wind field .* 5 positions"):
        aviary.register_wind_field_function(lambda t, p: wind)


# ------------------------------------------------------------------------------ numerics
def test_nan_velocity_raises_numerical_error(aviary):
    pybullet.resetBaseVelocity(aviary.drones[0].Id, (np.nan, 0.0, 0.0), (0.0, 0.0, 0.0),
                               physicsClientId=aviary._client)
    with pytest.raises(NumericalError):
        aviary.step()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the overflow we provoke
def test_absurd_wind_raises_numerical_error(aviary):
    # Finite and of the right shape, but the drag force overflows to inf.
    aviary.register_wind_field_function(lambda t, p: np.full((len(p), 3), 1e200))
    with pytest.raises(NumericalError):
        for _ in range(5):
            aviary.step()


def test_numerical_error_is_a_runtime_error():
    assert issubclass(NumericalError, RuntimeError)


# ------------------------------------------------------------------------------ components
def _motors(aviary, **overrides):
    drone = aviary.drones[0]
    params = dict(tau=np.full(4, 0.01), max_rpm=np.full(4, 1000.0),
                  thrust_coef=np.full(4, 1e-10), torque_coef=np.full(4, 1e-12),
                  thrust_unit=np.tile([0.0, 0.0, 1.0], (4, 1)), noise_ratio=np.zeros(4))
    params.update(overrides)
    return Motors(aviary, aviary.physics_period, aviary.np_random, drone.Id, [0, 1, 2, 3],
                  **params)


@pytest.mark.parametrize("name, value", [
    ("tau", np.full(4, -0.01)),
    ("tau", np.full(3, 0.01)),
    ("max_rpm", np.full(4, -1.0)),
    ("thrust_coef", np.full(4, -1e-10)),
    ("noise_ratio", np.full(4, -0.1)),
    ("thrust_unit", np.zeros((4, 3))),
    ("thrust_unit", np.ones((4, 2))),
    ("torque_coef", np.full(4, np.nan)),
])
def test_motors_validate_their_parameters(aviary, name, value):
    with pytest.raises(ValueError, match=name):
        _motors(aviary, **{name: value})
    _motors(aviary)  # and the defaults above are fine


@pytest.mark.parametrize("name, drag_coefs, normal_areas", [
    ("drag_coefs", np.ones(3), np.ones((1, 3))),
    ("drag_coefs", -np.ones((1, 3)), np.ones((1, 3))),
    ("normal_areas", np.ones((1, 3)), np.ones((2, 3))),
    ("normal_areas", np.ones((1, 3)), -np.ones((1, 3))),
])
def test_boring_bodies_validate_their_parameters(aviary, name, drag_coefs, normal_areas):
    with pytest.raises(ValueError, match=name):
        BoringBodies(aviary, aviary.physics_period, aviary.np_random, aviary.drones[0].Id, [-1],
                     drag_coefs, normal_areas)


@pytest.mark.parametrize("kwargs, match", [
    (dict(ki=[0.0]), "ki"),
    (dict(limits=[1.0, 0.0]), "limits"),
    (dict(period=0.0), "period"),
])
def test_pid_validates_its_parameters(kwargs, match):
    params = dict(kp=[1.0, 2.0], ki=[0.0, 0.1], kd=[0.0, 0.0], limits=[1.0, 1.0], period=0.01)
    params.update(kwargs)
    with pytest.raises(ValueError, match=match):
        PID(**params)


def test_unregistered_body_in_contact_gets_a_clear_error():
    import pybullet
    import pybullet_data

    with Aviary(np.array([[0.0, 0.0, 0.2]]), np.zeros((1, 3)), seed=0) as aviary:
        pybullet.loadURDF(pybullet_data.getDataPath() + "/cube_small.urdf", [0.0, 0.0, 0.02],
                          physicsClientId=aviary._client)
        with pytest.raises(RuntimeError, match="register_all_new_bodies"):
            for _ in range(240):
                aviary.step()


def test_gui_without_a_display_raises_instead_of_ending_the_process(monkeypatch):
    if not sys.platform.startswith("linux"):
        pytest.skip("the display check is for Linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(RuntimeError, match="needs a display"):
        Aviary(np.array([[0.0, 0.0, 1.0]]), np.zeros((1, 3)), render=True)


def test_wind_function_with_non_finite_values_is_named(aviary):
    with pytest.raises(ValueError, match="must return finite values"):
        aviary.register_wind_field_function(lambda t, p: np.full((len(p), 3), np.nan))


def test_log_profile_wind_passes_the_probe(aviary):
    # PyFlyt's simple-wind example: log(z) is finite at every probe point (all above ground).
    def log_profile(t, position):
        wind = np.zeros_like(position)
        wind[:, 0] = np.log(position[:, 2])
        return wind

    aviary.register_wind_field_function(log_profile)
    aviary.step()
    assert np.all(np.isfinite(aviary.state(0)))


# ------------------------------------------------------------------ what PyFlyt users type
@pytest.mark.parametrize("kwargs, error, match", [
    (dict(start_pos=[["0", "0", "1"]]), TypeError, "start_pos must be a numeric array"),
    (dict(start_orn=[["0", "0", "0"]]), TypeError, "start_orn must be a numeric array"),
    (dict(start_pos=[[True, False, True]]), TypeError, "start_pos must be a numeric array"),
    (dict(render="no"), TypeError, "render must be a bool"),
    (dict(render=1), TypeError, "render must be a bool"),
    (dict(drone_options=dict(use_camera="yes")), TypeError, "use_camera must be a bool"),
    (dict(wind_options=dict(velocity=[1.0, 0.0, 0.0])), ValueError,
     "wind_options .* given with wind_type=None"),
    (dict(wind_type="constant", wind_options=[1, 2, 3]), TypeError, "wind_options must be a dict"),
    (dict(world_scale="1"), TypeError, "world_scale"),
], ids=["pos-strings", "orn-strings", "pos-bools", "render-str", "render-int", "camera-str",
        "wind-options-unused", "wind-options-list", "scale-str"])
def test_pyflyt_user_mistakes_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        _build(**kwargs)


def test_numpy_scalars_are_numbers():
    with Aviary(ONE_POS.astype(np.float32), ONE_ORN, physics_hz=np.int64(240),
                world_scale=np.float32(1.0), seed=np.uint8(3),
                drone_options=dict(noise=np.float32(0.5), control_hz=np.int32(120))) as env:
        env.set_mode(np.int64(7))
        env.set_setpoint(np.int64(0), np.array([0.5, 0.0, 0.0, 1.0], dtype=np.float32))
        for _ in range(120):
            env.step()
        assert env.state(0)[3][0] > 0.1  # flew toward x = 0.5 m


@pytest.mark.parametrize("setpoint", [["1", "2", "3", "4"], "abcd", [1.0, None, 0.0, 1.0]])
def test_string_setpoints_are_refused_not_parsed(aviary, setpoint):
    with pytest.raises(TypeError, match="setpoint must be a numeric array of shape"):
        aviary.set_setpoint(0, setpoint)
    with pytest.raises(TypeError, match="setpoints must be a numeric array"):
        aviary.set_all_setpoints([setpoint])


def test_physics_rate_with_a_huge_prime_fails_fast_with_a_short_message():
    with pytest.raises(ValueError, match="must divide physics_hz") as caught:
        _build(physics_hz=10**9 + 7)
    assert len(str(caught.value)) < 300  # the divisors are summarised, not listed


@pytest.mark.parametrize("base_mode", [7.0, "7", True, None])
def test_register_controller_wants_an_int_base_mode(aviary, base_mode):
    with pytest.raises(TypeError, match="base_mode must be an int"):
        aviary.drones[0].register_controller(9, Fixed, base_mode=base_mode)
