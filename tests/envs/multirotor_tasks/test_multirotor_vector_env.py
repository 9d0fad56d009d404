"""The Multirotor-* tasks: the batched VectorEnv's contract and its PyBullet twin."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode

from pyflyt_like.batch import BatchedAviary
from pyflyt_like.envs import MULTIROTOR_TASKS
from pyflyt_like.envs.multirotor_tasks.navigate_world import default_lidar
from pyflyt_like.envs.multirotor_tasks.vector_env import MultirotorVectorEnv


def make_vec(task: str, num_envs: int, **options) -> MultirotorVectorEnv:
    return gymnasium.make_vec(f"pyflyt_like/Multirotor-{task}-v0", num_envs=num_envs,
                              vectorization_mode="vector_entry_point", **options)


def make_twin(task: str, **options) -> gymnasium.Env:
    return gymnasium.make(f"pyflyt_like/Multirotor-{task}-v0", **options)


def rollout(env, actions) -> list[tuple]:
    """(obs, reward, terminated, truncated) of every step of ``actions`` from reset(seed=7)."""
    observation, _ = env.reset(seed=7)
    steps = [(observation.copy(),)]
    for action in actions:
        observation, reward, terminated, truncated, _ = env.step(action)
        steps.append((observation.copy(), np.copy(reward), np.copy(terminated),
                      np.copy(truncated)))
    return steps


@pytest.mark.parametrize("task", MULTIROTOR_TASKS)
def test_each_twin_passes_check_env_without_warnings(task):
    env = make_twin(task)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env.unwrapped, skip_render_check=True)
    finally:
        env.close()


@pytest.mark.parametrize("task", MULTIROTOR_TASKS)
def test_vector_env_spaces_dtypes_and_shapes(task):
    envs = make_vec(task, 8)
    twin = make_twin(task)
    try:
        assert isinstance(envs, MultirotorVectorEnv)
        assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
        assert envs.single_observation_space == twin.observation_space
        assert envs.single_action_space == twin.action_space
        assert envs.observation_space.shape == (8, *envs.single_observation_space.shape)
        assert envs.action_space.shape == (8, 4)
        observations, infos = envs.reset(seed=0)
        assert observations.dtype == np.float32 and envs.observation_space.contains(observations)
        observations, rewards, terminated, truncated, infos = envs.step(
            envs.action_space.sample())
        assert envs.observation_space.contains(observations)
        assert rewards.shape == (8,) and rewards.dtype == np.float64
        assert terminated.dtype == bool and truncated.dtype == bool
        assert terminated.shape == truncated.shape == (8,)
        for key in [k for k in infos if not k.startswith("_")]:
            assert infos[key].shape == (8,) and infos[f"_{key}"].all()
    finally:
        envs.close()
        twin.close()


def test_the_step_after_an_episode_ends_returns_the_reset_observation():
    # rotor speeds at their minimum: the drones fall out of the hover zone within a second
    envs = make_vec("Hover", 4, flight_mode=-1)
    try:
        envs.reset(seed=1)
        fall = -np.ones((4, 4), np.float32)
        for _ in range(200):
            _, _, terminated, truncated, _ = envs.step(fall)
            if terminated.any():
                break
        assert terminated.any() and not truncated.any()
        ended = terminated.copy()
        observations, rewards, terminated, truncated, _ = envs.step(fall)
        assert np.all(rewards[ended] == 0.0)
        assert not terminated[ended].any() and not truncated[ended].any()
        # a fresh episode: the drone back within 0.3 m of the target, at rest, last action 0
        offset = observations[ended, :3]
        assert np.all(np.abs(offset) <= 0.3)
        assert np.all(observations[ended, 12:18] == 0.0) and np.all(observations[ended, -4:] == 0)
        # the others fell on
        assert np.all(np.abs(observations[~ended, 14]) > 0.1)
    finally:
        envs.close()


def test_episodes_truncate_at_the_time_limit_and_restart():
    envs = make_vec("Hover", 3, max_duration_seconds=0.2)  # 10 agent steps at 50 Hz
    try:
        envs.reset(seed=0)
        hover = np.zeros((3, 4), np.float32)
        for step in range(1, 11):
            _, _, terminated, truncated, _ = envs.step(hover)
            assert not terminated.any()
            assert truncated.all() == (step == 10)
        _, rewards, _, truncated, _ = envs.step(hover)
        assert np.all(rewards == 0.0) and not truncated.any()
        _, rewards, _, _, _ = envs.step(hover)
        assert np.all(rewards > 0.0)
    finally:
        envs.close()


@pytest.mark.parametrize("task", MULTIROTOR_TASKS)
def test_same_seed_same_rollout_other_seed_other_rollout(task):
    actions = np.random.default_rng(0).uniform(-0.3, 0.3, (30, 16, 4)).astype(np.float32)
    first, second = (rollout(make_vec(task, 16, observation_noise=0.01), actions)
                     for _ in range(2))
    for a, b in zip(first, second, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)
    envs = make_vec(task, 16, observation_noise=0.01)
    other, _ = envs.reset(seed=8)
    assert not np.array_equal(other, first[0][0])


def test_a_masked_reset_resets_only_the_masked_envs():
    envs = make_vec("Reach", 6)
    try:
        envs.reset(seed=3)
        for _ in range(20):
            before, *_ = envs.step(np.full((6, 4), 0.2, np.float32))
        mask = np.array([True, False, True, False, False, False])
        after, _ = envs.reset(options={"reset_mask": mask})
        np.testing.assert_array_equal(after[~mask], before[~mask])
        assert np.all(after[mask, 12:] == 0.0)  # at rest, level rates, no last action
        assert not np.array_equal(after[mask], before[mask])
        with pytest.raises(ValueError, match="reset_mask"):
            envs.reset(options={"reset_mask": np.ones(5, bool)})
    finally:
        envs.close()


def test_a_masked_reset_clears_a_pending_autoreset():
    envs = make_vec("Hover", 2, max_duration_seconds=0.04)  # 2 steps
    try:
        envs.reset(seed=0)
        hover = np.zeros((2, 4), np.float32)
        envs.step(hover)
        _, _, _, truncated, _ = envs.step(hover)
        assert truncated.all()
        envs.reset(options={"reset_mask": np.array([True, False])})
        _, rewards, _, _, _ = envs.step(hover)
        assert rewards[0] > 0.0 and rewards[1] == 0.0  # env 1 autoresets, env 0 flies on
    finally:
        envs.close()


@pytest.mark.parametrize("flight_mode", [-1, 0, 1])
@pytest.mark.parametrize("task", MULTIROTOR_TASKS)
def test_twin_and_vector_env_agree_step_by_step(task, flight_mode):
    """Same seed, same actions: the same observations and rewards up to float rounding
    (the engines agree to ~1e-14 m, docs/batch.md; observations are float32)."""
    actions = np.random.default_rng(1).normal(0.0, 0.15, (60, 4)).astype(np.float32)
    # Navigate's LiDAR without noise and dropout: the engines draw them from other streams
    options = ({"sensors": {"lidar": {**default_lidar(50), "noise_per_metre": 0.0,
                                      "dropout": 0.0}}} if task == "Navigate" else {})
    envs = make_vec(task, 1, flight_mode=flight_mode, **options)
    twin = make_twin(task, flight_mode=flight_mode, **options)
    try:
        vector_steps = rollout(envs, actions[:, None])
        twin_steps = rollout(twin, actions)
    finally:
        envs.close()
        twin.close()
    np.testing.assert_allclose(vector_steps[0][0][0], twin_steps[0][0], atol=1e-6)
    compared = 0
    for (obs_v, reward_v, term_v, trunc_v), (obs_t, reward_t, term_t, trunc_t) in zip(
            vector_steps[1:], twin_steps[1:], strict=True):
        np.testing.assert_allclose(obs_v[0], obs_t, atol=1e-5)
        assert reward_v[0] == pytest.approx(reward_t, abs=1e-9)
        assert (term_v[0], trunc_v[0]) == (term_t, trunc_t)
        compared += 1
        if term_t or trunc_t:
            break  # after this the twin would need a reset, the VectorEnv autoresets
    assert compared >= 20


def test_action_delay_holds_back_the_action():
    """Delayed by 3 agent steps, five climb actions fly as three hover actions (zero) then
    two climbs; the observation shows the action as given."""
    climb = np.array([0.0, 0.2, 0.0, 1.0], np.float32)
    hover = np.zeros(4, np.float32)
    delayed = rollout(make_vec("Hover", 1, action_delay_steps=3), [climb[None]] * 5)
    shifted = rollout(make_vec("Hover", 1), [hover[None]] * 3 + [climb[None]] * 2)
    for (obs_delayed, *_), (obs_shifted, *_) in zip(delayed[1:], shifted[1:], strict=True):
        np.testing.assert_array_equal(obs_delayed[0, :-4], obs_shifted[0, :-4])
        np.testing.assert_array_equal(obs_delayed[0, -4:], climb)
    assert delayed[-1][0][0, 14] > 0.1  # the climb did arrive


def test_observation_noise_has_the_requested_spread():
    # 2048 worlds for the statistics (split among the threads: the same compiled kernel)
    clean, noisy = (make_vec("Hover", 2048, observation_noise=noise) for noise in (0.0, 0.05))
    a, _ = clean.reset(seed=2)
    b, _ = noisy.reset(seed=2)
    # the same starts (noise is drawn after them); the rotation entries are clipped to +-1
    difference = (b - a)[:, :3]
    assert difference.std() == pytest.approx(0.05, rel=0.05)
    assert abs(difference.mean()) < 0.005


def test_render_gives_a_frame_of_world_zero():
    envs = make_vec("Hover", 1, render_mode="rgb_array", render_resolution=(60, 80))
    twin = make_twin("Hover", render_mode="rgb_array", render_resolution=(60, 80))
    try:
        envs.reset(seed=0)
        frame = envs.render()
        assert frame.shape == (60, 80, 3) and frame.dtype == np.uint8 and frame.std() > 0
        twin.reset(seed=0)
        # the same world 0 drawn from the same pose by the same camera
        np.testing.assert_array_equal(twin.render(), frame)
        assert make_vec("Hover", 1).render() is None
    finally:
        envs.close()
        twin.close()


@pytest.mark.parametrize(("options", "error", "match"), [
    (dict(flight_mode=2), ValueError, "flight_mode"),
    (dict(flight_mode="rates"), TypeError, "flight_mode"),
    (dict(agent_hz=33), ValueError, "agent_hz"),
    (dict(max_duration_seconds=0.0), ValueError, "max_duration_seconds"),
    (dict(action_delay_steps=-1), ValueError, "action_delay_steps"),
    (dict(observation_noise=-0.1), ValueError, "observation_noise"),
    (dict(randomize={"weight": (0.9, 1.1)}), ValueError, "randomize"),
    (dict(drone_model="no_such_drone"), FileNotFoundError, "no_such_drone"),
    (dict(drone_model=3), TypeError, "drone_model"),
])
def test_bad_options_raise_naming_the_option(options, error, match):
    with pytest.raises(error, match=match):
        make_vec("Hover", 2, **options)
    with pytest.raises(error, match=match):
        make_twin("Hover", **options)



def test_control_mode_is_the_old_name_of_flight_mode():
    with pytest.deprecated_call(match="use flight_mode") as record:
        envs = make_vec("Hover", 2, control_mode=-1)
    assert record[0].filename == __file__  # the warning names the line that made the env
    with pytest.deprecated_call(match="use flight_mode"):
        twin = make_twin("Hover", control_mode=0)
    try:
        assert envs.options.flight_mode == envs.params.mode == -1
        assert twin.unwrapped.options.flight_mode == twin.unwrapped.params.mode == 0
    finally:
        envs.close()
        twin.close()
    with pytest.raises(TypeError, match="flight_mode only"):
        make_vec("Hover", 2, control_mode=0, flight_mode=0)

def test_a_rejected_action_changes_nothing():
    actions = np.random.default_rng(3).uniform(-0.5, 0.5, (5, 2, 4)).astype(np.float32)
    clean, rejected = make_vec("Hover", 2), make_vec("Hover", 2)
    clean.reset(seed=7)
    rejected.reset(seed=7)
    bad = actions[0].copy()
    bad[1, 2] = np.inf
    with pytest.raises(ValueError, match="finite"):
        rejected.step(bad)
    for action in actions:
        expected, got = clean.step(action), rejected.step(action)
        for a, b in zip(expected[:4], got[:4], strict=True):
            np.testing.assert_array_equal(a, b)


def _fly_twin(task: str) -> float:
    env = make_twin(task)
    env.reset(seed=0)
    total = 0.0
    for _ in range(3):
        total += env.step(np.zeros(4, np.float32))[1]
    env.close()
    return total


def _fly_vector_env(n_worlds: int) -> bool:
    """A VectorEnv of ``n_worlds`` worlds, its worlds split among threads, steps in a
    forked child: whether its observations stay finite."""
    envs = make_vec("Hover", n_worlds)
    observation, _ = envs.reset(seed=1)
    for _ in range(3):
        observation = envs.step(np.zeros((n_worlds, 4), np.float32))[0]
    return bool(np.isfinite(observation).all())


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                    reason="needs the fork start method")
def test_forked_workers_fly_after_their_parent_used_the_threads():
    # numba's OpenMP layer kills a forked child that launches a parallel kernel after its
    # parent launched one; the worlds' threads (pyflyt_like.batch.threads) are Python
    # threads, made again in a child. Parent: the engine and a VectorEnv whose worlds are
    # split among the threads; children: the twins and such a VectorEnv.
    sim = BatchedAviary(n_worlds=4096, drone_model="cf2x", mode=-1)
    sim.set_setpoints(np.full(4, sim.hover_speed))
    sim.step(10)
    envs = make_vec("Track", 2048)
    envs.reset(seed=0)
    envs.step(np.zeros((2048, 4), np.float32))
    assert envs._loop.parallel(None) and sim._loop.parallel(*[None] * 5, 10)
    context = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=context) as pool:
        returns = list(pool.map(_fly_twin, ["Hover", "Track"]))
        finite = list(pool.map(_fly_vector_env, [2048, 2048]))
    assert all(0.0 < value <= 3.0 for value in returns)
    assert all(finite)


def test_bad_actions_and_seeds_raise():
    envs = make_vec("Hover", 2)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        envs.step(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="finite"):
        envs.step(np.full((2, 4), np.nan))
    with pytest.raises(TypeError, match="actions must be a numeric array"):
        envs.step(np.full((2, 4), "a"))
    twin = make_twin("Hover")
    twin.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        twin.step(np.zeros(3))
    with pytest.raises(ValueError, match="finite"):
        twin.step(np.full(4, np.inf))
    with pytest.raises(TypeError, match="action must be a numeric array"):
        twin.step(["a"] * 4)
    twin.close()
    with pytest.raises(TypeError, match="seed"):
        envs.reset(seed=[0, 1, 2])
    with pytest.raises(TypeError, match="seed"):
        envs.reset(seed=0.5)
    a, _ = envs.reset(seed=[4, 5])
    b, _ = envs.reset(seed=[4, 5])
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="task"):
        MultirotorVectorEnv("Hoover", 2)


def test_twin_randomizes_mass_only_where_pybullet_can():
    with pytest.raises(ValueError, match="batched engine only"):
        make_twin("Hover", randomize={"kf": (0.9, 1.1)})
    light = make_twin("Hover", randomize={"mass": (0.5, 0.5)})
    nominal = make_twin("Hover")
    try:
        for env in (light, nominal):
            env.reset(seed=0)
        hover = np.zeros(4, np.float32)
        climb_light = light.step(hover)[0][14]
        climb_nominal = nominal.step(hover)[0][14]
        assert abs(climb_nominal) < 0.01
        assert climb_light > 0.1  # the same thrust lifts half the mass
    finally:
        light.close()
        nominal.close()


def test_the_batched_engine_randomizes_per_world():
    envs = make_vec("Hover", 64, randomize={"mass": (0.7, 1.3)})
    envs.reset(seed=0)
    observations, *_ = envs.step(np.zeros((64, 4), np.float32))
    climb = observations[:, 14]
    assert climb.std() > 0.01  # the same hover command, different masses
