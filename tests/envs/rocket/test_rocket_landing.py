"""Task logic of Rocket-Landing: touchdowns, crashes, the flight box, the stage's dynamics."""

from __future__ import annotations

import math

import numpy as np
import pybullet
import pytest

from pyflyt_like.envs.base.aviary_env import FAILURE_PENALTY
from pyflyt_like.envs.rocket.landing import (
    LANDING_BONUS,
    SAFE_LANDING_SPEED,
    SHAPING_GAIN,
    SPAWN_DESCENT_SPEED,
    SPAWN_HEIGHT,
    SPAWN_HEIGHT_JITTER,
    SPAWN_LATERAL_OFFSET,
    SPAWN_TILT,
    SPEED_WEIGHT,
    TILT_WEIGHT,
)

from .._env_checks import make

G = 9.81  # m/s^2
COAST = np.zeros(7)  # booster off, fins and gimbal centred
FULL_THRUST = np.array([0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0])  # lit, full throttle


@pytest.fixture
def env():
    env = make("Rocket-Landing")
    env.reset(seed=0)
    yield env
    env.close()


@pytest.fixture
def sparse_env():
    env = make("Rocket-Landing", sparse_reward=True)
    env.reset(seed=0)
    yield env
    env.close()


def place(env, position, velocity=(0.0, 0.0, 0.0), euler=(0.0, 0.0, 0.0)) -> None:
    """Teleport the stage (between env steps) and refresh its state."""
    drone = env.drone
    pybullet.resetBasePositionAndOrientation(drone.Id, list(position),
                                             pybullet.getQuaternionFromEuler(list(euler)),
                                             physicsClientId=drone.client_id)
    pybullet.resetBaseVelocity(drone.Id, list(velocity), (0, 0, 0),
                               physicsClientId=drone.client_id)
    drone.update_state()


def above_pad(env, gap: float, x: float = 0.0) -> np.ndarray:
    """Base-link position with the upright stage's lowest point ``gap`` m above the pad top."""
    return env.landed_position + (x, 0.0, gap)


def potential(env) -> float:
    """The documented shaping potential -(d + 2 s |v| + 10 m/rad tilt) of the current state."""
    drone = env.drone
    distance = np.linalg.norm(drone.state[3] - env.landed_position)
    tilt = math.acos(min(1.0, drone.rotation_matrix[2, 2]))
    return -(distance + SPEED_WEIGHT * np.linalg.norm(drone.world_velocity) + TILT_WEIGHT * tilt)


def fly_until_done(env, action, max_steps: int = 40):
    """Step ``action`` until the episode ends; return the last step and the potential before."""
    for _ in range(max_steps):
        before = potential(env)
        observation, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return observation, reward, terminated, info, before
    raise AssertionError(f"episode did not end within {max_steps} steps")


def test_gentle_touchdown_on_the_pad_is_a_landing_with_a_bonus(env):
    # Falling from 0.12 m above the pad at 1 m/s, the stage arrives at sqrt(1 + 2 g 0.12).
    place(env, above_pad(env, 0.12), velocity=(0.0, 0.0, -1.0))
    observation, reward, terminated, info, before = fly_until_done(env, COAST)
    expected_speed = math.sqrt(1.0 + 2 * G * 0.12)
    assert terminated and info["landed"] and "collision" not in info
    assert info["touchdown_speed"] == pytest.approx(expected_speed, abs=0.1)
    assert info["touchdown_tilt"] < 0.01
    assert observation[-4] == 1.0  # the pad contact flag
    bonus = LANDING_BONUS * (2.0 - info["touchdown_speed"] / SAFE_LANDING_SPEED)
    shaping = SHAPING_GAIN * (potential(env) - before)
    assert reward == pytest.approx(bonus + shaping, abs=1e-9)  # no fuel burnt
    assert bonus == pytest.approx(LANDING_BONUS * (2.0 - expected_speed / SAFE_LANDING_SPEED),
                                  abs=4.0)  # ~139


