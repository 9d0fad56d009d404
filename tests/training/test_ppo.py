"""PPO on NEXT_STEP vector envs: config checks, GAE and masking, learning, save/load, seeds."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

from tests.extras import require_extra

torch = require_extra("rl", "torch")

from gymnasium.vector import AutoresetMode, VectorEnv  # noqa: E402
from gymnasium.vector.utils import batch_space  # noqa: E402

from pyflyt_like.training import (  # noqa: E402
    PPOConfig,
    PPOPolicy,
    compute_gae,
    evaluate_policy,
    train_ppo,
)
from pyflyt_like.training.networks import FastTanh  # noqa: E402

STEP = 0.2  # point mass: position change per unit action [m]
BOUND = 2.0  # |x| beyond this ends the episode as a crash [m]
GOAL = 0.05  # |x| below this ends the episode as a success [m]
CRASH_REWARD = -10.0


def _point_mass_step(x: np.ndarray, action: np.ndarray):
    """x (N,), action (N, 1) -> new x, reward (N,), terminated (N,)."""
    x = x + STEP * np.clip(action[:, 0], -1.0, 1.0)
    crashed = np.abs(x) > BOUND
    reward = np.where(crashed, CRASH_REWARD, -np.square(x))
    return x, reward, crashed | (np.abs(x) < GOAL)


class PointMassVec(VectorEnv):
    """N 1-D point masses that must reach x = 0: numpy-batched, NEXT_STEP autoreset, with
    both terminations (goal, crash) and truncations (``max_steps``).

    ``reset_reward`` is what a reset transition returns as reward. The NEXT_STEP contract
    says 0; anything else must make no difference to training if those steps are masked.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int, max_steps: int = 30, reset_reward: float = 0.0):
        self.num_envs = num_envs
        self.single_observation_space = gym.spaces.Box(-np.inf, np.inf, (1,), np.float32)
        self.single_action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.max_steps, self.reset_reward = max_steps, reset_reward
        self.rng = np.random.default_rng()
        self.x = np.zeros(num_envs)
        self.t = np.zeros(num_envs, dtype=int)
        self.autoreset = np.zeros(num_envs, dtype=bool)

    def _draw(self, mask: np.ndarray) -> None:
        self.x[mask] = self.rng.uniform(-1.0, 1.0, int(mask.sum()))
        self.t[mask] = 0

    def _obs(self) -> np.ndarray:
        return self.x[:, None].astype(np.float32)

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self._draw(np.ones(self.num_envs, dtype=bool))
        self.autoreset[:] = False
        return self._obs(), {}

    def step(self, actions):
        x, reward, terminated = _point_mass_step(self.x, np.asarray(actions))
        restart = self.autoreset
        self.x = np.where(restart, self.x, x)
        self.t += 1
        truncated = (self.t >= self.max_steps) & ~terminated
        self._draw(restart)
        reward[restart] = self.reset_reward
        terminated[restart] = False
        truncated[restart] = False
        self.autoreset = terminated | truncated
        return self._obs(), reward, terminated, truncated, {}


class PointMassEnv(gym.Env):
    """The single-env twin of :class:`PointMassVec`, for ``evaluate_policy``."""

    observation_space = gym.spaces.Box(-np.inf, np.inf, (1,), np.float32)
    action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)

    def __init__(self, max_steps: int = 30):
        self.max_steps = max_steps

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.x, self.t = np.array([self.np_random.uniform(-1.0, 1.0)]), 0
        return self.x.astype(np.float32), {}

    def step(self, action):
        self.x, reward, terminated = _point_mass_step(self.x, np.asarray(action)[None])
        self.t += 1
        return (self.x.astype(np.float32), float(reward[0]), bool(terminated[0]),
                self.t >= self.max_steps and not terminated[0], {})


class ConstantRewardVec(VectorEnv):
    """Constant observation, reward ``reward`` every step, episodes truncated after exactly
    ``length`` steps and never terminated. With truncation bootstrapped, the value of every
    state is reward / (1 - gamma); without, the critic (which cannot see time) would learn
    the average of the truncated discounted sums, well below that."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int, length: int, reward: float, reset_reward: float):
        self.num_envs = num_envs
        self.single_observation_space = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.single_action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.length, self.reward, self.reset_reward = length, reward, reset_reward
        # Staggered starts, so truncations fall at every rollout position, the last included.
        self.t = np.arange(num_envs) % length
        self.autoreset = np.zeros(num_envs, dtype=bool)

    def reset(self, *, seed=None, options=None):
        self.t = np.arange(self.num_envs) % self.length
        self.autoreset[:] = False
        return np.zeros((self.num_envs, 2), np.float32), {}

    def step(self, actions):
        self.t += 1
        truncated = self.t >= self.length
        reward = np.full(self.num_envs, self.reward)
        restart = self.autoreset
        self.t[restart] = 0
        reward[restart] = self.reset_reward
        truncated[restart] = False
        self.autoreset = truncated.copy()
        return (np.zeros((self.num_envs, 2), np.float32), reward,
                np.zeros(self.num_envs, dtype=bool), truncated, {})


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    """These networks are tiny: one thread is as fast, and two OpenMP threads slow down
    badly when another process shares the 2 cores. Restored afterwards."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _small_config(**overrides) -> PPOConfig:
    fields = dict(n_steps=16, total_steps=64 * 16 * 3, n_minibatches=4, n_epochs=4,
                  learning_rate=3e-3, hidden_sizes=(32, 32), seed=3)
    fields.update(overrides)
    return PPOConfig(**fields)


