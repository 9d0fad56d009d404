"""train_ppo refuses bad arguments and runs too big for memory before it resets the env or
allocates anything, and stops with a NumericalError when the env or the training produces
NaN or inf."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

from tests.extras import require_extra

torch = require_extra("rl", "torch")

from pyflyt_like.common.validation import NumericalError  # noqa: E402
from pyflyt_like.training import PPOConfig, train_ppo  # noqa: E402
from tests.training.test_ppo import PointMassEnv, PointMassVec  # noqa: E402


class CountingVec(PointMassVec):
    """PointMassVec that counts its resets and steps, and can return NaN or inf rewards or
    observations from step ``bad_step`` on."""

    def __init__(self, num_envs: int, bad: str | None = None, bad_value: float = math.nan,
                 bad_step: int = 5):
        super().__init__(num_envs)
        self.resets = self.steps = 0
        self.bad, self.bad_value, self.bad_step = bad, bad_value, bad_step

    def reset(self, *, seed=None, options=None):
        self.resets += 1
        return super().reset(seed=seed, options=options)

    def step(self, actions):
        self.steps += 1
        obs, reward, terminated, truncated, info = super().step(actions)
        if self.steps >= self.bad_step and self.bad == "reward":
            reward = np.full_like(reward, self.bad_value)
        if self.steps >= self.bad_step and self.bad == "observation":
            obs = obs.copy()
            obs[0, 0] = self.bad_value
        return obs, reward, terminated, truncated, info


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _config(**overrides) -> PPOConfig:
    fields = dict(n_steps=16, total_steps=8 * 16 * 2, n_minibatches=2, n_epochs=2,
                  hidden_sizes=(8,), seed=0)
    return PPOConfig(**{**fields, **overrides})


@pytest.mark.parametrize(("vector_env", "config", "callback", "error", "pattern"), [
    (None, _config(), None, TypeError, "vector_env must be a gymnasium.vector.VectorEnv"),
    (PointMassEnv(), _config(), None, TypeError, "vector_env must be a gymnasium.vector"),
    ([PointMassEnv()], _config(), None, TypeError, "vector_env"),
    ("point-mass", _config(), None, TypeError, "vector_env"),
    ("vec", None, None, TypeError, "config must be a PPOConfig"),
    ("vec", {"n_steps": 16}, None, TypeError, "config must be a PPOConfig"),
    ("vec", _config(), 3, TypeError, "callback must be None or a callable"),
    ("vec", _config(), "stop", TypeError, "callback"),
    ("vec", _config(n_minibatches=8 * 16 + 1), None, ValueError,
     r"n_minibatches=129 exceeds the rollout size num_envs \* n_steps = 128"),
], ids=["none", "single-env", "list", "str", "config-none", "config-dict", "callback-int",
        "callback-str", "minibatches"])
def test_bad_arguments_are_refused_before_the_env_is_touched(vector_env, config, callback,
                                                            error, pattern):
    env = CountingVec(8)
    with pytest.raises(error, match=pattern):
        train_ppo(env if isinstance(vector_env, str) and vector_env == "vec" else vector_env,
                  config, callback=callback)
    assert env.resets == env.steps == 0


@pytest.mark.parametrize(("num_envs", "error"), [
    (0, ValueError), (-2, ValueError), (True, TypeError), (8.0, TypeError), ("8", TypeError)])
def test_a_bad_num_envs_is_refused(num_envs, error):
    env = CountingVec(8)
    env.num_envs = num_envs
    with pytest.raises(error, match="vector_env.num_envs"):
        train_ppo(env, _config())
    assert env.resets == 0


def test_spaces_that_are_not_1d_boxes_are_refused():
    env = CountingVec(8)
    env.single_action_space = gym.spaces.Discrete(3)
    with pytest.raises(TypeError, match="single action space must be a 1-D"):
        train_ppo(env, _config())
    assert env.resets == 0


@pytest.mark.parametrize(("num_envs", "n_steps", "hidden", "pattern"), [
    (10**5, 10**5, (8,), r"training with num_envs=100000, n_steps=100000 \(obs_dim=1, "
                         r"act_dim=1, hidden_sizes=\(8,\)\) needs about .* GiB.*fewer envs"),
    (10**6, 10**4, (8,), "num_envs=1000000, n_steps=10000"),
    (10**5, 1000, (8192,), r"hidden_sizes=\(8192,\)\) needs about"),
], ids=["rollout", "many-envs", "activations"])
def test_a_run_too_big_for_memory_is_refused_before_anything_is_allocated(
        num_envs, n_steps, hidden, pattern):
    env = CountingVec(num_envs)
    config = PPOConfig(n_steps=n_steps, hidden_sizes=hidden, n_minibatches=1)
    with pytest.raises(ValueError, match=pattern):
        train_ppo(env, config)
    assert env.resets == env.steps == 0


def test_seed_none_draws_a_fresh_seed_each_run():
    def losses():
        _, history = train_ppo(PointMassVec(8), _config(seed=None, total_steps=8 * 16))
        return history[0]["policy_loss"], history[0]["value_loss"]

    assert losses() != losses()


# --------------------------------------------------------------------- NaN and inf
@pytest.mark.parametrize(("bad", "value", "normalize", "pattern"), [
    ("reward", math.nan, True, "non-finite rewards .* in iteration 1"),
    ("reward", math.inf, True, "non-finite rewards"),
    ("reward", -math.inf, False, "non-finite rewards"),
    ("observation", math.nan, True, "non-finite observations .* in iteration 1"),
    ("observation", math.inf, True, "non-finite observations"),
    ("observation", math.nan, False, "non-finite observations"),
    ("observation", -math.inf, False, "non-finite observations"),
])
def test_non_finite_env_output_stops_training_naming_it(bad, value, normalize, pattern):
    env = CountingVec(8, bad=bad, bad_value=value)
    rows = []
    with pytest.raises(NumericalError, match=pattern):
        train_ppo(env, _config(normalize_observations=normalize), callback=rows.append)
    assert rows == []  # the iteration that saw them reported nothing


def test_non_finite_env_output_in_a_later_iteration_names_it():
    env = CountingVec(8, bad="reward", bad_step=16 + 3)
    rows = []
    with pytest.raises(NumericalError, match="in iteration 2"):
        train_ppo(env, _config(total_steps=8 * 16 * 3), callback=rows.append)
    assert [row["iteration"] for row in rows] == [1]


def test_rewards_that_reward_scale_overflows_are_named():
    with pytest.raises(NumericalError, match=r"reward_scale=1e\+38 made them overflow"):
        train_ppo(PointMassVec(8), _config(reward_scale=1e38))


@pytest.mark.parametrize("overrides", [dict(learning_rate=1e30), dict(vf_coef=1e38)])
def test_diverging_training_stops_with_a_numerical_error(overrides):
    with pytest.raises(NumericalError, match="PPO diverged in iteration 1: the policy's "
                                             "parameters are no longer finite"):
        train_ppo(PointMassVec(8), _config(**overrides))
