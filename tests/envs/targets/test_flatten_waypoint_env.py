"""FlattenWaypointEnv: one Box of attitude + the next k target deltas, zero-padded."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pybullet
import pytest
from gymnasium.utils.env_checker import check_env

from pyflyt_like.envs import FlattenWaypointEnv

from .._env_checks import make

WAYPOINT_TASKS = ["QuadX-Waypoints", "Fixedwing-Waypoints"]


def wrapped(name: str, context_length: int = 2, **options) -> FlattenWaypointEnv:
    return FlattenWaypointEnv(gymnasium.make(f"pyflyt_like/{name}-v0", **options),
                              context_length=context_length)


@pytest.mark.parametrize("name", WAYPOINT_TASKS)
@pytest.mark.parametrize("context_length", [1, 2, 3])
@pytest.mark.parametrize("use_yaw_targets", [False, True])
def test_shape_is_attitude_plus_k_deltas(name, context_length, use_yaw_targets):
    env = wrapped(name, context_length, use_yaw_targets=use_yaw_targets)
    attitude = env.unwrapped.observation_space["attitude"].shape[0]
    width = 4 if use_yaw_targets else 3
    assert env.observation_space.shape == (attitude + context_length * width,)
    assert env.observation_space.dtype == np.float64
    observation, _ = env.reset(seed=0)
    assert observation.shape == env.observation_space.shape
    env.close()


@pytest.mark.parametrize("name", WAYPOINT_TASKS)
def test_values_are_the_attitude_and_the_next_deltas(name):
    env = wrapped(name, context_length=3)
    observation, _ = env.reset(seed=2)
    for _ in range(20):
        raw = env.unwrapped.observe()  # the Dict the wrapper flattened, rebuilt
        n = raw["attitude"].shape[0]
        np.testing.assert_array_equal(observation[:n], raw["attitude"])
        np.testing.assert_array_equal(observation[n:], raw["target_deltas"][:3].ravel())
        observation, *_ = env.step(env.action_space.sample())
    env.close()


@pytest.mark.parametrize("name", WAYPOINT_TASKS)
def test_observations_stay_in_the_space(name):
    env = wrapped(name, context_length=2)
    env.action_space.seed(0)
    observation, _ = env.reset(seed=3)
    for _ in range(300):
        assert env.observation_space.contains(observation)
        observation, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            observation, _ = env.reset()
    env.close()


def test_missing_targets_are_padded_with_zeros():
    env = wrapped("QuadX-Waypoints", context_length=3)
    env.reset(seed=0)
    quad = env.unwrapped
    attitude = quad.observation_space["attitude"].shape[0]
    hold = quad.action_mapping.to_action((0.0, 0.0, 0.0, 0.0))
    for reached in range(1, 4):  # teleport onto each target in turn (no spawn-time physics)
        target = quad.targets.current
        pybullet.resetBasePositionAndOrientation(quad.drone.Id, target.tolist(), (0, 0, 0, 1),
                                                 physicsClientId=quad.drone.client_id)
        pybullet.resetBaseVelocity(quad.drone.Id, (0, 0, 0), (0, 0, 0),
                                   physicsClientId=quad.drone.client_id)
        quad.drone.update_state()
        observation, reward, *_, info = env.step(hold)
        assert info["num_targets_reached"] == reached
        remaining = 4 - reached
        deltas = observation[attitude:].reshape(3, 3)
        shown = min(remaining, 3)
        assert np.all(np.any(deltas[:shown] != 0.0, axis=1))
        np.testing.assert_array_equal(deltas[shown:], 0.0)
    env.close()


def test_padding_of_an_empty_and_a_short_sequence():
    env = wrapped("Fixedwing-Waypoints", context_length=2)
    attitude = np.arange(env.unwrapped.attitude.size, dtype=np.float64)
    empty = env.observation({"attitude": attitude, "target_deltas": np.zeros((0, 3))})
    short = env.observation({"attitude": attitude,
                             "target_deltas": np.array([[1.0, 2.0, 3.0]])})
    np.testing.assert_array_equal(empty, np.concatenate([attitude, np.zeros(6)]))
    np.testing.assert_array_equal(short, np.concatenate([attitude, [1, 2, 3, 0, 0, 0]]))
    env.close()


@pytest.mark.parametrize("name", WAYPOINT_TASKS)
def test_checker_passes_without_warnings(name):
    env = FlattenWaypointEnv(make(name), context_length=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # The one warning allowed: the checker notes that it checks a wrapper.
        warnings.filterwarnings("ignore", message=".*different from the unwrapped version")
        check_env(env, skip_render_check=True)
    env.close()


@pytest.mark.parametrize("context_length, error", [
    (0, ValueError), (-2, ValueError), (1.5, TypeError), (True, TypeError), ("2", TypeError)])
def test_bad_context_length_raises(context_length, error):
    env = make("QuadX-Waypoints")
    with pytest.raises(error, match="context_length"):
        FlattenWaypointEnv(env, context_length=context_length)
    env.close()


def test_an_env_without_the_waypoint_layout_is_refused():
    env = gymnasium.make("pyflyt_like/QuadX-Hover-v0")
    with pytest.raises(ValueError, match="'attitude'.*'target_deltas'"):
        FlattenWaypointEnv(env)
    env.close()
