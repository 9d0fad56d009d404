"""PyFlyt 0.29 task keywords and class names work unchanged on our tasks."""

from __future__ import annotations

import math
import subprocess
import sys

import gymnasium
import numpy as np
import pytest

import pyflyt_like.envs as envs
from pyflyt_like.envs import FlattenWaypointEnv

from .._env_checks import make

# PyFlyt 0.29's full keyword set of each task (from its signatures), with values a PyFlyt user
# might pass: mostly its defaults, some changed to show they take effect.
COMMON = {"angle_representation": "euler", "render_mode": "rgb_array",
          "render_resolution": (48, 64)}
PYFLYT_KEYWORDS = {
    "QuadXHoverEnv": {"sparse_reward": True, "flight_mode": 0, "flight_dome_size": 3.0,
                      "max_duration_seconds": 10.0, "agent_hz": 40},
    "QuadXWaypointsEnv": {"sparse_reward": False, "num_targets": 3, "use_yaw_targets": True,
                          "goal_reach_distance": 0.2, "goal_reach_angle": 0.1, "flight_mode": 0,
                          "flight_dome_size": 5.0, "max_duration_seconds": 10.0, "agent_hz": 30},
    "QuadXPoleBalanceEnv": {"sparse_reward": False, "flight_mode": -1, "flight_dome_size": 3.0,
                            "max_duration_seconds": 20.0, "agent_hz": 40},
    "QuadXPoleWaypointsEnv": {"sparse_reward": False, "num_targets": 4,
                              "goal_reach_distance": 0.2, "flight_mode": -1,
                              "flight_dome_size": 10.0, "max_duration_seconds": 20.0,
                              "agent_hz": 40},
    "QuadXGatesEnv": {"num_targets": 5, "flight_mode": 0, "goal_reach_distance": 0.21,
                      "min_gate_height": 1.0, "max_gate_angles": [0.0, 0.0, 1.0],
                      "min_gate_distance": 1.0, "max_gate_distance": 4.0,
                      "camera_resolution": (128, 128), "max_duration_seconds": 10.0,
                      "agent_hz": 40},
    "QuadXBallInCupEnv": {"sparse_reward": False, "goal_reach_distance": 1.0,
                          "goal_reach_velocity": 1.0, "flight_mode": 0, "flight_dome_size": 30.0,
                          "max_duration_seconds": 10.0, "agent_hz": 30},
    "FixedwingWaypointsEnv": {"sparse_reward": False, "num_targets": 4,
                              "goal_reach_distance": 2.0, "flight_mode": 0,
                              "flight_dome_size": 100.0, "max_duration_seconds": 120.0,
                              "agent_hz": 30},
    "RocketLandingEnv": {"sparse_reward": False, "ceiling": 500.0, "max_displacement": 200.0,
                         "max_duration_seconds": 30.0, "agent_hz": 40},
}
CLASS_OF = {entry.split(":")[1]: name for name, entry in envs.TASKS.items()}


def test_every_task_class_is_exported_and_is_the_registered_one():
    assert set(PYFLYT_KEYWORDS) == set(CLASS_OF)
    for class_name, task in CLASS_OF.items():
        assert class_name in envs.__all__
        spec = gymnasium.spec(f"pyflyt_like/{task}-v0")
        assert spec.entry_point.endswith(f":{class_name}")
        assert getattr(envs, class_name).__name__ == class_name
    assert "FlattenWaypointEnv" in envs.__all__
    with pytest.raises(AttributeError, match="NoSuchEnv"):
        envs.NoSuchEnv  # noqa: B018


