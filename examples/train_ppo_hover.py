"""Train PPO (stable-baselines3) on pyflyt_like/QuadX-Hover-v0 and report mean returns.

Needs the optional ``rl`` extra: ``pip install -e ".[rl]"`` (stable-baselines3 and PyTorch;
on a CPU-only machine install a CPU build of torch first to avoid a multi-GB CUDA download).

Prints the mean episode return of the untrained policy, trains for ``--timesteps`` steps
on ``--n-envs`` parallel copies of the env, prints the mean return of the trained policy
(deterministic actions, fresh seeds) and saves the model to ``--out`` and the observation
normalisation statistics next to it (``<out>.normalisation.pkl``).

Usage: python examples/train_ppo_hover.py [--timesteps 300000] [--n-envs 4] [--out ppo_hover.zip]
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import gymnasium
import numpy as np

import pyflyt_like.envs  # noqa: F401  (registers the ids)
from pyflyt_like.common.command_line import OneLineParser, output_file

ENV_ID = "pyflyt_like/QuadX-Hover-v0"


def mean_return(model, normaliser, episodes: int, seed: int) -> tuple[float, float]:
    """Mean and standard deviation of the (raw) episode return of ``model``, deterministic.

    Observations go through the training run's normalisation statistics, frozen.
    """
    env = gymnasium.make(ENV_ID)
    returns = []
    for episode in range(episodes):
        observation, _ = env.reset(seed=seed + episode)
        total, done = 0.0, False
        while not done:
            action, _ = model.predict(normaliser.normalize_obs(observation), deterministic=True)
            observation, reward, terminated, truncated, _ = env.step(action)
            total += float(reward)
            done = terminated or truncated
        returns.append(total)
    env.close()
    return float(np.mean(returns)), float(np.std(returns))


def main() -> None:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=300_000)
    parser.add_argument("--n-envs", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-episodes", type=int, default=10)
    parser.add_argument("--out", type=Path, default=Path("ppo_hover.zip"),
                        help="the model, a .zip file (its folder is made if missing)")
    args = parser.parse_args()
    output_file(parser, "--out", args.out, ".zip")  # before anything is trained
    try:
        from stable_baselines3 import PPO
        from stable_baselines3.common.env_util import make_vec_env
        from stable_baselines3.common.vec_env import VecNormalize
    except ImportError:
        raise SystemExit('this example needs the rl extra: pip install -e ".[rl]"') from None

    # Positions, rates and throttles differ in scale by orders of magnitude: normalise the
    # observations (and returns) with running statistics, the usual PPO recipe.
    envs = VecNormalize(make_vec_env(ENV_ID, n_envs=args.n_envs, seed=args.seed))
    model = PPO("MlpPolicy", envs, seed=args.seed, n_steps=1024, batch_size=256,
                learning_rate=3e-4, gamma=0.99, verbose=0)
    before = mean_return(model, envs, args.eval_episodes, seed=10_000)
    print(f"untrained: mean return {before[0]:.1f} ± {before[1]:.1f}")
    start = time.perf_counter()
    model.learn(total_timesteps=args.timesteps)
    minutes = (time.perf_counter() - start) / 60
    envs.training = False
    after = mean_return(model, envs, args.eval_episodes, seed=20_000)
    print(f"trained {args.timesteps} steps in {minutes:.1f} min "
          f"({args.timesteps / (minutes * 60):.0f} steps/s): "
          f"mean return {after[0]:.1f} ± {after[1]:.1f}")
    staging = args.out.with_name(f".{args.out.stem}.partial.zip")
    model.save(staging)
    os.replace(staging, args.out)
    statistics = args.out.with_suffix(".normalisation.pkl")
    envs.save(str(statistics.with_name(f".{statistics.name}.partial")))
    os.replace(statistics.with_name(f".{statistics.name}.partial"), statistics)
    envs.close()


if __name__ == "__main__":
    main()
