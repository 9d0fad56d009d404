"""Bad input to the Multirotor tasks raises early, clear exceptions naming the argument, and a
refused call leaves the env exactly as it was."""

from __future__ import annotations

import tracemalloc

import gymnasium
import numpy as np
import pytest

import pyflyt_like.common.validation as validation
from pyflyt_like.envs import MULTIROTOR_TASKS
from pyflyt_like.envs.base.task_options import MAX_ACTION_DELAY_STEPS, MAX_DURATION_SECONDS
from pyflyt_like.envs.multirotor_tasks.options import (
    MAX_PHYSICS_HZ,
    OPTION_NAMES,
    TaskOptions,
)
from pyflyt_like.envs.multirotor_tasks.twin_env import MultirotorTwinEnv
from pyflyt_like.envs.multirotor_tasks.vector_env import MultirotorVectorEnv

from ._factories import make_twin, make_vec

W = 3  # envs of the VectorEnvs below
K = 4  # action entries (crazyflie21, every flight mode)


@pytest.fixture
def envs():
    env = make_vec("Hover", W)
    env.reset(seed=0)
    yield env
    env.close()


@pytest.fixture
def twin():
    env = make_twin("Hover")
    env.reset(seed=0)
    yield env
    env.close()


# ------------------------------------------------------------------------ constructor options
BAD_OPTIONS = [
    # the episode length: positive, finite, at most an hour (1e308 overflowed the step count)
    (dict(max_duration_seconds=1e308), ValueError, r"max_duration_seconds must be at most 3600"),
    (dict(max_duration_seconds=MAX_DURATION_SECONDS + 0.1), ValueError, "max_duration_seconds"),
    (dict(max_duration_seconds=float("inf")), ValueError, "max_duration_seconds"),
    (dict(max_duration_seconds=float("nan")), ValueError, "max_duration_seconds"),
    (dict(max_duration_seconds=0.0), ValueError, "max_duration_seconds"),
    (dict(max_duration_seconds=-5.0), ValueError, "max_duration_seconds"),
    (dict(max_duration_seconds="5"), TypeError, "max_duration_seconds"),
    (dict(max_duration_seconds=True), TypeError, "max_duration_seconds"),
    (dict(max_duration_seconds=5 + 0j), TypeError, "max_duration_seconds"),
    # the delay: an int in [0, 1000]
    (dict(action_delay_steps=10**9), ValueError, r"action_delay_steps must be an int in \[0, 1000"),
    (dict(action_delay_steps=MAX_ACTION_DELAY_STEPS + 1), ValueError, "action_delay_steps"),
    (dict(action_delay_steps=-1), ValueError, "action_delay_steps"),
    (dict(action_delay_steps=1.0), TypeError, "action_delay_steps"),
    (dict(action_delay_steps="3"), TypeError, "action_delay_steps"),
    (dict(action_delay_steps=True), TypeError, "action_delay_steps"),
    (dict(action_delay_steps=None), TypeError, "action_delay_steps"),
    # the rates: positive ints, physics at most 10 kHz, the agent's dividing it
    (dict(physics_hz=10**12), ValueError, r"physics_hz must be a positive integer <= 10000"),
    (dict(physics_hz=2 * MAX_PHYSICS_HZ), ValueError, "physics_hz"),
    (dict(physics_hz=0), ValueError, "physics_hz"),
    (dict(physics_hz="500"), TypeError, "physics_hz"),
    (dict(physics_hz=500.0), TypeError, "physics_hz"),
    (dict(physics_hz=True), TypeError, "physics_hz"),
    (dict(agent_hz=33), ValueError, "agent_hz=33 Hz must divide physics_hz=500 Hz"),
    (dict(agent_hz=0), ValueError, "agent_hz"),
    (dict(agent_hz=-50), ValueError, "agent_hz"),
    (dict(agent_hz="50"), TypeError, "agent_hz"),
    (dict(agent_hz=50.0), TypeError, "agent_hz"),
    (dict(agent_hz=np.bool_(True)), TypeError, "agent_hz"),
    # the noise: finite, >= 0
    (dict(observation_noise=-0.1), ValueError, "observation_noise"),
    (dict(observation_noise=float("nan")), ValueError, "observation_noise"),
    (dict(observation_noise=float("inf")), ValueError, "observation_noise"),
    (dict(observation_noise="0.1"), TypeError, "observation_noise"),
    (dict(observation_noise=True), TypeError, "observation_noise"),
    (dict(observation_noise=0.1 + 0j), TypeError, "observation_noise"),
    # the first reset's seed: None or an int in [0, 2**63)
    (dict(seed=-1), ValueError, "seed"),
    (dict(seed=2**63), ValueError, "seed"),
    (dict(seed=1.5), TypeError, "seed"),
    (dict(seed="a"), TypeError, "seed"),
    (dict(seed="3"), TypeError, "seed"),
    (dict(seed=True), TypeError, "seed"),
    (dict(seed=np.bool_(False)), TypeError, "seed"),
    (dict(seed=3 + 0j), TypeError, "seed"),
    (dict(seed=[3]), TypeError, "seed"),
    # the flight mode and the model
    (dict(flight_mode=2), ValueError, "flight_mode"),
    (dict(flight_mode="1"), TypeError, "flight_mode"),
    (dict(flight_mode=1.0), TypeError, "flight_mode"),
    (dict(flight_mode=True), TypeError, "flight_mode"),
    (dict(drone_model=None), TypeError, "drone_model"),
    (dict(drone_model=["cf2x"]), TypeError, "drone_model"),
    # names nobody accepts
    (dict(max_duration=5.0), TypeError, r"unknown task option\(s\) \['max_duration'\]; the "
                                        r"options are \['drone_model'"),
    (dict(seeds=3), TypeError, r"unknown task option\(s\) \['seeds'\]"),
]


