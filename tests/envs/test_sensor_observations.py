"""``observation="sensors"`` on the PyBullet single-agent tasks (docs/envs.md, "Sensor
observation"): with the "ideal" presets the observation is the closed form of the true
state; with "default" it is not; the spaces pass gymnasium's checker."""

from __future__ import annotations

import numpy as np
import pytest

from pyflyt_like.sensors import earth_field
from tests.envs._env_checks import assert_checker_clean, make

IDEAL = {"imu": "ideal", "baro": "ideal", "mag": "ideal", "gnss": "ideal", "range": "ideal"}
GRAVITY = 9.81


def record_velocity(env) -> dict[str, np.ndarray]:
    """Keep the drone's world velocity before and after the latest physics step."""
    drone, record = env.drone, {"before": np.zeros(3), "after": np.zeros(3)}
    inner = drone.update_last

    def update_last(physics_step: int) -> None:
        record["before"], record["after"] = record["after"], drone.world_velocity.copy()
        inner(physics_step)

    drone.update_last = update_last
    return record


def steps(env, count: int = 10, seed: int = 3):
    """Reset, then ``count`` moderate actions; yield each observation."""
    observation, _ = env.reset(seed=seed)
    rng = np.random.default_rng(0)
    low, high = env.action_space.low, env.action_space.high
    for _ in range(count):
        action = (low + high) / 2 + 0.2 * (high - low) / 2 * rng.uniform(-1, 1, low.shape)
        observation, *_ = env.step(action)
        yield observation


def test_ideal_sensors_read_the_closed_form_of_the_true_state():
    env = make("QuadX-Hover", observation="sensors", sensors=IDEAL)
    velocity = record_velocity(env)
    period = env.aviary.physics_period
    field = earth_field(48.0, 3.0, 63.0)  # the ideal magnetometer keeps the default's field
    for observation in steps(env):
        drone = env.drone
        rotation = drone.rotation_matrix  # body to world
        specific_force = rotation.T @ ((velocity["after"] - velocity["before"]) / period
                                       + (0.0, 0.0, GRAVITY))
        np.testing.assert_allclose(observation[0:3], specific_force, atol=1e-8)
        np.testing.assert_allclose(observation[3:6], drone.state[0], atol=1e-12)  # gyro
        np.testing.assert_allclose(observation[6], drone.state[3, 2], atol=1e-6)  # baro
        np.testing.assert_allclose(observation[7:10], rotation.T @ field, atol=1e-10)
        np.testing.assert_allclose(observation[10:13], drone.state[3], atol=1e-12)  # gnss
        np.testing.assert_allclose(observation[13:16], drone.world_velocity, atol=1e-12)
        assert observation[16] == 1.0  # fix
        # Range from the base along body -z to the floor (z = 0); Bullet's ray is float32.
        np.testing.assert_allclose(observation[17], drone.state[3, 2] / rotation[2, 2],
                                   rtol=1e-5)
        assert observation[18] == 1.0  # valid
        np.testing.assert_array_equal(observation[19:23], env.action)
        np.testing.assert_array_equal(observation[23:27], drone.aux_state)
    assert env.observation_space.shape == (27,)
    env.close()


@pytest.mark.parametrize("name", ["QuadX-Waypoints", "Fixedwing-Waypoints"])
def test_ideal_gnss_target_deltas_equal_the_truth_ones(name):
    sensed = make(name, observation="sensors", sensors={"gnss": "ideal"})
    truth = make(name, drone_options={"sensors": {"gnss": "ideal"}})  # same random draws
    for a, b in zip(steps(sensed), steps(truth), strict=True):
        np.testing.assert_allclose(a["target_deltas"], b["target_deltas"], atol=1e-12)
        np.testing.assert_allclose(a["attitude"][0:3], sensed.drone.state[3], atol=1e-12)
    sensed.close()
    truth.close()


def test_default_sensors_are_mounted_and_differ_from_the_truth():
    env = make("QuadX-Hover", observation="sensors")
    assert set(env.drone.sensors.params) == {"imu", "baro", "mag", "gnss"}
    assert env.observation_space.shape == (17 + 4 + 4,)  # sensed, action, throttles
    for observation in steps(env):
        drone = env.drone
        assert not np.allclose(observation[3:6], drone.state[0], atol=1e-6)  # gyro noise
        assert not np.allclose(observation[10:13], drone.state[3], atol=1e-3)  # gnss error
        assert env.observation_space.contains(observation)
    env.close()


def test_default_sensor_observations_replay_with_the_seed():
    env = make("QuadX-Waypoints", observation="sensors")
    first = [o["attitude"].copy() for o in steps(env)]
    second = [o["attitude"].copy() for o in steps(env)]
    env.close()
    np.testing.assert_array_equal(np.array(first), np.array(second))


@pytest.mark.parametrize("name", ["QuadX-Hover", "QuadX-Waypoints", "Fixedwing-Waypoints"])
def test_check_env_passes_with_sensor_observations(name):
    assert_checker_clean(name, observation="sensors")


@pytest.mark.parametrize("name", ["QuadX-Pole-Balance", "QuadX-Ball-In-Cup", "Rocket-Landing"])
def test_check_env_passes_with_sensor_observations_on_the_other_tasks(name):
    assert_checker_clean(name, observation="sensors", sensors={"imu": "bmi088", "gnss": "default",
                                                                "range": "default"})


def test_check_env_passes_with_sensors_and_delays_together():
    assert_checker_clean("QuadX-Waypoints", observation="sensors", observation_delay_steps=2,
                         action_delay_physics_steps=3, padded_target_deltas=True)


def test_bad_sensor_options_are_clear_errors():
    with pytest.raises(ValueError, match="observation must be one of"):
        make("QuadX-Hover", observation="estimate")
    with pytest.raises(TypeError, match="sensors must be None or a dict"):
        make("QuadX-Hover", observation="sensors", sensors="default")
    with pytest.raises(ValueError, match="sensors given twice"):
        make("QuadX-Hover", sensors={"imu": "default"},
             drone_options={"sensors": {"gnss": "default"}})
    with pytest.raises(ValueError, match='sensors must include "gnss"'):
        make("QuadX-Waypoints", observation="sensors", sensors={"imu": "default"})
    with pytest.raises(ValueError, match="drone_options"):
        make("QuadX-Hover", observation="sensors", sensors={"imu": "no-such-unit"})


def test_sensors_with_the_truth_observation_are_mounted_but_not_observed():
    env = make("QuadX-Hover", sensors={"gnss": "default"})
    observation, _ = env.reset(seed=0)
    assert set(env.aviary.read_sensors(0)) == {"gnss"}
    np.testing.assert_array_equal(observation[10:13], env.drone.state[3])  # true position
    env.close()
