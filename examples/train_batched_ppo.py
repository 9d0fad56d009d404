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

Every option is checked against its range (``--help`` lists them) before torch or the
simulator is loaded, and ``--num-envs`` against the memory before the simulator is; a bad
one exits with status 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from pyflyt_like.common.command_line import (
    CPUS,
    MAX_MINUTES,
    MAX_SEED,
    OneLineParser,
    int_in,
    minutes_in,
    output_folder,
)

MAX_NUM_ENVS = 2**20  # batched worlds; the recipes use 1024, the benchmarks up to 16 384
MAX_EVAL_EPISODES = 100_000  # each is also a batched world, and an episode of the twin
MAX_TOTAL_STEPS = 2**63 - 1  # the int64 range of the step counters

# Per task: PPO settings found to train within the time given here on a 2-core machine
# (docs/training.md has the measured figures).
RECIPES = {
    "Multirotor-Hover-v0": dict(minutes=5.0, n_steps=32, n_epochs=5, n_minibatches=4,
                                learning_rate=1e-3, gamma=0.98),
    "Multirotor-Reach-v0": dict(minutes=8.0, n_steps=32, n_epochs=5, n_minibatches=4,
                                learning_rate=1e-3, gamma=0.99),
    "Multirotor-Track-v0": dict(minutes=8.0, n_steps=32, n_epochs=5, n_minibatches=4,
                                learning_rate=1e-3, gamma=0.98),
    # Land: 0.995, not 0.99, else the discount pays a step saved more than it pays to centre
    "Multirotor-Land-v0": dict(minutes=5.0, n_steps=32, n_epochs=5, n_minibatches=4,
                               learning_rate=1e-3, gamma=0.995),
    "Multirotor-Navigate-v0": dict(minutes=30.0, n_steps=32, n_epochs=5, n_minibatches=4,
                                   learning_rate=1e-3, gamma=0.99),
}
# Navigate's curriculum: 64 forests of each of 1/4, 2/4, 3/4 and all of the task's density,
# the level raised with the wall time over the first CURRICULUM_SHARE of the budget, the last
# level flown for the rest (and in the evaluations)
NAVIGATE = "Multirotor-Navigate-v0"
CURRICULUM_LEVELS = 4
CURRICULUM_SHARE = 0.6
# what each task's info says about an episode, and how to sum it up
METRICS = {
    "Multirotor-Hover-v0": ("distance", "final distance to the target [m]", "last"),
    "Multirotor-Reach-v0": ("targets_reached", "targets reached per episode", "last"),
    "Multirotor-Track-v0": ("tracking_error", "RMS tracking error [m]", "rms"),
    "Multirotor-Land-v0": ("landed", "soft landings on the pad (fraction)", "last"),
    "Multirotor-Navigate-v0": ("goal_reached", "goals reached (fraction)", "last"),
}


def make_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="Multirotor-Hover-v0", choices=sorted(RECIPES))
    parser.add_argument("--num-envs", type=int_in(1, MAX_NUM_ENVS), default=1024,
                        help=f"batched envs to train on, 1 to {MAX_NUM_ENVS}")
    parser.add_argument("--minutes", type=minutes_in, default=None,
                        help=f"training wall-time budget, > 0 and <= {MAX_MINUTES:g} "
                             f"(default: the task's recipe)")
    parser.add_argument("--total-steps", type=int_in(1, MAX_TOTAL_STEPS), default=10**9,
                        help="env-step budget, >= 1 (training stops at whichever comes first)")
    parser.add_argument("--threads", type=int_in(1, CPUS), default=min(2, CPUS),
                        help=f"torch.set_num_threads, 1 to {CPUS} (the CPUs)")
    parser.add_argument("--eval-episodes", type=int_in(1, MAX_EVAL_EPISODES), default=100,
                        help=f"episodes of each evaluation, 1 to {MAX_EVAL_EPISODES}")
    parser.add_argument("--eval-workers", type=int_in(1, CPUS), default=min(2, CPUS),
                        help=f"processes for the PyBullet evaluation, 1 to {CPUS}")
    parser.add_argument("--flight-mode", type=int, default=1, choices=(-1, 0, 1))
    parser.add_argument("--seed", type=int_in(0, MAX_SEED), default=0,
                        help="training seed, 0 to 2**63 - 1")
    parser.add_argument("--out", type=Path, default=Path("runs"),
                        help="folder for the results (created if missing)")
    return parser


def load_tasks():
    """gymnasium with the pyflyt_like ids registered; loaded only once the arguments are
    checked, since it loads the simulator."""
    import gymnasium

    import pyflyt_like.envs  # noqa: F401  (registers the ids)

    return gymnasium


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
    env = load_tasks().make(f"pyflyt_like/{env_id}", **options)
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
    envs = load_tasks().make_vec(f"pyflyt_like/{env_id}", num_envs=episodes,
                                 vectorization_mode="vector_entry_point", **options)
    if env_id == NAVIGATE:  # the task's own forests, as the twin flies
        envs.unwrapped.set_curriculum_level(options["curriculum_levels"] - 1)
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


