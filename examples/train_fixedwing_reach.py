"""Train PPO on Fixedwing-Reach (batched engine), then fly it against the autopilot in the
PyBullet twin.

Trains :func:`pyflyt_like.training.train_ppo` on ``--num-envs`` worlds of the batched
``Fixedwing-Reach-v0`` VectorEnv for ``--minutes`` of wall time, then flies the deterministic
policy for ``--eval-episodes`` episodes of the PyBullet twin and the mode-2 autopilot
baseline (:mod:`pyflyt_like.envs.fixedwing.autopilot`) on the same episodes (the same
seeds: the same spawns and targets), and prints the targets each reached. Writes
``<out>/fixedwing_reach.pt`` (the policy), the learning curve ``--curve`` (PNG: mean
episode return against wall time and env steps) and ``--results`` (JSON: the options, the
PPO settings, the history, both evaluations).

Needs torch (``pip install "pyflyt_like[rl]"``; on a CPU-only machine install torch from
https://download.pytorch.org/whl/cpu first) and matplotlib for the curve.

Usage: python examples/train_fixedwing_reach.py [--minutes 9.5] [--num-envs 512]
       [--threads 2] [--eval-episodes 100] [--eval-workers 2] [--seed 0] [--out runs]
"""

from __future__ import annotations

import argparse
import io
import json
import math
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from pyflyt_like.common.command_line import (
    CPUS,
    MAX_SEED,
    OneLineParser,
    int_in,
    minutes_in,
    output_file,
    output_folder,
)

EVAL_SEED = 10**6  # the evaluation episodes' first seed: far from the training's
# The PPO settings of the recipe (docs/fixedwing_tasks.md has the measured figures).
RECIPE = dict(n_steps=64, n_epochs=4, n_minibatches=4, learning_rate=1e-3, gamma=0.99,
              gae_lambda=0.95, ent_coef=0.0, hidden_sizes=(64, 64), init_log_std=-0.5)
# The task's defaults but for the agent rate: at 10 Hz an episode is 300 decisions and
# gamma = 0.99 looks ~10 s ahead, the time a turn onto a target takes (at the default 30 Hz,
# 3 s: the same 9.5 minutes reached a third of the autopilot's targets).
OPTIONS = dict(drone_model="acrowing", flight_mode=1, agent_hz=10)


def make_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=minutes_in, default=9.5,
                        help="training wall-time budget [min]")
    parser.add_argument("--num-envs", type=int_in(1, 2**20), default=512)
    parser.add_argument("--threads", type=int_in(1, CPUS), default=min(2, CPUS),
                        help="torch threads")
    parser.add_argument("--eval-episodes", type=int_in(1, 100_000), default=100)
    parser.add_argument("--eval-workers", type=int_in(1, CPUS), default=min(2, CPUS),
                        help="processes for the PyBullet evaluations")
    parser.add_argument("--seed", type=int_in(0, MAX_SEED), default=0, help="training seed")
    parser.add_argument("--out", type=Path, default=Path("runs"),
                        help="folder of the policy (created if missing)")
    parser.add_argument("--curve", type=Path,
                        default=Path("docs/assets/fixedwing_reach_curve.png"),
                        help="the learning curve, a .png file")
    parser.add_argument("--results", type=Path,
                        default=Path("docs/assets/fixedwing_reach_results.json"),
                        help="the results, a .json file")
    return parser


def _policy_chunk(args: tuple) -> list[list[float]]:
    """Worker: twin episodes ``seeds`` flown by the policy saved at ``path``:
    [targets reached, return, steps] each."""
    import torch

    from pyflyt_like.envs.fixedwing.twin_env import FixedwingReachTwinEnv
    from pyflyt_like.training import PPOPolicy

    path, seeds = args
    torch.set_num_threads(1)
    policy = PPOPolicy.load(path)
    env = FixedwingReachTwinEnv(**OPTIONS)
    rows = []
    try:
        for seed in seeds:
            observation, info = env.reset(seed=seed)
            total, steps, done = 0.0, 0, False
            while not done:
                observation, reward, terminated, truncated, info = env.step(
                    policy.act(observation))
                total += reward
                steps += 1
                done = terminated or truncated
            rows.append([info["targets_reached"], total, steps])
    finally:
        env.close()
    return rows


def _autopilot_chunk(seeds: list[int]) -> list[list[float]]:
    """Worker: the autopilot's twin episodes ``seeds``."""
    from pyflyt_like.envs.fixedwing.autopilot import fly_episode
    from pyflyt_like.envs.fixedwing.twin_env import FixedwingReachTwinEnv

    env = FixedwingReachTwinEnv(**OPTIONS)
    try:
        rows = [fly_episode(env, seed) for seed in seeds]
    finally:
        env.close()
    return [[row["targets_reached"], row["return"], row["steps"]] for row in rows]


