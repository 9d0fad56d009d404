"""Evaluate PursuitPilot in the PettingZoo dogfight: against random actions, or against itself.

    python scripts/evaluate_pursuit_pilot.py --opponent random --episodes 100
    python scripts/evaluate_pursuit_pilot.py --opponent pilot --episodes 100

Team 0 (``uav_0`` .. ) is flown by the pilot; team 1 by the opponent: ``random`` samples
each agent's action space (seeded from ``--seed``), ``pilot`` is a second PursuitPilot.
Episode k is reset with seed ``--seed + k``. Prints wins / draws / losses (``team_win`` of
the last step: 0 a win for the pilot's team), ground crashes (``info["collision"]``) per
team, out-of-dome exits, the pilot team's physics-step hits dealt and received, the mean
episode length [steps] and the wall time [s]; ``--output`` also writes them as JSON
(atomically).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from pyflyt_like.common.atomic_files import check_file_destination, write_atomically
from pyflyt_like.envs.dogfight.pursuit_pilot import PursuitPilot
from pyflyt_like.envs.dogfight.scene import MAFixedwingDogfightEnv


def run_episode(env: MAFixedwingDogfightEnv, pilot: PursuitPilot, opponent: str, seed: int,
                rng: np.random.Generator) -> dict[str, Any]:
    """Play one episode; return its outcome, length, crashes and hits (pilot's team = 0)."""
    observations, _ = env.reset(seed=seed)
    for agent in env.possible_agents:  # reproducible random opponents
        env.action_space(agent).seed(int(rng.integers(2**31)))
    team = {agent: int(env.team[env.agent_index[agent]]) for agent in env.possible_agents}
    result = {"team_win": None, "steps": 0, "collisions": [0, 0], "out_of_bounds": [0, 0],
              "dealt": 0, "received": 0}
    while env.agents:
        actions = pilot.act_dict({a: observations[a] for a in env.agents
                                  if opponent == "pilot" or team[a] == 0})
        for agent in env.agents:
            if agent not in actions:
                actions[agent] = env.action_space(agent).sample()
        observations, _, _, _, infos = env.step(actions)
        result["steps"] += 1
        for agent, info in infos.items():
            side = team[agent]
            result["collisions"][side] += int(bool(info.get("collision")))
            result["out_of_bounds"][side] += int(bool(info.get("out_of_bounds")))
            if side == 0:
                result["dealt"] += info["dealt_hits"]
                result["received"] += info["received_hits"]
            result["team_win"] = info["team_win"]
    return result


def evaluate(episodes: int, opponent: str, seed: int, team_size: int, flight_mode: int,
             angle_representation: str, verbose: bool = False) -> dict[str, Any]:
    """Play ``episodes`` episodes and return the summary figures (see the module docstring)."""
    assisted = flight_mode == 1
    env = MAFixedwingDogfightEnv(team_size=team_size, assisted_flight=assisted,
                                 flight_mode=flight_mode,
                                 angle_representation=angle_representation)
    pilot = PursuitPilot(env)
    rng = np.random.default_rng(seed)
    outcomes = {"wins": 0, "draws": 0, "losses": 0}
    crashes = np.zeros(2, dtype=int)
    exits = np.zeros(2, dtype=int)
    lengths, dealt, received = [], 0, 0
    start = time.perf_counter()
    try:
        for k in range(episodes):
            result = run_episode(env, pilot, opponent, seed + k, rng)
            key = {0: "wins", 1: "losses", None: "draws"}[result["team_win"]]
            outcomes[key] += 1
            crashes += result["collisions"]
            exits += result["out_of_bounds"]
            lengths.append(result["steps"])
            dealt += result["dealt"]
            received += result["received"]
            if verbose:
                outcome = {"wins": "win", "draws": "draw", "losses": "loss"}[key]
                print(f"episode {k}: {outcome}, {result['steps']} steps, crashes "
                      f"{result['collisions']}, exits {result['out_of_bounds']}, hits "
                      f"{result['dealt']}/{result['received']}", flush=True)
    finally:
        env.close()
    return {"opponent": opponent, "episodes": episodes, "team_size": team_size,
            "flight_mode": flight_mode, "angle_representation": angle_representation,
            "seed": seed, **outcomes,
            "ground_crashes_pilot_team": int(crashes[0]),
            "ground_crashes_opponent_team": int(crashes[1]),
            "out_of_dome_pilot_team": int(exits[0]), "out_of_dome_opponent_team": int(exits[1]),
            "hits_dealt": dealt, "hits_received": received,
            "mean_episode_steps": float(np.mean(lengths)) if lengths else 0.0,
            "seconds": time.perf_counter() - start}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponent", choices=("random", "pilot"), default="random")
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--team-size", type=int, default=1)
    parser.add_argument("--flight-mode", type=int, choices=(0, 1), default=1)
    parser.add_argument("--angle-representation", choices=("quaternion", "euler"),
                        default="quaternion")
    parser.add_argument("--output", type=Path, default=None,
                        help="also write the figures to this .json file")
    parser.add_argument("--verbose", action="store_true", help="one line per episode")
    args = parser.parse_args(argv)
    if args.episodes < 1:
        parser.error(f"--episodes must be >= 1, got {args.episodes}")
    if args.output is not None:  # proved writable before the episodes are flown
        try:
            check_file_destination(args.output, ".json", "--output")
        except (OSError, ValueError) as error:
            parser.exit(2, f"{parser.prog}: error: {error}\n")  # one line, as argparse's
    summary = evaluate(args.episodes, args.opponent, args.seed, args.team_size,
                       args.flight_mode, args.angle_representation, args.verbose)
    print(f"PursuitPilot vs {summary['opponent']}: {summary['episodes']} episodes "
          f"({summary['team_size']}v{summary['team_size']}, mode {summary['flight_mode']}, "
          f"{summary['angle_representation']})")
    print(f"  wins / draws / losses: {summary['wins']} / {summary['draws']} / "
          f"{summary['losses']}")
    print(f"  ground crashes: pilot team {summary['ground_crashes_pilot_team']}, opponent "
          f"team {summary['ground_crashes_opponent_team']}")
    print(f"  out of dome: pilot team {summary['out_of_dome_pilot_team']}, opponent team "
          f"{summary['out_of_dome_opponent_team']}")
    print(f"  hits dealt / received (pilot team): {summary['hits_dealt']} / "
          f"{summary['hits_received']}")
    print(f"  mean episode length: {summary['mean_episode_steps']:.1f} steps")
    print(f"  time: {summary['seconds']:.1f} s")
    if args.output is not None:
        write_atomically(args.output, lambda f: json.dump(summary, f, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
