"""Train a 1v1 dogfight policy on Dogfight-v0 (DAgger, then self-play), judge it in PettingZoo.

Stage 1, imitation by DAgger (:func:`pyflyt_like.training.imitation.dagger`): the teacher is
the scripted :class:`~pyflyt_like.envs.PursuitPilot` told to sit ``--teacher-follow-distance``
metres behind its target (the default pilot sits at half the lethal distance, 10 m, and
overshoots; at 20 m it wins about 95 % of the duels against the default pilot); team 1 is
the default pilot. The policy flies more and more of the steps while the teacher labels
every state visited, for ``--imitation-minutes``.

Stage 2, PPO self-play (:func:`pyflyt_like.training.train_ppo`) on team 0 of ``--worlds``
batched worlds; team 1 is flown by an opponent pool: in each world, per episode, either the
default scripted pilot (probability ``--scripted-share``) or a frozen snapshot of the learner
(one of the last ``--pool-size``, a new one every ``--snapshot-every`` iterations), until
``--minutes`` of wall time in all.

The deterministic policy is judged against the default pilot in ``--judge-worlds`` fresh
batched duels after every other DAgger round and every ``--judge-every`` PPO iterations;
the best judged policy is kept. It then flies ``--eval-episodes`` 1v1 episodes of the
PyBullet :class:`~pyflyt_like.envs.MAFixedwingDogfightEnv` (default options) against the
scripted pilot, as ``uav_0``.

Writes ``<out>/dogfight.pt`` (the kept policy), ``dogfight_history.json`` (DAgger rounds,
PPO iterations, judgements), ``dogfight_curve.png`` (the judged wins, draws and losses
against wall time), ``dogfight_eval.json`` (the PettingZoo result) and
``dogfight_replay.acmi`` (the first evaluation episode, for Tacview; draw it with
``python scripts/draw_acmi_tracks.py --from runs/dogfight_replay.acmi --png tracks.png``).

Usage: python examples/train_dogfight.py [--minutes 30] [--imitation-minutes 20]
       [--worlds 1024] [--threads 2] [--eval-episodes 100] [--out runs]

Needs torch (``pip install "pyflyt_like[rl]"``; see docs/training.md for the CPU wheel).
"""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from recipe_options import (
    CPUS,
    MAX_SEED,
    OneLineParser,
    float_in,
    int_in,
    minutes_in,
    output_folder,
)

if TYPE_CHECKING:  # the simulator is loaded once the options are checked
    from pyflyt_like.envs import PursuitPilot
    from pyflyt_like.envs.dogfight.vector_env import DogfightVectorEnv