def _option_id(case) -> str:
    (name, value), = case[0].items()
    return f"{name}={value!r}"[:40]


@pytest.mark.parametrize(("options", "error", "match"), BAD_OPTIONS,
                         ids=[_option_id(case) for case in BAD_OPTIONS])
def test_bad_options_raise_naming_the_option(options, error, match):
    with pytest.raises(error, match=match):
        make_vec("Hover", 2, **options)
    with pytest.raises(error, match=match):
        make_twin("Hover", **options)


def test_every_option_is_listed_when_a_name_is_unknown():
    with pytest.raises(TypeError) as info:
        make_vec("Hover", 1, foo=1)
    for name in OPTION_NAMES:
        assert repr(name) in str(info.value)


@pytest.mark.parametrize("options", [
    dict(max_duration_seconds=MAX_DURATION_SECONDS), dict(max_duration_seconds=np.float32(0.5)),
    dict(max_duration_seconds=np.int64(2)), dict(action_delay_steps=np.int32(2)),
    dict(action_delay_steps=MAX_ACTION_DELAY_STEPS), dict(physics_hz=np.int64(MAX_PHYSICS_HZ)),
    dict(agent_hz=np.uint16(100)), dict(observation_noise=np.float32(0.01)),
    dict(observation_noise=0), dict(seed=np.int64(3)), dict(seed=np.uint64(2**63 - 1)),
    dict(flight_mode=np.int8(-1)),
], ids=lambda options: _option_id((options,)))
def test_numpy_numbers_and_the_bounds_themselves_are_accepted(options):
    checked = TaskOptions(**options)
    (name, value), = options.items()
    stored = getattr(checked, name)
    assert stored == value and type(stored) in (int, float)  # stored as Python numbers
    envs = make_vec("Hover", 2, **options)
    try:
        observations, _ = envs.reset()
        assert np.isfinite(observations).all()
        observations, *_ = envs.step(np.zeros((2, K), np.float32))
        assert np.isfinite(observations).all()
    finally:
        envs.close()


