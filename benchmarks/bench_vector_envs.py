"""Env steps per second of the batched Multirotor VectorEnvs beside their PyBullet twins
and the PyBullet QuadX-Hover, in one run.

Each VectorEnv steps num_envs in {1, 64, 1024, 16384} worlds with random actions in
[-0.2, 0.2] (autoresets included); at the default agent_hz=50 and physics_hz=500 one env
step is 10 physics steps. The twin and QuadX-Hover step one world with the same kind of
actions, resetting when an episode ends. The last column is the VectorEnv's figure over the
twin's at the same task; the header reports the engine alone (BatchedAviary.step at 16384
worlds), so the env layer's share can be read off.

Navigate flies a forest of 0.1 trees/m^2 with its default LiDAR (64 beams, one scan per
env step) through the obstacles and sensors stages.

Targets (this 2-core machine): Hover >= 1 M env steps/s at 16384, >= 100 k at 1024;
Navigate >= 50 k at 1024.

Usage: python benchmarks/bench_vector_envs.py [--tasks Hover Reach Track Land Navigate]
       [--num-envs 1 64 1024 16384] [--seconds 1.5]
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np
from bench_envs import random_run_seconds

from pyflyt_like.envs import MULTIROTOR_TASKS

TARGETS = {("Hover", 16384): 1_000_000, ("Hover", 1024): 100_000,
           ("Navigate", 1024): 50_000}


def vector_rate(task: str, num_envs: int, seconds: float) -> float:
    """Env steps per second of the VectorEnv (all envs' steps counted)."""
    envs = gymnasium.make_vec(f"pyflyt_like/Multirotor-{task}-v0", num_envs=num_envs,
                              vectorization_mode="vector_entry_point")
    rng = np.random.default_rng(0)
    actions = rng.uniform(-0.2, 0.2, (16, num_envs, 4)).astype(np.float32)
    envs.reset(seed=0)
    envs.step(actions[0])  # compile (or load the cache) outside the timing
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds or steps < 3:
        envs.step(actions[steps % 16])
        steps += 1
    elapsed = time.perf_counter() - start
    envs.close()
    return steps * num_envs / elapsed


def single_rate(env_id: str, steps: int) -> float:
    env = gymnasium.make(env_id).unwrapped
    rate = steps / random_run_seconds(env, steps)
    env.close()
    return rate


def engine_rate(num_envs: int, seconds: float) -> float:
    """Drone-steps per second of BatchedAviary.step(10) alone, mode 1, at ``num_envs``."""
    from pyflyt_like.batch import BatchedAviary

    sim = BatchedAviary(n_worlds=num_envs, mode=1, physics_hz=500, control_hz=500, seed=0)
    sim.step(10)
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds or calls < 3:
        sim.step(10)
        calls += 1
    return calls * 10 * num_envs / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="*", default=list(MULTIROTOR_TASKS))
    parser.add_argument("--num-envs", nargs="*", type=int, default=[1, 64, 1024, 16384])
    parser.add_argument("--seconds", type=float, default=1.5, help="per measurement")
    parser.add_argument("--twin-steps", type=int, default=1500)
    args = parser.parse_args()
    unknown = sorted(set(args.tasks) - set(MULTIROTOR_TASKS))
    if unknown:
        parser.error(f"unknown tasks {unknown}; known: {list(MULTIROTOR_TASKS)}")

    largest = max(args.num_envs)
    engine = engine_rate(largest, args.seconds)
    print(f"engine alone (BatchedAviary, mode 1, {largest} worlds): {engine:,.0f} "
          f"physics drone-steps/s = {engine / 10:,.0f} env steps/s at 10 physics steps each")
    quadx = single_rate("pyflyt_like/QuadX-Hover-v0", args.twin_steps)
    print(f"QuadX-Hover (PyBullet, one env): {quadx:,.0f} env steps/s\n")
    header = "".join(f"{n:>12d}" for n in args.num_envs)
    print(f"{'task':8s}{'twin':>10s}{header}   (env steps/s; x = over the twin at "
          f"{largest})")
    for task in args.tasks:
        twin = single_rate(f"pyflyt_like/Multirotor-{task}-v0", args.twin_steps)
        rates = [vector_rate(task, n, args.seconds) for n in args.num_envs]
        cells = "".join(f"{rate:12,.0f}" for rate in rates)
        print(f"{task:8s}{twin:10,.0f}{cells}   x{rates[-1] / twin:,.0f}")
        for n, rate in zip(args.num_envs, rates, strict=True):
            target = TARGETS.get((task, n))
            if target is not None:
                verdict = "met" if rate >= target else "NOT met"
                print(f"  target at {n}: >= {target:,} env steps/s: {verdict}")


if __name__ == "__main__":
    main()
