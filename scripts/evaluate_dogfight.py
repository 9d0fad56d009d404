"""Evaluate a trained dogfight policy in the PettingZoo scene: against the scripted pilot or
another policy, the sides alternated.

    python scripts/evaluate_dogfight.py runs/dogfight.pt
    python scripts/evaluate_dogfight.py runs/dogfight.pt --opponent scripted --episodes 100
    python scripts/evaluate_dogfight.py runs/a.pt --opponent runs/b.pt --team-size 2 \\
        --episodes 20 --seed 7 --json a_vs_b.json

POLICY (a :class:`~pyflyt_like.training.PPOPolicy` checkpoint, written by its ``save``)
flies one team of :class:`~pyflyt_like.envs.MAFixedwingDogfightEnv` at its default
options but ``--team-size``, deterministically; the other team is flown by the opponent:
``scripted`` (the default :class:`~pyflyt_like.envs.PursuitPilot`) or another checkpoint.
Episode k is reset with seed ``--seed + k``; POLICY flies team 0 in even episodes and team
1 in odd ones (:func:`pyflyt_like.envs.dogfight.matches.scene_matches`).

Prints, from POLICY's side: wins / draws / losses, its own aircraft's crashes and dome
exits, the mean episode length and the score (wins + draws / 2) / episodes; ``--json``
also writes them (with the episodes, seed, team size and both paths) atomically; its
folder is checked before anything is flown.

User errors (a bad option, a missing or unreadable checkpoint, a policy whose
observation or action size does not fit the scene, an unwritable ``--json``, PyTorch not
installed) exit with status 2 and one line on stderr. Needs the ``rl`` extra
(``pip install "pyflyt_like[rl]"``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from pyflyt_like.common.command_line import MAX_SEED, OneLineParser, int_in

# pyflyt_like.envs.dogfight.options.MAX_TEAM_SIZE (a test checks that they agree), written
# out so that a bad option is reported before the simulator loads
MAX_TEAM_SIZE = 128
MAX_EPISODES = 1_000_000
SCRIPTED = "scripted"


class UserError(Exception):
    """A mistake of the caller's: reported as one line, exit status 2."""


def parse_arguments(argv: list[str] | None) -> tuple[OneLineParser, argparse.Namespace]:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("policy", type=Path, metavar="POLICY",
                        help="the PPOPolicy checkpoint (.pt) to evaluate")
    parser.add_argument("--opponent", default=SCRIPTED, metavar="scripted|OTHER.pt",
                        help="'scripted' (the default PursuitPilot) or another checkpoint")
    parser.add_argument("--team-size", type=int_in(1, MAX_TEAM_SIZE), default=1,
                        help="aircraft per team")
    parser.add_argument("--episodes", type=int_in(1, MAX_EPISODES), default=100)
    parser.add_argument("--seed", type=int_in(0, MAX_SEED), default=0,
                        help="episode k is reset with seed + k")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE",
                        help="also write the results to this .json file")
    args = parser.parse_args(argv)
    if args.seed + args.episodes - 1 > MAX_SEED:
        parser.error(f"--seed: --seed + --episodes - 1 must be < 2**63, got {args.seed} "
                     f"and {args.episodes} episodes")
    return parser, args


def check_file(path: Path, name: str) -> None:
    if not path.exists():
        raise UserError(f"{name} {path}: no such file")
    if not path.is_file():
        raise UserError(f"{name} {path} is not a file")


def load_policy(path: Path, name: str):
    """The PPOPolicy of checkpoint ``path`` (UserError if it cannot be read as one)."""
    try:
        from pyflyt_like.training import PPOPolicy
    except ImportError as error:  # its message names the rl extra
        raise UserError(str(error)) from None
    try:
        return PPOPolicy.load(path)
    except OSError as error:
        raise UserError(f"{name} {path} cannot be read ({error.strerror or error})") from None
    except ValueError as error:  # CheckpointError
        raise UserError(f"{name}: {error}") from None


def fitting_team_size(env: Any, obs_dim: int) -> int | None:
    """The team size whose observations have ``obs_dim`` entries in a scene of ``env``'s
    other options (the attitude vector and health, then 12 entries per other aircraft
    with quaternions), or None if none does."""
    own = env.attitudes[0].size + 1
    total = env.observation_space(env.possible_agents[0]).shape[0]
    block = (total - own) // (env.num_drones - 1)
    others, rest = divmod(obs_dim - own, block)
    if rest or others < 1 or others % 2 == 0 or (others + 1) // 2 > MAX_TEAM_SIZE:
        return None
    return (others + 1) // 2