def test_a_task_module_is_loaded_only_when_its_class_is_asked_for():
    code = ("import sys, pyflyt_like.envs as e; from pyflyt_like.envs import TASKS; "
            "loaded = [v.split(':')[0] for v in TASKS.values() "
            "if 'pyflyt_like.envs.' + v.split(':')[0] in sys.modules]; "
            "e.QuadXGatesEnv; print(loaded, 'pyflyt_like.envs.quadx.gates' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout.strip().splitlines()[-1]
    assert result == "[] True"  # no task module on import; the asked-for one on access


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("class_name", sorted(PYFLYT_KEYWORDS))
def test_pyflyt_keyword_set_is_accepted_and_the_env_steps(class_name):
    options = {**COMMON, **PYFLYT_KEYWORDS[class_name]}
    env = getattr(envs, class_name)(**options)
    try:
        assert env.agent_hz == options["agent_hz"]
        assert env.max_duration_seconds == options["max_duration_seconds"]
        assert env.sparse_reward == options.get("sparse_reward", False)
        assert env.angle_representation == "euler"
        assert env.flight_mode == options.get("flight_mode", 0)
        observation, _ = env.reset(seed=0)
        assert env.observation_space.contains(observation)
        observation, reward, *_ = env.step(env.action_space.sample())
        assert env.observation_space.contains(observation) and np.isfinite(reward)
        assert env.render().shape == (48, 64, 3)
    finally:
        env.close()


def test_flatten_waypoint_env_takes_pyflyt_keywords():
    env = FlattenWaypointEnv(env=make("QuadX-Waypoints"), context_length=3)
    assert env.observation_space.shape == (21 + 3 * 3,)  # quaternion attitude, 3 targets
    env.close()


def test_gates_goal_reach_distance_narrows_what_counts_as_passing():
    from pyflyt_like.envs.quadx.gate_course import MISSED, PASSED, crossing
    centre, normal = np.array([0.0, 0.0, 1.5]), np.array([1.0, 0.0, 0.0])
    start, end = centre + (-0.1, 0.3, 0.0), centre + (0.1, 0.3, 0.0)  # 0.3 m off centre
    assert crossing(start, end, centre, normal, 0.4, 0.4) == PASSED
    assert crossing(start, end, centre, normal, 0.4, 0.4, reach=0.21) == MISSED
    env = make("QuadX-Gates", goal_reach_distance=0.21)
    assert env.gates.reach == 0.21
    env.close()


def test_gates_pyflyt_course_gets_a_dome_that_fits_it_and_min_gate_height_holds():
    env = make("QuadX-Gates", num_targets=5, max_gate_distance=4.0, min_gate_height=1.5)
    try:
        farthest = math.hypot(5 * 4.0, 2.5)
        assert env.flight_dome_size > farthest
        for seed in range(5):
            env.reset(seed=seed)
            assert np.all(env.gates.centres[:, 2] >= 1.5)
            assert np.all(env.gates.centres[:, 2] <= 2.5)
            assert np.linalg.norm(env.gates.centres, axis=1).max() < env.flight_dome_size
    finally:
        env.close()


def test_gates_max_gate_angles_bounds_the_turns_by_its_yaw_entry():
    env = make("QuadX-Gates", max_gate_angles=[0.0, 0.0, 0.2])
    assert env.gates.max_angle == pytest.approx(0.2)
    env.close()
    with pytest.warns(UserWarning, match="only the yaw entry"):
        make("QuadX-Gates", max_gate_angles=[0.0, 0.3, 1.0]).close()


@pytest.mark.parametrize("options, error, match", [
    ({"max_gate_angles": [0.0, 0.0, 1.2]}, ValueError, r"max_gate_angles\[2\]"),
    ({"max_gate_angles": [0.0, 1.0]}, ValueError, "max_gate_angles"),
    ({"max_gate_angles": ["0", "0", "1"]}, TypeError, "max_gate_angles"),
    ({"max_gate_angles": [0.0, 0.0, 0.5], "max_gate_angle": 0.5}, ValueError, "not both"),
    ({"min_gate_height": 0.3}, ValueError, "min_gate_height"),
    ({"min_gate_height": "1"}, TypeError, "min_gate_height"),
    ({"goal_reach_distance": 0.0}, ValueError, "goal_reach_distance"),
])
def test_gates_bad_pyflyt_options_raise_naming_them(options, error, match):
    with pytest.raises(error, match=match):
        make("QuadX-Gates", **options)
