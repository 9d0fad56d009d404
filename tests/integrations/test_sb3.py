"""The stable-baselines3 adapter for Gymnasium 1.x vector envs (pyflyt_like.integrations.sb3)."""

from __future__ import annotations

import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, SyncVectorEnv, VectorEnv

from tests.extras import require_extra

sb3 = require_extra("rl", "stable_baselines3")

from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv  # noqa: E402

from pyflyt_like.integrations.sb3 import SB3VecEnvAdapter, to_sb3_vec_env  # noqa: E402

EPISODE_STEPS = 5
NUM_ENVS = 4


def pendulum_vec(copy: bool = True, **vector_kwargs) -> VectorEnv:
    """Four Pendulums truncated after EPISODE_STEPS steps."""
    return gymnasium.make_vec("Pendulum-v1", num_envs=NUM_ENVS, vectorization_mode="sync",
                              vector_kwargs={"copy": copy, **vector_kwargs},
                              max_episode_steps=EPISODE_STEPS)


class CountEnv(gymnasium.Env):
    """Deterministic toy env: obs ``[episode number, steps taken]``, reward 1 a step.

    It terminates after ``terminate_at`` steps (never if None); infos: ``"t"`` every step,
    ``"odd"`` on odd steps only, and a nested ``{"nested": {"t2": 2t}}``.
    """

    observation_space = spaces.Box(0.0, 1e6, shape=(2,), dtype=np.float32)
    action_space = spaces.Box(-1.0, 1.0, shape=(1,), dtype=np.float32)

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, terminate_at: int | None = None, render_mode: str | None = None):
        self.terminate_at = terminate_at
        self.render_mode = render_mode
        self.episode = -1
        self.t = 0
        self.flag = "default"

    def _obs(self) -> np.ndarray:
        return np.array([self.episode, self.t], dtype=np.float32)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.episode += 1
        self.t = 0
        return self._obs(), {"reset_episode": self.episode}

    def step(self, action):
        self.t += 1
        info = {"t": self.t, "nested": {"t2": 2 * self.t}}
        if self.t % 2:
            info["odd"] = True
        terminated = self.terminate_at is not None and self.t >= self.terminate_at
        return self._obs(), 1.0, terminated, False, info

    def render(self) -> np.ndarray:
        return np.full((4, 6, 3), self.t, dtype=np.uint8)

    def double(self, x: float) -> float:
        return 2 * x


def count_vec(lengths=((2, None), (None, 3)), mode=AutoresetMode.NEXT_STEP) -> SyncVectorEnv:
    """One CountEnv per (terminate_at, time limit) pair."""
    def factory(terminate_at, limit):
        def make():
            env = CountEnv(terminate_at)
            return gymnasium.wrappers.TimeLimit(env, limit) if limit else env
        return make
    return SyncVectorEnv([factory(*pair) for pair in lengths], autoreset_mode=mode)


class BatchedCounter(VectorEnv):
    """A batched VectorEnv with no sub-envs (like a GPU/numpy simulator): NEXT_STEP autoreset
    and reset_mask done by hand, every episode EPISODE_STEPS steps long."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["rgb_array"]}

    def __init__(self, num_envs: int = 3, render_mode: str | None = None):
        self.num_envs = num_envs
        self.render_mode = render_mode
        self.single_observation_space = spaces.Box(0.0, 1e6, shape=(1,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(2)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space,
                                                               num_envs)
        self.t = np.zeros(num_envs, dtype=np.int64)
        self.pending = np.zeros(num_envs, dtype=bool)
        self.gain = 1.0

    def reset(self, *, seed=None, options=None):
        mask = (options or {}).get("reset_mask", np.ones(self.num_envs, dtype=bool))
        self.t[mask] = 0
        self.pending[mask] = False
        return self.t[:, None].astype(np.float32), {}

    def step(self, actions):
        stepping = ~self.pending
        self.t[self.pending] = 0
        self.t[stepping] += 1
        truncated = stepping & (self.t >= EPISODE_STEPS)
        self.pending = truncated.copy()
        rewards = np.where(stepping, self.gain, 0.0)
        return (self.t[:, None].astype(np.float32), rewards, np.zeros(self.num_envs, bool),
                truncated, {})

    def render(self):
        return np.zeros((4, 6, 3), dtype=np.uint8)

    def scale(self, factor: float) -> float:
        return self.gain * factor


def check_step_contract(adapter: VecEnv, obs, rewards, dones, infos) -> None:
    """The shapes and dtypes SB3's VecEnv.step_wait promises."""
    n, space = adapter.num_envs, adapter.observation_space
    assert isinstance(obs, np.ndarray) and obs.shape == (n, *space.shape)
    assert obs.dtype == space.dtype
    assert rewards.shape == (n,) and rewards.dtype == np.float32
    assert dones.shape == (n,) and dones.dtype == np.bool_
    assert isinstance(infos, list) and len(infos) == n
    assert all(isinstance(info, dict) for info in infos)
    assert all(isinstance(info["TimeLimit.truncated"], bool) for info in infos)