def policy_pilot(policy, name: str, path: Path):
    """A pilot factory flying ``policy`` deterministically; UserError if its sizes do not
    fit the env."""
    def factory(env):
        agent = env.possible_agents[0]
        obs_dim = env.observation_space(agent).shape[0]
        act_dim = env.action_space(agent).shape[0]
        if policy.obs_dim != obs_dim:
            fits = fitting_team_size(env, policy.obs_dim)
            hint = (f"it fits --team-size {fits}" if fits is not None else
                    "it fits no team size of the scene at its default options")
            raise UserError(f"{name} {path} observes {policy.obs_dim} numbers, but with "
                            f"--team-size {env.team_size} an aircraft observes {obs_dim}: "
                            f"{hint}")
        if policy.act_dim != act_dim:
            raise UserError(f"{name} {path} gives {policy.act_dim} actions, the scene's "
                            f"aircraft take {act_dim}")
        return policy.act

    return factory


def evaluate(args: argparse.Namespace) -> dict[str, Any]:
    """Load the pilots, fly the episodes and return the summary (UserError on a bad
    checkpoint)."""
    check_file(args.policy, "POLICY")
    if args.opponent != SCRIPTED:
        check_file(Path(args.opponent), "--opponent")
    policy = load_policy(args.policy, "POLICY")
    import torch

    torch.set_num_threads(1)  # a handful of observations per call: one thread is fastest

    from pyflyt_like.envs.dogfight.matches import scene_matches

    pilot_a = policy_pilot(policy, "POLICY", args.policy)
    if args.opponent == SCRIPTED:
        from pyflyt_like.envs.dogfight.pursuit_pilot import PursuitPilot

        pilot_b = PursuitPilot
        opponent = SCRIPTED
    else:
        opponent = str(Path(args.opponent))
        pilot_b = policy_pilot(load_policy(Path(args.opponent), "--opponent"), "--opponent",
                               Path(args.opponent))
    start = time.perf_counter()
    result = scene_matches(pilot_a, pilot_b, team_size=args.team_size,
                           episodes=args.episodes, seed=args.seed)
    return {"policy": str(args.policy), "opponent": opponent, "team_size": args.team_size,
            "episodes": args.episodes, "seed": args.seed, **result.as_dict(),
            "sides": "alternated: POLICY flies team 0 in even episodes, team 1 in odd ones",
            "seconds": time.perf_counter() - start}


def print_table(summary: dict[str, Any]) -> None:
    n, size = summary["episodes"], summary["team_size"]
    print(f"{summary['policy']} vs {summary['opponent']}: {n} episodes {size}v{size}, "
          f"seeds {summary['seed']}..{summary['seed'] + n - 1}, sides alternated")
    for key in ("wins", "draws", "losses"):
        print(f"  {key:<15}{summary[key]:>7}  {100.0 * summary[key] / n:5.1f} %")
    print(f"  {'own crashes':<15}{summary['own_crashes']:>7}")
    print(f"  {'own dome exits':<15}{summary['own_dome_exits']:>7}")
    print(f"  mean length    {summary['mean_length_steps']:9.1f} steps")
    print(f"  score          {summary['score']:9.3f}  ((wins + draws / 2) / episodes)")
    print(f"  time           {summary['seconds']:9.1f} s")


def main(argv: list[str] | None = None) -> int:
    parser, args = parse_arguments(argv)
    try:
        if args.json is not None:  # proved writable before the episodes are flown
            from pyflyt_like.common.atomic_files import check_file_destination

            try:
                check_file_destination(args.json, ".json", "--json")
            except (OSError, ValueError) as error:
                raise UserError(str(error)) from None
        summary = evaluate(args)
    except UserError as error:
        line = " ".join(str(error).split())  # one line, whatever the message held
        parser.exit(2, f"{parser.prog}: error: {line}\n")
    print_table(summary)
    if args.json is not None:
        from pyflyt_like.common.atomic_files import write_atomically

        write_atomically(args.json, lambda file: json.dump(summary, file, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