# A small learning rate and exploration noise: PPO refines the imitated policy rather than
# relearning to fly. The width fits the teacher's switching laws (128 x 128 fits it worse).
PPO_SETTINGS = dict(n_steps=64, n_epochs=4, n_minibatches=8, learning_rate=3e-5,
                    gamma=0.99, gae_lambda=0.95, hidden_sizes=(256, 256), ent_coef=0.0,
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


def judge(policy, env: DogfightVectorEnv, seed: int) -> tuple[int, int, int]:
    """Wins, draws and losses of the deterministic ``policy`` (team 0) in one episode of
    each of ``env``'s worlds against its opponent (the scripted pilot)."""
    observations, _ = env.reset(seed=seed)
    counts = np.zeros(3, np.int64)
    finished = np.zeros(env.n_worlds, bool)
    while not finished.all():
        observations, _, _, _, infos = env.step(policy.act(observations))
        ended = infos["_team_win"] & ~finished
        if ended.any():
            win = infos["team_win"][ended]
            counts += ((win == 0).sum(), (win == -1).sum(), (win == 1).sum())
            finished |= ended
    return tuple(int(c) for c in counts)


def fly_episode(env, policy, pilot, seed: int) -> dict:
    """One episode of the PettingZoo scene ``env`` (1v1): the policy as uav_0 against the
    scripted ``pilot`` as uav_1. Returns its ``team_win`` (None: a draw), ``steps`` and
    whether uav_0 ``crashed`` or left the dome."""
    observations, _ = env.reset(seed=seed)
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
    return {"team_win": team_win, "steps": steps, "crashed": crashed}


def evaluate_in_pettingzoo(policy, episodes: int, seed: int) -> dict:
    """``episodes`` 1v1 episodes of the PettingZoo scene: the policy as uav_0 against the
    scripted pilot as uav_1."""
    from pyflyt_like.envs import MAFixedwingDogfightEnv, PursuitPilot

    env = MAFixedwingDogfightEnv(team_size=1)
    pilot = PursuitPilot(env)
    try:
        results = [fly_episode(env, policy, pilot, seed + episode)
                   for episode in range(episodes)]
    finally:
        env.close()
    wins = [result["team_win"] for result in results]
    return {"episodes": episodes, "wins": wins.count(0), "draws": wins.count(None),
            "losses": wins.count(1),
            "own_crashes_or_exits": sum(result["crashed"] for result in results),
            "mean_length_steps": float(np.mean([result["steps"] for result in results]))}


def record_replay(policy, path: Path, seed: int) -> dict:
    """The first evaluation episode (``seed``) again, written as a Tacview file ``path``
    (the policy red, the scripted pilot blue; docs/tacview.md)."""
    from pyflyt_like.envs import MAFixedwingDogfightEnv, PursuitPilot
    from pyflyt_like.envs.dogfight.scene_recorder import DogfightRecorder

    scene = MAFixedwingDogfightEnv(team_size=1)
    env = DogfightRecorder(scene, path, title="trained policy (red) vs scripted pilot (blue)")
    try:
        return fly_episode(env, policy, PursuitPilot(scene), seed)
    finally:
        env.close()


def main() -> None:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=minutes_in, default=30.0,
                        help="wall time of imitation and self-play together")
    parser.add_argument("--imitation-minutes", type=minutes_in, default=20.0,
                        help="wall time of the DAgger stage (ends after a whole round)")
    parser.add_argument("--worlds", type=int_in(1, 2**20), default=1024)
    parser.add_argument("--threads", type=int_in(1, CPUS), default=min(2, CPUS),
                        help="torch.set_num_threads")
    parser.add_argument("--teacher-follow-distance", type=float_in(1.0, 100.0), default=20.0,
                        help="metres the teacher pilot sits behind its target")
    parser.add_argument("--scripted-share", type=float_in(0.0, 1.0), default=0.5,
                        help="chance that a self-play world's opponent is the scripted pilot")
    parser.add_argument("--aggressiveness", type=float_in(0.0, 1.0), default=0.9,
                        help="of the training worlds' reward (the evaluation uses the "
                             "scene's default, 0.5): near 1, being aimed at costs little")
    parser.add_argument("--pool-size", type=int_in(1, 1000), default=8,
                        help="snapshots of the learner kept as opponents")
    parser.add_argument("--snapshot-every", type=int_in(1, 10**6), default=10,
                        help="PPO iterations between snapshots")
    parser.add_argument("--judge-worlds", type=int_in(1, 2**20), default=1024)
    parser.add_argument("--judge-every", type=int_in(1, 10**6), default=25,
                        help="PPO iterations between judgements")
    parser.add_argument("--eval-episodes", type=int_in(1, 100_000), default=100)
    parser.add_argument("--seed", type=int_in(0, MAX_SEED - 100_000), default=0)
    parser.add_argument("--out", type=Path, default=Path("runs"),
                        help="folder for the results (created if missing)")
    args = parser.parse_args()
    out = output_folder(parser, "--out", args.out)  # before anything is trained

    import torch

    from pyflyt_like.envs import PursuitPilot
    from pyflyt_like.envs.dogfight.vector_env import DogfightVectorEnv
    from pyflyt_like.training import PPOConfig, PPOPolicy, train_ppo
    from pyflyt_like.training.imitation import dagger

    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    env = DogfightVectorEnv(num_envs=args.worlds, team_size=1, opponent=lambda obs: obs,
                            aggressiveness=args.aggressiveness)
    pool = OpponentPool(env.n_worlds, PursuitPilot(env), 1.0, args.pool_size, rng)
    env.opponent = pool
    judge_env = DogfightVectorEnv(num_envs=args.judge_worlds, team_size=1, opponent="scripted")
    teacher = PursuitPilot(env, follow_distance=args.teacher_follow_distance)
    config = PPOConfig(total_steps=2**62, seed=args.seed, **PPO_SETTINGS)
    policy = PPOPolicy.from_spaces(env.single_observation_space, env.single_action_space,
                                   config)
    pool.learner = policy
    history: dict = {"dagger": [], "ppo": [], "judged": []}
    best: dict = {"wins": -1, "judge_seconds": 0.0}
    start = time.perf_counter()

    def judge_now(stage: str) -> None:
        began = time.perf_counter()
        wins, draws, losses = judge(policy, judge_env, 20_000 + args.seed)
        best["judge_seconds"] = time.perf_counter() - began
        minutes = (time.perf_counter() - start) / 60.0
        history["judged"].append(dict(stage=stage, minutes=minutes, wins=wins, draws=draws,
                                      losses=losses))
        if wins > best["wins"]:
            best.update(wins=wins, stage=stage, minutes=minutes,
                        state=copy.deepcopy(policy.state_dict()))
        print(f"{minutes:5.1f} min  judged ({stage}): {wins} W {draws} D {losses} L of "
              f"{judge_env.n_worlds}", flush=True)

    def after_round(row: dict) -> bool:
        history["dagger"].append(row)
        print(f"{row['wall_time_s'] / 60:5.1f} min  DAgger round {row['round']}: "
              f"{row['samples'] / 1e6:.1f} M samples, teacher share {row['teacher_share']:.2f}"
              f", action RMS error {row['rms_error']:.3f}", flush=True)
        if row["round"] % 2 == 1:
            judge_now("dagger")
        return time.perf_counter() - start < 60.0 * args.imitation_minutes

    dagger(env, policy, teacher, first_steps=1000, round_steps=600, seed=args.seed,
           callback=after_round)
    if history["dagger"][-1]["round"] % 2 == 0:  # its last round is not judged yet
        judge_now("dagger")

    tally = Tally(env, pool)
    pool.share = args.scripted_share
    pool.redraw(np.ones(env.n_worlds, bool))
    budget = start + 60.0 * args.minutes
    history["self_play_from_minutes"] = (time.perf_counter() - start) / 60.0

    def after_iteration(row: dict) -> bool:
        wins, draws, losses = tally.take()
        row.update(scripted_wins=wins, scripted_draws=draws, scripted_losses=losses,
                   wall_time_s=time.perf_counter() - start)  # imitation included
        history["ppo"].append(row)
        if row["iteration"] % args.snapshot_every == 0:
            pool.add(policy)
        if row["iteration"] % args.judge_every == 0:
            print(f"{row['wall_time_s'] / 60:5.1f} min  PPO {row['env_steps'] / 1e6:7.1f} M "
                  f"steps  return {row['mean_return']:8.1f}  training worlds vs scripted: "
                  f"{wins} W {draws} D {losses} L", flush=True)
            judge_now("ppo")
        # room for the last judgement within the budget
        return time.perf_counter() + best["judge_seconds"] < budget

    if time.perf_counter() < budget:
        train_ppo(env, config, after_iteration, policy=policy)
        if history["ppo"][-1]["iteration"] % args.judge_every:  # the last one not judged yet
            judge_now("ppo")
    train_minutes = (time.perf_counter() - start) / 60.0
    policy.load_state_dict(best.pop("state"))
    policy.save(out / "dogfight.pt")
    write_json(out / "dogfight_history.json", history)
    _plot_curve(history["judged"], history["self_play_from_minutes"],
                out / "dogfight_curve.png")
    result = evaluate_in_pettingzoo(policy, args.eval_episodes, 10_000 + args.seed)
    record_replay(policy, out / "dogfight_replay.acmi", 10_000 + args.seed)
    result.update(train_minutes=train_minutes, worlds=args.worlds,
                  kept={key: best[key] for key in ("stage", "minutes")},
                  kept_judged_wins=best["wins"], judge_worlds=judge_env.n_worlds,
                  dagger_rounds=len(history["dagger"]), ppo_iterations=len(history["ppo"]),
                  ppo_env_steps=history["ppo"][-1]["env_steps"] if history["ppo"] else 0)
    write_json(out / "dogfight_eval.json", result)
    print(json.dumps(result, indent=1))


def write_json(path: Path, value) -> None:
    from pyflyt_like.common.atomic_files import write_atomically

    write_atomically(path, lambda file: json.dump(value, file, indent=1))


def _plot_curve(judged: list[dict], self_play_from: float, path: Path) -> None:
    """The judged shares of wins, draws and losses against the scripted pilot against wall
    time; a dotted line where self-play starts."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    minutes = np.array([row["minutes"] for row in judged])
    games = np.array([row["wins"] + row["draws"] + row["losses"] for row in judged], float)
    figure, axis = plt.subplots(figsize=(6, 3.5))
    for key in ("wins", "draws", "losses"):
        axis.plot(minutes, 100.0 * np.array([row[key] for row in judged]) / games, "o-",
                  label=key, markersize=3)
    axis.axvline(self_play_from, color="grey", linestyle=":", label="self-play from here")
    axis.set_xlabel("training wall time [min] (2 cores)")
    axis.set_ylabel("duels against the scripted pilot [%]")
    axis.set_ylim(0, 100)
    axis.legend()
    axis.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


if __name__ == "__main__":
    main()