@pytest.mark.parametrize(("num_envs", "error"), [
    (0, ValueError), (-1, ValueError), (1.5, TypeError), (2.0, TypeError), ("2", TypeError),
    (True, TypeError), (np.bool_(True), TypeError), (None, TypeError), (2 + 0j, TypeError)])
def test_bad_num_envs_raise_naming_it(num_envs, error):
    with pytest.raises(error, match="num_envs"):
        make_vec("Hover", num_envs)


@pytest.mark.parametrize("task", ["Hoover", "hover", "", None, 3, ["Hover"]])
def test_an_unknown_task_lists_the_tasks(task):
    with pytest.raises(ValueError,
                       match=r"task must be one of \['Hover', 'Land', 'Navigate', 'Reach'"):
        MultirotorVectorEnv(task, 2)
    with pytest.raises(ValueError, match="task must be one of"):
        MultirotorTwinEnv(task)


def test_make_vec_refuses_a_bad_seed_at_construction_not_at_the_first_reset():
    # gymnasium.make_vec hands `seed` to the constructor as a keyword
    for seed, error in ((-1, ValueError), (True, TypeError), (1.5, TypeError)):
        with pytest.raises(error, match="seed"):
            gymnasium.make_vec("pyflyt_like/Multirotor-Hover-v0", num_envs=2,
                               vectorization_mode="vector_entry_point", seed=seed)


@pytest.mark.parametrize("make", [lambda seed: make_vec("Reach", 2, seed=seed),
                                  lambda seed: make_twin("Reach", seed=seed)],
                         ids=["vector", "twin"])
def test_the_constructor_seed_seeds_the_first_reset_only(make):
    seeded, plain = make(np.int64(5)), make(None)
    try:
        first, _ = seeded.reset()
        np.testing.assert_array_equal(first, plain.reset(seed=5)[0])
        second, _ = seeded.reset()  # the generator runs on, it is not reseeded
        assert not np.array_equal(second, first)
    finally:
        seeded.close()
        plain.close()


# ---------------------------------------------------------------------------------- sizes
@pytest.mark.parametrize("task", ["Hover", "Navigate"])
def test_a_huge_num_envs_is_refused_with_the_env_estimate_before_anything_is_built(task):
    # the env's own estimate ("num_envs=...") refuses it, not the engine ("n_worlds=...")
    make_vec(task, 1).close()  # modules and the forest pool's code loaded outside the trace
    tracemalloc.start()
    with pytest.raises(ValueError, match=r"^num_envs=1000000000000 needs about .* GiB, more "
                                         r"than the .* GiB allowed.*use fewer envs$"):
        make_vec(task, 10**12)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 4 * 2**20  # nothing sized by num_envs was allocated


def test_the_ring_of_delayed_actions_counts_in_the_memory_estimate(monkeypatch):
    # 10**6 envs: ~1 GB without delay, ~32 GB with the longest delay
    monkeypatch.setattr(validation, "memory_limit_bytes", lambda: 4 * 2**30)
    with pytest.raises(ValueError, match=r"num_envs=1000000 with action_delay_steps=1000 "
                                         r"needs about 3\d(\.\d+)? GiB, more than the 4 GiB "
                                         r"allowed.*shorter delay"):
        make_vec("Hover", 10**6, action_delay_steps=1000)
    monkeypatch.setattr(validation, "memory_limit_bytes", lambda: 2**20)
    with pytest.raises(ValueError, match=r"num_envs=10000 needs about"):
        make_vec("Track", 10**4)


# ---------------------------------------------------------------------------------- seeds
BAD_SEEDS = [
    (-1, ValueError), (2**63, ValueError), (1.5, TypeError), (np.float64(2.0), TypeError),
    ("a", TypeError), ("3", TypeError), (True, TypeError), (np.bool_(False), TypeError),
    (3 + 0j, TypeError), ({3}, TypeError), (np.array([0, 1, 2]), TypeError),
]
BAD_SEED_LISTS = [
    ([0, 1], TypeError, r"a list of 2"), ([0, 1, 2, 3], TypeError, r"a list of 4"),
    ([], TypeError, r"a list of 0"), ([0, None, 2], TypeError, r"seed\[1\]"),
    ([None] * W, TypeError, r"seed\[0\]"), ([0, -1, 2], ValueError, r"seed\[1\]"),
    ([0, 1, 1.5], TypeError, r"seed\[2\]"), ((0, "1", 2), TypeError, r"seed\[1\]"),
    ([0, True, 2], TypeError, r"seed\[1\]"), ([0, 1, 2**63], ValueError, r"seed\[2\]"),
]


