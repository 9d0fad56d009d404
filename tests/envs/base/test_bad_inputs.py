"""Bad options and actions get a clear error naming what the user passed; numpy numbers work."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.envs import TASKS, FlattenWaypointEnv

from .._env_checks import make

NAMES = sorted(TASKS)
DOME_TASKS = ["QuadX-Waypoints", "QuadX-Pole-Waypoints", "Fixedwing-Waypoints", "QuadX-Gates"]


@pytest.mark.parametrize("name", NAMES)
def test_string_actions_raise_a_type_error_naming_action(name):
    env = make(name)
    try:
        env.reset(seed=0)
        size = env.action_space.shape[0]
        with pytest.raises(TypeError, match="action"):
            env.step(["0"] * size)
        with pytest.raises(TypeError, match="action"):
            env.step("abcd")
        env.step(env.action_space.sample())  # the env is still usable
    finally:
        env.close()


def test_the_flatten_wrapper_passes_bad_actions_to_the_same_check():
    env = FlattenWaypointEnv(make("QuadX-Waypoints"))
    env.reset(seed=0)
    with pytest.raises(TypeError, match="action"):
        env.step(["0"] * 4)
    env.close()


@pytest.mark.parametrize("name", NAMES)
def test_human_render_mode_without_a_display_is_refused_before_the_world_is_built(
        name, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(RuntimeError, match=r'render_mode="human".*display.*"rgb_array"'):
        make(name, render_mode="human")


def test_render_returns_none_without_a_render_mode():
    env = make("QuadX-Hover")
    env.reset(seed=0)
    assert env.render() is None
    env.close()


def test_render_resolution_without_rgb_array_warns_that_it_does_nothing():
    with pytest.warns(UserWarning, match="render_resolution.*no effect"):
        make("QuadX-Hover", render_resolution=(64, 64)).close()


@pytest.mark.filterwarnings("error")
def test_render_resolution_with_rgb_array_or_left_out_does_not_warn():
    make("QuadX-Hover").close()
    make("QuadX-Hover", render_mode="rgb_array", render_resolution=(64, 48)).close()


@pytest.mark.parametrize("resolution", [(64,), (64, 0), "64x64", (64.0, 64), (True, 64)])
def test_bad_render_resolution_is_reported_under_its_own_name(resolution):
    with pytest.raises(ValueError, match="render_resolution") as error:
        make("QuadX-Hover", render_mode="rgb_array", render_resolution=resolution)
    assert "camera_resolution" not in str(error.value)


@pytest.mark.parametrize("name", DOME_TASKS)
def test_bad_flight_dome_size_is_reported_under_its_own_name(name):
    with pytest.raises(TypeError, match="flight_dome_size") as error:
        make(name, flight_dome_size="5")
    assert "spread" not in str(error.value)
    with pytest.raises(ValueError, match="flight_dome_size"):
        make(name, flight_dome_size=-5.0)


def test_a_quadx_dome_too_small_for_targets_is_reported_as_flight_dome_size():
    with pytest.raises(ValueError, match="flight_dome_size must be > 1.0 m"):
        make("QuadX-Waypoints", flight_dome_size=0.8)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("value, error, match", [
    (1e308, ValueError, r"max_duration_seconds must be at most 3600 s"),  # overflowed
    (3600.5, ValueError, "max_duration_seconds"), (np.inf, ValueError, "max_duration_seconds"),
    (np.nan, ValueError, "max_duration_seconds"), (0.0, ValueError, "max_duration_seconds"),
    (-1.0, ValueError, "max_duration_seconds"), (True, TypeError, "max_duration_seconds"),
    ("5", TypeError, "max_duration_seconds")])
def test_bad_max_duration_seconds_raises_naming_it(name, value, error, match):
    with pytest.raises(error, match=match):
        make(name, max_duration_seconds=value)


def test_the_longest_and_a_tiny_duration_are_accepted():
    env = make("QuadX-Hover", max_duration_seconds=3600)
    assert env.unwrapped.max_steps == 3600 * env.unwrapped.agent_hz
    env.close()
    env = make("QuadX-Hover", max_duration_seconds=1e-300)  # one-step episodes
    env.reset(seed=0)
    assert env.step(env.action_space.sample())[3]
    env.close()


@pytest.mark.parametrize("value, error", [("0.5", TypeError), (True, TypeError),
                                          (-0.1, ValueError), (np.inf, ValueError)])
def test_bad_spawn_jitter_raises_naming_it(value, error):
    with pytest.raises(error, match="spawn_jitter"):
        make("QuadX-Hover", spawn_jitter=value)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("name, options", [
    ("QuadX-Hover", {"spawn_jitter": np.float32(0.05), "flight_dome_size": np.float64(4.0),
                     "max_duration_seconds": np.float32(2.0), "agent_hz": np.int64(20),
                     "render_mode": "rgb_array",
                     "render_resolution": (np.int64(32), np.int32(40))}),
    ("QuadX-Waypoints", {"num_targets": np.int32(3), "goal_reach_distance": np.float32(0.3),
                         "goal_reach_angle": np.float16(0.2), "use_yaw_targets": np.bool_(True)}),
    ("QuadX-Gates", {"num_targets": np.int64(3), "min_gate_distance": np.float32(1.0),
                     "max_gate_distance": np.float32(1.5), "max_gate_angle": np.float64(0.3),
                     "camera_resolution": (np.int64(24), np.int64(32))}),
    ("Rocket-Landing", {"ceiling": np.float32(400.0), "max_displacement": np.int64(150)}),
])
def test_numpy_scalars_are_accepted_wherever_a_number_is(name, options):
    env = make(name, **options)
    try:
        env.reset(seed=0)
        observation, *_ = env.step(env.action_space.sample())
        assert env.observation_space.contains(observation)
    finally:
        env.close()


@pytest.mark.parametrize("name, mode", [("QuadX-Hover", True), ("QuadX-Hover", 1.0),
                                        ("QuadX-Hover", "0"), ("Fixedwing-Waypoints", 1.0),
                                        ("Rocket-Landing", False)])
def test_flight_mode_must_be_an_int_not_a_bool_float_or_string(name, mode):
    # True == 1 and 1.0 == 1 would otherwise pick a mode silently.
    with pytest.raises(ValueError, match=r"flight_mode must be one of .* \(an int\)"):
        make(name, flight_mode=mode)
    make(name, flight_mode=np.int64(0)).close()
