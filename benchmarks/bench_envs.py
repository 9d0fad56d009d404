"""Throughput and reset cost of every Gymnasium task, and the env layer's overhead.

For each registered task (random actions, resetting when an episode ends): env steps per
second, and the median cost of ``reset()``. The last column is the env layer's overhead:
the time of the run divided by the part of it spent inside ``Aviary.step()`` (timed by
wrapping that method on the same run, so both figures come from the same trajectory;
1.00 = the env adds nothing).

With ``--pyflyt``, PyFlyt's QuadX-Hover (if PyFlyt is installed in this Python) is timed
the same way in the same run and the ratio is printed.

Usage: python benchmarks/bench_envs.py [--steps N] [--tasks QuadX-Hover ...] [--pyflyt]
"""

from __future__ import annotations

import argparse
import time

import gymnasium
from env_timing import reset_milliseconds, time_inside_aviary_step

from pyflyt_like.envs import TASKS

TARGET_STEPS_PER_SECOND = {"QuadX-Hover": 2000}  # the figures on this machine
TARGET_RESET_MS = 2.0


def steps_per_second(env: gymnasium.Env, steps: int) -> tuple[float, float]:
    """(env steps per second, run time / time inside Aviary.step) under random actions.

    Resets are part of the run, as in training.
    """
    with time_inside_aviary_step(env.unwrapped.aviary) as inside:
        elapsed = random_run_seconds(env, steps)
    return steps / elapsed, elapsed / inside[0]


def random_run_seconds(env: gymnasium.Env, steps: int) -> float:
    """Seconds for ``steps`` random-action steps of any env, resetting when one ends."""
    env.action_space.seed(0)
    env.reset(seed=0)
    actions = [env.action_space.sample() for _ in range(steps)]
    start = time.perf_counter()
    for action in actions:
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000, help="env steps per task")
    parser.add_argument("--tasks", nargs="*", default=sorted(TASKS), help="task names")
    parser.add_argument("--pyflyt", action="store_true", help="also time PyFlyt's QuadX-Hover")
    args = parser.parse_args()
    unknown = sorted(set(args.tasks) - set(TASKS))
    if unknown:
        parser.error(f"unknown tasks {unknown}; known: {sorted(TASKS)}")

    print(f"{'task':22s} {'steps/s':>9s} {'target':>7s} {'reset ms':>9s} {'env/aviary':>10s}")
    ours = {}
    for name in args.tasks:
        env = gymnasium.make(f"pyflyt_like/{name}-v0").unwrapped
        rate, overhead = steps_per_second(env, args.steps)
        reset = reset_milliseconds(env)
        target = TARGET_STEPS_PER_SECOND.get(name)
        ours[name] = rate
        print(f"{name:22s} {rate:9.0f} {target or '':>7} {reset:9.3f} {overhead:10.2f}")
        env.close()
    print(f"reset target: <= {TARGET_RESET_MS} ms")

    if args.pyflyt:
        try:
            import PyFlyt.gym_envs  # noqa: F401
        except ImportError:
            print("PyFlyt is not installed in this Python; skipped the comparison")
            return
        env = gymnasium.make("PyFlyt/QuadX-Hover-v4").unwrapped
        theirs = args.steps / random_run_seconds(env, args.steps)
        reset = reset_milliseconds(env, resets=20)
        print(f"PyFlyt QuadX-Hover: {theirs:.0f} steps/s, reset {reset:.1f} ms; "
              f"ours / theirs = {ours.get('QuadX-Hover', float('nan')) / theirs:.2f}")
        env.close()


if __name__ == "__main__":
    main()
