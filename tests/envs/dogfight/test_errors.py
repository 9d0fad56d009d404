"""Bad input to the dogfight raises early, clear exceptions naming the argument the user gave,
in the PettingZoo scene and in Dogfight-v0 alike; sizes are refused with the estimate before
anything is built."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import pyflyt_like.common.validation as validation
from pyflyt_like.envs.base.task_options import MAX_DURATION_SECONDS
from pyflyt_like.envs.dogfight.options import MAX_DOME_SIZE, MAX_TEAM_SIZE
from pyflyt_like.envs.dogfight.scene import MAFixedwingDogfightEnv
from pyflyt_like.envs.dogfight.vector_env import DogfightVectorEnv

REAL_OPTIONS = ("spawn_min_radius", "spawn_max_radius", "spawn_min_height",
                "spawn_max_height", "damage_per_hit", "lethal_distance",
                "lethal_angle_radians", "aggressiveness", "cooperativeness",
                "flight_dome_size", "max_duration_seconds")
BAD_REALS = [(1e308, ValueError), (float("inf"), ValueError), (float("nan"), ValueError),
             (-1.0, ValueError), (0.0, ValueError), (True, TypeError), ("5", TypeError),
             (None, TypeError), (1 + 0j, TypeError)]
ZERO_ALLOWED = ("spawn_min_radius", "aggressiveness", "cooperativeness")
# every real-valued option at the extremes: a ValueError or TypeError naming it, never an
# OverflowError (max_duration_seconds=1e308 overflowed the step count) nor a silent
# acceptance (damage_per_hit=1e308 made the rewards infinite, flight_dome_size=1e308 the
# observation bounds)
BAD_OPTIONS = [
    *[({name: value}, error, name) for name in REAL_OPTIONS for value, error in BAD_REALS
      if not (value == 0.0 and name in ZERO_ALLOWED)],
    (dict(max_duration_seconds=1e308), ValueError,
     r"max_duration_seconds must be at most 3600 s"),
    (dict(max_duration_seconds=MAX_DURATION_SECONDS + 1.0), ValueError,
     "max_duration_seconds"),
    (dict(damage_per_hit=1.5), ValueError, r"damage_per_hit must be a number in \(0, 1\]"),
    (dict(flight_dome_size=2 * MAX_DOME_SIZE), ValueError,
     r"flight_dome_size must be a number in \(0, 100000\] m"),
    (dict(lethal_distance=1601.0), ValueError,
     r"lethal_distance must be a number in \(0, 1600\] m \(the dome's diameter\)"),
    (dict(spawn_max_radius=1e308), ValueError, r"spawn points reach 1e\+308 m"),
    (dict(team_size=MAX_TEAM_SIZE + 1), ValueError,
     r"team_size must be a positive integer <= 128"),
    (dict(team_size=10**4), ValueError, "team_size"),  # 36 GiB of space bounds
    (dict(team_size=0), ValueError, "team_size"),
    (dict(team_size=2.0), TypeError, "team_size"),
    (dict(team_size=True), TypeError, "team_size"),
    (dict(agent_hz=7), ValueError, "agent_hz"),
    (dict(agent_hz=10**12), ValueError, "agent_hz"),
    (dict(agent_hz=30.0), TypeError, "agent_hz"),
]


def _option_id(case) -> str:
    (name, value), = case[0].items()
    return f"{name}={value!r}"[:40]


@pytest.mark.parametrize(("options", "error", "match"), BAD_OPTIONS,
                         ids=[_option_id(case) for case in BAD_OPTIONS])
def test_bad_options_raise_naming_the_option_in_the_scene_and_the_vector_env(
        options, error, match):
    with pytest.raises(error, match=match):
        MAFixedwingDogfightEnv(**options)
    with pytest.raises(error, match=match):
        DogfightVectorEnv(num_envs=4, **options)


@pytest.mark.parametrize(("num_envs", "error"), [
    (0, ValueError), (-4, ValueError), (4.0, TypeError), (True, TypeError), ("4", TypeError),
    (None, TypeError), (6, ValueError)])  # 6: no multiple of the 4 aircraft of a world
def test_bad_num_envs_is_named(num_envs, error):
    with pytest.raises(error, match="num_envs"):
        DogfightVectorEnv(num_envs=num_envs)


# ---------------------------------------------------------------------------------- sizes
@pytest.mark.parametrize(("options", "match"), [
    # the engine's own check named n_worlds, which the user never passed
    (dict(num_envs=10**12), r"^num_envs=1000000000000 \(250000000000 worlds of 4 aircraft\) "
                            r"needs about .* GiB, more than the 16 GiB allowed.*use fewer "
                            r"envs or a smaller team_size$"),
    # the largest teams: 500 worlds of 256 aircraft hold 13 GiB of observations and space
    # bounds (each aircraft observes the 255 others)
    (dict(num_envs=500 * 2 * MAX_TEAM_SIZE, team_size=MAX_TEAM_SIZE),
     r"^num_envs=128000 \(500 worlds of 256 aircraft\) needs about 1\d(\.\d+)? GiB"),
    (dict(num_envs=1000 * MAX_TEAM_SIZE, team_size=MAX_TEAM_SIZE, opponent="scripted"),
     r"^num_envs=128000 \(1000 worlds of 256 aircraft\) needs about"),
])
def test_a_size_too_large_is_refused_naming_num_envs_before_anything_is_built(
        monkeypatch, options, match):
    monkeypatch.setattr(validation, "memory_limit_bytes", lambda: 16 * 2**30)
    DogfightVectorEnv(num_envs=4).close()  # modules loaded outside the trace
    tracemalloc.start()
    with pytest.raises(ValueError, match=match):
        DogfightVectorEnv(**options)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 4 * 2**20  # nothing sized by num_envs was allocated


def test_the_largest_team_runs():
    envs = DogfightVectorEnv(num_envs=2 * MAX_TEAM_SIZE, team_size=MAX_TEAM_SIZE,
                             max_duration_seconds=MAX_DURATION_SECONDS,
                             flight_dome_size=MAX_DOME_SIZE, lethal_distance=2 * MAX_DOME_SIZE,
                             damage_per_hit=1.0)
    try:
        assert envs.params.max_steps == MAX_DURATION_SECONDS * 30
        observations, _ = envs.reset(seed=0)
        assert observations.shape == (2 * MAX_TEAM_SIZE, 24 + 12 * (2 * MAX_TEAM_SIZE - 1))
        observations, rewards, *_ = envs.step(np.zeros(envs.action_space.shape))
        assert np.isfinite(observations).all() and np.isfinite(rewards).all()
    finally:
        envs.close()


def test_a_tiny_duration_gives_one_step_episodes_on_both_engines():
    envs = DogfightVectorEnv(num_envs=4, max_duration_seconds=1e-300)
    scene = MAFixedwingDogfightEnv(max_duration_seconds=1e-300)
    try:
        assert envs.params.max_steps == scene.max_steps == 1
        envs.reset(seed=0)
        assert envs.step(np.zeros(envs.action_space.shape))[3].all()
        scene.reset(seed=0)
        truncations = scene.step({agent: np.zeros(4) for agent in scene.agents})[3]
        assert all(truncations.values())
    finally:
        envs.close()
        scene.close()
