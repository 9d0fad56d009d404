"""pyflyt_like.training.imitation: the least-squares fit to a teacher and DAgger, on a
one-dimensional env whose teacher is known in closed form."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason='needs the rl extra: pip install "pyflyt_like[rl]"')

import gymnasium as gym  # noqa: E402
from gymnasium.vector import AutoresetMode, VectorEnv  # noqa: E402

from pyflyt_like.common.validation import NumericalError  # noqa: E402
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


def _state(policy: PPOPolicy) -> dict:
    return {key: value.clone() for key, value in policy.state_dict().items()}


def _same(state: dict, policy: PPOPolicy) -> bool:
    now = policy.state_dict()
    return state.keys() == now.keys() and all(torch.equal(state[k], now[k]) for k in state)


def wrong_shape(observations):
    return np.zeros((len(observations), 2))  # act_dim is 1


def text_actions(observations):
    return np.full((len(observations), 1), "a")


class NanInRoundOne:
    """The teacher, whose actions turn NaN for env 3 from round 1 (the 61st step) on."""

    def __init__(self):
        self.calls = 0

    def __call__(self, observations):
        self.calls += 1
        actions = teacher(observations)
        if self.calls > 60:
            actions[3] = np.nan
        return actions


class NanEnv(PointEnv):
    def step(self, actions):
        observations, *rest = super().step(actions)
        observations[1, 0] = np.inf
        return (observations, *rest)


OPTIONS = {"first_steps": 2, "round_steps": 2, "max_rounds": 2}
HUGE = {"first_steps": 10**9, "max_samples": 10**12}


@pytest.mark.parametrize(("change", "error", "match"), [
    ({"teacher_decay": "0.5"}, TypeError, r"teacher_decay must be a finite number, got '0\.5'"),
    ({"teacher_decay": True}, TypeError, "teacher_decay must be a finite number, got True"),
    ({"teacher_decay": 1.0}, ValueError, r"teacher_decay must be in \[0, 1\), got 1\.0"),
    ({"teacher_decay": -0.1}, ValueError, r"teacher_decay must be in \[0, 1\)"),
    ({"teacher_decay": float("nan")}, ValueError, "teacher_decay must be a finite number"),
    ({"first_steps": 0}, ValueError, "first_steps must be a positive integer, got 0"),
    ({"first_steps": 1.5}, TypeError, "first_steps must be a positive integer"),
    ({"round_steps": -3}, ValueError, "round_steps must be a positive integer"),
    ({"epochs": 0}, ValueError, "epochs must be a positive integer"),
    ({"max_samples": -1}, ValueError, "max_samples must be a positive integer"),
    ({"max_rounds": "4"}, TypeError, "max_rounds must be a positive integer"),
    ({"seed": -1}, ValueError, r"seed must be None or an integer in \[0, 2\*\*63\)"),
    ({"seed": 1.0}, TypeError, "seed must be None or an integer"),
    ({"callback": 5}, TypeError, "callback must be None or a callable"),
    ({"vector_env": "PointEnv"}, TypeError, "vector_env must be a gymnasium.vector.VectorEnv"),
    ({"teacher": "pilot"}, TypeError, "teacher must be a callable"),
    ({"policy": None}, TypeError, "policy must be a pyflyt_like.training.PPOPolicy"),
    ({"policy": "other size"}, ValueError, r"policy has obs_dim=3, act_dim=1; vector_env has "
                                           r"2 and 1"),
    (HUGE, ValueError, r"DAgger on num_envs=32 with max_samples=1000000000000 .* needs about "
                       r".* GiB, more than the .* GiB allowed"),
    # refused in the first step: nothing is fitted
    ({"teacher": wrong_shape}, ValueError, r"teacher wrong_shape must return actions of shape "
                                           r"\(32, 1\) \(num_envs, act_dim\), got shape "
                                           r"\(32, 2\) in DAgger round 0, step 0"),
    ({"teacher": text_actions}, TypeError, r"teacher text_actions must return numeric actions "
                                           r"of shape \(32, 1\), got dtype <U1 in DAgger "
                                           r"round 0, step 0"),
    ({"vector_env": "nan env"}, NumericalError, r"vector_env returned non-finite observations "
                                                r"\(NaN or inf\) in DAgger round 0, step 1"),
])
def test_dagger_refuses_bad_arguments_naming_them_and_leaves_the_policy(change, error, match):
    env, policy = PointEnv(), new_policy()
    arguments = {"vector_env": env, "policy": policy, "teacher": teacher, **OPTIONS, **change}
    if arguments["policy"] == "other size":
        arguments["policy"] = PPOPolicy(3, 1, -1.0, 1.0, hidden_sizes=(8,), seed=0)
    if arguments["vector_env"] == "nan env":
        arguments["vector_env"] = NanEnv()
    before = _state(policy)
    with pytest.raises(error, match=match):
        dagger(**arguments)
    assert _same(before, policy)
    if "vector_env" not in change and "teacher" not in change:
        assert env.seen == []  # refused before the env was reset or stepped
    rows = dagger(PointEnv(), policy, teacher, **OPTIONS)  # the policy still trains
    assert len(rows) == 2 and np.isfinite(rows[-1]["rms_error"])


def test_a_teacher_whose_labels_turn_nan_is_named_with_the_round():
    policy, reference = new_policy(), new_policy()
    with pytest.raises(ValueError, match=r"teacher NanInRoundOne's actions must be finite \(no "
                                         r"NaN or inf, within float32\) in DAgger round 1, "
                                         r"step 0: row 3 is \[nan\]"):
        dagger(PointEnv(), policy, NanInRoundOne(), first_steps=60, round_steps=40, epochs=3,
               seed=3, max_rounds=4)
    # the policy holds round 0's fit, finite: what one round alone gives
    dagger(PointEnv(), reference, teacher, first_steps=60, round_steps=40, epochs=3, seed=3,
           max_rounds=1)
    assert _same(_state(reference), policy)


SAMPLES = np.random.default_rng(5).uniform(-1.0, 1.0, (50, 2))
LABELS = teacher(SAMPLES).astype(np.float32)


def _with(array, row, column, value):
    array = np.array(array, dtype=float)
    array[row, column] = value
    return array


@pytest.mark.parametrize(("change", "error", "match"), [
    ({"actions": _with(LABELS, 7, 0, np.nan)}, ValueError,
     r"actions must be finite \(no NaN or inf, within float32\): row 7 is \[nan\]"),
    ({"actions": _with(LABELS, 0, 0, 1e300)}, ValueError, r"actions must be finite .*: row 0 "
                                                          r"is \[inf\]"),
    ({"observations": _with(SAMPLES, 9, 1, -np.inf)}, ValueError,
     r"observations must be finite .*: row 9 is \[.*, -inf\]"),
    ({"observations": np.zeros((5, 3))}, ValueError,
     r"observations must have shape \(S, 2\) with S >= 1, got \(5, 3\)"),
    ({"observations": np.zeros((0, 2)), "actions": np.zeros((0, 1))}, ValueError,
     r"observations must have shape \(S, 2\) with S >= 1, got \(0, 2\)"),
    ({"actions": LABELS[:-1]}, ValueError,
     "observations and actions must hold as many samples, got 50 and 49"),
    ({"actions": LABELS.astype(str)}, TypeError, r"actions must be a numeric array of shape "
                                                 r"\(S, 1\), got dtype <U"),
    ({"actions": LABELS > 0}, TypeError, "actions must be a numeric array"),
    ({"epochs": 0}, ValueError, "epochs must be a positive integer"),
    ({"epochs": 2.0}, TypeError, "epochs must be a positive integer"),
    ({"batch_size": 0}, ValueError, "batch_size must be a positive integer"),
    ({"learning_rate": 0.0}, ValueError, "learning_rate must be a finite number > 0"),
    ({"learning_rate": "1e-3"}, TypeError, "learning_rate must be a finite number > 0"),
    ({"merge_statistics": 1}, TypeError, "merge_statistics must be a bool"),
    ({"seed": 2**63}, ValueError, r"seed must be None or an integer in \[0, 2\*\*63\)"),
    ({"policy": "policy"}, TypeError, "policy must be a pyflyt_like.training.PPOPolicy"),
])
def test_fit_to_teacher_refuses_bad_arguments_and_changes_nothing(change, error, match):
    policy = new_policy()
    arguments = {"policy": policy, "observations": SAMPLES, "actions": LABELS, "epochs": 1,
                 "seed": 0, **change}
    before = _state(policy)
    with pytest.raises(error, match=match):
        fit_to_teacher(**arguments)
    assert _same(before, policy)
    assert fit_to_teacher(policy, SAMPLES, LABELS, epochs=1, seed=0) < 1.0  # still fits


def test_fit_to_teacher_refuses_samples_too_many_for_memory(monkeypatch):
    from pyflyt_like.common import validation

    policy = new_policy()
    before = _state(policy)
    monkeypatch.setattr(validation, "memory_limit_bytes", lambda: 1000.0)
    with pytest.raises(ValueError, match=r"fitting 50 samples \(obs_dim=2, act_dim=1, "
                                         r"hidden_sizes=\(32, 32\)\) needs about .* GiB, more "
                                         r"than the .* GiB allowed .*; fit fewer samples"):
        fit_to_teacher(policy, SAMPLES, LABELS, epochs=1, seed=0)
    assert _same(before, policy)


def test_a_diverging_fit_is_a_numerical_error_and_restores_the_policy():
    policy = new_policy()
    before = _state(policy)
    with pytest.raises(NumericalError, match=r"the fit diverged: the actor's weights are no "
                                             r"longer finite \(learning_rate=1e\+30; lower "
                                             r"it\); the policy was restored"):
        fit_to_teacher(policy, 100 * SAMPLES, 1e30 * LABELS, epochs=20, seed=0,
                       learning_rate=1e30)
    assert _same(before, policy)


def test_mismatched_samples_are_refused():
    with pytest.raises(ValueError, match=r"observations must have shape \(S, 2\)"):
        fit_to_teacher(new_policy(), np.zeros((5, 3)), np.zeros((5, 1)), epochs=1, seed=0)