def test_spaces_and_reset_contract():
    adapter = to_sb3_vec_env(pendulum_vec())
    assert isinstance(adapter, SB3VecEnvAdapter) and isinstance(adapter, VecEnv)
    assert adapter.num_envs == NUM_ENVS
    assert adapter.observation_space == gymnasium.make("Pendulum-v1").observation_space
    assert adapter.action_space == gymnasium.make("Pendulum-v1").action_space
    obs = adapter.reset()
    assert obs.shape == (NUM_ENVS, 3) and obs.dtype == np.float32
    assert adapter.reset_infos == [{}] * NUM_ENVS
    adapter.close()


@pytest.mark.parametrize("copy", [True, False])
def test_episode_end_matches_the_raw_vector_env_without_a_reset_step(copy):
    """Twin of the raw NEXT_STEP vector env, same seeds and actions: the adapter's terminal
    observation is the raw final obs, its returned obs is the raw env's reset obs (which the
    raw env spends an extra step on), and every episode is exactly EPISODE_STEPS steps."""
    raw, adapter = pendulum_vec(), to_sb3_vec_env(pendulum_vec(copy=copy))
    raw_obs, _ = raw.reset(seed=7)
    adapter.seed(7)
    obs = adapter.reset()
    np.testing.assert_array_equal(obs, raw_obs)
    rng = np.random.default_rng(0)
    returns, lengths, episodes = np.zeros(NUM_ENVS), np.zeros(NUM_ENVS, int), 0
    for step in range(4 * EPISODE_STEPS):
        actions = rng.uniform(-2, 2, size=(NUM_ENVS, 1)).astype(np.float32)
        raw_obs, raw_rew, raw_term, raw_trunc, _ = raw.step(actions)
        held, held_copy = obs, obs.copy()  # SB3 keeps the last batch as ``_last_obs``
        obs, rewards, dones, infos = adapter.step(actions)
        # even over SyncVectorEnv(copy=False), stepping must not overwrite a returned batch
        np.testing.assert_array_equal(held, held_copy)
        check_step_contract(adapter, obs, rewards, dones, infos)
        np.testing.assert_allclose(rewards, raw_rew.astype(np.float32))
        returns += rewards
        lengths += 1
        ends = (step + 1) % EPISODE_STEPS == 0
        assert dones.tolist() == [ends] * NUM_ENVS
        np.testing.assert_array_equal(dones, raw_term | raw_trunc)
        if not ends:
            np.testing.assert_array_equal(obs, raw_obs)
            assert not any("terminal_observation" in info or "episode" in info
                           for info in infos)
            continue
        episodes += 1
        for i, info in enumerate(infos):
            np.testing.assert_array_equal(info["terminal_observation"], raw_obs[i])
            assert info["TimeLimit.truncated"] is True
            assert info["episode"]["l"] == EPISODE_STEPS == lengths[i]
            assert info["episode"]["r"] == pytest.approx(returns[i], abs=1e-4)
        # The raw env's next step is its NEXT_STEP reset (reward 0, action ignored); the
        # adapter already returned that reset observation in this step.
        reset_obs, reset_rew, *_ = raw.step(np.zeros((NUM_ENVS, 1), np.float32))
        np.testing.assert_array_equal(reset_rew, 0.0)
        np.testing.assert_array_equal(obs, reset_obs)
        assert not np.array_equal(obs, raw_obs)
        returns[:], lengths[:] = 0.0, 0
    assert episodes == 4
    raw.close()
    adapter.close()


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_staggered_episodes_reset_only_the_finished_env(mode):
    """Env 0 terminates every 2 steps, env 1 is truncated every 3: each reset touches only the
    finished row, in every autoreset mode."""
    adapter = to_sb3_vec_env(count_vec(mode=mode))
    obs = adapter.reset()
    np.testing.assert_array_equal(obs, [[0, 0], [0, 0]])
    assert adapter.reset_infos == [{"reset_episode": 0}, {"reset_episode": 0}]
    episode, t = [0, 0], [0, 0]
    for _ in range(12):
        obs, rewards, dones, infos = adapter.step(np.zeros((2, 1), np.float32))
        check_step_contract(adapter, obs, rewards, dones, infos)
        np.testing.assert_array_equal(rewards, 1.0)  # no reward-0 reset step leaks through
        for i, length in enumerate((2, 3)):
            t[i] += 1
            info = infos[i]
            assert info["t"] == t[i] and info["nested"] == {"t2": 2 * t[i]}
            assert ("odd" in info) == bool(t[i] % 2)  # only where the mask is true
            assert not any(key.startswith("_") or key.startswith("final") for key in info)
            assert dones[i] == (t[i] == length)
            if t[i] < length:
                np.testing.assert_array_equal(obs[i], [episode[i], t[i]])
                continue
            np.testing.assert_array_equal(info["terminal_observation"], [episode[i], length])
            assert info["TimeLimit.truncated"] is (i == 1)  # env 0 terminates, env 1 truncates
            assert info["episode"]["l"] == length and info["episode"]["r"] == length
            episode[i] += 1
            t[i] = 0
            np.testing.assert_array_equal(obs[i], [episode[i], 0])
            assert adapter.reset_infos[i] == {"reset_episode": episode[i]}
    assert episode == [6, 4]
    adapter.close()


