"""Task logic of Fixedwing-Waypoints: reaching targets, crashing, leaving the dome, the course."""

from __future__ import annotations

import math

import numpy as np
import pybullet
import pytest

from pyflyt_like.envs.base.aviary_env import FAILURE_PENALTY
from pyflyt_like.envs.fixedwing import waypoints as course
from pyflyt_like.envs.targets.waypoint_task import PARKING_POSITION
from pyflyt_like.envs.targets.waypoints import TARGET_BONUS

from .._env_checks import make

GRAVITY = 9.81  # m/s^2


class PursuitPilot:
    """Flies the current target on attitude hold (mode 1) by pure pursuit.

    Bank proportional to the course error toward the target (coordinated yaw rate), the
    climb rate that points the flight path at the target, pitch and throttle about the
    model's trim (YAML ``trim``). A target inside the turning circle and well off the
    nose cannot be hit by turning: it flies wings level until it can.
    """

    max_bank = 0.9  # rad
    bank_gain = 3.0  # rad of bank per rad of course error
    speed = 20.0  # m/s
    turn_radius = 22.0  # m, at max_bank and speed (a little under the measured 26 m)

    def __init__(self, env):
        self.env = env
        trim = env.drone.params["trim"]
        self.trim_pitch, self.trim_throttle = trim["pitch"], trim["throttle"]
        self.pitch_kp = env.drone.attitude.angle_kp[1]

    def action(self) -> np.ndarray:
        drone = self.env.drone
        velocity = drone.rotation_matrix @ drone.state[2]
        speed = max(float(np.linalg.norm(velocity)), 5.0)
        to = self.env.targets.current - drone.state[3]
        distance = max(math.hypot(to[0], to[1]), 1.0)
        error = math.atan2(to[1], to[0]) - math.atan2(velocity[1], velocity[0])
        error = (error + math.pi) % (2.0 * math.pi) - math.pi
        bank = -min(max(self.bank_gain * error, -self.max_bank), self.max_bank)  # left = -roll
        along, across = distance * math.cos(error), distance * abs(math.sin(error))
        if abs(error) > math.pi / 3 and along**2 + (across - self.turn_radius)**2 < \
                self.turn_radius**2:
            bank = 0.0
        turn_rate = GRAVITY * math.tan(bank) / speed
        climb = min(max(to[2] * speed / max(distance, 10.0), -4.0), 4.0)
        path_angle = math.asin(climb / speed)
        load = 1.0 / math.cos(bank) - 1.0
        # FLU pitch is nose down; a banked turn needs more lift and a steady pitch rate.
        pitch = (self.trim_pitch - path_angle - 0.05 * (climb - velocity[2]) - 0.3 * load
                 - abs(turn_rate * math.sin(bank)) / self.pitch_kp)
        throttle = (self.trim_throttle + 0.8 * path_angle + 0.15 * (self.speed - speed)
                    + 0.1 * load)
        setpoint = (bank, min(max(pitch, -0.5), 0.3), -turn_rate * math.cos(bank),
                    min(max(throttle, 0.0), 1.0))
        return self.env.action_mapping.to_action(setpoint)


def fly(env, steps: int):
    """Fly the pursuit pilot until the episode ends; return the (reward, info) of each step."""
    pilot = PursuitPilot(env)
    record = []
    for _ in range(steps):
        _, reward, terminated, truncated, info = env.step(pilot.action())
        record.append((reward, info))
        if terminated or truncated:
            break
    return record


def hold_until_end(env, action, max_steps: int):
    """Repeat ``action`` until the episode ends; return (steps taken, last reward, info)."""
    steps, ended = 0, False
    while not ended and steps < max_steps:
        _, reward, terminated, truncated, info = env.step(action)
        steps += 1
        ended = terminated or truncated
    return steps, reward, info


def test_pursuit_pilot_flies_the_whole_course_collecting_each_bonus():
    env = make("Fixedwing-Waypoints", flight_mode=1)
    env.reset(seed=0)
    record = fly(env, env.max_steps)
    reached = [info["num_targets_reached"] for _, info in record]
    steps = [i for i in range(1, len(reached)) if reached[i] > reached[i - 1]]
    assert reached[0] == 0 and len(steps) == 4
    for i in steps:  # the bonus plus a few points of shaping
        assert record[i][0] == pytest.approx(TARGET_BONUS, abs=5.0)
    assert all(abs(reward) < 5.0 for i, (reward, _) in enumerate(record) if i not in steps)
    reward, info = record[-1]
    assert info == {"num_targets_reached": 4, "env_complete": True}
    assert 10.0 < len(record) / env.agent_hz < 40.0  # 4 legs of 30-60 m plus turns at 20 m/s
    env.close()


