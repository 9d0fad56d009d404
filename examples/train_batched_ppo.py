"""Train PPO on a batched Multirotor task, then fly the policy in its PyBullet twin.

Trains :func:`pyflyt_like.training.train_ppo` on ``--num-envs`` worlds of the batched
VectorEnv for ``--minutes`` of wall time (or ``--total-steps``), then evaluates the
deterministic policy on ``--eval-episodes`` episodes in the batched engine and in the
PyBullet twin (``gymnasium.make`` of the same id, same options), and prints both. Writes
``<out>/<task>.pt`` (the policy), ``<task>_history.json`` and ``<task>_curve.png`` (the
learning curve: mean episode return against wall time and env steps).

Needs torch: ``pip install torch --index-url https://download.pytorch.org/whl/cpu`` first on
a CPU-only machine (the default wheel pulls CUDA, several GB), then ``pip install
"pyflyt_like[rl]"``.

Usage: python examples/train_batched_ppo.py --task Multirotor-Hover-v0 [--minutes 5]
       [--num-envs 1024] [--threads 2] [--eval-episodes 100] [--out runs]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import gymnasium
import numpy as np

import pyflyt_like.envs  # noqa: F401  (registers the ids)

# Per task: PPO settings found to train within the time given here on a 2-core machine
# (docs/training.md has the measured figures).
RECIPES = {
    "Multirotor-Hover-v0": dict(minutes=5.0, n_steps=32, n_epochs=5, n_minibatches=4,
                                learning_rate=1e-3, gamma=0.98),
    "Multirotor-Reach-v0": dict(minutes=8.0, n_steps=32, n_epochs=5, n_minibatches=4,
                                learning_rate=1e-3, gamma=0.99),
    "Multirotor-Track-v0": dict(minutes=8.0, n_steps=32, n_epochs=5, n_minibatches=4,
                                learning_rate=1e-3, gamma=0.98),
    "Multirotor-Land-v0": dict(minutes=8.0, n_steps=32, n_epochs=5, n_minibatches=4,
                               learning_rate=1e-3, gamma=0.99),
}
# what each task's info says about an episode, and how to sum it up
METRICS = {
    "Multirotor-Hover-v0": ("distance", "final distance to the target [m]", "last"),
    "Multirotor-Reach-v0": ("targets_reached", "targets reached per episode", "last"),
    "Multirotor-Track-v0": ("tracking_error", "RMS tracking error [m]", "rms"),
    "Multirotor-Land-v0": ("landed", "soft landings on the pad (fraction)", "last"),
}


def episode_summary(env, policy, seed: int) -> tuple[float, float, int]:
    """(return, the task metric, steps) of one deterministic episode of a single env."""
    key, _, kind = METRICS[env.spec.id.split("/")[-1]]
    observation, _ = env.reset(seed=seed)
    total, values, done = 0.0, [], False
    while not done:
        observation, reward, terminated, truncated, info = env.step(policy.act(observation))
        total += reward
        values.append(float(info[key]))
        done = terminated or truncated
    metric = math.sqrt(np.mean(np.square(values))) if kind == "rms" else values[-1]
    return total, metric, len(values)


def _twin_chunk(args: tuple) -> list[tuple[float, float, int]]:
    """Worker: episodes ``seeds`` of the twin with the policy saved at ``path``."""
    import torch

    from pyflyt_like.training import PPOPolicy

    env_id, options, path, seeds = args
    torch.set_num_threads(1)
    policy = PPOPolicy.load(path)
    env = gymnasium.make(f"pyflyt_like/{env_id}", **options)
    try:
        return [episode_summary(env, policy, seed) for seed in seeds]
    finally:
        env.close()


def evaluate_twin(env_id: str, options: dict, policy_path: Path, episodes: int, seed: int,
                  workers: int) -> np.ndarray:
    """(episodes, 3) return, metric, steps of the PyBullet twin, episodes split over
    ``workers`` processes (one PyBullet world each)."""
    seeds = [seed + i for i in range(episodes)]
    chunks = [(env_id, options, str(policy_path), seeds[i::workers]) for i in range(workers)]
    if workers == 1:
        results = [_twin_chunk(chunks[0])]
    else:
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(_twin_chunk, chunks))
    return np.array([row for chunk in results for row in chunk])


def evaluate_batched(env_id: str, options: dict, policy, episodes: int,
                     seed: int) -> np.ndarray:
    """(episodes, 3) return, metric, steps of the first episode of ``episodes`` batched
    worlds, all stepped together."""
    key, _, kind = METRICS[env_id]
    envs = gymnasium.make_vec(f"pyflyt_like/{env_id}", num_envs=episodes,
                              vectorization_mode="vector_entry_point", **options)
    observation, _ = envs.reset(seed=seed)
    returns, squares, last = np.zeros(episodes), np.zeros(episodes), np.zeros(episodes)
    steps = np.zeros(episodes, np.int64)
    running = np.ones(episodes, bool)
    while running.any():
        observation, reward, terminated, truncated, info = envs.step(policy.act(observation))
        value = info[key].astype(float)
        returns += np.where(running, reward, 0.0)
        squares += np.where(running, value ** 2, 0.0)
        last = np.where(running, value, last)
        steps += running
        running &= ~(terminated | truncated)
    envs.close()
    metric = np.sqrt(squares / steps) if kind == "rms" else last
    return np.column_stack((returns, metric, steps))


def save_curve(history: list[dict], title: str, path: Path) -> None:
    """Mean episode return against wall time and env steps, as a PNG (written atomically)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [row for row in history if not math.isnan(row["mean_return"])]
    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    for axis, key, label in ((left, "wall_time_s", "wall time [s]"),
                             (right, "env_steps", "env steps")):
        axis.plot([row[key] for row in rows], [row["mean_return"] for row in rows])
        axis.set_xlabel(label)
        axis.set_ylabel("mean episode return")
        axis.grid(alpha=0.3)
    figure.suptitle(title)
    figure.tight_layout()
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".png", delete=False) as tmp:
        figure.savefig(tmp.name, dpi=100)
    os.replace(tmp.name, path)
    plt.close(figure)