@pytest.mark.parametrize(("seed", "error"), BAD_SEEDS, ids=lambda value: repr(value)[:20])
def test_bad_seeds_raise_naming_seed(envs, twin, seed, error):
    with pytest.raises(error, match=r"seed must be None, an integer in \[0, 2\*\*63\) or a "
                                    rf"list of num_envs={W} such integers"):
        envs.reset(seed=seed)
    with pytest.raises(error, match=r"seed must be None or an integer"):
        twin.reset(seed=seed)


@pytest.mark.parametrize(("seed", "error", "match"), BAD_SEED_LISTS,
                         ids=lambda value: repr(value)[:20])
def test_bad_lists_of_seeds_raise_naming_the_entry(envs, seed, error, match):
    with pytest.raises(error, match=match):
        envs.reset(seed=seed)


@pytest.mark.parametrize("numpy_seed", [np.int64(3), np.uint32(3), np.int8(3)])
def test_numpy_integer_seeds_are_seeds(envs, twin, numpy_seed):
    np.testing.assert_array_equal(envs.reset(seed=numpy_seed)[0], envs.reset(seed=3)[0])
    np.testing.assert_array_equal(twin.reset(seed=numpy_seed)[0], twin.reset(seed=3)[0])
    listed = [np.int64(1), 2, np.uint8(3)]
    np.testing.assert_array_equal(envs.reset(seed=listed)[0], envs.reset(seed=(1, 2, 3))[0])
    assert np.isfinite(envs.reset(seed=2**63 - 1)[0]).all()


# --------------------------------------------------------------------------- reset options
MASK = np.array([True, False, True])
BAD_RESET_OPTIONS = [
    ([1], TypeError, r"options must be None or a dict with keys among \['reset_mask'\]"),
    ("reset_mask", TypeError, "options must be None or a dict"),
    (1, TypeError, "options must be None or a dict"),
    ((("reset_mask", MASK),), TypeError, "options must be None or a dict"),
    ({"reset_maks": MASK}, ValueError,
     r"options has unknown key\(s\) 'reset_maks'; the accepted keys are \['reset_mask'\]"),
    ({"reset_mask": MASK, "seed": 3}, ValueError, r"unknown key\(s\) 'seed'"),
    ({1: MASK}, ValueError, r"unknown key\(s\) 1"),
    ({"reset_mask": np.ones(W + 1, bool)}, ValueError, r"reset_mask'\] must be a bool array "
                                                       r"of shape \(3,\)"),
    ({"reset_mask": np.ones((1, W), bool)}, ValueError, "reset_mask"),
    ({"reset_mask": np.True_}, ValueError, "reset_mask"),
    ({"reset_mask": np.array([1, 0, 1])}, ValueError, r"got int64 values of shape \(3,\)"),
    ({"reset_mask": [1.0, 0.0, 1.0]}, ValueError, "reset_mask"),
    ({"reset_mask": ["True", "False", "True"]}, ValueError, "reset_mask"),
    ({"reset_mask": [[True], [True, False], []]}, ValueError, "reset_mask"),
    ({"reset_mask": None}, ValueError, "reset_mask"),
]


@pytest.mark.parametrize(("options", "error", "match"), BAD_RESET_OPTIONS,
                         ids=lambda value: repr(value)[:30])
def test_bad_reset_options_raise_naming_the_accepted_keys(envs, options, error, match):
    with pytest.raises(error, match=match):
        envs.reset(options=options)


