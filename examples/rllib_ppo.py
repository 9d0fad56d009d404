"""PPO with Ray RLlib on QuadX-Hover, the batched Multirotor-Hover or the 2v2 dogfight.

``hover`` and ``batched-hover`` train one policy (``batched-hover`` samples
``--num-envs-per-runner`` batched worlds per env runner through RLlib's
``gym_env_vectorize_mode="vector_entry_point"``); ``dogfight`` trains one policy per team.

Starts a local Ray instance, or joins a running cluster with ``--address``; prints each
iteration's sampled env steps, the mean episode return and the sampling rate.

Usage:
    pip install torch==2.13.0 "pyflyt_like[ray]"     # CPU torch first, see docs/training.md
    python examples/rllib_ppo.py --task hover --num-env-runners 2 --iterations 10
    python examples/rllib_ppo.py --task batched-hover --num-envs-per-runner 256
    python examples/rllib_ppo.py --task dogfight --address 127.0.0.1:6379
"""

from __future__ import annotations

import argparse
import time

import ray
from ray.rllib.algorithms.ppo import PPOConfig

from pyflyt_like.integrations.rllib import dogfight_policy_mapping, register_rllib_envs

TASKS = {"hover": "pyflyt_like/QuadX-Hover-v0",
         "batched-hover": "pyflyt_like/Multirotor-Hover-v0",
         "dogfight": "pyflyt_like/MAFixedwing-Dogfight-v0"}


def build_config(task: str, num_env_runners: int, batch_size: int,
                 num_envs_per_runner: int = 1) -> PPOConfig:
    """RLlib's PPO on ``task`` (a key of TASKS) with ``num_env_runners`` samplers."""
    vectorize = "vector_entry_point" if task == "batched-hover" else "sync"
    config = (PPOConfig()
              .environment(TASKS[task], env_config={"team_size": 2} if task == "dogfight" else {})
              .env_runners(num_env_runners=num_env_runners, num_cpus_per_env_runner=0.5,
                           num_envs_per_env_runner=num_envs_per_runner,
                           gym_env_vectorize_mode=vectorize)
              .fault_tolerance(restart_failed_env_runners=True)
              .learners(num_learners=0)
              .training(train_batch_size_per_learner=batch_size, minibatch_size=256,
                        num_epochs=5, lr=3e-4))
    if task == "dogfight":
        config = config.multi_agent(policies={"team_0", "team_1"},
                                    policy_mapping_fn=dogfight_policy_mapping(2))
    return config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", choices=sorted(TASKS), default="hover")
    parser.add_argument("--address", default=None,
                        help="a running cluster's address (host:port); default: a local Ray")
    parser.add_argument("--num-env-runners", type=int, default=2)
    parser.add_argument("--num-envs-per-runner", type=int, default=None,
                        help="envs per env runner (default: 64 for batched-hover, else 1)")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=4000,
                        help="env steps per training iteration")
    args = parser.parse_args()
    if args.num_envs_per_runner is None:
        args.num_envs_per_runner = 64 if args.task == "batched-hover" else 1
    if (args.num_env_runners < 0 or args.iterations < 1 or args.batch_size < 1
            or args.num_envs_per_runner < 1):
        parser.error("--num-env-runners must be >= 0; --iterations, --batch-size and "
                     "--num-envs-per-runner >= 1")

    ray.init(address=args.address, log_to_driver=False)
    register_rllib_envs()
    algo = build_config(args.task, args.num_env_runners, args.batch_size,
                        args.num_envs_per_runner).build_algo()
    try:
        for _ in range(args.iterations):
            start = time.perf_counter()
            result = algo.train()
            runners = result["env_runners"]
            print(f"iteration {result['training_iteration']:3d}: "
                  f"{runners['num_env_steps_sampled_lifetime']:8.0f} env steps, "
                  f"return {runners.get('episode_return_mean', float('nan')):8.2f}, "
                  f"{runners['num_env_steps_sampled'] / (time.perf_counter() - start):7.0f} "
                  "env steps/s (iteration wall time)", flush=True)
    finally:
        algo.stop()
        ray.shutdown()


if __name__ == "__main__":
    main()