def evaluate(policy_path: Path, episodes: int, workers: int) -> tuple[np.ndarray, np.ndarray]:
    """(episodes, 3) targets, return, steps of the policy and of the autopilot on the twin
    episodes seeded ``EVAL_SEED + i``."""
    seeds = [EVAL_SEED + i for i in range(episodes)]
    chunks = [seeds[i::workers] for i in range(workers)]
    with ProcessPoolExecutor(workers) as pool:
        policy = pool.map(_policy_chunk, [(str(policy_path), chunk) for chunk in chunks])
        autopilot = pool.map(_autopilot_chunk, chunks)
        policy_rows = [row for chunk in policy for row in chunk]
        autopilot_rows = [row for chunk in autopilot for row in chunk]
    order = np.argsort([seed for chunk in chunks for seed in chunk])  # back to seed order
    return np.array(policy_rows)[order], np.array(autopilot_rows)[order]


def save_curve(history: list[dict], path: Path) -> None:
    """Mean episode return against wall time and env steps, as a PNG written atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pyflyt_like.common.atomic_files import write_atomically

    rows = [row for row in history if not math.isnan(row["mean_return"])]
    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    for axis, key, label in ((left, "wall_time_s", "wall time [s]"),
                             (right, "env_steps", "env steps")):
        axis.plot([row[key] for row in rows], [row["mean_return"] for row in rows])
        axis.set_xlabel(label)
        axis.set_ylabel("mean episode return")
        axis.grid(alpha=0.3)
    figure.suptitle("PPO on Fixedwing-Reach-v0 (batched engine)")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    plt.close(figure)
    write_atomically(path, lambda file: file.write(buffer.getvalue()), binary=True)


def main() -> None:
    parser = make_parser()
    args = parser.parse_args()
    # where the results go, proved writable before anything is trained
    output_folder(parser, "--out", args.out)
    output_file(parser, "--curve", args.curve, ".png")
    output_file(parser, "--results", args.results, ".json")
    import torch

    from pyflyt_like.common.atomic_files import write_atomically
    from pyflyt_like.envs.fixedwing.vector_env import FixedwingReachVectorEnv
    from pyflyt_like.training import PPOConfig, train_ppo

    torch.set_num_threads(args.threads)
    envs = FixedwingReachVectorEnv(num_envs=args.num_envs, **OPTIONS)
    config = PPOConfig(total_steps=10**12, seed=args.seed, **RECIPE)
    deadline = time.perf_counter() + 60.0 * args.minutes

    def report(row: dict) -> bool:
        if row["iteration"] % 10 == 0:
            print(f"  {row['wall_time_s']:6.0f} s  {row['env_steps']:>11,d} steps  "
                  f"mean return {row['mean_return']:8.2f}  length {row['mean_length']:6.1f}",
                  flush=True)
        return time.perf_counter() < deadline

    print(f"training Fixedwing-Reach-v0 on {args.num_envs} batched envs for up to "
          f"{args.minutes:g} min ({args.threads} torch threads)", flush=True)
    try:
        policy, history = train_ppo(envs, config, callback=report)
    finally:
        envs.close()
    trained_s, steps = history[-1]["wall_time_s"], history[-1]["env_steps"]
    policy_path = args.out / "fixedwing_reach.pt"
    policy.save(policy_path)
    save_curve(history, args.curve)
    print(f"trained {steps:,d} env steps in {trained_s:.0f} s "
          f"({steps / trained_s:,.0f} env steps/s incl. updates)", flush=True)

    start = time.perf_counter()
    flown, autopilot = evaluate(policy_path, args.eval_episodes, args.eval_workers)
    evaluation_s = time.perf_counter() - start
    policy_targets, autopilot_targets = int(flown[:, 0].sum()), int(autopilot[:, 0].sum())
    ratio = policy_targets / max(autopilot_targets, 1)
    for name, result in (("policy   ", flown), ("autopilot", autopilot)):
        print(f"{name}: {int(result[:, 0].sum()):4d} targets in {len(result)} twin episodes "
              f"({result[:, 0].mean():.2f} per episode), return {result[:, 1].mean():7.2f}, "
              f"{int((result[:, 2] < 30 * OPTIONS['agent_hz']).sum())} episodes ended early")
    print(f"policy / autopilot targets: {100 * ratio:.1f} % (evaluation {evaluation_s:.0f} s)")
    results = {"task": "Fixedwing-Reach-v0", "options": OPTIONS, "num_envs": args.num_envs,
               "ppo": {key: list(value) if isinstance(value, tuple) else value
                       for key, value in RECIPE.items()},
               "seed": args.seed, "train_seconds": trained_s, "env_steps": steps,
               "eval_seed": EVAL_SEED, "policy_targets": policy_targets,
               "autopilot_targets": autopilot_targets, "ratio": ratio,
               "policy": flown.tolist(), "autopilot": autopilot.tolist(),
               "history": history}
    write_atomically(args.results, lambda file: json.dump(results, file, indent=1))
    print(f"wrote {policy_path}, {args.curve}, {args.results}")


if __name__ == "__main__":
    main()