def test_sparse_reward_is_the_bonus_on_reaching_steps_and_zero_otherwise():
    env = make("Fixedwing-Waypoints", flight_mode=1, sparse_reward=True)
    env.reset(seed=0)
    record = fly(env, 12 * env.agent_hz)
    rewards = np.array([reward for reward, _ in record])
    reached = record[-1][1]["num_targets_reached"]
    assert reached >= 2
    assert set(rewards.tolist()) == {0.0, TARGET_BONUS}
    assert np.count_nonzero(rewards) == reached
    env.close()


def test_diving_into_the_ground_is_a_collision():
    env = make("Fixedwing-Waypoints", flight_mode=1, spawn_jitter=0.0)
    env.reset(seed=0)
    dive = env.action_mapping.to_action((0.0, math.pi / 6, 0.0, 1.0))  # 30 deg nose down
    step, reward, info = hold_until_end(env, dive, 5 * env.agent_hz)
    assert info.get("collision") and not info.get("out_of_bounds")
    assert reward == FAILURE_PENALTY
    # Descending ~10 m/s once pitched over, the 10 m take about 1.4 s: not at once, not late.
    assert 0.5 < step / env.agent_hz < 2.0
    env.close()


def test_flying_out_of_a_small_dome_ends_out_of_bounds_at_the_dome_edge():
    env = make("Fixedwing-Waypoints", flight_mode=1, flight_dome_size=20.0, spawn_jitter=0.0)
    env.reset(seed=0)
    trim = env.drone.params["trim"]
    level = env.action_mapping.to_action((0.0, trim["pitch"], 0.0, trim["throttle"]))
    step, reward, info = hold_until_end(env, level, 3 * env.agent_hz)
    assert info.get("out_of_bounds") and not info.get("collision") and reward == FAILURE_PENALTY
    assert np.linalg.norm(env.drone.state[3]) > 20.0
    # At z = 10 m the 20 m sphere ends at x = sqrt(20^2 - 10^2) = 17.3 m: 0.87 s at 20 m/s.
    assert step / env.agent_hz == pytest.approx(math.sqrt(300.0) / 20.0, abs=0.1)
    env.close()


def test_one_turn_path_of_a_quarter_turn_matches_its_geometry():
    d, r = course.ROLL_IN_DISTANCE, course.TURN_RADIUS
    # Straight ahead: no turn, the path reaches no farther than the target.
    # A quarter left turn then 20 m straight north ends at (d + r, r + 20).
    targets = np.array([[40.0, 0.0], [d + r, r + 20.0]])
    bearing = np.arctan2(targets[:, 1], targets[:, 0])
    leg = np.hypot(targets[:, 0], targets[:, 1])
    ends, turn, reachable, widest = course.one_turn_paths(np.zeros(2), 0.0, bearing, leg)
    np.testing.assert_allclose(ends, targets, atol=1e-9)
    np.testing.assert_allclose(turn, [0.0, math.pi / 2], atol=1e-9)
    assert reachable.all()
    np.testing.assert_allclose(widest, leg)
    # Mirrored to the right: the same turn, negative; 10 m to the left of the roll-in point
    # lies inside the left turning circle: not reachable.
    _, turn, _, _ = course.one_turn_paths(np.zeros(2), 0.0, -bearing[1:], leg[1:])
    assert turn[0] == pytest.approx(-math.pi / 2)
    _, _, reachable, _ = course.one_turn_paths(np.zeros(2), 0.0, np.array([math.atan2(10, d)]),
                                               np.array([math.hypot(10, d)]))
    assert not reachable[0]
    # A full about-turn passes the circle's outermost point.
    _, turn, _, widest = course.one_turn_paths(np.array([50.0, 0.0]), 0.0,
                                               np.array([math.pi - 0.01]), np.array([40.0]))
    assert turn[0] > math.pi / 2
    assert widest[0] == pytest.approx(math.hypot(50.0 + d, r) + r)


