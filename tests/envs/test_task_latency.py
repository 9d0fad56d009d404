"""Observation and action delays of the PyBullet single-agent tasks (docs/envs.md, "Latency").

A delayed run is compared against an undelayed one with the same seed and actions, step by
step; physics-step delays are checked against a record of every physics step taken.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.envs._env_checks import assert_checker_clean, flatten, make

STEPS = 12
DELAYS = ("observation_delay_steps", "action_delay_steps", "observation_delay_physics_steps",
          "action_delay_physics_steps")


def actions_for(env, steps: int = STEPS, seed: int = 0) -> list[np.ndarray]:
    """A fixed sequence of actions in ``env``'s space (moderate, so the drone stays up)."""
    rng = np.random.default_rng(seed)
    low, high = env.action_space.low, env.action_space.high
    middle, half = (low + high) / 2, (high - low) / 2
    return [middle + 0.3 * half * rng.uniform(-1.0, 1.0, low.shape) for _ in range(steps)]


def run(name: str, actions=None, seed: int = 5, **options) -> tuple[list, object]:
    """The observations of a reset then one step per action; and the open env."""
    env = make(name, **options)
    actions = actions_for(env) if actions is None else actions
    observation, _ = env.reset(seed=seed)
    observations = [observation]
    for action in actions:
        observation, *_ = env.step(action)
        observations.append(observation)
    return observations, env


def physics_steps_per_action(env) -> int:
    return env.aviary_steps_per_action * env.aviary.updates_per_step


def record_physics_steps(env) -> dict[str, dict[int, np.ndarray]]:
    """Record the drone's state after every physics step and its setpoint before each, keyed
    by physics time (steps since reset): the aviary's history, read from outside the env."""
    drone, record = env.drone, {"state": {}, "setpoint": {}}
    inner_control, inner_last = drone.update_control, drone.update_last

    def update_control(physics_step: int) -> None:
        record["setpoint"][physics_step] = np.array(drone.setpoint)
        inner_control(physics_step)

    def update_last(physics_step: int) -> None:
        inner_last(physics_step)
        record["state"][physics_step + 1] = drone.state.copy()

    drone.update_control, drone.update_last = update_control, update_last
    return record


# ----------------------------------------------------------------- defaults
@pytest.mark.parametrize("name", ["QuadX-Hover", "QuadX-Waypoints", "Fixedwing-Waypoints"])
def test_zero_delays_replay_the_env_without_the_options_bit_for_bit(name):
    plain, env = run(name)
    env.close()
    zeros, env = run(name, **dict.fromkeys(DELAYS, 0))
    assert env.latency is None  # the step runs the code path it had before delays
    env.close()
    for a, b in zip(plain, zeros, strict=True):
        np.testing.assert_array_equal(flatten(a), flatten(b))


# ----------------------------------------------------------------- agent-step delays
@pytest.mark.parametrize(("name", "k"), [("QuadX-Hover", 1), ("QuadX-Hover", 3),
                                         ("QuadX-Waypoints", 2)])
def test_observation_delay_steps_shifts_the_observations_by_exactly_k(name, k):
    plain, env = run(name)
    env.close()
    delayed, env = run(name, observation_delay_steps=k)
    env.close()
    for t, observation in enumerate(delayed):
        # Before k steps exist the reset observation is repeated.
        np.testing.assert_array_equal(flatten(observation), flatten(plain[max(t - k, 0)]))


@pytest.mark.parametrize(("name", "k"), [("QuadX-Hover", 2), ("Fixedwing-Waypoints", 3)])
def test_action_delay_steps_flies_the_action_of_k_steps_before(name, k):
    env = make(name)
    actions = actions_for(env)
    zero = np.zeros(env.action_space.shape)
    env.close()
    # Undelayed, fed k zero actions first: the delayed env's first actions are zeros.
    states = []
    for options, sequence in (({}, [zero] * k + actions[:-k]),
                              ({"action_delay_steps": k}, actions)):
        env = make(name, **options)
        record = record_physics_steps(env)
        env.reset(seed=5)
        for action in sequence:
            env.step(action)
        states.append(record)
        env.close()
    assert states[0]["state"].keys() == states[1]["state"].keys()
    for time in states[0]["state"]:
        np.testing.assert_array_equal(states[0]["state"][time], states[1]["state"][time])
        np.testing.assert_array_equal(states[0]["setpoint"][time - 1],
                                      states[1]["setpoint"][time - 1])