@pytest.mark.parametrize(("options", "error", "match"), [
    ([1], TypeError, r"options must be None or an empty dict \(the twin takes no reset"),
    ("x", TypeError, "options must be None or an empty dict"),
    ({"reset_mask": np.ones(1, bool)}, ValueError,
     r"options has unknown key\(s\) 'reset_mask'; the twin takes no reset options"),
    ({"seed": 3}, ValueError, r"unknown key\(s\) 'seed'"),
], ids=["list", "str", "reset_mask", "seed"])
def test_the_twin_takes_no_reset_options(twin, options, error, match):
    with pytest.raises(error, match=match):
        twin.reset(options=options)


def test_empty_options_and_a_list_mask_are_accepted(envs, twin):
    assert envs.reset(seed=1, options={})[0].shape == (W, 22)
    assert envs.reset(options={"reset_mask": [True, False, True]})[0].shape == (W, 22)
    assert twin.reset(seed=1, options={})[0].shape == (22,)


# --------------------------------------------------------------------------------- actions
BAD_ACTIONS = [
    # not numbers: never read as numbers, whatever they hold
    ("12", TypeError), ("0.5", TypeError),
    (np.full((W, K), "0.1"), TypeError), (np.full((W, K), "0.1", object), TypeError),
    ([["0"] * K] * W, TypeError), (np.zeros((W, K), complex), TypeError),
    (np.full((W, K), 0.5 + 0.5j), TypeError), (np.zeros((W, K), np.complex64), TypeError),
    (np.zeros((W, K), bool), TypeError), ([[True, False, False, False]] * W, TypeError),
    ([[0.0, 0.0, 0.0, np.True_]] * W, TypeError), (None, TypeError), ({"a": 1}, TypeError),
    (np.full((W, K), None), TypeError),
    # ragged nesting
    ([[0.0] * K] * (W - 1) + [[0.0] * (K - 1)], TypeError),
    ([[0.0] * K] * (W - 1) + [[0.0, [0.0], 0.0, 0.0]], TypeError),
    # wrong shapes
    (np.zeros((W + 1, K)), ValueError), (np.zeros((W, K + 1)), ValueError),
    (np.zeros((W, K - 1), np.float32), ValueError), (np.zeros(K), ValueError),
    (np.zeros(W * K), ValueError), (np.zeros((1, W, K)), ValueError), (np.float64(0.0), ValueError),
    ([[0.0] * K] * (W + 1), ValueError), (np.zeros((0, K)), ValueError),
    # not finite, on the fast path (float ndarrays) and the full one
    (np.full((W, K), np.nan), ValueError), (np.full((W, K), np.inf, np.float32), ValueError),
    (np.array([[0.0] * K] * (W - 1) + [[0.0, -np.inf, 0.0, 0.0]]), ValueError),
    ([[0.0] * K] * (W - 1) + [[0.0, float("nan"), 0.0, 0.0]], ValueError),
    (np.full((W, K), np.nan, np.float16), ValueError),
]


def _action_id(value) -> str:
    return (f"{type(value).__name__}-{getattr(value, 'dtype', '')}-"
            f"{np.shape(value) if not isinstance(value, list) else len(value)}")


@pytest.mark.parametrize(("actions", "error"), BAD_ACTIONS,
                         ids=[f"{i}-{_action_id(a)}" for i, (a, _) in enumerate(BAD_ACTIONS)])
def test_bad_actions_raise_naming_actions(envs, actions, error):
    with pytest.raises(error, match="actions must "):
        envs.step(actions)


