"""Bad input raises early, clear exceptions that name the argument."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pybullet
import pytest

import pyflyt_like
from pyflyt_like.common.validation import NumericalError
from pyflyt_like.core import Aviary
from pyflyt_like.core.abstractions import PID, BoringBodies, ControlClass, Motors

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
    (dict(start_pos=[["0", "0", "1"]]), TypeError, r"start_pos must be a numeric array"),
    (dict(start_orn=[["0", "0", "0"]]), TypeError, r"start_orn must be a numeric array"),
    (dict(start_orn=np.zeros((2, 3))), ValueError, "start_orn"),
    (dict(start_orn=np.zeros(3)), ValueError, "start_orn"),
    (dict(start_orn=np.array([[0.0, np.inf, 0.0]])), ValueError, "start_orn"),
], ids=["pos-1d", "pos-4-cols", "pos-empty", "pos-nan", "pos-str", "pos-digit-strs",
        "orn-digit-strs", "orn-rows", "orn-1d", "orn-inf"])
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


@pytest.mark.parametrize("mappings, match", [
    ([("thing", Aviary)], r"drone_type_mappings must be None or a dict"),
    ({3: Aviary}, r"drone_type_mappings keys must be drone type names \(str\), got 3"),
], ids=["list", "int-key"])
def test_drone_type_mappings_must_be_a_dict_of_names(mappings, match):
    # Found by this suite: a list failed with "'list' object has no attribute 'items'".
    with pytest.raises(TypeError, match=match):
        _build(drone_type_mappings=mappings)


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


@pytest.mark.parametrize("noise, error", [
    (-1.0, ValueError), (-1, ValueError), (float("nan"), ValueError), (float("inf"), ValueError),
    ("loud", TypeError), ("x", TypeError), (True, TypeError), (None, TypeError),
])
def test_bad_noise_is_named_as_the_user_wrote_it(noise, error):
    # Found by this suite: noise=inf passed QuadX's check and was reported by the motors as
    # "noise_ratio must be finite", a name the user never wrote.
    with pytest.raises(error, match=r"^noise must be a finite number >= 0") as info:
        _build(drone_options=dict(noise=noise))
    assert "noise_ratio" not in str(info.value)


@pytest.mark.parametrize("options, error, match", [
    (dict(model_dir=3), TypeError, r"model_dir must be None or the path"),
    (dict(drone_model=3), TypeError, r"drone_model must be a non-empty string"),
    (dict(drone_model=""), TypeError, r"drone_model must be a non-empty string"),
    (dict(control_hz="120"), TypeError, r"control_hz must be a positive integer"),
    (dict(control_hz=120.5), TypeError, r"control_hz must be a positive integer"),
])
@pytest.mark.parametrize("drone_type", ["quadx", "multirotor"])
def test_bad_model_options_are_named(drone_type, options, error, match):
    # Found by this suite: model_dir=3 failed inside pathlib ("expected str, bytes or
    # os.PathLike object, not int"), and Multirotor's drone_model=3 likewise.
    with pytest.raises(error, match=match):
        _build(drone_type=drone_type, drone_options=options)


@pytest.mark.parametrize("resolution", [(10**6, 10**6), (16385, 16), (16, 10**9)])
def test_camera_resolution_beyond_what_pybullet_renders_is_refused(resolution):
    # Found by this suite: camera_resolution=(10**6, 10**6) crashed the process (segmentation
    # fault in PyBullet's renderer) at the first capture.
    with pytest.raises(ValueError, match=r"camera_resolution sides must be at most 16384 px"):
        _build(drone_options=dict(use_camera=True, camera_resolution=resolution))


def test_non_bool_flags_are_refused():
    with pytest.raises(TypeError, match=r"use_camera must be a bool, got 'yes'"):
        _build(drone_options=dict(use_camera="yes"))
    with pytest.raises(TypeError, match=r"render must be a bool, got 'no'"):
        _build(render="no")
    with pytest.raises(TypeError, match=r"render must be a bool, got 1"):
        _build(render=1)  # switches take bools only; 0/1 is set_armed's PyFlyt habit


def test_numpy_scalars_are_accepted_where_numbers_are():
    with Aviary(np.array([[0.0, 0.0, 1.0]], dtype=np.float32), np.zeros((1, 3), np.float32),
                physics_hz=np.int64(240), world_scale=np.float32(1.0), seed=np.int64(0),
                drone_options=dict(noise=np.float32(0.5), control_hz=np.int64(120))) as av:
        assert av.physics_hz == 240 and type(av.physics_hz) is int
        av.set_mode(np.int64(7))
        av.set_setpoint(np.int64(0), [np.float32(0.5), np.float64(0.0), np.int64(0),
                                      np.float32(1.0)])
        av.set_all_setpoints(np.array([[0.5, 0.0, 0.0, 1.0]], dtype=np.float32))
        av.set_armed(np.bool_(True))
        av.step()
        np.testing.assert_array_equal(av.drones[0].setpoint, [0.5, 0.0, 0.0, 1.0])


def test_wind_options_without_a_wind_type_have_no_effect_and_are_refused():
    with pytest.raises(ValueError, match=r"wind_options \['velocity'\] given with wind_type=None"):
        _build(wind_options=dict(velocity=(1.0, 0.0, 0.0)))
    _build(wind_options={})  # empty options are harmless


@pytest.mark.parametrize("wind_type", [None, "constant"])
@pytest.mark.parametrize("wind_options", [[1, 2, 3], "velocity", (("velocity", 1.0),)])
def test_wind_options_must_be_a_dict(wind_type, wind_options):
    with pytest.raises(TypeError, match=r"wind_options must be a dict"):
        _build(wind_type=wind_type, wind_options=wind_options)


def test_pathological_physics_rate_fails_fast_with_a_short_message():
    # 10**9 + 7 is prime: no drone rate divides it. The message must not list (or search)
    # for long; 10**18 has 361 divisors and a square root of 10**9.
    for physics_hz in (10**9 + 7, 10**18):
        with pytest.raises(ValueError, match=r"control_hz=120 Hz must divide physics_hz") as info:
            _build(physics_hz=physics_hz)
        assert len(str(info.value)) < 500, str(info.value)
        assert str(physics_hz) in str(info.value)


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


@pytest.mark.parametrize("drone_type", ["quadx", "fixedwing", "rocket", "multirotor",
                                        "quadplane"])
def test_string_setpoints_are_refused_by_every_vehicle(drone_type):
    with Aviary(ONE_POS, ONE_ORN, drone_type=drone_type, seed=0) as av:
        drone = av.drones[0]
        size = drone.setpoint.shape[0]
        before = drone.setpoint.copy()
        digits = [str(i + 1) for i in range(size)]  # ["1", "2", "3", "4"]: a typo, not numbers
        shape = rf"\({size},\)"
        with pytest.raises(TypeError, match=rf"setpoint must be a numeric array of shape {shape}"):
            drone.set_setpoint(digits)
        with pytest.raises(TypeError, match=r"setpoint must be a numeric array"):
            av.set_setpoint(0, digits)
        with pytest.raises(TypeError, match=r"setpoints must be a numeric array"):
            av.set_all_setpoints([digits])
        with pytest.raises(TypeError, match=r"setpoints must be a numeric array"):
            av.set_all_setpoints([[1.0, "1"] + [0.0] * (size - 2)])  # one string among numbers
        np.testing.assert_array_equal(drone.setpoint, before)
        drone.set_setpoint(np.full(size, np.float32(0.0)))  # numpy scalars are numbers


@pytest.mark.parametrize("setpoints", [
    np.zeros((2, 4)), np.zeros(4), np.full((1, 4), np.nan),
], ids=["rows", "1d", "nan"])
def test_bad_setpoints_for_all(aviary, setpoints):
    with pytest.raises(ValueError, match="setpoints"):
        aviary.set_all_setpoints(setpoints)


def test_set_all_setpoints_is_all_or_nothing():
    # Found by this suite: a wrong second row used to raise after the first drone's setpoint
    # had been applied.
    with Aviary(np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 1.0]]), np.zeros((2, 3)),
                drone_type=["quadx", "rocket"], seed=0) as av:
        before = [d.setpoint.copy() for d in av.drones]
        with pytest.raises(ValueError, match=r"setpoints\[1\] must have shape \(7,\) for drone 1"):
            av.set_all_setpoints(np.ones((2, 4)))
        with pytest.raises(TypeError, match=r"setpoints\[1\] must be a numeric array"):
            av.set_all_setpoints([np.ones(4), ["1"] * 7])
        for drone, setpoint in zip(av.drones, before):
            np.testing.assert_array_equal(drone.setpoint, setpoint)
        # A mixed fleet takes one setpoint per drone, each of its own length.
        av.set_all_setpoints([np.ones(4), np.full(7, 0.5)])
        np.testing.assert_array_equal(av.drones[1].setpoint, np.full(7, 0.5))


def test_set_mode_list_is_all_or_nothing():
    with Aviary(np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 1.0]]), np.zeros((2, 3)),
                drone_type=["quadx", "fixedwing"], seed=0) as av:
        with pytest.raises(ValueError, match=r"mode must be one of \[-1, 0, 1, 2, 3\], got 7"):
            av.set_mode([7, 7])  # 7 is a QuadX mode, not a Fixedwing one
        assert [d.mode for d in av.drones] == [0, 0]
        av.set_mode([7, 1])
        assert [d.mode for d in av.drones] == [7, 1]


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


ARMING_RULE = r"settings must be a bool or the int 0 or 1 \(for every drone\), or a list of 1"


@pytest.mark.parametrize("settings", [2, -1, np.int64(2), [2], np.array([3])])
def test_arming_with_other_ints_is_a_value_error(aviary, settings):
    with pytest.raises(ValueError, match=ARMING_RULE):
        aviary.set_armed(settings)


@pytest.mark.parametrize("settings", ["yes", "1", 0.5, 1.0, np.float64(0.0), None, [None],
                                      ["yes"], np.array([1.0]), [[True]]])
def test_arming_with_non_flags_is_a_type_error(aviary, settings):
    with pytest.raises(TypeError, match=ARMING_RULE):
        aviary.set_armed(settings)
    assert aviary.armed.tolist() == [True]  # nothing half-applied


def test_arming_rule_is_the_same_per_drone():
    with Aviary(np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 1.0]]), np.zeros((2, 3)), seed=0) as av:
        av.set_armed([1, np.bool_(False)])
        assert av.armed.tolist() == [True, False]
        av.set_armed(np.array([0, 1]))
        assert av.armed.tolist() == [False, True]
        av.set_armed((True, np.int8(1)))
        assert av.armed.tolist() == [True, True]
        av.set_armed(np.array(False))  # a 0-d array is one flag for all
        assert av.armed.tolist() == [False, False]
        with pytest.raises(ValueError, match="list of 2"):
            av.set_armed([1, 2])
        with pytest.raises(TypeError, match="list of 2"):
            av.set_armed([1, "yes"])
        with pytest.raises(ValueError, match="list of 2"):
            av.set_armed([True])


@pytest.mark.parametrize("settings", [0, [0], np.array([False]), np.int64(0), np.array([0])])
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
    with pytest.raises(TypeError, match=r"base_mode must be an int, got 7.0"):
        drone.register_controller(controller_id=9, controller_constructor=Fixed, base_mode=7.0)
    with pytest.raises(TypeError, match=r"controller_id must be an int, got 9.0"):
        drone.register_controller(controller_id=9.0, controller_constructor=Fixed, base_mode=7)
    with pytest.raises(TypeError, match=r"base_mode must be an int, got '7'"):
        drone.register_controller(controller_id=9, controller_constructor=Fixed, base_mode="7")
    assert drone.registered_controllers == {}  # nothing half-registered
    drone.register_controller(np.int64(9), Fixed, base_mode=np.int64(7))  # numpy ints are ints


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
    (dict(start_pos=[[True, False, True]]), TypeError, "start_pos must be a numeric array"),
    (dict(world_scale="1"), TypeError, "world_scale"),
], ids=["pos-bools", "scale-str"])
def test_pyflyt_user_mistakes_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        _build(**kwargs)