# ----------------------------------------------------------------- physics-step delays
@pytest.mark.parametrize("d", [1, 3, 7])
def test_observation_delay_physics_steps_observes_the_state_d_steps_before_the_end(d):
    env = make("QuadX-Hover", observation_delay_physics_steps=d)
    n = physics_steps_per_action(env)
    assert n == 6  # 240 Hz physics, 40 Hz agent: d = 7 reaches into the step before
    record = record_physics_steps(env)
    reset_observation, _ = env.reset(seed=5)
    for t, action in enumerate(actions_for(env)):
        observation, *_ = env.step(action)
        time = (t + 1) * n - d
        if time <= 0:
            np.testing.assert_array_equal(observation, reset_observation)
            continue
        state = record["state"][time]
        np.testing.assert_array_equal(observation[0:3], state[0])  # body rates
        np.testing.assert_array_equal(observation[7:10], state[2])  # body velocity
        np.testing.assert_array_equal(observation[10:13], state[3])  # position
    env.close()


def test_a_whole_agent_step_of_physics_delay_is_one_agent_step_of_delay():
    by_steps, env = run("QuadX-Waypoints", observation_delay_steps=1, action_delay_steps=2)
    n = physics_steps_per_action(env)
    assert n == 8  # QuadX-Waypoints: 240 Hz physics, 30 Hz agent
    env.close()
    by_physics, env = run("QuadX-Waypoints", observation_delay_physics_steps=n,
                          action_delay_physics_steps=2 * n)
    env.close()
    for a, b in zip(by_steps, by_physics, strict=True):
        np.testing.assert_array_equal(flatten(a), flatten(b))


@pytest.mark.parametrize(("k", "d"), [(0, 1), (0, 4), (1, 3), (0, 9)])
def test_action_delay_physics_steps_hands_the_action_over_k_n_plus_d_steps_later(k, d):
    env = make("QuadX-Hover", flight_mode=1, action_delay_steps=k, action_delay_physics_steps=d)
    n = physics_steps_per_action(env)
    record = record_physics_steps(env)
    env.reset(seed=5)
    actions = actions_for(env)
    for action in actions:
        env.step(action)
    delay = k * n + d
    to_setpoint = env.action_mapping.to_setpoint
    for physics_step, setpoint in record["setpoint"].items():
        t = (physics_step - delay) // n  # the agent step whose action is due
        expected = to_setpoint(actions[t] if t >= 0 else np.zeros(4))
        np.testing.assert_array_equal(setpoint, expected, err_msg=f"physics step {physics_step}")
    env.close()


# ----------------------------------------------------------------- checks
@pytest.mark.parametrize("option", DELAYS)
def test_check_env_passes_with_each_delay(option):
    assert_checker_clean("QuadX-Hover", **{option: 3})


def test_check_env_passes_with_all_delays_on_a_dict_observation():
    assert_checker_clean("QuadX-Waypoints", **dict.fromkeys(DELAYS, 5))


@pytest.mark.parametrize("option", DELAYS)
@pytest.mark.parametrize("value", [1.0, True, "2", None])
def test_a_delay_that_is_not_an_int_is_a_type_error_naming_it(option, value):
    with pytest.raises(TypeError, match=option):
        make("QuadX-Hover", **{option: value})


@pytest.mark.parametrize(("option", "bound"), [("observation_delay_steps", 1000),
                                               ("action_delay_steps", 1000),
                                               ("observation_delay_physics_steps", 100_000),
                                               ("action_delay_physics_steps", 100_000)])
def test_a_delay_out_of_range_is_a_value_error_naming_it_and_the_range(option, bound):
    for value in (-1, bound + 1):
        with pytest.raises(ValueError, match=rf"{option} must be an int in \[0, {bound}\]"):
            make("QuadX-Hover", **{option: value})
    make("QuadX-Hover", **{option: bound}).close()


@pytest.mark.parametrize("name", ["QuadX-Pole-Balance", "QuadX-Ball-In-Cup", "Rocket-Landing"])
def test_every_task_takes_the_delays(name):
    env = make(name, observation_delay_physics_steps=2, action_delay_physics_steps=3)
    observation, _ = env.reset(seed=1)
    for _ in range(3):
        observation, *_ = env.step(env.action_space.sample())
        assert env.observation_space.contains(observation)
    env.close()