def test_batched_vector_env_without_sub_envs():
    adapter = to_sb3_vec_env(BatchedCounter(num_envs=3, render_mode="rgb_array"))
    obs = adapter.reset()
    assert obs.shape == (3, 1)
    for step in range(3 * EPISODE_STEPS):
        obs, rewards, dones, infos = adapter.step(np.zeros(3, dtype=np.int64))
        check_step_contract(adapter, obs, rewards, dones, infos)
        np.testing.assert_array_equal(rewards, 1.0)
        ends = (step + 1) % EPISODE_STEPS == 0
        assert dones.tolist() == [ends] * 3
        np.testing.assert_array_equal(obs, 0 if ends else step % EPISODE_STEPS + 1)
        if ends:
            assert [info["terminal_observation"][0] for info in infos] == [EPISODE_STEPS] * 3
    # per-env access on a batched env: one object serves every index
    assert adapter.get_attr("gain") == [1.0, 1.0, 1.0]
    assert adapter.get_attr("gain", indices=[2]) == [1.0]
    adapter.set_attr("gain", 2.0)
    assert adapter.vector_env.gain == 2.0
    assert adapter.env_method("scale", 3.0) == [6.0, 6.0, 6.0]
    with pytest.raises(NotImplementedError, match="all 3 envs"):
        adapter.set_attr("gain", 1.0, indices=[0])
    with pytest.raises(NotImplementedError, match="all 3 envs"):
        adapter.env_method("scale", 1.0, indices=1)
    with pytest.raises(AttributeError, match="no_such"):
        adapter.get_attr("no_such")
    assert not adapter.has_attr("no_such")
    assert adapter.env_is_wrapped(gymnasium.Wrapper) == [False] * 3
    assert adapter.render().shape == (4, 6, 3)  # the batch's one view, as is
    adapter.close()


def test_per_env_access_on_a_sync_vector_env():
    adapter = to_sb3_vec_env(count_vec())
    assert adapter.get_attr("render_mode") == [None, None]
    assert adapter.get_attr("terminate_at") == [2, None]
    adapter.set_attr("flag", "changed", indices=[1])
    assert adapter.get_attr("flag") == ["default", "changed"]
    assert adapter.env_method("double", 4.0, indices=[0]) == [8.0]
    assert adapter.env_method("double", x=1.5) == [3.0, 3.0]
    assert adapter.env_is_wrapped(gymnasium.wrappers.TimeLimit) == [False, False]
    with pytest.raises(IndexError):
        adapter.get_attr("flag", indices=[5])
    adapter.close()


def test_seed_and_options_apply_to_the_next_reset_only():
    raw, adapter = pendulum_vec(), to_sb3_vec_env(pendulum_vec())
    assert adapter.seed(3) == [3, 4, 5, 6]
    np.testing.assert_array_equal(adapter.reset(), raw.reset(seed=3)[0])
    assert adapter._seeds == [None] * NUM_ENVS
    adapter.set_options([{"a": 1}, {"a": 2}, {"a": 1}, {"a": 1}])
    with pytest.raises(ValueError, match="same options"):
        adapter.reset()
    adapter.set_options({"reset_mask": np.ones(NUM_ENVS, dtype=bool)})
    with pytest.raises(ValueError, match="reset_mask"):
        adapter.reset()
    raw.close()
    adapter.close()