@pytest.mark.parametrize(("field", "value", "error"), [
    ("n_steps", 0, ValueError),
    ("n_steps", 2.5, TypeError),
    ("total_steps", -1, ValueError),
    ("learning_rate", 0.0, ValueError),
    ("gamma", 1.5, ValueError),
    ("gae_lambda", -0.1, ValueError),
    ("clip_range", math.nan, ValueError),
    ("ent_coef", -0.01, ValueError),
    ("max_grad_norm", 0.0, ValueError),
    ("hidden_sizes", (64, 0), ValueError),
    ("hidden_sizes", "64", TypeError),
    ("hidden_sizes", (), ValueError),
    ("activation", "sigmoid", ValueError),
    ("normalize_observations", "yes", TypeError),
    ("reward_scale", math.inf, ValueError),
    ("seed", -1, ValueError),
    ("seed", 1.0, TypeError),
])
def test_config_rejects_bad_values_naming_the_field(field, value, error):
    with pytest.raises(error, match=field):
        PPOConfig(**{field: value})


def test_config_accepts_defaults_and_none_grad_clip():
    assert PPOConfig().hidden_sizes == (64, 64)
    assert PPOConfig(max_grad_norm=None, hidden_sizes=[8]).hidden_sizes == (8,)


def test_compute_gae_matches_hand_computed_next_step_case():
    gamma, lam = 0.9, 0.8
    # env 0: truncated at t=1, t=2 is its reset transition (obs[2] is the final obs, so
    # values[2] = 4.0 is the bootstrap value). env 1: terminated at t=0, t=1 is the reset
    # transition; values[1] = 3.0 belongs to a terminal state and must not be used.
    rewards = torch.tensor([[1.0, 1.0], [2.0, 50.0], [99.0, 2.0], [3.0, 1.0]],
                           dtype=torch.float64)
    values = torch.tensor([[0.5, 1.0], [1.0, 3.0], [4.0, 0.5], [2.0, 1.5], [5.0, 2.0]],
                          dtype=torch.float64)
    terminated = torch.tensor([[False, True], [False, False], [False, False], [False, False]])
    truncated = torch.tensor([[False, False], [True, False], [False, False], [False, False]])
    valid = torch.tensor([[True, True], [True, False], [False, True], [True, True]])
    adv, ret = compute_gae(rewards, values, terminated, truncated, valid, gamma, lam)
    # env 0: A3 = 3 + .9*5 - 2 = 5.5; A1 = 2 + .9*4 - 1 = 4.6 (cut: truncation);
    #        A0 = (1 + .9*1 - .5) + .9*.8*4.6 = 4.712.
    # env 1: A3 = 1 + .9*2 - 1.5 = 1.3; A2 = (2 + .9*1.5 - .5) + .72*1.3 = 3.786; A0 = 1 - 1 = 0.
    expected_adv = torch.tensor([[4.712, 0.0], [4.6, 0.0], [0.0, 3.786], [5.5, 1.3]],
                                dtype=torch.float64)
    expected_ret = torch.tensor([[5.212, 1.0], [5.6, 0.0], [0.0, 4.286], [7.5, 2.8]],
                                dtype=torch.float64)
    torch.testing.assert_close(adv, expected_adv)
    torch.testing.assert_close(ret, expected_ret)


def test_fast_tanh_matches_torch_tanh_and_its_gradient():
    x = torch.linspace(-12.0, 12.0, 4001, requires_grad=True)
    fast = FastTanh()(x)
    (grad_fast,) = torch.autograd.grad(fast.square().sum(), x)
    exact = torch.tanh(x)
    (grad_exact,) = torch.autograd.grad(exact.square().sum(), x)
    torch.testing.assert_close(fast, exact, rtol=0, atol=5e-7)
    torch.testing.assert_close(grad_fast, grad_exact, rtol=0, atol=2e-6)


