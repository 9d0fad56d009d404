"""Evaluate the mode-2 autopilot baseline of Fixedwing-Reach-v0 in its PyBullet twin.

    python scripts/evaluate_reach_autopilot.py [episodes] [first seed]

Flies ``episodes`` (default 10) episodes of the twin, reset with seeds ``first seed``
(default 0) onwards, with :func:`pyflyt_like.envs.fixedwing.autopilot.evaluate_autopilot`,
and prints the targets reached (in all and per episode) and the mean return
(docs/fixedwing_tasks.md).
"""

from __future__ import annotations

import argparse

from pyflyt_like.envs.fixedwing.autopilot import evaluate_autopilot


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("episodes", nargs="?", type=int, default=10)
    parser.add_argument("first_seed", nargs="?", type=int, default=0)
    args = parser.parse_args(argv)
    if args.episodes < 1 or args.first_seed < 0:
        parser.error("episodes must be at least 1 and the first seed non-negative")
    result = evaluate_autopilot(args.episodes, args.first_seed)
    print(f"autopilot: {int(result[:, 0].sum())} targets in {args.episodes} episodes "
          f"({result[:, 0].mean():.2f} per episode), mean return {result[:, 1].mean():.1f}")


if __name__ == "__main__":
    main()