BAD_TWIN_ACTIONS = [
    ("12", TypeError), ("0.5", TypeError), (np.full(K, "0.1"), TypeError),
    (np.full(K, "0.1", object), TypeError), (["0"] * K, TypeError),
    (np.zeros(K, complex), TypeError), (np.full(K, 0.5 + 0.5j), TypeError),
    (np.zeros(K, bool), TypeError), ([True, False, False, False], TypeError),
    ([0.0, 0.0, 0.0, np.True_], TypeError), (None, TypeError), ({"a": 1}, TypeError),
    (np.full(K, None), TypeError), ([0.0, [0.0], 0.0, 0.0], TypeError),
    ([[0.0] * K, [0.0]], TypeError),
    (np.zeros(K + 1), ValueError), (np.zeros(K - 1, np.float32), ValueError),
    (np.zeros((1, K)), ValueError), (np.float64(0.0), ValueError), ([0.0] * (K + 1), ValueError),
    (np.zeros(0), ValueError),
    (np.full(K, np.nan), ValueError), (np.full(K, np.inf, np.float32), ValueError),
    ([0.0, -np.inf, 0.0, 0.0], ValueError), (np.full(K, np.nan, np.float16), ValueError),
]


@pytest.mark.parametrize(("action", "error"), BAD_TWIN_ACTIONS,
                         ids=[f"{i}-{_action_id(a)}" for i, (a, _) in enumerate(BAD_TWIN_ACTIONS)])
def test_bad_twin_actions_raise_naming_action(twin, action, error):
    with pytest.raises(error, match="action must "):
        twin.step(action)


@pytest.mark.parametrize("actions", [
    np.zeros((W, K), np.float32), np.zeros((W, K)), np.zeros((W, K), np.int64),
    np.zeros((W, K), np.float16), np.zeros((W, K), ">f8"), np.asfortranarray(np.ones((W, K))),
    np.ones((W, 2 * K), np.float32)[:, ::2], [[0.1, 0, 0, 0]] * W, np.full((W, K), 0.2, object),
    np.full((W, K), 5.0),  # clipped to 1
], ids=["float32", "float64", "int64", "float16", "big-endian", "fortran", "strided", "list",
        "object-numbers", "beyond-1"])
def test_numeric_actions_of_any_numpy_kind_are_accepted(actions):
    reference, envs = make_vec("Hover", W), make_vec("Hover", W)
    reference.reset(seed=4)
    envs.reset(seed=4)
    expected = reference.step(np.clip(np.asarray(actions, np.float64), -1.0, 1.0))
    got = envs.step(actions)
    for a, b in zip(expected[:4], got[:4], strict=True):
        np.testing.assert_array_equal(a, b)


def test_the_imaginary_part_of_an_action_is_never_dropped(envs, twin):
    # numpy's float conversion drops it with only a warning: refused instead
    with pytest.raises(TypeError, match="actions must be a numeric array"):
        envs.step(np.full((W, K), 0.1 + 0.9j))
    with pytest.raises(TypeError, match="action must be a numeric array"):
        twin.step(np.full(K, 0.1 + 0.9j))


# ----------------------------------------------------------- a refused call changes nothing
# the last call's actions, copied into the compiled call's type before it checks them: an
# input buffer, not the env's state
INPUT_BUFFERS = {"env._actions", "env._action"}


def _arrays_of(owner, prefix: str, into: dict) -> None:
    for name, value in vars(owner).items():
        if f"{prefix}.{name}" in INPUT_BUFFERS:
            continue
        if isinstance(value, np.ndarray):
            into[f"{prefix}.{name}"] = value.copy()
        elif isinstance(value, (int, float, type(None))):
            into[f"{prefix}.{name}"] = value


def snapshot(env) -> dict:
    """Every array and scalar the env, its task arrays and its engine hold, and the state of
    every generator."""
    env = env.unwrapped
    state: dict = {"rng": env.np_random.bit_generator.state}
    _arrays_of(env, "env", state)
    for name, value in env.task._asdict().items():
        state[f"task.{name}"] = value.copy()
    if isinstance(env, MultirotorVectorEnv):
        sim = env.sim
        state["engine.rng"] = sim.rng.bit_generator.state
        for name, value in {**sim._state._asdict(), **sim.plant._asdict()}.items():
            state[f"engine.{name}"] = value.copy()
    else:
        twin_sim = env.sim
        aviary, drone = twin_sim.aviary, twin_sim.drone
        _arrays_of(twin_sim, "sim", state)
        state["pybullet.pose"] = aviary.getBasePositionAndOrientation(drone.Id)
        state["pybullet.velocity"] = aviary.getBaseVelocity(drone.Id)
        state["pybullet.state"] = drone.state.copy()
        state["pybullet.setpoint"] = np.array(drone.setpoint, dtype=float)
        state["pybullet.step"] = aviary.physics_steps
    return state


