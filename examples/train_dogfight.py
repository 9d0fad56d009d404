"""Train a dogfight policy on Dogfight-v0 (DAgger, then league self-play), rate it by Elo and
judge it in the PettingZoo scene.

Stage 1, imitation (skipped with ``--no-teacher``), a quarter of the time: DAgger
(:func:`pyflyt_like.training.imitation.dagger`) on the scripted
:class:`~pyflyt_like.envs.PursuitPilot` told to sit 20 m behind its target, against the
default pilot, for ``--imitation-minutes``; the result is ``imitation.pt``.

Stage 2, league self-play (:mod:`pyflyt_like.training.league`) for the rest of
``--minutes``: PPO (:func:`pyflyt_like.training.train_ppo`) flies team 0 of ``--worlds``
worlds; team 1 is a league member drawn per world and episode by prioritised fictitious
self-play: the scripted pilot at three follow distances, the frozen imitated policy, and
snapshots of the learner admitted by a win-rate gate (``--gate``). Fine-tuning the imitated
policy keeps what imitation gave (docs/training.md has the ablation): the critic learns
alone first, a behaviour-cloning term toward ``imitation.pt`` decays, the observation
normalisation stays fixed, and a KL target bounds each update.

Judged every ``--judge-every`` iterations in ``--judge-worlds`` batched duels against the
default pilot (and the imitated policy); the policy with the best least win share over them
is kept as ``dogfight.pt``.
Then a round-robin on the batched engine rates the league (Elo, Bradley-Terry with 95 %
intervals), and the PettingZoo scene judges the kept policy against the scripted pilot and
``imitation.pt``, sides alternated (:func:`pyflyt_like.envs.dogfight.matches.scene_matches`).

Writes into ``--out``: ``imitation.pt``, ``dogfight.pt``, ``dogfight_history.json``,
``dogfight_curve.png`` (judged shares against wall time), ``dogfight_elo.json`` and
``dogfight_elo.png`` (each snapshot's rating against the wall time it was taken),
``dogfight_eval.json`` (the PettingZoo results) and ``dogfight_replay.acmi`` (the first
judged episode against the scripted pilot, for Tacview).

Usage: python examples/train_dogfight.py --team-size {1,2} --minutes 60 --seed 0 --out runs
       [--no-teacher]

Needs torch (``pip install "pyflyt_like[rl]"``; see docs/training.md for the CPU wheel).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import time
from pathlib import Path

import numpy as np

from pyflyt_like.common.command_line import (
    CPUS,
    MAX_SEED,
    OneLineParser,
    float_in,
    int_in,
    minutes_in,
    output_folder,
)

#: The scripted league members: the PursuitPilot at these follow distances [m] (10 is the
#: default pilot, half the guns' range; 20 the teacher).
SCRIPTED_FOLLOW = {"pursuit-10m": None, "pursuit-20m": 20.0, "pursuit-35m": 35.0}
DEFAULT_PILOT = "pursuit-10m"
# Fine-tuning an imitated policy: little noise (std 0.05: at 0.22 the learner lost nine
# duels in ten to its own imitated copy, so its updates were about flying noisily), a
# horizon of ~11 s (gamma 0.997 at 30 Hz) in which a manoeuvre pays, and the critic fitted
# to the imitated policy's returns before the actor moves (docs/training.md).
FINE_TUNE = dict(n_steps=64, n_epochs=4, n_minibatches=8, learning_rate=2e-4, gamma=0.997,
                 gae_lambda=0.95, hidden_sizes=(256, 256), ent_coef=0.0, init_log_std=-3.0,
                 critic_warmup_iterations=10, target_kl=0.01, bc_coef=2.0,
                 bc_decay_iterations=300, normalize_observations=False)
# From scratch: PPO's usual step and noise, and a normaliser that follows the data.
FROM_SCRATCH = dict(n_steps=64, n_epochs=4, n_minibatches=8, learning_rate=3e-4, gamma=0.99,
                    gae_lambda=0.95, hidden_sizes=(256, 256), ent_coef=0.0,
                    init_log_std=-0.5)
ELO_SNAPSHOTS = 5  # snapshots rated besides the kept policy, evenly spaced
#: What ``--without`` switches off in FINE_TUNE, for the ablation (docs/training.md).
ABLATIONS = {"critic-warmup": dict(critic_warmup_iterations=0),
             "bc": dict(bc_coef=0.0),
             "kl-target": dict(target_kl=None),
             "frozen-normalisation": dict(normalize_observations=True)}


def main() -> None:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--team-size", type=int_in(1, 2), default=1,
                        help="aircraft per team: 1 (1v1) or 2 (2v2, one policy per aircraft)")
    parser.add_argument("--minutes", type=minutes_in, default=60.0,
                        help="wall time of imitation and self-play together")
    parser.add_argument("--seed", type=int_in(0, MAX_SEED - 100_000), default=0)
    parser.add_argument("--out", type=Path, default=Path("runs"),
                        help="folder for the results (created if missing)")
    parser.add_argument("--no-teacher", action="store_true",
                        help="no imitation: self-play from an untrained policy, the scripted "
                             "pilots the only other members at the start")
    parser.add_argument("--imitation-minutes", type=minutes_in, default=None,
                        help="wall time of DAgger (default: a quarter of --minutes)")
    parser.add_argument("--imitation", type=Path, default=None,
                        help="an imitation.pt to fine-tune instead of running DAgger "
                             "(--minutes is then all self-play)")
    parser.add_argument("--without", action="append", choices=sorted(ABLATIONS), default=[],
                        help="switch off a piece of the fine-tuning (repeatable; ablation)")
    parser.add_argument("--worlds", type=int_in(1, 2**20), default=1024)
    parser.add_argument("--threads", type=int_in(1, CPUS), default=min(2, CPUS),
                        help="torch.set_num_threads")
    parser.add_argument("--gate", type=float_in(0.0, 0.99), default=0.55,
                        help="score against the last admitted member above which a snapshot "
                             "joins the league")
    parser.add_argument("--gate-games", type=int_in(1, 10**9), default=500,
                        help="games against that member before the gate can open")
    parser.add_argument("--judge-worlds", type=int_in(1, 2**20), default=512)
    parser.add_argument("--judge-every", type=int_in(1, 10**6), default=40,
                        help="PPO iterations between judgements")
    parser.add_argument("--eval-episodes", type=int_in(1, 100_000), default=100,
                        help="PettingZoo episodes against the scripted pilot (twice as many "
                             "against imitation.pt)")
    parser.add_argument("--elo-worlds", type=int_in(1, 2**20), default=128,
                        help="batched duels per ordered pairing of the round-robin")
    parser.add_argument("--aggressiveness", type=float_in(0.0, 1.0), default=0.0,
                        help="of the training worlds' reward: 0 (default) makes it zero-sum, "
                             "what one side gains the other loses (the judge's scene uses "
                             "its default, 0.5)")
    parser.add_argument("--sparse-reward", action="store_true",
                        help="train on hits and the outcome only (no dense shaping)")
    parser.add_argument("--gamma", type=float_in(0.0, 1.0), default=None,
                        help="PPO's discount per agent step (default: the settings')")
    parser.add_argument("--learning-rate", type=float_in(1e-7, 1.0), default=None,
                        help="PPO's step size (default: the settings')")
    parser.add_argument("--init-log-std", type=float_in(-20.0, 20.0), default=None,
                        help="log standard deviation of the exploration noise at the start")
    args = parser.parse_args()
    if args.imitation is not None and (args.no_teacher or not args.imitation.is_file()):
        parser.error(f"argument --imitation: must name an existing imitation.pt file and "
                     f"not come with --no-teacher, got {str(args.imitation)!r}")
    out = output_folder(parser, "--out", args.out)  # before anything is trained
    imitation_minutes = (args.minutes / 4.0 if args.imitation_minutes is None
                         else min(args.imitation_minutes, args.minutes))

    import torch

    torch.set_num_threads(args.threads)
    Recipe(args, out, 0.0 if args.no_teacher else imitation_minutes).run()


class Recipe:
    """The stages of one run, sharing its envs, policy, league and history."""

    def __init__(self, args, out: Path, imitation_minutes: float):
        from pyflyt_like.envs import PursuitPilot
        from pyflyt_like.envs.dogfight.vector_env import DogfightVectorEnv
        from pyflyt_like.training import PPOConfig, PPOPolicy
        from pyflyt_like.training.league import League, WinGate

        self.args, self.out, self.imitation_minutes = args, out, imitation_minutes
        self.start = time.perf_counter()
        size = args.team_size
        self.env = DogfightVectorEnv(num_envs=args.worlds * size, team_size=size,
                                     opponent="scripted", aggressiveness=args.aggressiveness,
                                     sparse_reward=args.sparse_reward)
        self.judge_env = DogfightVectorEnv(num_envs=args.judge_worlds * size, team_size=size,
                                           opponent="scripted")
        settings = dict(FROM_SCRATCH) if args.no_teacher else dict(FINE_TUNE)
        for piece in args.without:
            settings.update(ABLATIONS[piece])
        for key in ("gamma", "learning_rate", "init_log_std"):
            if getattr(args, key) is not None:
                settings[key] = getattr(args, key)
        self.config = PPOConfig(total_steps=2**62, seed=args.seed, **settings)
        # the policy always normalises; the config says whether PPO updates the statistics
        self.policy = PPOPolicy.from_spaces(
            self.env.single_observation_space, self.env.single_action_space,
            dataclasses.replace(self.config, normalize_observations=True))
        self.league = League(self.env.n_worlds, size, np.random.default_rng(args.seed))
        for name, follow in SCRIPTED_FOLLOW.items():
            self.league.add(name, PursuitPilot(self.env, follow_distance=follow))
        self.gate = WinGate(args.gate, args.gate_games)
        self.judge_opponents = {DEFAULT_PILOT: lambda env: PursuitPilot(env)}
        self.history: dict = {"dagger": [], "ppo": [], "judged": [], "snapshots": []}
        self.best: dict = {"criterion": -np.inf, "judge_seconds": 0.0}
        self.reference = None

    def minutes(self) -> float:
        return (time.perf_counter() - self.start) / 60.0

    # ------------------------------------------------------------------ stages
    def run(self) -> None:
        if self.args.imitation is not None:
            self.follow_teacher(type(self.policy).load(self.args.imitation))
        elif self.imitation_minutes > 0.0:
            self.imitate()
        self.self_play()
        train_minutes = self.minutes()
        self.policy.load_state_dict(self.best.pop("state"))
        self.policy.save(self.out / "dogfight.pt")
        write_json(self.out / "dogfight_history.json", self.history)
        plot_curve(self.history, self.out / "dogfight_curve.png")
        ratings = self.rate()
        result = self.evaluate()
        result.update(train_minutes=train_minutes, team_size=self.args.team_size,
                      seed=self.args.seed, worlds=self.args.worlds,
                      teacher=not self.args.no_teacher,
                      kept={key: self.best[key] for key in ("stage", "minutes", "judged")},
                      dagger_rounds=len(self.history["dagger"]),
                      ppo_iterations=len(self.history["ppo"]),
                      ppo_env_steps=(self.history["ppo"][-1]["env_steps"]
                                     if self.history["ppo"] else 0),
                      league=self.league.records(), elo=ratings)
        write_json(self.out / "dogfight_eval.json", result)
        print(json.dumps({key: result[key] for key in result if key not in ("league", "elo")},
                         indent=1))

    def imitate(self) -> None:
        from pyflyt_like.envs import PursuitPilot
        from pyflyt_like.training.imitation import dagger

        teacher = PursuitPilot(self.env, follow_distance=SCRIPTED_FOLLOW["pursuit-20m"])

        def after_round(row: dict) -> bool:
            self.history["dagger"].append(row)
            print(f"{row['wall_time_s'] / 60:5.1f} min  DAgger round {row['round']}: "
                  f"{row['samples'] / 1e6:.1f} M samples, teacher share "
                  f"{row['teacher_share']:.2f}, action RMS error {row['rms_error']:.3f}",
                  flush=True)
            return self.minutes() < self.imitation_minutes

        dagger(self.env, self.policy, teacher, first_steps=1000, round_steps=600,
               seed=self.args.seed, callback=after_round)
        self.follow_teacher(self.policy)

    def follow_teacher(self, imitated) -> None:
        """Start self-play from the ``imitated`` policy: saved as imitation.pt, the reference
        of the behaviour-cloning term, a league member and a judge opponent."""
        import torch

        self.policy.load_state_dict(imitated.state_dict())
        with torch.no_grad():  # imitation fits the mean only; the noise is fine-tuning's
            self.policy.log_std.fill_(self.config.init_log_std)
        self.policy.save(self.out / "imitation.pt")
        self.reference = copy.deepcopy(self.policy).requires_grad_(False)
        member = self.league.add_policy("imitation", self.policy, kind="teacher")
        self.judge_opponents["imitation"] = lambda env: member.pilot
        self.judge("dagger")

    def self_play(self) -> None:
        from pyflyt_like.training import train_ppo
        from pyflyt_like.training.league import LeagueEnv

        if self.args.no_teacher:  # the gate first measures the learner against the default
            self.league.incumbent = self.league.members[0]
            self.judge("untrained")
        env = LeagueEnv(self.env, self.league)
        budget = self.start + 60.0 * self.args.minutes
        self.history["self_play_from_minutes"] = self.minutes()

        def after_iteration(row: dict) -> bool:
            row["wall_time_s"] = time.perf_counter() - self.start  # imitation included
            self.history["ppo"].append(row)
            iteration = row["iteration"]
            name = f"snapshot-{iteration}"
            if self.league.promote_if_ready(self.gate, name, self.policy) is not None:
                self.history["snapshots"].append(dict(name=name, minutes=self.minutes(),
                                                      iteration=iteration))
                print(f"{self.minutes():5.1f} min  {name} joins the league", flush=True)
            if iteration % self.args.judge_every == 0:
                print(f"{self.minutes():5.1f} min  PPO {row['env_steps'] / 1e6:7.1f} M steps"
                      f"  return {row['mean_return']:8.1f}  kl {row['approx_kl']:.4f}  "
                      f"members {len(self.league.members)}", flush=True)
                self.judge("ppo")
            # room for the last judgement within the budget
            return time.perf_counter() + self.best["judge_seconds"] < budget

        if time.perf_counter() < budget:
            train_ppo(env, self.config, after_iteration, policy=self.policy,
                      reference=self.reference)
            if self.history["ppo"] and self.history["ppo"][-1]["iteration"] % \
                    self.args.judge_every:  # the last one not judged yet
                self.judge("ppo")

    # ------------------------------------------------------------------ judging
    def judge(self, stage: str) -> None:
        """Batched duels of the deterministic policy against each judge opponent; keeps the
        policy whose least win share over them is the best so far (a policy that beats
        imitation.pt by drawing against the scripted pilot is not kept over one that beats
        both)."""
        from pyflyt_like.envs.dogfight.matches import batched_matches

        began = time.perf_counter()
        row: dict = {"stage": stage, "minutes": self.minutes()}
        for name, opponent in self.judge_opponents.items():
            result = batched_matches(lambda env: self.policy.act, opponent,
                                     team_size=self.args.team_size,
                                     worlds=self.judge_env.n_worlds,
                                     seed=20_000 + self.args.seed, env=self.judge_env)
            row[name] = result.as_dict()
        self.best["judge_seconds"] = time.perf_counter() - began
        criterion = min(row[name]["win_share"] for name in self.judge_opponents)
        self.history["judged"].append(row)
        if criterion > self.best["criterion"]:
            self.best.update(criterion=criterion, stage=stage, minutes=row["minutes"],
                             judged=row, state=copy.deepcopy(self.policy.state_dict()))
        text = ", ".join(f"{name} {row[name]['wins']} W {row[name]['draws']} D "
                         f"{row[name]['losses']} L" for name in self.judge_opponents)
        print(f"{row['minutes']:5.1f} min  judged ({stage}) of {self.judge_env.n_worlds}: "
              f"{text}", flush=True)

    def rate(self) -> dict:
        """Round-robin Elo of the league's scripted pilots, the imitated policy, up to
        ELO_SNAPSHOTS snapshots and the kept policy, on the batched engine."""
        from pyflyt_like.envs.dogfight.round_robin import round_robin
        from pyflyt_like.training.elo import fit_ratings, plot_ratings_over_time

        members = self.league.members
        snapshots = [m for m in members if m.kind == "snapshot"]
        keep = np.unique(np.linspace(0, len(snapshots) - 1, ELO_SNAPSHOTS).round().astype(int)
                         ) if snapshots else []
        players = {m.name: (lambda member: lambda env: member.pilot)(m)
                   for m in members if m.kind != "snapshot"}
        players.update({snapshots[i].name: (lambda member: lambda env: member.pilot)(
            snapshots[i]) for i in keep})
        kept = copy.deepcopy(self.policy)
        players["dogfight"] = lambda env: kept.act
        began = time.perf_counter()
        names, wins, draws = round_robin(players, team_size=self.args.team_size,
                                         worlds=self.args.elo_worlds,
                                         seed=30_000 + self.args.seed)
        ratings = fit_ratings(names, wins, draws, anchor=DEFAULT_PILOT)
        taken = {row["name"]: row["minutes"] for row in self.history["snapshots"]}
        taken["imitation"] = self.history.get("self_play_from_minutes", 0.0)
        taken["dogfight"] = self.best["minutes"]
        points = [(taken[name], ratings.elo[i], ratings.low[i], ratings.high[i], name)
                  for i, name in enumerate(ratings.names) if name in taken]
        plot_ratings_over_time(points, self.out / "dogfight_elo.png")
        table = ratings.as_dict()
        write_json(self.out / "dogfight_elo.json",
                   {"ratings": table, "taken_minutes": taken,
                    "worlds_per_pairing": self.args.elo_worlds,
                    "seconds": time.perf_counter() - began})
        return table

    def evaluate(self) -> dict:
        """The judge: the PettingZoo scene at default options, sides alternated."""
        from pyflyt_like.envs import PursuitPilot
        from pyflyt_like.envs.dogfight.matches import scene_matches

        policy, size, episodes = self.policy, self.args.team_size, self.args.eval_episodes
        result = {"scripted": scene_matches(
            lambda env: policy.act, lambda env: PursuitPilot(env), team_size=size,
            episodes=episodes, seed=10_000 + self.args.seed,
            record_first=self.out / "dogfight_replay.acmi").as_dict()}
        if self.reference is not None:
            result["imitation"] = scene_matches(
                lambda env: policy.act, lambda env: self.reference.act, team_size=size,
                episodes=2 * episodes, seed=40_000 + self.args.seed).as_dict()
        for name, row in result.items():
            print(f"PettingZoo against {name}: {row['wins']} W {row['draws']} D "
                  f"{row['losses']} L of {row['episodes']}, own crashes {row['own_crashes']}"
                  f", dome exits {row['own_dome_exits']}", flush=True)
        return {"pettingzoo": result}


def write_json(path: Path, value) -> None:
    from pyflyt_like.common.atomic_files import write_atomically

    write_atomically(path, lambda file: json.dump(value, file, indent=1, default=float))


def plot_curve(history: dict, path: Path) -> None:
    """The judged shares of wins and losses against each judge opponent against wall time;
    a dotted line where self-play starts."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    judged = history["judged"]
    minutes = np.array([row["minutes"] for row in judged])
    figure, axis = plt.subplots(figsize=(6.5, 3.8))
    names = [key for key in judged[0] if key not in ("stage", "minutes")]
    for name, colour in zip(names, ("tab:blue", "tab:red")):
        for key, style in (("wins", "o-"), ("losses", "x:")):
            shares = [100.0 * row[name][key] / row[name]["episodes"] for row in judged]
            axis.plot(minutes, shares, style, color=colour, markersize=3,
                      label=f"{key} against {name}")
    axis.axvline(history.get("self_play_from_minutes", 0.0), color="grey", linestyle="--",
                 label="self-play from here")
    axis.set_xlabel("training wall time [min] (2 cores)")
    axis.set_ylabel("judged batched duels [%]")
    axis.set_ylim(0, 100)
    axis.legend(fontsize=7)
    axis.grid(alpha=0.3)
    figure.tight_layout()
    from pyflyt_like.common.atomic_files import write_atomically

    write_atomically(path, lambda file: figure.savefig(file, dpi=110, format="png"),
                     binary=True)
    plt.close(figure)


if __name__ == "__main__":
    main()