def test_sparse_landing_reward_is_the_bonus_alone(sparse_env):
    env = sparse_env
    place(env, above_pad(env, 0.05), velocity=(0.0, 0.0, -1.0))
    rewards = []
    for _ in range(40):
        _, reward, terminated, _, info = env.step(COAST)
        rewards.append(reward)
        if terminated:
            break
    assert info["landed"] and all(r == 0.0 for r in rewards[:-1])
    assert rewards[-1] == LANDING_BONUS * (2.0 - info["touchdown_speed"] / SAFE_LANDING_SPEED)


def test_fast_touchdown_on_the_pad_is_fatal(env):
    place(env, above_pad(env, 0.5), velocity=(0.0, 0.0, -20.0))
    _, reward, terminated, info, _ = fly_until_done(env, COAST)
    assert terminated and info["collision"] and "landed" not in info
    assert reward == FAILURE_PENALTY
    assert info["touchdown_speed"] == pytest.approx(math.sqrt(20.0**2 + 2 * G * 0.5), abs=0.3)


def test_slow_but_tilted_touchdown_on_the_pad_is_fatal(env):
    # Tilted 0.35 rad (20 deg) the stage's lowest point is higher than upright: still clear.
    place(env, above_pad(env, 0.1), velocity=(0.0, 0.0, -1.0), euler=(0.35, 0.0, 0.0))
    _, reward, terminated, info, _ = fly_until_done(env, COAST)
    assert terminated and info["collision"] and "landed" not in info
    assert reward == FAILURE_PENALTY
    assert info["touchdown_speed"] < SAFE_LANDING_SPEED
    assert info["touchdown_tilt"] == pytest.approx(0.35, abs=0.01)


def test_gentle_touchdown_on_the_ground_beside_the_pad_is_a_collision(env):
    # 20 m from the pad centre (radius 5 m); the ground is 0.2 m below the pad top.
    place(env, above_pad(env, -0.1, x=20.0), velocity=(0.0, 0.0, -1.0))
    _, reward, terminated, info, _ = fly_until_done(env, COAST)
    assert terminated and info == {"collision": True}
    assert reward == FAILURE_PENALTY


@pytest.mark.parametrize("position", [(0.0, 0.0, 510.0), (205.0, 0.0, 100.0),
                                      (0.0, -205.0, 100.0)])
def test_leaving_the_box_is_out_of_bounds(env, position):
    place(env, position)
    _, reward, terminated, truncated, info = env.step(COAST)
    assert terminated and not truncated and info == {"out_of_bounds": True}
    assert reward == FAILURE_PENALTY


def test_free_fall_without_ignition_follows_gravity(env):
    # At most 10 m/s the drag (~4 N on 5386 N of weight) is below 0.1 % of gravity.
    place(env, (0.0, 0.0, 200.0))
    for _ in range(env.agent_hz):  # 1 s
        observation, reward, *_ = env.step(COAST)
    t = 1.0
    assert env.drone.state[3, 2] == pytest.approx(200.0 - 0.5 * G * t**2, abs=0.05)
    assert env.drone.world_velocity[2] == pytest.approx(-G * t, rel=0.01)
    assert env.drone.aux_state[4] == 0.0 and env.drone.aux_state[5] == 1.0  # unlit, full


def test_full_throttle_decelerates_the_stage_at_thrust_minus_weight_over_mass(env):
    drone = env.drone
    max_thrust = drone.boosters.max_thrust[0]
    place(env, (0.0, 0.0, 300.0), velocity=(0.0, 0.0, -20.0))
    for _ in range(10):  # 0.25 s = 5 throttle lags: thrust is at its maximum after this
        env.step(FULL_THRUST)
    v_start, fuel_start = drone.world_velocity[2], drone.boosters.fuel_remaining[0]
    for _ in range(env.agent_hz):  # 1 s
        env.step(FULL_THRUST)
    v_end, fuel_end = drone.world_velocity[2], drone.boosters.fuel_remaining[0]
    dry_mass = drone.mass - drone.boosters.total_fuel_mass[0]
    mean_mass = dry_mass + 0.5 * (fuel_start + fuel_end)
    assert fuel_start - fuel_end == pytest.approx(drone.boosters.max_fuel_rate[0], rel=0.01)
    expected = max_thrust / mean_mass - G  # ~4.1 m/s^2 upward
    assert (v_end - v_start) / 1.0 == pytest.approx(expected, rel=0.03)