def assert_same(before: dict, after: dict) -> None:
    assert before.keys() == after.keys()
    for key in before:
        if isinstance(before[key], np.ndarray):
            np.testing.assert_array_equal(after[key], before[key], err_msg=key)
        else:
            assert after[key] == before[key], key


REFUSED_VECTOR_CALLS = {
    "reset-seed-negative": lambda env: env.reset(seed=-1),
    "reset-seed-bool": lambda env: env.reset(seed=True),
    "reset-seed-list-short": lambda env: env.reset(seed=[1, 2]),
    "reset-seed-list-entry": lambda env: env.reset(seed=[1, 2, -3]),
    "reset-options-typo": lambda env: env.reset(seed=5, options={"reset_maks": MASK}),
    "reset-options-list": lambda env: env.reset(seed=5, options=[1]),
    "reset-mask-ints": lambda env: env.reset(seed=5, options={"reset_mask": MASK.astype(int)}),
    "reset-mask-shape": lambda env: env.reset(options={"reset_mask": np.ones(W + 1, bool)}),
    "step-nan-float32": lambda env: env.step(np.full((W, K), np.nan, np.float32)),
    "step-inf-one-entry": lambda env: env.step(np.where(np.eye(W, K) > 0, np.inf, 0.0)),
    "step-nan-list": lambda env: env.step([[0.1] * K] * (W - 1) + [[float("nan")] * K]),
    "step-strings": lambda env: env.step(np.full((W, K), "0.1")),
    "step-complex": lambda env: env.step(np.zeros((W, K), complex)),
    "step-bools": lambda env: env.step(np.ones((W, K), bool)),
    "step-shape": lambda env: env.step(np.zeros((W + 1, K), np.float32)),
    "step-ragged": lambda env: env.step([[0.0] * K] * (W - 1) + [[0.0]]),
}


def _mid_episode_env(**options) -> MultirotorVectorEnv:
    """A Reach VectorEnv with a delay, noise and a pending autoreset: every kind of state."""
    env = make_vec("Reach", W, action_delay_steps=2, observation_noise=0.01,
                   max_duration_seconds=0.1, seed=11, **options)
    env.reset()
    actions = np.random.default_rng(0).uniform(-0.3, 0.3, (5, W, K)).astype(np.float32)
    for action in actions:  # 5 steps of a 5-step episode: all due for an autoreset
        env.step(action)
    assert env.restarting.all()
    return env


@pytest.mark.parametrize("call", list(REFUSED_VECTOR_CALLS.values()),
                         ids=list(REFUSED_VECTOR_CALLS))
def test_a_refused_vector_env_call_changes_nothing(call):
    refused, clean = _mid_episode_env(), _mid_episode_env()
    before = snapshot(refused)
    with pytest.raises((TypeError, ValueError)):
        call(refused)
    assert_same(before, snapshot(refused))
    # and it flies on exactly as one that was never refused
    actions = np.random.default_rng(1).uniform(-0.5, 0.5, (4, W, K)).astype(np.float32)
    for action in actions:
        for a, b in zip(clean.step(action)[:4], refused.step(action)[:4], strict=True):
            np.testing.assert_array_equal(a, b)


def test_a_refused_reset_keeps_the_constructor_seed_for_the_next_one():
    refused, clean = make_vec("Hover", W, seed=9), make_vec("Hover", W, seed=9)
    with pytest.raises(ValueError, match="options"):
        refused.reset(options={"reset_maks": MASK})
    np.testing.assert_array_equal(refused.reset()[0], clean.reset()[0])