def navigate_speed(result: np.ndarray, agent_hz: int) -> str:
    """Navigate's mean speed [m/s] over the episodes that reached the goal: the start's
    distance to it (20 m) over the episode's time."""
    from pyflyt_like.rules.navigate import GOAL_DISTANCE

    reached = result[:, 1] > 0.5
    if not reached.any():
        return "no goal reached"
    speeds = GOAL_DISTANCE * agent_hz / result[reached, 2]
    return f"mean speed to the goal {speeds.mean():.2f} m/s"


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
    from pyflyt_like.common.atomic_files import write_atomically

    try:  # a failed write leaves no partial file
        write_atomically(path, lambda stream: figure.savefig(stream, format="png", dpi=100),
                         binary=True)
    finally:
        plt.close(figure)


def write_json(data, path: Path) -> None:
    from pyflyt_like.common.atomic_files import write_atomically

    write_atomically(path, lambda stream: json.dump(data, stream, indent=1))


def export_beside(policy, policy_path: Path) -> None:
    """Write the policy as a C header (always) and as ONNX (with the ``export`` extra) next
    to its checkpoint (docs/export.md)."""
    from pyflyt_like.training import export_policy

    header = export_policy(policy, policy_path.with_suffix(".h"))
    print(f"exported {header}")
    try:
        model = export_policy(policy, policy_path.with_suffix(".onnx"))
    except ImportError as error:  # the export extra is optional here
        print(f"not exported to ONNX: {error}")
    else:
        print(f"exported {model}")


def main() -> None:
    parser = make_parser()
    args = parser.parse_args()
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"argument --out: {str(args.out)!r} is a file, not a folder")
    try:
        import torch

        from pyflyt_like.common.validation import NumericalError, check_memory
        from pyflyt_like.training import PPOConfig, train_ppo
        from pyflyt_like.training.memory import training_memory_bytes
    except ImportError:
        parser.exit(2, "this example needs torch: pip install torch --index-url "
                       "https://download.pytorch.org/whl/cpu, then pip install "
                       "'pyflyt_like[rl]'\n")
    recipe = dict(RECIPES[args.task])
    recipe_minutes = recipe.pop("minutes")
    minutes = recipe_minutes if args.minutes is None else args.minutes
    options = dict(flight_mode=args.flight_mode)
    if args.task == NAVIGATE:
        options.update(curriculum_levels=CURRICULUM_LEVELS, world_layouts=64)
    stem = args.task.removesuffix("-v0")
    config = PPOConfig(total_steps=args.total_steps, seed=args.seed, **recipe)

    # A --num-envs in range can still be too big for this machine's memory. Checked with
    # 1-D spaces (a lower bound) before the simulator is loaded, then with the task's own.
    def memory_error(obs_dim: int, act_dim: int) -> str | None:
        try:
            check_memory(f"--num-envs {args.num_envs} (rollouts of {config.n_steps} steps)",
                         training_memory_bytes(config.n_steps, args.num_envs, obs_dim, act_dim,
                                               config.hidden_sizes, config.n_minibatches),
                         hint="use fewer envs")
        except ValueError as error:
            return f"argument {error}"
        return None

    if error := memory_error(1, 1):
        parser.error(error)
    output_folder(parser, "--out", args.out)  # also an existing file of that name
    torch.set_num_threads(args.threads)
    try:  # the engine checks its own memory too
        envs = load_tasks().make_vec(f"pyflyt_like/{args.task}", num_envs=args.num_envs,
                                     vectorization_mode="vector_entry_point", **options)
    except ValueError as error:
        parser.error(f"argument --num-envs: {error}")
    if error := memory_error(envs.single_observation_space.shape[0],
                             envs.single_action_space.shape[0]):
        envs.close()
        parser.error(error)
    max_return = (envs.unwrapped.params.max_steps if args.task == "Multirotor-Hover-v0"
                  else None)
    deadline = time.perf_counter() + 60.0 * minutes

    start_time = time.perf_counter()

    def report(row: dict) -> bool:
        if args.task == NAVIGATE:
            ramp = (time.perf_counter() - start_time) / (60.0 * minutes * CURRICULUM_SHARE)
            envs.unwrapped.set_curriculum_level(min(CURRICULUM_LEVELS - 1,
                                                    int(ramp * CURRICULUM_LEVELS)))
        if row["iteration"] % 10 == 0:
            print(f"  {row['wall_time_s']:6.0f} s  {row['env_steps']:>11,d} steps  "
                  f"mean return {row['mean_return']:8.2f}", flush=True)
        return time.perf_counter() < deadline

    print(f"training {args.task} on {args.num_envs} batched envs for up to {minutes:g} min "
          f"({args.threads} torch threads)")
    try:
        policy, history = train_ppo(envs, config, callback=report)
    except NumericalError as error:  # the run failed (exit 1), in one line too
        sys.exit(f"{parser.prog}: training failed: {error}")
    finally:
        envs.close()
    trained_s, steps = history[-1]["wall_time_s"], history[-1]["env_steps"]
    policy_path = args.out / f"{stem}.pt"
    policy.save(policy_path)
    export_beside(policy, policy_path)
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
        if args.task == NAVIGATE:
            line += f", {navigate_speed(result, envs.unwrapped.options.agent_hz)}"
        print(line)
    write_json({"task": args.task, "num_envs": args.num_envs, "train_seconds": trained_s,
                "env_steps": steps, "batched": batched.tolist(), "twin": twin.tolist(),
                "max_return": max_return}, args.out / f"{stem}_evaluation.json")


if __name__ == "__main__":
    main()