def test_spawn_is_high_falling_slightly_tilted_and_varies_with_the_seed(env):
    starts = []
    for seed in range(5):
        observation, info = env.reset(seed=seed)
        drone = env.drone
        x, y, z = drone.state[3]
        assert info == {} and observation[-4] == 0.0
        assert max(abs(x), abs(y)) <= SPAWN_LATERAL_OFFSET
        assert abs(z - SPAWN_HEIGHT) <= SPAWN_HEIGHT_JITTER
        low, high = SPAWN_DESCENT_SPEED
        assert low <= -drone.world_velocity[2] <= high
        assert max(abs(drone.state[1, 0]), abs(drone.state[1, 1])) <= SPAWN_TILT + 1e-9
        np.testing.assert_allclose(observation[-3:],
                                   (env.landed_position - drone.state[3]) @ drone.rotation_matrix)
        starts.append((x, y, z))
    assert len({round(s[0], 6) for s in starts}) == 5


@pytest.mark.parametrize("options", [{"flight_mode": 1}, {"ceiling": -1.0},
                                     {"max_displacement": 0.0}])
def test_bad_options_raise_value_error(options):
    with pytest.raises(ValueError):
        make("Rocket-Landing", **options)


def hover_slam_action(env, decel: float = 2.0) -> np.ndarray:
    """A scripted pilot: follow the descent profile v = -(0.5 + sqrt(2 decel h)) [m/s] with the
    throttle, and tilt the thrust (gimbal, fins) toward the pad, at most 6 degrees."""
    drone, booster = env.drone, env.drone.boosters
    min_thrust, max_thrust = booster.min_thrust[0], booster.max_thrust[0]
    mass = drone.mass - booster.total_fuel_mass[0] + booster.fuel_remaining[0]
    position, velocity, rotation, rates = (drone.state[3], drone.world_velocity,
                                           drone.rotation_matrix, drone.state[0])
    height = max(position[2] - env.landed_position[2], 0.0)
    climb = decel + 3.0 * (-(0.5 + math.sqrt(2.0 * decel * height)) - velocity[2])
    thrust = mass * (G + climb)
    lit = thrust > 0.7 * min_thrust
    throttle = np.clip((thrust - min_thrust) / (max_thrust - min_thrust), 0.0, 1.0)
    lateral = -0.08 * position[:2] - 0.5 * velocity[:2]
    lateral /= max(1.0, np.linalg.norm(lateral))  # at most 1 m/s^2
    wanted = np.array([*lateral, G + max(climb, -3.0)])
    wanted /= np.linalg.norm(wanted)
    max_tilt = math.radians(6.0)
    if wanted[2] < math.cos(max_tilt):
        wanted = np.array([*(math.sin(max_tilt) * wanted[:2] / np.linalg.norm(wanted[:2])),
                           math.cos(max_tilt)])
    error = rotation.T @ np.cross(rotation[:, 2], wanted)  # body-frame tilt error [rad]
    torque = 2.5 * error[:2] - 2.5 * rates[:2]
    # Positive gimbal angles turn the stage negatively about x and y; positive fin commands
    # positively (docs/rocket.md).
    gimbal = np.clip(-torque, -1.0, 1.0) if lit else np.zeros(2)
    fins = np.clip(5.0 * torque, -1.0, 1.0)
    return np.array([*fins, np.clip(-2.0 * rates[2], -1.0, 1.0), float(lit), throttle, *gimbal])


def test_a_scripted_hover_slam_from_a_random_spawn_lands_on_the_pad(env):
    # The spawn is within the stage's reach: 1.41 thrust-to-weight, 411 kg of fuel.
    env.reset(seed=11)
    episode_return = 0.0
    for _ in range(env.max_steps):
        _, reward, terminated, truncated, info = env.step(hover_slam_action(env))
        episode_return += reward
        if terminated or truncated:
            break
    assert info.get("landed"), info
    assert info["touchdown_speed"] < 2.0 and info["touchdown_tilt"] < 0.05
    assert np.linalg.norm(env.drone.state[3, :2]) < 3.0  # on a 5 m pad
    assert env.step_count < 20 * env.agent_hz  # well inside the 30 s
    assert episode_return > 250.0  # shaping (~150) + bonus (~155) - fuel (~2.6)
