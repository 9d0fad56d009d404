"""Train a 1v1 dogfight policy by self-play on Dogfight-v0, then judge it in the PettingZoo scene.

First the policy imitates the scripted :class:`~pyflyt_like.envs.PursuitPilot`
(``--imitation-samples`` observations of pilot-against-pilot fights in the batched worlds,
a least-squares fit of the policy's mean action to the pilot's); then PPO
(:func:`pyflyt_like.training.train_ppo`) flies team 0 of ``--worlds`` batched worlds;
team 1 is flown by an opponent pool: in each world, for one PPO iteration at a time, either
the scripted :class:`~pyflyt_like.envs.PursuitPilot` (probability ``--scripted-share``) or
a frozen snapshot of the learner (one of the last ``--pool-size``, a new one every
``--snapshot-every`` iterations; the learner itself until the first). Training stops after
``--minutes`` of wall time. Then the deterministic policy flies ``--eval-episodes`` 1v1
episodes of the PyBullet :class:`~pyflyt_like.envs.MAFixedwingDogfightEnv` (default
options) against the scripted pilot, as ``uav_0``.

Writes ``<out>/dogfight.pt`` (the policy), ``dogfight_history.json`` (PPO history and the
win rate against the scripted pilot during training), ``dogfight_curve.png`` (that win rate
against wall time) and ``dogfight_eval.json`` (the PettingZoo result).

Usage: python examples/train_dogfight.py [--minutes 30] [--worlds 1024] [--threads 2]
       [--eval-episodes 100] [--out runs]

Needs torch (``pip install "pyflyt_like[rl]"``; see docs/training.md for the CPU wheel).
"""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from recipe_options import CPUS, MAX_SEED, OneLineParser, float_in, int_in, minutes_in

if TYPE_CHECKING:  # the simulator is loaded once the options are checked
    from pyflyt_like.envs import PursuitPilot
    from pyflyt_like.envs.dogfight.vector_env import DogfightVectorEnv

# A small learning rate and exploration noise: PPO refines the imitated pilot rather than
# relearning to fly.
PPO_SETTINGS = dict(n_steps=64, n_epochs=4, n_minibatches=8, learning_rate=1e-4,
                    gamma=0.99, gae_lambda=0.95, hidden_sizes=(128, 128), ent_coef=0.0,
                    init_log_std=-1.5)


class OpponentPool:
    """Team 1's pilots: per world, the scripted pilot or a frozen snapshot of the learner,
    drawn for each episode (:meth:`redraw` of the worlds whose episode ended). Called with
    the opponents' (W, obs) observations (one aircraft per world in 1v1), returns their
    (W, act) actions."""

    def __init__(self, n_worlds: int, scripted: PursuitPilot, scripted_share: float,
                 size: int, rng: np.random.Generator):
        self.scripted, self.share, self.size, self.rng = scripted, scripted_share, size, rng
        self.snapshots: list = []
        self.learner = None  # acts for the snapshot slot until the first snapshot
        self.uses_scripted = np.ones(n_worlds, bool)
        self.member = np.zeros(n_worlds, np.int64)

    def redraw(self, worlds: np.ndarray) -> None:
        """New opponents for the (W,) bool ``worlds``."""
        n = int(worlds.sum())
        self.uses_scripted[worlds] = self.rng.random(n) < self.share
        self.member[worlds] = self.rng.integers(0, max(1, len(self.snapshots)), n)

    def add(self, policy) -> None:
        self.snapshots.append(copy.deepcopy(policy))
        del self.snapshots[:-self.size]

    def __call__(self, observations: np.ndarray) -> np.ndarray:
        actions = np.empty((observations.shape[0], 4), np.float32)
        scripted = self.uses_scripted
        if scripted.any():
            actions[scripted] = self.scripted(observations[scripted])
        pilots = self.snapshots or [self.learner]
        for index, pilot in enumerate(pilots):
            rows = ~scripted & (self.member % len(pilots) == index)
            if rows.any():
                actions[rows] = pilot.act(observations[rows])
        return actions


class Tally:
    """Outcomes of the worlds' episodes against the scripted pilot, from Dogfight-v0's infos
    (wraps the env's step; 1v1: env i is world i)."""

    def __init__(self, env: DogfightVectorEnv, pool: OpponentPool):
        self.env, self.pool = env, pool
        self.counts = np.zeros(3, np.int64)  # wins, draws, losses
        step = env.step

        def counted_step(actions):
            out = step(actions)
            infos = out[4]
            ended = infos["_team_win"]
            if ended.any():
                win = infos["team_win"][ended & pool.uses_scripted]
                self.counts += ((win == 0).sum(), (win == -1).sum(), (win == 1).sum())
                pool.redraw(ended)  # the opponent of the world's next episode
            return out

        env.step = counted_step

    def take(self) -> tuple[int, int, int]:
        counts = tuple(int(c) for c in self.counts)
        self.counts[:] = 0
        return counts