def test_reset_transitions_do_not_reach_the_loss_or_the_episode_stats():
    """A reset transition that paid 1e6 would dominate every loss and return if it leaked."""
    config = _small_config(total_steps=32 * 16 * 3)
    _, clean = train_ppo(PointMassVec(32, reset_reward=0.0), config)
    _, poisoned = train_ppo(PointMassVec(32, reset_reward=1e6), config)
    keys = ("policy_loss", "value_loss", "approx_kl", "mean_return", "mean_length",
            "n_episodes")
    assert all(row["n_episodes"] > 0 for row in clean)
    for a, b in zip(clean, poisoned):
        assert [a[k] for k in keys] == [b[k] for k in keys]


def test_truncation_bootstraps_the_final_observation_value():
    gamma, reward = 0.9, 0.1
    env = ConstantRewardVec(num_envs=8, length=10, reward=reward, reset_reward=-5.0)
    config = _small_config(n_steps=16, total_steps=8 * 16 * 20, gamma=gamma,
                           learning_rate=1e-2, n_epochs=5, normalize_advantages=False)
    policy, history = train_ppo(env, config)
    # Episode statistics count the 10 real steps and none of the reset transitions.
    assert all(row["mean_length"] == 10 for row in history[1:])
    assert history[-1]["mean_return"] == pytest.approx(10 * reward)
    with torch.no_grad():
        value = float(policy.critic(policy.normalize(torch.zeros(2))))
    no_bootstrap = np.mean([(1 - gamma ** k) / (1 - gamma) * reward for k in range(1, 11)])
    assert no_bootstrap < 0.5
    assert value == pytest.approx(reward / (1 - gamma), abs=0.05)


def test_training_improves_the_point_mass_policy():
    config = _small_config(total_steps=64 * 16 * 25)
    vec = PointMassVec(64)
    untrained = PPOPolicy.from_spaces(vec.single_observation_space, vec.single_action_space,
                                      config)
    policy, history = train_ppo(vec, config)
    before = evaluate_policy(PointMassEnv, untrained, episodes=20, seed=100)
    after = evaluate_policy(PointMassEnv(), policy, episodes=20, seed=100)
    assert before.shape == after.shape == (20,)
    # Untrained (mean action ~0): x stays near its start, about -10 per episode; a policy
    # that heads for the goal scores about -1.
    assert before.mean() < -5.0
    assert after.mean() > before.mean() + 5.0
    # Training episodes too (the first iterations' short, early-ending ones are no baseline).
    assert history[-1]["mean_return"] > -3.0


def test_pendulum_sync_vector_env_trains_and_the_mode_is_checked():
    env = gym.make_vec("Pendulum-v1", num_envs=16, vectorization_mode="sync")
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    rows = []
    policy, history = train_ppo(env, _small_config(total_steps=16 * 16 * 2), callback=rows.append)
    assert rows == history and [row["iteration"] for row in history] == [1, 2]
    assert history[-1]["env_steps"] == 16 * 16 * 2
    assert all(np.isfinite(history[-1][k]) for k in ("policy_loss", "value_loss", "entropy"))
    action = policy.act(np.array([1.0, 0.0, 0.0]))
    assert action.shape == (1,) and action.dtype == np.float32
    same_step = gym.make_vec("Pendulum-v1", num_envs=2, vectorization_mode="sync",
                             vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP})
    with pytest.raises(ValueError, match="autoreset_mode"):
        train_ppo(same_step, _small_config())


def test_callback_returning_false_stops_training():
    _, history = train_ppo(PointMassVec(8), _small_config(), callback=lambda row: False)
    assert len(history) == 1


def test_save_load_round_trip_gives_identical_actions(tmp_path):
    vec = PointMassVec(16)
    policy, _ = train_ppo(vec, _small_config(total_steps=16 * 16 * 2))
    assert float(policy.obs_count) > 1.0  # the normaliser holds real statistics
    path = tmp_path / "policy.pt"
    policy.save(path)
    loaded = PPOPolicy.load(path)
    assert [p.name for p in tmp_path.iterdir()] == ["policy.pt"]  # no temporary file left
    obs = np.random.default_rng(0).normal(0.0, 3.0, (50, 1)).astype(np.float32)
    np.testing.assert_array_equal(policy.act(obs), loaded.act(obs))
    np.testing.assert_array_equal(policy.act(obs[0]), loaded.act(obs[0]))
    for name, tensor in policy.state_dict().items():
        torch.testing.assert_close(tensor, loaded.state_dict()[name], rtol=0, atol=0)
    actions = loaded.act(np.array([[1e6], [-1e6]]))
    assert actions.dtype == np.float32 and actions.shape == (2, 1)
    assert np.all(np.abs(actions) <= 1.0)


def test_same_seed_same_losses_and_other_seed_differs():
    keys = ("policy_loss", "value_loss", "entropy", "approx_kl", "mean_return")

    def run(seed):
        _, history = train_ppo(PointMassVec(16), _small_config(total_steps=16 * 16 * 2,
                                                              seed=seed))
        return [[row[k] for k in keys] for row in history]

    first = run(5)
    assert run(5) == first
    assert run(6)[0][:2] != first[0][:2]
