"""A league of opponents for dogfight self-play: frozen snapshots and scripted pilots, drawn
per world and episode by prioritised fictitious self-play, with a win-rate gate.

The learner flies team 0 of every world of ``Dogfight-v0``; the league flies team 1. Each
world's opponent is drawn from the league's members when its episode starts and stays for
the whole episode (the env restarts a world on the step after its last one, NEXT_STEP, and
ignores that step's actions, so a member drawn when an episode ends flies all of the next).
Every finished episode is credited to the member that flew it.

Opponents are drawn by prioritised fictitious self-play (PFSP; Vinyals et al. 2019,
"Grandmaster level in StarCraft II using multi-agent reinforcement learning", Nature 575):
member m is drawn with weight ``(1 - w_m) ** power``, w_m the learner's win rate against it,
so members the learner already beats are drawn less. A draw is no win: a learner that only
survives a member (a draw at the time limit) keeps meeting it, which a score counting draws
as half a win would hide. ``prior_games`` games per member at a win rate of 1/2 keep a new
member's weight moderate until it has played, and ``min_weight`` keeps every member in the
draw, so that what the learner has mastered is still rehearsed. A snapshot of the learner
joins as a member only when the learner's win rate against the last one that joined exceeds
a threshold (:class:`WinGate`), as in AlphaStar's and the AlphaDogfight trials' leagues, so
the pool grows with real progress instead of copies of a policy that is not getting
better.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium.vector import VectorEnv, VectorWrapper

from pyflyt_like.common.validation import (
    check_non_negative_float,
    check_positive_int,
    check_rng,
    check_unit_interval,
)

__all__ = ["League", "LeagueEnv", "LeagueMember", "WinGate"]

#: A pilot maps (N, obs) observations of its aircraft to (N, act) actions.
Pilot = Callable[[np.ndarray], np.ndarray]
KINDS = ("scripted", "teacher", "snapshot")


@dataclass
class LeagueMember:
    """One opponent of the league and the learner's record against it.

    Attributes:
        name: unique within the league.
        pilot: maps (N, obs) observations to (N, act) actions; a snapshot's is its frozen
            copy's deterministic ``act``.
        kind: "scripted", "teacher" or "snapshot".
        wins, draws, losses: the learner's finished episodes against it.
        policy: the frozen policy of a snapshot or teacher (None for a scripted pilot).
    """

    name: str
    pilot: Pilot
    kind: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    policy: Any = None

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def win_rate(self, prior_games: float = 0.0) -> float:
        """The learner's share of wins against this member (a draw is no win), with
        ``prior_games`` games at a win rate of 1/2 added (1/2 with no games and no prior)."""
        games = self.games + prior_games
        if games == 0:
            return 0.5
        return (self.wins + 0.5 * prior_games) / games

    def record(self) -> dict[str, Any]:
        """JSON-ready name, kind and results."""
        return dict(name=self.name, kind=self.kind, wins=self.wins, draws=self.draws,
                    losses=self.losses, win_rate=self.win_rate())


@dataclass(frozen=True)
class WinGate:
    """Promotes a snapshot when the learner's win rate is *above* ``threshold`` in at least
    ``min_games`` games against the last member that joined (``passes``).

    Attributes:
        threshold: win rate in [0, 1) to exceed (a draw is no win).
        min_games: games needed before the gate can open, >= 1.
    """

    threshold: float = 0.55
    min_games: int = 200

    def __post_init__(self) -> None:
        threshold = check_unit_interval("threshold", self.threshold)
        if threshold >= 1.0:
            raise ValueError(f"threshold must be in [0, 1) (a win rate of 1 cannot be exceeded), "
                             f"got {self.threshold!r}")
        object.__setattr__(self, "threshold", threshold)
        object.__setattr__(self, "min_games", check_positive_int("min_games", self.min_games))

    def passes(self, member: LeagueMember) -> bool:
        """Whether the learner's record against ``member`` opens the gate."""
        return member.games >= self.min_games and member.win_rate() > self.threshold


