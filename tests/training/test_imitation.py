"""pyflyt_like.training.imitation: the least-squares fit to a teacher and DAgger, on a
one-dimensional env whose teacher is known in closed form."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason='needs the rl extra: pip install "pyflyt_like[rl]"')

import gymnasium as gym  # noqa: E402
from gymnasium.vector import AutoresetMode, VectorEnv  # noqa: E402

from pyflyt_like.training import PPOConfig, PPOPolicy  # noqa: E402
from pyflyt_like.training.imitation import dagger, fit_to_teacher  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    """These networks are tiny: one thread is as fast, and two OpenMP threads slow down
    badly when another process shares the 2 cores (the fit took 36 s instead of 5 so).
    Restored afterwards."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


class PointEnv(VectorEnv):
    """N points on a line: observation (x, v), action a in [-1, 1] accelerates; episodes of
    50 steps from random starts."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 32):
        self.num_envs = num_envs
        self.single_observation_space = gym.spaces.Box(-10.0, 10.0, (2,), np.float64)
        self.single_action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
        self.rng = np.random.default_rng(0)
        self.state = np.zeros((num_envs, 2))
        self.steps = np.zeros(num_envs, int)
        self.seen: list[np.ndarray] = []  # the observation each step's actions answered
        self.flown: list[np.ndarray] = []

    def reset(self, *, seed=None, options=None):
        self.rng = np.random.default_rng(seed)
        self.state = self.rng.uniform(-2.0, 2.0, (self.num_envs, 2))
        self.steps[:] = 0
        return self.state.copy(), {}

    def step(self, actions):
        actions = np.clip(np.asarray(actions, float).reshape(self.num_envs), -1.0, 1.0)
        self.seen.append(self.state.copy())
        self.flown.append(actions.copy())
        self.state[:, 1] += 0.1 * actions
        self.state[:, 0] += 0.1 * self.state[:, 1]
        self.steps += 1
        done = self.steps >= 50
        self.state[done] = self.rng.uniform(-2.0, 2.0, (int(done.sum()), 2))
        self.steps[done] = 0
        zeros = np.zeros(self.num_envs)
        return self.state.copy(), zeros, zeros.astype(bool), done, {}


def teacher(observations: np.ndarray) -> np.ndarray:
    """A PD law bringing the point to rest at 0."""
    return np.clip(-observations[:, :1] - 1.5 * observations[:, 1:], -1.0, 1.0)


def new_policy() -> PPOPolicy:
    env = PointEnv()
    return PPOPolicy.from_spaces(env.single_observation_space, env.single_action_space,
                                 PPOConfig(hidden_sizes=(32, 32), seed=0))


def test_fit_to_teacher_reproduces_a_linear_law():
    policy = new_policy()
    observations = np.random.default_rng(1).uniform(-0.3, 0.3, (4000, 2))  # actions within [-1, 1]
    actions = (-observations[:, :1] - 1.5 * observations[:, 1:]).astype(np.float32)
    error = fit_to_teacher(policy, observations, actions, epochs=300, seed=0, batch_size=500)
    assert error < 0.02
    test = np.random.default_rng(2).uniform(-0.3, 0.3, (200, 2))
    np.testing.assert_allclose(policy.act(test)[:, 0], -test[:, 0] - 1.5 * test[:, 1],
                               atol=0.06)


def test_dagger_hands_the_flying_over_and_fits_the_teacher():
    env, policy = PointEnv(), new_policy()
    rows = dagger(env, policy, teacher, first_steps=60, round_steps=40, epochs=30, seed=3,
                  max_rounds=4)
    assert [row["teacher_share"] for row in rows] == [1.0, 0.5, 0.25, 0.125]
    assert [row["samples"] for row in rows] == [60 * 32, 100 * 32, 140 * 32, 180 * 32]
    seen, flown = np.array(env.seen), np.array(env.flown)
    taught = np.array([teacher(observations)[:, 0] for observations in seen], np.float32)
    # round 0 flew the teacher's actions; in the last, each env flew them with probability
    # 1/8 (the policy's own actions differ from the teacher's in the last digits at least)
    np.testing.assert_array_equal(flown[:60], taught[:60])
    inside = np.abs(taught[-40:]) < 0.99  # where both may saturate, their actions agree
    assert 0.06 < np.mean((flown[-40:] == taught[-40:])[inside]) < 0.2
    assert rows[-1]["rms_error"] < 0.08 < rows[0]["rms_error"] + 1.0
    observations = np.random.default_rng(4).uniform(-1.0, 1.0, (500, 2))
    assert np.abs(policy.act(observations) - teacher(observations)).mean() < 0.08


def test_dagger_keeps_the_latest_samples_and_stops_on_request():
    env, policy = PointEnv(), new_policy()
    rows = dagger(env, policy, teacher, first_steps=10, round_steps=10, epochs=1, seed=0,
                  max_samples=15 * 32, callback=lambda row: row["round"] < 2)
    assert len(rows) == 3
    assert [row["samples"] for row in rows] == [10 * 32, 15 * 32, 15 * 32]


@pytest.mark.parametrize(("option", "value", "match"), [
    ("teacher_decay", 1.0, r"teacher_decay must be in \[0, 1\)"),
    ("first_steps", 0, "first_steps"),
    ("max_samples", -1, "max_samples"),
])
def test_bad_options_name_themselves(option, value, match):
    options = {"first_steps": 1, "round_steps": 1, option: value}
    with pytest.raises(ValueError, match=match):
        dagger(PointEnv(), new_policy(), teacher, **options)


def test_mismatched_samples_are_refused():
    with pytest.raises(ValueError, match=r"observations and actions must be \(S, 2\)"):
        fit_to_teacher(new_policy(), np.zeros((5, 3)), np.zeros((5, 1)), epochs=1, seed=0)
