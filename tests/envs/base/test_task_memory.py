"""The vector tasks' memory estimate (envs/base/task_memory.py) covers what they allocate."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from pyflyt_like.batch.memory import NOISE_CHUNK_BYTES
from pyflyt_like.envs.base.task_memory import box_bytes, engine_family
from pyflyt_like.envs.dogfight.options import MAX_TEAM_SIZE
from pyflyt_like.envs.dogfight.vector_env import DogfightVectorEnv
from pyflyt_like.envs.fixedwing.vector_env import FixedwingReachVectorEnv
from pyflyt_like.envs.multirotor_tasks.vector_env import MultirotorVectorEnv

TASKS = {
    "reach-delay": lambda n: FixedwingReachVectorEnv(num_envs=n, action_delay_steps=20),
    "dogfight": lambda n: DogfightVectorEnv(num_envs=n, team_size=4),
    "dogfight-scripted": lambda n: DogfightVectorEnv(num_envs=n, team_size=4,
                                                     opponent="scripted"),
    "hover-delay": lambda n: MultirotorVectorEnv("Hover", num_envs=n, action_delay_steps=20),
    "hover-sensors": lambda n: MultirotorVectorEnv("Hover", num_envs=n, observation="sensors"),
}


@pytest.mark.parametrize("name", TASKS)
def test_the_estimate_covers_construction_reset_and_steps(name):
    """The traced peak of building the env, a reset and steps whose results are held (as a
    training loop holds the last step's while the next is built) stays under the estimate,
    which is no gross overestimate either: the engine's estimate holds a turbulence noise
    chunk these tasks never draw; the rest is within 2x of the peak."""
    make = TASKS[name]
    warm = make(8)  # kernels and modules loaded outside the trace
    warm.reset(seed=0)
    warm.step(warm.action_space.sample())
    warm.close()
    tracemalloc.start()
    envs = make(2048)
    envs.reset(seed=0)
    actions = envs.action_space.sample()
    held = [envs.step(actions) for _ in range(2)]
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    envs.close()
    assert np.isfinite(held[-1][0]).all()
    assert peak <= envs.memory_estimate
    assert peak >= 0.5 * (envs.memory_estimate - NOISE_CHUNK_BYTES)


def test_the_batched_spaces_are_counted():
    """Dogfight's space bounds grow with num_envs x team_size (each aircraft observes every
    other): at the largest team they are in the estimate beside the engine's."""
    envs = DogfightVectorEnv(num_envs=2 * MAX_TEAM_SIZE, team_size=MAX_TEAM_SIZE)
    try:
        spaces = box_bytes(envs.observation_space) + box_bytes(envs.action_space)
        family = engine_family(drone_model="acrowing", mode=1, physics_hz=240)
        engine, _ = family.memory_bytes(1, 2 * MAX_TEAM_SIZE, {})
        assert spaces > 2**20  # 3084 entries x 256 envs x 18 bytes
        assert envs.memory_estimate - engine > spaces + envs._observation.nbytes
    finally:
        envs.close()