class League:
    """Team 1's pilots in ``n_worlds`` worlds of ``team_size`` aircraft a side; called with
    team 1's (n_worlds * team_size, obs) observations (world-major, as Dogfight-v0 passes
    its opponent), it returns their (n_worlds * team_size, act) actions, each world's from
    the member assigned to it.

    Args:
        n_worlds: W, the worlds of the env it flies in.
        team_size: aircraft per team.
        rng: draws the opponents (a ``numpy.random.Generator``).
        power: PFSP exponent, >= 0 (0: uniform over the members).
        prior_games: games at a win rate of 1/2 credited to every member, >= 0.
        min_weight: least drawing weight of a member, in [0, 1].
    """

    def __init__(self, n_worlds: int, team_size: int, rng: np.random.Generator, *,
                 power: float = 2.0, prior_games: float = 20.0, min_weight: float = 0.05):
        self.n_worlds = check_positive_int("n_worlds", n_worlds)
        self.team_size = check_positive_int("team_size", team_size)
        self.rng = check_rng("rng", rng)
        self.power = check_non_negative_float("power", power)
        self.prior_games = check_non_negative_float("prior_games", prior_games)
        self.min_weight = check_unit_interval("min_weight", min_weight)
        self.members: list[LeagueMember] = []
        #: (W,) index of the member flying each world's current episode (-1: none yet).
        self.assigned = np.full(self.n_worlds, -1, np.int64)
        #: the member the win gate judges the learner against: the last that joined
        self.incumbent: LeagueMember | None = None

    # ----------------------------------------------------------------- members
    def add(self, name: str, pilot: Pilot, kind: str = "scripted",
            policy: Any = None) -> LeagueMember:
        """Add a member (it becomes the incumbent) and return it."""
        if not isinstance(name, str) or any(m.name == name for m in self.members):
            raise ValueError(f"name must be a str no member has, got {name!r}")
        if not callable(pilot):
            raise TypeError(f"pilot must map (N, obs) observations to (N, act) actions, "
                            f"got {pilot!r}")
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
        member = LeagueMember(name, pilot, kind, policy=policy)
        self.members.append(member)
        self.incumbent = member
        return member

    def add_policy(self, name: str, policy: Any, kind: str = "snapshot") -> LeagueMember:
        """Add a frozen deep copy of ``policy`` (anything with ``act(obs)``, e.g. a
        :class:`~pyflyt_like.training.PPOPolicy`), flying its deterministic actions; later
        changes to ``policy`` do not reach it."""
        frozen = copy.deepcopy(policy)
        if hasattr(frozen, "requires_grad_"):
            frozen.requires_grad_(False)
        return self.add(name, frozen.act, kind, policy=frozen)

    def promote_if_ready(self, gate: WinGate, name: str, policy: Any) -> LeagueMember | None:
        """Add a snapshot of ``policy`` named ``name`` if ``gate`` passes the learner's record
        against the incumbent; return the new member, or None."""
        if self.incumbent is None or not gate.passes(self.incumbent):
            return None
        return self.add_policy(name, policy)

    # ----------------------------------------------------------------- drawing
    def weights(self) -> np.ndarray:
        """(M,) the members' drawing probabilities (PFSP, module docstring)."""
        if not self.members:
            raise RuntimeError("the league has no members: add one before drawing")
        rates = np.array([m.win_rate(self.prior_games) for m in self.members])
        weights = np.maximum((1.0 - rates) ** self.power, self.min_weight)
        return weights / weights.sum()

    def assign(self, worlds: np.ndarray) -> None:
        """Draw the opponents of the (W,) bool ``worlds``' next episodes."""
        n = int(np.count_nonzero(worlds))
        if n:
            self.assigned[worlds] = self.rng.choice(len(self.members), n, p=self.weights())

    def record(self, ended: np.ndarray, team_win: np.ndarray) -> None:
        """Credit the (W,) bool ``ended`` worlds' episodes (``team_win``: 0 the learner's
        team won, 1 the league's, -1 nobody) to their members, then draw the next ones."""
        for index in np.unique(self.assigned[ended]):
            if index < 0:
                continue
            won = team_win[ended & (self.assigned == index)]
            member = self.members[index]
            member.wins += int(np.count_nonzero(won == 0))
            member.losses += int(np.count_nonzero(won == 1))
            member.draws += int(np.count_nonzero(won == -1))
        self.assign(ended)

    def __call__(self, observations: np.ndarray) -> np.ndarray:
        if (self.assigned < 0).any():
            raise RuntimeError("worlds without an opponent: call assign() (LeagueEnv.reset "
                               "does) before stepping")
        members = np.repeat(self.assigned, self.team_size)
        actions = None
        for index in np.unique(members):
            rows = members == index
            acted = np.asarray(self.members[index].pilot(observations[rows]))
            if actions is None:
                actions = np.empty((observations.shape[0], acted.shape[-1]), np.float64)
            actions[rows] = acted
        return actions

    def records(self) -> list[dict[str, Any]]:
        """Every member's :meth:`LeagueMember.record`, with its drawing probability."""
        weights = self.weights() if self.members else []
        return [{**m.record(), "weight": float(w)} for m, w in zip(self.members, weights)]


class LeagueEnv(VectorWrapper):
    """``Dogfight-v0`` with the league flying team 1: its ``reset`` draws every world's
    opponent, and each ``step`` credits the worlds whose episode ended and draws their next
    opponents. The envs are team 0's aircraft, as in the wrapped env.

    Args:
        env: a :class:`~pyflyt_like.envs.dogfight.vector_env.DogfightVectorEnv` made with a
            callable ``opponent`` (its ``opponent`` is replaced by the league).
        league: a :class:`League` of the env's worlds and team size.
    """

    def __init__(self, env: VectorEnv, league: League):
        super().__init__(env)
        base = env.unwrapped
        if getattr(base, "self_play", True):
            raise ValueError("env must be a Dogfight-v0 env with an opponent (not "
                             "opponent='self')")
        if (league.n_worlds, league.team_size) != (base.n_worlds, base.team_size):
            raise ValueError(f"league is sized for {league.n_worlds} worlds of team_size "
                             f"{league.team_size}; env has {base.n_worlds} and "
                             f"{base.team_size}")
        base.opponent = league
        self.league = league

    def reset(self, *, seed: Any = None, options: Any = None):
        self.league.assign(np.ones(self.league.n_worlds, bool))
        return self.env.reset(seed=seed, options=options)

    def step(self, actions):
        out = self.env.step(actions)
        infos, size = out[4], self.league.team_size
        self.league.record(infos["_team_win"][::size], infos["team_win"][::size])
        return out