def write_json(data, path: Path) -> None:
    with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".json", delete=False) as tmp:
        json.dump(data, tmp, indent=1)
    os.replace(tmp.name, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="Multirotor-Hover-v0", choices=sorted(RECIPES))
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--minutes", type=float, default=None,
                        help="training wall-time budget (default: the task's recipe)")
    parser.add_argument("--total-steps", type=int, default=10**9,
                        help="env-step budget (training stops at whichever comes first)")
    parser.add_argument("--threads", type=int, default=2, help="torch.set_num_threads")
    parser.add_argument("--eval-episodes", type=int, default=100)
    parser.add_argument("--eval-workers", type=int, default=2,
                        help="processes for the PyBullet evaluation")
    parser.add_argument("--flight-mode", type=int, default=1, choices=(-1, 0, 1))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("runs"))
    args = parser.parse_args()
    try:
        import torch

        from pyflyt_like.training import PPOConfig, train_ppo
    except ImportError:
        sys.exit("this example needs torch: pip install torch --index-url "
                 "https://download.pytorch.org/whl/cpu, then pip install 'pyflyt_like[rl]'")
    if args.num_envs <= 0 or args.eval_episodes <= 0 or args.threads <= 0:
        parser.error("--num-envs, --eval-episodes and --threads must be positive")
    torch.set_num_threads(args.threads)
    recipe = dict(RECIPES[args.task])
    minutes = recipe.pop("minutes") if args.minutes is None else args.minutes
    recipe.pop("minutes", None)
    options = dict(flight_mode=args.flight_mode)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.task.removesuffix("-v0")

    envs = gymnasium.make_vec(f"pyflyt_like/{args.task}", num_envs=args.num_envs,
                              vectorization_mode="vector_entry_point", **options)
    max_return = (envs.unwrapped.episodes.max_steps if args.task == "Multirotor-Hover-v0"
                  else None)
    config = PPOConfig(total_steps=args.total_steps, seed=args.seed, **recipe)
    deadline = time.perf_counter() + 60.0 * minutes

    def report(row: dict) -> bool:
        if row["iteration"] % 10 == 0:
            print(f"  {row['wall_time_s']:6.0f} s  {row['env_steps']:>11,d} steps  "
                  f"mean return {row['mean_return']:8.2f}", flush=True)
        return time.perf_counter() < deadline

    print(f"training {args.task} on {args.num_envs} batched envs for up to {minutes:g} min "
          f"({args.threads} torch threads)")
    policy, history = train_ppo(envs, config, callback=report)
    envs.close()
    trained_s, steps = history[-1]["wall_time_s"], history[-1]["env_steps"]
    policy_path = args.out / f"{stem}.pt"
    policy.save(policy_path)
    write_json(history, args.out / f"{stem}_history.json")
    save_curve(history, f"PPO on {args.task}, {args.num_envs} batched envs",
               args.out / f"{stem}_curve.png")
    print(f"trained {steps:,d} env steps in {trained_s:.0f} s "
          f"({steps / trained_s:,.0f} env steps/s incl. updates)")

    _, metric_name, _ = METRICS[args.task]
    start = time.perf_counter()
    batched = evaluate_batched(args.task, options, policy, args.eval_episodes, 10**6)
    batched_s = time.perf_counter() - start
    start = time.perf_counter()
    twin = evaluate_twin(args.task, options, policy_path, args.eval_episodes, 10**6,
                         args.eval_workers)
    twin_s = time.perf_counter() - start
    for name, result, seconds in (("batched engine", batched, batched_s),
                                  ("PyBullet twin ", twin, twin_s)):
        line = (f"{name}: return {result[:, 0].mean():8.2f} +- {result[:, 0].std():6.2f}, "
                f"{metric_name} {result[:, 1].mean():.4f} "
                f"({len(result)} episodes, {seconds:.0f} s)")
        if max_return is not None:
            line += f", {100 * result[:, 0].mean() / max_return:.1f} % of the maximum"
        print(line)
    write_json({"task": args.task, "num_envs": args.num_envs, "train_seconds": trained_s,
                "env_steps": steps, "batched": batched.tolist(), "twin": twin.tolist(),
                "max_return": max_return}, args.out / f"{stem}_evaluation.json")


if __name__ == "__main__":
    main()