def imitate(policy, env: DogfightVectorEnv, pool: OpponentPool, samples: int, epochs: int,
            seed: int) -> dict:
    """Fit ``policy``'s mean action to the scripted pilot's on the observations of
    pilot-against-pilot fights in ``env`` (its opponents set to the pilot meanwhile), and
    its observation normalisation to those observations."""
    import torch

    if samples == 0:
        return {"samples": 0, "rms_error": float("nan")}
    share = pool.share
    pool.share = 1.0
    pool.redraw(np.ones(env.n_worlds, bool))
    observations, _ = env.reset(seed=seed)
    inputs, targets = [], []
    for _ in range(max(1, samples // env.num_envs)):
        actions = pool.scripted(observations)
        inputs.append(observations.astype(np.float32))
        targets.append(actions)
        observations, *_ = env.step(actions)
    pool.share = share
    x = torch.from_numpy(np.concatenate(inputs))
    y = torch.from_numpy(np.concatenate(targets).astype(np.float32))
    policy.update_obs_stats(x.double().mean(0), x.double().var(0, unbiased=False),
                            float(x.shape[0]))
    optimizer = torch.optim.Adam(policy.actor.parameters(), lr=1e-3)
    generator = torch.Generator().manual_seed(seed)
    batch = 4096
    with torch.no_grad():
        normalised = policy.normalize(x)
    for _ in range(epochs):
        order = torch.randperm(x.shape[0], generator=generator)
        for first in range(0, x.shape[0], batch):
            rows = order[first:first + batch]
            loss = (policy.actor(normalised[rows]) - y[rows]).square().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    with torch.no_grad():
        error = (policy.actor(normalised) - y).square().mean().sqrt().item()
    return {"samples": int(x.shape[0]), "rms_error": error}


def evaluate_in_pettingzoo(policy, episodes: int, seed: int) -> dict:
    """``episodes`` 1v1 episodes of the PettingZoo scene: the policy as uav_0 against the
    scripted pilot as uav_1."""
    from pyflyt_like.envs import MAFixedwingDogfightEnv, PursuitPilot

    env = MAFixedwingDogfightEnv(team_size=1)
    pilot = PursuitPilot(env)
    wins = draws = losses = crashes = 0
    lengths = []
    try:
        for episode in range(episodes):
            observations, _ = env.reset(seed=seed + episode)
            steps, team_win, crashed = 0, None, False
            while env.agents:
                actions = {}
                if "uav_0" in observations and "uav_0" in env.agents:
                    actions["uav_0"] = policy.act(observations["uav_0"])
                if "uav_1" in env.agents:
                    actions["uav_1"] = pilot(observations["uav_1"][None])[0]
                observations, _, _, _, infos = env.step(actions)
                steps += 1
                info = infos.get("uav_0", {})
                crashed |= bool(info.get("collision") or info.get("out_of_bounds"))
                team_win = info.get("team_win", team_win)
            lengths.append(steps)
            wins += team_win == 0
            losses += team_win == 1
            draws += team_win is None
            crashes += crashed
    finally:
        env.close()
    return {"episodes": episodes, "wins": int(wins), "draws": int(draws),
            "losses": int(losses), "own_crashes_or_exits": int(crashes),
            "mean_length_steps": float(np.mean(lengths))}


def main() -> None:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=minutes_in, default=30.0,
                        help="wall time of imitation and self-play together")
    parser.add_argument("--worlds", type=int_in(1, 2**20), default=1024)
    parser.add_argument("--threads", type=int_in(1, CPUS), default=min(2, CPUS),
                        help="torch.set_num_threads")
    parser.add_argument("--scripted-share", type=float_in(0.0, 1.0), default=0.5,
                        help="chance that a world's opponent is the scripted pilot")
    parser.add_argument("--aggressiveness", type=float_in(0.0, 1.0), default=0.9,
                        help="of the training worlds' reward (the evaluation uses the "
                             "scene's default, 0.5): near 1, being aimed at costs little")
    parser.add_argument("--pool-size", type=int_in(1, 1000), default=8,
                        help="snapshots of the learner kept as opponents")
    parser.add_argument("--snapshot-every", type=int_in(1, 10**6), default=10,
                        help="PPO iterations between snapshots")
    parser.add_argument("--imitation-samples", type=int_in(0, 10**9), default=2_000_000)
    parser.add_argument("--imitation-epochs", type=int_in(1, 1000), default=10)
    parser.add_argument("--eval-episodes", type=int_in(1, 100_000), default=100)
    parser.add_argument("--seed", type=int_in(0, MAX_SEED - 100_000), default=0)
    parser.add_argument("--out", type=Path, default=Path("runs"))
    args = parser.parse_args()

    import torch

    from pyflyt_like.envs import PursuitPilot
    from pyflyt_like.envs.dogfight.vector_env import DogfightVectorEnv
    from pyflyt_like.training import PPOConfig, PPOPolicy, train_ppo

    torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    env = DogfightVectorEnv(num_envs=args.worlds, team_size=1, opponent=lambda obs: obs,
                            aggressiveness=args.aggressiveness)
    pool = OpponentPool(env.n_worlds, PursuitPilot(env), args.scripted_share,
                        args.pool_size, rng)
    env.opponent = pool
    tally = Tally(env, pool)
    config = PPOConfig(total_steps=2**62, seed=args.seed, **PPO_SETTINGS)
    policy = PPOPolicy.from_spaces(env.single_observation_space, env.single_action_space,
                                   config)
    pool.learner = policy
    start = time.perf_counter()
    imitation = imitate(policy, env, pool, args.imitation_samples, args.imitation_epochs,
                        args.seed)
    print(f"{(time.perf_counter() - start) / 60:5.1f} min  imitation of the scripted pilot: "
          f"{imitation['samples']} samples, action RMS error {imitation['rms_error']:.3f}",
          flush=True)
    tally.take()  # the imitation's fights were pilot against pilot
    curve: list[dict] = []

    def after_iteration(row: dict) -> bool:
        wins, draws, losses = tally.take()
        games = wins + draws + losses
        row.update(scripted_wins=wins, scripted_draws=draws, scripted_losses=losses,
                   scripted_win_rate=wins / games if games else float("nan"))
        curve.append(row)
        if row["iteration"] % args.snapshot_every == 0:
            pool.add(policy)
        row["wall_time_s"] = time.perf_counter() - start  # imitation included
        if row["iteration"] % 10 == 0:
            print(f"{row['wall_time_s'] / 60:5.1f} min  {row['env_steps'] / 1e6:7.1f} M steps"
                  f"  return {row['mean_return']:8.1f}  vs scripted: {wins} W {draws} D "
                  f"{losses} L", flush=True)

    pool.redraw(np.ones(env.n_worlds, bool))
    remaining = args.minutes - (time.perf_counter() - start) / 60.0
    budget = time.perf_counter() + 60.0 * remaining

    def until_budget(row: dict) -> bool:
        after_iteration(row)
        return time.perf_counter() < budget

    policy, history = train_ppo(env, config, until_budget, policy=policy)
    train_minutes = (time.perf_counter() - start) / 60.0
    policy.save(out / "dogfight.pt")
    write_json(out / "dogfight_history.json", curve)
    _plot_curve(curve, out / "dogfight_curve.png")
    result = evaluate_in_pettingzoo(policy, args.eval_episodes, 10_000 + args.seed)
    result.update(train_minutes=train_minutes, env_steps=history[-1]["env_steps"],
                  worlds=args.worlds)
    write_json(out / "dogfight_eval.json", result)
    print(json.dumps(result, indent=1))


def write_json(path: Path, value) -> None:
    from pyflyt_like.common.atomic_files import write_atomically

    write_atomically(path, lambda file: json.dump(value, file, indent=1))


def _plot_curve(curve: list[dict], path: Path) -> None:
    """Shares of wins, draws and losses against the scripted pilot in the training worlds
    (over windows of 10 iterations: a few hundred episodes) against wall time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    minutes = np.array([row["wall_time_s"] for row in curve]) / 60.0
    counts = {key: np.array([row[f"scripted_{key}"] for row in curve], float)
              for key in ("wins", "draws", "losses")}
    window = np.ones(10)
    games = np.maximum(np.convolve(sum(counts.values()), window, "valid"), 1.0)
    figure, axis = plt.subplots(figsize=(6, 3.5))
    for key, values in counts.items():
        axis.plot(minutes[len(window) - 1:],
                  100.0 * np.convolve(values, window, "valid") / games, label=key)
    axis.set_xlabel("training wall time [min] (2 cores, imitation included)")
    axis.set_ylabel("episodes against the scripted pilot [%]")
    axis.set_ylim(0, 100)
    axis.legend()
    axis.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


if __name__ == "__main__":
    main()
