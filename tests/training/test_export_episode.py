"""An exported policy flies as the torch one: on 1 000 random observations of a task's space
and on a recorded episode the ONNX model and the compiled C header give the torch actions
within 1e-5, and flying the PyBullet twin with either gives the torch policy's return.

The policy is untrained (random weights of the task's sizes, observation statistics of its
scale): what is tested is the export, not the learning.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess

import gymnasium
import numpy as np
import pytest

from tests.extras import require_extra

torch = require_extra("rl", "torch")

import pyflyt_like.envs  # noqa: E402, F401  (registers the ids)
from pyflyt_like.training import PPOConfig  # noqa: E402
from pyflyt_like.training.export import export_policy  # noqa: E402
from pyflyt_like.training.policy import PPOPolicy  # noqa: E402

TASK = "pyflyt_like/Multirotor-Hover-v0"
TOLERANCE = 1e-5
SEED = 3


@pytest.fixture(scope="module")
def task_policy():
    env = gymnasium.make(TASK)
    policy = PPOPolicy.from_spaces(env.observation_space, env.action_space,
                                   PPOConfig(hidden_sizes=(32, 32)), seed=0)
    generator = torch.Generator().manual_seed(5)
    with torch.no_grad():
        policy.actor[-1].weight.mul_(30.0)  # actions of order 1: both bounds clip some
        policy.obs_var.copy_(0.05 + torch.rand(policy.obs_dim, generator=generator))
    env.close()
    return policy


def fly(act, seed: int = SEED) -> tuple[float, np.ndarray]:
    """The twin's return and its (T, D) float32 observations with ``act`` as the pilot."""
    env = gymnasium.make(TASK)
    observation, _ = env.reset(seed=seed)
    total, seen, done = 0.0, [], False
    while not done:
        seen.append(observation.astype(np.float32))
        observation, reward, terminated, truncated, _ = env.step(act(observation))
        total += float(reward)
        done = terminated or truncated
    env.close()
    return total, np.array(seen)


def random_observations(policy: PPOPolicy, n: int = 1000) -> np.ndarray:
    rng = np.random.default_rng(11)
    env = gymnasium.make(TASK)
    low, high = env.observation_space.low, env.observation_space.high
    env.close()
    return rng.uniform(low, high, (n, policy.obs_dim)).astype(np.float32)


def c_policy(policy: PPOPolicy, folder) -> callable:
    """The exported header compiled into a shared library, as a Python function."""
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler: the C header's tests need `cc` on PATH")
    export_policy(policy, folder / "policy.h")
    (folder / "act.c").write_text('#include "policy.h"\n'
                                  "void act(const float *obs, float *action)\n"
                                  "{ pyflyt_like_policy_act(obs, action); }\n")
    subprocess.run([compiler, "-std=c99", "-O2", "-shared", "-fPIC", "act.c", "-o",
                    "libpolicy.so", "-lm"], cwd=folder, check=True, timeout=120)
    library = ctypes.CDLL(str(folder / "libpolicy.so"))
    pointer = ctypes.POINTER(ctypes.c_float)
    library.act.argtypes = (pointer, pointer)

    def act(observation: np.ndarray) -> np.ndarray:
        rows = np.ascontiguousarray(np.atleast_2d(observation), dtype=np.float32)
        out = np.empty((rows.shape[0], policy.act_dim), np.float32)
        for row, action in zip(rows, out):
            library.act(row.ctypes.data_as(pointer), action.ctypes.data_as(pointer))
        return out if np.ndim(observation) == 2 else out[0]

    return act


def onnx_policy(policy: PPOPolicy, folder) -> callable:
    ort = require_extra("export", "onnxruntime")
    session = ort.InferenceSession(str(export_policy(policy, folder / "policy.onnx")))

    def act(observation: np.ndarray) -> np.ndarray:
        rows = np.atleast_2d(observation).astype(np.float32)
        out = session.run(["action"], {"obs": rows})[0]
        return out if np.ndim(observation) == 2 else out[0]

    return act


@pytest.mark.parametrize("make", [c_policy, onnx_policy], ids=["c", "onnx"])
def test_the_exported_policy_acts_and_flies_as_the_torch_one(task_policy, make, tmp_path):
    exported = make(task_policy, tmp_path)
    observations = random_observations(task_policy)
    np.testing.assert_allclose(exported(observations), task_policy.act(observations),
                               rtol=0.0, atol=TOLERANCE)
    torch_return, episode = fly(task_policy.act)
    assert len(episode) > 20  # a real episode, not one step
    np.testing.assert_allclose(exported(episode), task_policy.act(episode), rtol=0.0,
                               atol=TOLERANCE)
    exported_return, _ = fly(exported)
    assert exported_return == pytest.approx(torch_return, rel=1e-4, abs=1e-4)
