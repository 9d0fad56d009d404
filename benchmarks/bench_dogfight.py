"""Aircraft agent-steps per second of Dogfight-v0 (1v1 self-play) beside the PettingZoo scene
it is the twin of, in one run.

Dogfight-v0 steps num_envs in {2, 64, 1024, 8192} aircraft (num_envs / 2 worlds) with
random actions drawn ahead; each env is one aircraft, so env steps are aircraft agent-steps
(autoresets included). At the default 30 Hz agents, 120 Hz control and 240 Hz physics one
agent step is 8 physics steps of both aircraft. The PettingZoo scene (1v1, the same
defaults) steps one world with random actions, resetting when an episode ends; its
aircraft agent-steps are the live agents' actions.

Targets (issue 29, this 2-core machine): >= 250 k aircraft agent-steps/s at >= 4096 worlds
(8192 envs), >= 100x the PettingZoo scene's.

Usage: python benchmarks/bench_dogfight.py [--num-envs 2 64 1024 8192] [--seconds 2]
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np

import pyflyt_like.envs  # noqa: F401  (registers the ids)
from pyflyt_like.envs import MAFixedwingDogfightEnv

TARGET_RATE, TARGET_RATIO, TARGET_WORLDS = 250_000, 100.0, 4096


def vector_rate(num_envs: int, seconds: float) -> float:
    """Aircraft agent-steps per second of Dogfight-v0, 1v1 self-play."""
    envs = gymnasium.make_vec("pyflyt_like/Dogfight-v0", num_envs=num_envs,
                              vectorization_mode="vector_entry_point", team_size=1)
    envs.action_space.seed(0)
    actions = np.stack([envs.action_space.sample() for _ in range(16)])
    envs.reset(seed=0)
    envs.step(actions[0])  # compile (or load the cache) outside the timing
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds or steps < 3:
        envs.step(actions[steps % 16])
        steps += 1
    elapsed = time.perf_counter() - start
    envs.close()
    return steps * num_envs / elapsed


def scene_rate(seconds: float) -> float:
    """Aircraft agent-steps per second of the PettingZoo scene, 1v1, random actions."""
    env = MAFixedwingDogfightEnv(team_size=1)
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(i)
    env.reset(seed=0)
    actions, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        if not env.agents:
            env.reset()
        batch = {agent: env.action_space(agent).sample() for agent in env.agents}
        env.step(batch)
        actions += len(batch)
    elapsed = time.perf_counter() - start
    env.close()
    return actions / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, nargs="+", default=[2, 64, 1024, 8192])
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    scene = scene_rate(args.seconds)
    print(f"PettingZoo MAFixedwingDogfightEnv 1v1: {scene:,.0f} aircraft agent-steps/s")
    print(f"{'num_envs':>9} {'worlds':>7} {'agent-steps/s':>14} {'x scene':>8}")
    for num_envs in args.num_envs:
        rate = vector_rate(num_envs, args.seconds)
        worlds = num_envs // 2
        flag = ""
        if worlds >= TARGET_WORLDS:
            met = rate >= TARGET_RATE and rate / scene >= TARGET_RATIO
            flag = "  target met" if met else "  TARGET MISSED"
        print(f"{num_envs:>9} {worlds:>7} {rate:>14,.0f} {rate / scene:>8.0f}{flag}")


if __name__ == "__main__":
    main()