@pytest.mark.parametrize("seed", range(40))
def test_each_target_is_reachable_by_one_turn_inside_the_course(seed):
    env = make("Fixedwing-Waypoints", spawn_jitter=0.0)
    env.reset(seed=seed)
    targets = env.targets
    limit = course.COURSE_RADIUS * env.flight_dome_size
    point, heading = np.zeros(2), 0.0
    assert env.drone.state[1, 2] == pytest.approx(0.0, abs=1e-12)
    for i, target in enumerate(targets.positions):
        offset = target[:2] - point
        leg = float(np.hypot(*offset))
        bearing = (math.atan2(offset[1], offset[0]) - heading + math.pi) % (2 * math.pi) - math.pi
        _, turn, reachable, widest = course.one_turn_paths(point, heading, np.array([bearing]),
                                                           np.array([leg]))
        assert reachable[0] and course.MIN_LEG <= leg <= course.MAX_LEG
        assert abs(turn[0]) <= (course.FIRST_MAX_TURN if i == 0 else course.MAX_TURN)
        assert widest[0] <= limit + 1e-9
        assert course.MIN_TARGET_HEIGHT <= target[2] <= course.MAX_TARGET_HEIGHT
        heading = heading + float(turn[0])
        assert targets.yaws[i] == pytest.approx(
            (heading + math.pi) % (2 * math.pi) - math.pi)
        point = target[:2]
    assert course.turn_back_radius(point[None], np.array([heading]))[0] <= limit + 1e-9
    env.close()


def test_target_deltas_are_the_remaining_targets_in_the_body_frame():
    env = make("Fixedwing-Waypoints")
    observation, info = env.reset(seed=1)
    drone = env.drone
    expected = (env.targets.positions - drone.state[3]) @ drone.rotation_matrix
    np.testing.assert_allclose(observation["target_deltas"], expected)
    assert info == {}
    assert observation["target_deltas"][0, 0] > course.MIN_LEG * math.cos(course.FIRST_MAX_TURN)
    env.close()


@pytest.mark.parametrize("model, limit_deg", [("fixedwing", (20, 20, 20, 20, 10)),
                                              ("acrowing", (25, 25, 25, 25, 10))])
def test_aux_bounds_are_the_models_deflection_limits_and_throttle(model, limit_deg):
    env = make("Fixedwing-Waypoints", drone_options={"drone_model": model})
    space = env.observation_space["attitude"]
    np.testing.assert_allclose(space.high[-6:], [*np.radians(limit_deg), 1.0])
    np.testing.assert_allclose(space.low[-6:], [*-np.radians(limit_deg), 0.0])
    observation, _ = env.reset(seed=0)
    assert env.observation_space.contains(observation)
    env.close()


def test_target_markers_show_unreached_targets_without_touching_the_physics():
    plain = make("Fixedwing-Waypoints", flight_mode=1)
    shown = make("Fixedwing-Waypoints", flight_mode=1, render_mode="rgb_array",
                 render_resolution=(60, 80))
    assert plain.markers is None and len(shown.markers.ids) == 4
    for env in (plain, shown):
        env.reset(seed=0)
    record = [fly(env, 3 * env.agent_hz) for env in (plain, shown)]
    assert record[0] == record[1]  # same rewards and infos: markers change nothing
    np.testing.assert_array_equal(plain.drone.state, shown.drone.state)
    reached = shown.targets.index
    assert reached >= 1
    client = shown.drone.client_id
    for i, body in enumerate(shown.markers.ids):
        position = pybullet.getBasePositionAndOrientation(body, physicsClientId=client)[0]
        expected = PARKING_POSITION if i < reached else shown.targets.positions[i]
        np.testing.assert_allclose(position, expected)
    for env in (plain, shown):
        env.close()


def test_reset_reuses_the_world():
    env = make("Fixedwing-Waypoints", render_mode="rgb_array", render_resolution=(60, 80))
    client = env.drone.client_id
    env.reset(seed=0)
    bodies = pybullet.getNumBodies(physicsClientId=client)
    for seed in range(1, 4):
        env.reset(seed=seed)
        env.step(env.action_space.sample())
    assert pybullet.getNumBodies(physicsClientId=client) == bodies
    env.close()


@pytest.mark.parametrize("options, error", [
    ({"flight_mode": 2}, ValueError),
    ({"num_targets": 0}, ValueError),
    ({"goal_reach_distance": -1.0}, ValueError),
    ({"use_yaw_targets": "yes"}, TypeError),
    ({"flight_dome_size": "big"}, (TypeError, ValueError)),
    ({"agent_hz": 7}, ValueError),
])
def test_bad_options_raise_naming_the_option(options, error):
    with pytest.raises(error, match=next(iter(options))):
        make("Fixedwing-Waypoints", **options)
