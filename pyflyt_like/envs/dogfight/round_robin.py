"""A round-robin of dogfight pilots on the batched engine: every pairing, both orders.

The results are what :func:`pyflyt_like.training.elo.fit_ratings` rates: ``wins[i, j]``,
games player i won against player j on either side, and ``draws[i, j]``, the draws of the
pairing with i on team 0. Every ordered pairing flies the same worlds (one reset seed), so
the spawns differ between pairings only in which side flies which aircraft (common random
numbers: the pairings are compared on the same situations).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from pyflyt_like.common.validation import check_positive_int

from .matches import PilotFactory, batched_matches
from .vector_env import DogfightVectorEnv

__all__ = ["round_robin"]


def round_robin(players: Mapping[str, PilotFactory], *, team_size: int = 1, worlds: int,
                seed: int, **options: Any) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """Fly every ordered pairing of ``players`` in ``worlds`` batched duels.

    Args:
        players: name -> pilot factory (:mod:`.matches`), at least two.
        team_size: aircraft per team.
        worlds: duels per ordered pairing, >= 1 (P (P - 1) * worlds duels in all).
        seed: the reset seed of every pairing, an int in [0, 2**63).
        **options: the env's options (``Dogfight-v0``'s defaults where not given).

    Returns:
        The names (P,), ``wins`` (P, P) and ``draws`` (P, P) int64 counts (zero diagonals).

    Raises:
        TypeError, ValueError: fewer than two players, a name that is not a str, or a bad
            ``team_size``, ``worlds`` or ``seed`` (named).
    """
    if not isinstance(players, Mapping) or len(players) < 2 or not all(
            isinstance(name, str) for name in players):
        raise ValueError(f"players must map at least two names (str) to pilot factories, "
                         f"got {players!r}")
    worlds = check_positive_int("worlds", worlds)
    team_size = check_positive_int("team_size", team_size)
    names = tuple(players)
    size = len(names)
    wins = np.zeros((size, size), np.int64)
    draws = np.zeros((size, size), np.int64)
    env = DogfightVectorEnv(num_envs=worlds * team_size, team_size=team_size,
                            opponent="scripted", **options)  # B replaces the opponent
    try:
        for i, a in enumerate(names):
            for j, b in enumerate(names):
                if i != j:
                    result = batched_matches(players[a], players[b], team_size=team_size,
                                             seed=seed, env=env)
                    wins[i, j] += result.wins
                    wins[j, i] += result.losses
                    draws[i, j] += result.draws
    finally:
        env.close()
    return names, wins, draws
