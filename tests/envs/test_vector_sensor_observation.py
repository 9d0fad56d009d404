"""observation="sensors" on the Multirotor tasks: the VectorEnv and its PyBullet twin observe
the drone's sensor readings through one implementation (rules.observe)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import pyflyt_like.envs  # noqa: F401  (registers the ids)
from pyflyt_like.envs.base.sensor_observation import DEFAULT_SENSORS

IDEAL = {"imu": "ideal", "baro": "ideal", "mag": "ideal", "gnss": "ideal"}
HOVER_FEATURES = 3
K = 4  # mode 1: roll, pitch, yaw rate, thrust
# the truth layout after Hover's features: rotation (9), velocity (3), body rates (3)
TRUTH_VELOCITY, TRUTH_RATES = slice(12, 15), slice(15, 18)
# the sensed layout after the features: imu accel (3), gyro (3), baro altitude (1), mag (3),
# gnss position (3), velocity (3), fix (1)
ACCEL, GYRO, ALTITUDE = slice(3, 6), slice(6, 9), 9
GNSS_POSITION, GNSS_VELOCITY, FIX = slice(13, 16), slice(16, 19), 19


def make_vec(num_envs: int, task: str = "Hover", **options):
    return gymnasium.make_vec(f"pyflyt_like/Multirotor-{task}-v0", num_envs=num_envs,
                              vectorization_mode="vector_entry_point", **options)


def make_twin(task: str = "Hover", **options):
    return gymnasium.make(f"pyflyt_like/Multirotor-{task}-v0", **options)


def rollout(env, actions, seed=3):
    observation, _ = env.reset(seed=seed)
    out = [observation.copy()]
    for action in actions:
        observation, *_ = env.step(action)
        out.append(observation.copy())
    return np.array(out)


ACTIONS = np.random.default_rng(2).normal(0.0, 0.1, (40, K)).astype(np.float32)


def test_the_space_has_the_configured_sensors_blocks():
    envs = make_vec(2, observation="sensors")
    twin = make_twin(observation="sensors")
    try:
        # features 3, imu 6, baro 1, mag 3, gnss 7, action 4: the default sensors
        assert envs.single_observation_space.shape == (3 + 6 + 1 + 3 + 7 + K,)
        assert twin.observation_space == envs.single_observation_space
        assert set(envs.unwrapped.options.sensors) == set(DEFAULT_SENSORS)
        only = make_vec(1, observation="sensors", sensors={"gnss": "default"})
        assert only.single_observation_space.shape == (3 + 7 + K,)
        only.close()
    finally:
        envs.close()
        twin.close()


def test_twin_with_sensor_observation_passes_check_env():
    env = make_twin("Track", observation="sensors", sensors={"imu": "bmi088",
                                                              "gnss": "default",
                                                              "range": "default"})
    try:
        check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()


def test_ideal_sensors_observe_the_true_state():
    """With ideal sensors the GNSS position is the truth: the features equal the truth
    observation's, the gyro its body rates, the GNSS velocity its velocity; the flight is
    the same (sensors do not act on the drone)."""
    actions = ACTIONS[:, None]
    truth = make_vec(1)
    sensed = make_vec(1, observation="sensors", sensors=IDEAL)
    try:
        obs_t = rollout(truth, actions)[:, 0]
        obs_s = rollout(sensed, actions)[:, 0]
        pos = sensed.unwrapped.sim.pos[0, 0]
        altitude = sensed.unwrapped.sim.read_sensors()["baro"]["altitude"][0, 0]
    finally:
        truth.close()
        sensed.close()
    np.testing.assert_allclose(obs_s[:, :HOVER_FEATURES], obs_t[:, :HOVER_FEATURES], atol=1e-6)
    np.testing.assert_allclose(obs_s[:, GYRO], obs_t[:, TRUTH_RATES], atol=1e-5)
    np.testing.assert_allclose(obs_s[:, GNSS_VELOCITY], obs_t[:, TRUTH_VELOCITY], atol=1e-6)
    np.testing.assert_array_equal(obs_s[:, FIX], 1.0)
    np.testing.assert_allclose(obs_s[-1, GNSS_POSITION], pos, atol=1e-6)
    assert obs_s[-1, ALTITUDE] == pytest.approx(altitude, abs=1e-4)
    assert altitude == pytest.approx(pos[2], abs=1e-3)  # sea level at z = 0
    # around hover (zero-mean thrust commands) the accelerometer reads +g on body z on average
    assert obs_s[1:, ACCEL][:, 2].mean() == pytest.approx(9.81, abs=0.5)
    assert np.all(np.abs(obs_s[1:, ACCEL][:, :2].mean(axis=0)) < 0.5)


def test_twin_and_vector_env_agree_with_ideal_sensors():
    """Both engines: the same seed and actions give the same sensor observations."""
    envs = make_vec(1, "Reach", observation="sensors", sensors=IDEAL)
    twin = make_twin("Reach", observation="sensors", sensors=IDEAL)
    try:
        obs_v = rollout(envs, ACTIONS[:, None])[:, 0]
        obs_t = rollout(twin, ACTIONS)
    finally:
        envs.close()
        twin.close()
    np.testing.assert_allclose(obs_v, obs_t, atol=2e-4)


def test_noisy_sensors_same_seed_same_stream_other_seed_other():
    envs = make_vec(3, observation="sensors")
    try:
        first = rollout(envs, ACTIONS[:10, None].repeat(3, axis=1), seed=5)
        again = rollout(envs, ACTIONS[:10, None].repeat(3, axis=1), seed=5)
        other = rollout(envs, ACTIONS[:10, None].repeat(3, axis=1), seed=6)
        np.testing.assert_array_equal(first, again)
        assert not np.array_equal(first[:, :, ACCEL], other[:, :, ACCEL])
        # each world has its own units and noise
        assert not np.array_equal(first[:, 0, ACCEL], first[:, 1, ACCEL])
        sim = envs.unwrapped.sim
        readings = sim.read_sensors()
        np.testing.assert_allclose(other[-1, :, GYRO], readings["imu"]["gyro"][:, 0],
                                   rtol=1e-6, atol=1e-7)
    finally:
        envs.close()


def test_the_episodes_do_not_depend_on_the_sensors():
    """The sensors' streams are drawn after the starts' and the noise's: the same seed
    starts the same episodes with or without sensors."""
    truth, sensed = make_vec(4, "Reach"), make_vec(4, "Reach", observation="sensors")
    try:
        truth.reset(seed=9)
        sensed.reset(seed=9)
        np.testing.assert_array_equal(truth.unwrapped.task.target, sensed.unwrapped.task.target)
        np.testing.assert_array_equal(truth.unwrapped.sim.pos, sensed.unwrapped.sim.pos)
    finally:
        truth.close()
        sensed.close()


def test_an_autoreset_samples_the_new_start():
    """After an episode ends, the next step restarts the world: new units, the sensors'
    clock back to 0, an ideal GNSS reading the new start."""
    envs = make_vec(1, observation="sensors", sensors=IDEAL, max_duration_seconds=0.1)
    try:
        envs.reset(seed=1)
        for _ in range(5):
            _, _, terminated, truncated, _ = envs.step(np.zeros((1, K)))
        assert truncated[0] or terminated[0]
        observation, reward, *_ = envs.step(np.zeros((1, K)))
        sim = envs.unwrapped.sim
        assert reward[0] == 0.0
        assert sim.read_sensors()["imu"]["time"][0, 0] == 0.0
        np.testing.assert_allclose(observation[0, GNSS_POSITION], sim.pos[0, 0], atol=1e-6)
    finally:
        envs.close()


@pytest.mark.parametrize("options, error, match", [
    ({"observation": "state"}, ValueError, "observation must be one of"),
    ({"observation": "sensors", "sensors": {"imu": "default"}}, ValueError,
     'sensors must include "gnss"'),
    ({"sensors": {"imu": "nope"}}, ValueError, "nope"),
    ({"sensors": {"gnss": {"preset": "default", "update_rate": 7}}}, ValueError,
     "update_rate"),
    ({"sensors": "default"}, TypeError, "sensors must be None or a dict"),
])
def test_bad_sensor_options_raise_naming_the_option(options, error, match):
    with pytest.raises(error, match=match):
        make_vec(1, **options)
    with pytest.raises(error, match=match):
        make_twin(**options)