REFUSED_TWIN_CALLS = {
    "reset-seed-negative": lambda env: env.reset(seed=-1),
    "reset-seed-float": lambda env: env.reset(seed=1.5),
    "reset-options": lambda env: env.reset(seed=5, options={"reset_mask": np.ones(1, bool)}),
    "step-nan": lambda env: env.step(np.full(K, np.nan, np.float32)),
    "step-strings": lambda env: env.step(["0.1"] * K),
    "step-complex": lambda env: env.step(np.zeros(K, complex)),
    "step-shape": lambda env: env.step(np.zeros(K + 1)),
}


@pytest.mark.parametrize("call", list(REFUSED_TWIN_CALLS.values()), ids=list(REFUSED_TWIN_CALLS))
def test_a_refused_twin_call_changes_nothing(call):
    refused, clean = (make_twin("Reach", action_delay_steps=2, observation_noise=0.01)
                      for _ in range(2))
    try:
        for env in (refused, clean):
            env.reset(seed=11)
            env.step(np.full(K, 0.2, np.float32))
        before = snapshot(refused)
        with pytest.raises((TypeError, ValueError)):
            call(refused)
        assert_same(before, snapshot(refused))
        for _ in range(3):
            action = np.full(K, -0.1, np.float32)
            for a, b in zip(clean.step(action)[:4], refused.step(action)[:4], strict=True):
                np.testing.assert_array_equal(a, b)
    finally:
        refused.close()
        clean.close()


@pytest.mark.parametrize("make", [lambda: MultirotorVectorEnv("Hover", W),
                                  lambda: MultirotorTwinEnv("Hover")], ids=["vector", "twin"])
def test_a_step_before_the_first_reset_is_refused_and_changes_nothing(make):
    env = make()
    try:
        actions = np.zeros(env.action_space.shape, np.float32)
        before = snapshot(env)
        with pytest.raises(RuntimeError, match=r"step\(\) called before reset\(\)"):
            env.step(actions)
        assert_same(before, snapshot(env))
        env.reset(seed=0)
        assert np.isfinite(env.step(actions)[0]).all()
    finally:
        env.close()


# --------------------------------------------------------------------- finite but unphysical
def test_any_finite_observation_noise_keeps_observations_finite_and_in_the_space():
    envs = make_vec("Track", W, observation_noise=1e300)
    observations, _ = envs.reset(seed=0)
    assert envs.observation_space.contains(observations)
    for _ in range(3):
        observations, rewards, *_ = envs.step(np.zeros((W, K), np.float32))
        assert envs.observation_space.contains(observations) and np.isfinite(rewards).all()


def test_an_episode_shorter_than_one_agent_step_lasts_one_step():
    envs = make_vec("Hover", W, max_duration_seconds=1e-300)
    envs.reset(seed=0)
    _, _, terminated, truncated, _ = envs.step(np.zeros((W, K), np.float32))
    assert truncated.all() and not terminated.any()


# ----------------------------------------------------------------------------- divergence
@pytest.mark.parametrize("task", MULTIROTOR_TASKS)
def test_a_world_whose_physics_diverges_ends_its_episode_and_nobody_sees_nan(task):
    envs, clean = make_vec(task, W), make_vec(task, W)
    for env in (envs, clean):
        env.reset(seed=3)
    action = np.full((W, K), 0.05, np.float32)
    for env in (envs, clean):
        env.step(action)
    envs.sim.vel[1, 0] = np.nan  # forced: world 1 goes non-finite
    observations, rewards, terminated, truncated, infos = envs.step(action)
    expected = clean.step(action)
    assert np.isfinite(observations).all() and np.isfinite(rewards).all()
    assert terminated[1] and not truncated[1] and rewards[1] == 0.0
    assert all(np.isfinite(value).all() for value in infos.values())
    keep = np.array([True, False, True])
    for got, want in zip((observations, rewards, terminated, truncated), expected[:4],
                         strict=True):
        np.testing.assert_array_equal(got[keep], want[keep])
    observations, rewards, terminated, _, _ = envs.step(action)  # world 1 restarts
    assert np.isfinite(observations).all() and rewards[1] == 0.0 and not terminated[1]