def test_ppo_learns_on_the_adapter():
    from stable_baselines3 import PPO

    adapter = to_sb3_vec_env(pendulum_vec())
    model = PPO("MlpPolicy", adapter, n_steps=128, batch_size=256, n_epochs=1, seed=0,
                device="cpu", policy_kwargs={"net_arch": [16]})
    model.learn(2048)
    assert model.num_timesteps == 2048
    # episode statistics reach SB3's logger buffer without a VecMonitor
    assert len(model.ep_info_buffer) > 0
    assert all(info["l"] == EPISODE_STEPS for info in model.ep_info_buffer)
    adapter.close()


@pytest.mark.parametrize("bad", [gymnasium.make("Pendulum-v1"), 3, None,
                                 DummyVecEnv([lambda: gymnasium.make("Pendulum-v1")])],
                         ids=["single-env", "int", "none", "sb3-vec-env"])
def test_rejects_what_is_not_a_gymnasium_vector_env(bad):
    with pytest.raises(TypeError, match="VectorEnv|already a stable-baselines3"):
        SB3VecEnvAdapter(bad)


def test_rejects_unknown_autoreset_modes_and_unsupported_spaces():
    venv = count_vec()
    venv.metadata = {**venv.metadata, "autoreset_mode": "Sometimes"}
    with pytest.raises(ValueError, match="Sometimes"):
        to_sb3_vec_env(venv)
    venv.metadata = {}
    with pytest.raises(ValueError, match="autoreset_mode"):
        to_sb3_vec_env(venv)
    blackjack = gymnasium.make_vec("Blackjack-v1", num_envs=2, vectorization_mode="sync")
    with pytest.raises(ValueError, match="single_observation_space"):
        to_sb3_vec_env(blackjack)


def test_rejects_bad_actions_and_unpaired_step_wait():
    adapter = to_sb3_vec_env(pendulum_vec())
    adapter.reset()
    with pytest.raises(RuntimeError, match="step_async"):
        adapter.step_wait()
    with pytest.raises(ValueError, match="one row per env"):
        adapter.step_async(np.zeros((NUM_ENVS + 1, 1), np.float32))
    adapter.close()


def test_importing_the_envs_package_does_not_import_sb3():
    code = ("import sys, pyflyt_like.envs; "
            "assert 'stable_baselines3' not in sys.modules and 'torch' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_dict_observations_are_split_and_reset_per_key():
    def make(terminate_at):
        def thunk():
            env = CountEnv(terminate_at)
            space = spaces.Dict({"count": env.observation_space})
            return gymnasium.wrappers.TransformObservation(env, lambda o: {"count": o}, space)
        return thunk
    adapter = to_sb3_vec_env(SyncVectorEnv([make(2), make(3)]))
    obs = adapter.reset()
    assert set(obs) == {"count"} and obs["count"].shape == (2, 2)
    adapter.step(np.zeros((2, 1), np.float32))
    obs, _, dones, infos = adapter.step(np.zeros((2, 1), np.float32))
    assert dones.tolist() == [True, False]
    np.testing.assert_array_equal(infos[0]["terminal_observation"]["count"], [0, 2])
    np.testing.assert_array_equal(obs["count"], [[1, 0], [0, 2]])
    adapter.close()


def test_rgb_array_frames_of_sub_envs_are_tiled():
    venv = SyncVectorEnv([lambda: CountEnv(render_mode="rgb_array") for _ in range(2)])
    adapter = to_sb3_vec_env(venv)
    assert adapter.render_mode == "rgb_array"
    adapter.reset()
    adapter.step(np.zeros((2, 1), np.float32))
    assert [frame.shape for frame in adapter.get_images()] == [(4, 6, 3)] * 2
    image = adapter.render()
    assert image.shape == (8, 6, 3) and image.dtype == np.uint8  # 2 frames, one above the other
    np.testing.assert_array_equal(image, 1)
    with pytest.warns(UserWarning, match="render_mode"):
        assert adapter.render("human") is None
    adapter.close()


def test_sb3_trains_on_the_batched_multirotor_vector_env():
    import pyflyt_like.envs

    envs = gymnasium.make_vec("pyflyt_like/Multirotor-Hover-v0", num_envs=64,
                              vectorization_mode="vector_entry_point",
                              max_duration_seconds=0.2)
    adapter = pyflyt_like.envs.to_sb3_vec_env(envs)
    model = sb3.PPO("MlpPolicy", adapter, n_steps=16, batch_size=256,
                                  n_epochs=1, seed=0)
    model.learn(2048)
    assert model.num_timesteps == 2048
    # 10-step episodes: SB3 saw them end and recorded their statistics
    assert len(model.ep_info_buffer) > 0
    assert all(info["l"] == 10 for info in model.ep_info_buffer)
    adapter.close()
