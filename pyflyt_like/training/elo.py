"""Elo ratings from a round-robin of matches: the Bradley–Terry model fitted by maximum likelihood.

Model (Bradley & Terry 1952, Biometrika 39, 324–345; on the Elo scale as in Elo 1978, *The
Rating of Chessplayers, Past and Present*): player i beats player j with probability

    P(i beats j) = 1 / (1 + 10^((R_j - R_i) / 400)) = sigmoid(theta_i - theta_j),

with ratings R in Elo points and theta = R ln(10) / 400 the same rating in natural log-odds.
Only rating differences are identified, so one player, the *anchor*, is fixed at
``anchor_elo`` and the others are fitted relative to it.

Draws count as half a win for each side (the usual Elo treatment): i's score against j,
s_ij = wins_ij + d_ij / 2 with d_ij all draws between the two, enters the log-likelihood
sum_{i != j} s_ij log sigmoid(theta_i - theta_j). It is concave; Newton's method with a
backtracking line search finds its maximum to ~1e-10 log-odds.

Prior: each non-anchor player is credited ``prior_draws`` (default 1) virtual draws against
the anchor. Without it a player who never lost (or never won) has an infinite maximum-
likelihood rating; one virtual draw keeps every rating finite, is measured in games (so its
weight against real results is plain: it fades as games accumulate), and keeps the
log-likelihood strictly concave. ``prior_draws=0`` gives the plain MLE, which exists only if
the results are not separable (Zermelo's condition: no group of players won every game it
played against the rest); otherwise :func:`fit_ratings` raises ValueError naming the group.

Uncertainty: the covariance is the inverse of the observed Fisher information (the negative
Hessian at the maximum, the prior's virtual games included, the anchor's coordinate removed);
the 95 % interval is elo ± 1.96 stderr (Wald). The anchor's stderr is 0 by construction: the
intervals are relative to it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..common.atomic_files import write_atomically
from ..common.validation import (
    as_float_array,
    check_finite,
    check_non_negative_float,
    describe_value,
)

ELO_PER_LOG_ODDS = 400.0 / math.log(10.0)  # Elo points per natural log-odds unit
Z_95 = 1.959963984540054  # two-sided 95 % quantile of the standard normal
MAX_COUNT = 2.0**53  # the largest count a float64 still holds exactly
STEP_TOLERANCE = 1e-10  # log-odds: Newton has converged when its step is smaller
MAX_ITERATIONS = 200


@dataclass(frozen=True, eq=False)
class Ratings:
    """Fitted ratings, one entry per player in the order of ``names``.

    Attributes:
        names: the players, (P,).
        elo: ratings [Elo points], (P,); ``elo[anchor] == anchor_elo``.
        low, high: the 95 % confidence interval [Elo points], (P,).
        stderr: standard errors [Elo points], (P,); 0 for the anchor.
        covariance: the ratings' covariance [Elo points²], (P, P); zero row/column for the
            anchor. The stderr of a difference i - j is sqrt(c_ii + c_jj - 2 c_ij).
        anchor: the name of the player held fixed.
        games: real games played between each pair (either side; the prior's virtual draws
            not included), (P, P) symmetric ints.
    """

    names: tuple[str, ...]
    elo: np.ndarray
    low: np.ndarray
    high: np.ndarray
    stderr: np.ndarray
    covariance: np.ndarray
    anchor: str
    games: np.ndarray

    def table(self) -> list[dict]:
        """One JSON-ready row per player, best first: name, elo, low, high, stderr [Elo
        points] and games (real games played in all)."""
        order = np.argsort(-self.elo, kind="stable")
        return [{"name": self.names[i], "elo": float(self.elo[i]), "low": float(self.low[i]),
                 "high": float(self.high[i]), "stderr": float(self.stderr[i]),
                 "games": int(self.games[i].sum())} for i in order]

    def as_dict(self) -> dict:
        """JSON-ready: the anchor, :meth:`table`, the names and the (P, P) games matrix."""
        return {"anchor": self.anchor, "players": self.table(), "names": list(self.names),
                "games": self.games.tolist()}


def expected_score(elo_a: float | np.ndarray, elo_b: float | np.ndarray) -> float | np.ndarray:
    """A's expected score against B (win 1, draw 1/2): 1 / (1 + 10^((elo_b - elo_a) / 400)).

    Ratings in Elo points, scalars or broadcastable arrays; a float for scalars.
    """
    a, b = _numbers("elo_a", elo_a), _numbers("elo_b", elo_b)
    score = _sigmoid((a - b) / ELO_PER_LOG_ODDS)
    return float(score) if np.ndim(score) == 0 else score


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)) to full relative precision in both tails (a long losing record needs
    p ~ 1e-12 exactly, not 1 - (1 - 1e-12)), and without overflow."""
    return np.exp(-np.logaddexp(0.0, -x))


def fit_ratings(names: Sequence[str], wins: object, draws: object = None, *,
                anchor: int | str = 0, anchor_elo: float = 1000.0,
                prior_draws: float = 1.0) -> Ratings:
    """Fit Bradley–Terry ratings [Elo points] by maximum likelihood (see the module docstring).

    Args:
        names: P >= 2 unique non-empty player names.
        wins: (P, P) counts; ``wins[i, j]`` is the games i won against j, on either side.
        draws: (P, P) counts per ordered pairing (e.g. i as team 0, j as team 1), or None
            (no draws); the draws between i and j are ``draws[i, j] + draws[j, i]``. So every
            game is counted once in ``wins`` + ``draws``.
        anchor: the player (index or name) whose rating is fixed at ``anchor_elo``.
        anchor_elo: the anchor's rating [Elo points].
        prior_draws: virtual draws of each other player against the anchor (>= 0), which
            keep undefeated and winless players finite; 0 for the plain MLE.

    Raises:
        TypeError, ValueError: an argument is malformed (the message names it).
        ValueError: with ``prior_draws=0``, players are not connected to the anchor by games,
            or the results are separable (some ratings would be infinite).
        RuntimeError: Newton's method did not converge (not expected: the problem is concave).
    """
    names = _check_names(names)
    size = len(names)
    wins = _counts("wins", wins, size)
    draws = np.zeros((size, size)) if draws is None else _counts("draws", draws, size)
    anchor_index = _anchor_index(anchor, names)
    anchor_elo = check_finite("anchor_elo", anchor_elo)
    prior_draws = check_non_negative_float("prior_draws", prior_draws)

    others = np.arange(size) != anchor_index
    virtual = np.zeros((size, size))  # the prior's draws, between the anchor and each other
    virtual[anchor_index, others] = virtual[others, anchor_index] = prior_draws
    real_games = wins + wins.T + draws + draws.T
    games = real_games + virtual
    score = wins + 0.5 * (draws + draws.T + virtual)  # score[i, j]: what i scored against j
    _check_identified(names, games, score, anchor_index)

    theta, information = _maximise(score, games, others)
    covariance = np.zeros((size, size))
    covariance[np.ix_(others, others)] = np.linalg.inv(information) * ELO_PER_LOG_ODDS**2
    stderr = np.sqrt(np.diag(covariance))
    elo = anchor_elo + ELO_PER_LOG_ODDS * theta
    arrays = [elo, elo - Z_95 * stderr, elo + Z_95 * stderr, stderr, covariance,
              real_games.astype(np.int64)]
    for array in arrays:
        array.setflags(write=False)  # the Ratings are frozen; so are their arrays
    return Ratings(names, *arrays[:5], anchor=names[anchor_index], games=arrays[5])


def results_from_matches(names: Sequence[str],
                         matches: Iterable[tuple]) -> tuple[np.ndarray, np.ndarray]:
    """Accumulate ``(name_a, name_b, wins_a, draws, losses_a)`` results into the (P, P)
    ``wins`` and ``draws`` count arrays :func:`fit_ratings` takes (int64; a pairing may
    appear more than once, its counts add up)."""
    names = _check_names(names)
    index = {name: i for i, name in enumerate(names)}
    wins = np.zeros((len(names), len(names)), dtype=np.int64)
    draws = np.zeros_like(wins)
    if isinstance(matches, (str, bytes)) or not isinstance(matches, Iterable):
        raise TypeError(f"matches must be an iterable of (name_a, name_b, wins_a, draws, "
                        f"losses_a) tuples, got {describe_value(matches)}")
    for k, match in enumerate(matches):
        where = f"matches[{k}]"
        if not isinstance(match, (tuple, list)) or len(match) != 5:
            raise TypeError(f"{where} must be a (name_a, name_b, wins_a, draws, losses_a) "
                            f"tuple, got {describe_value(match)}")
        for name in match[:2]:
            if not isinstance(name, str) or name not in index:
                raise ValueError(f"{where} player must be one of names {list(names)}, got "
                                 f"{describe_value(name)}")
        a, b = index[match[0]], index[match[1]]
        if a == b:
            raise ValueError(f"{where} pairs {names[a]!r} with itself; a match needs two "
                             f"different players")
        won, drawn, lost = (_count(f"{where} {what}", value)
                            for what, value in zip(("wins_a", "draws", "losses_a"), match[2:]))
        wins[a, b] += won
        wins[b, a] += lost
        draws[a, b] += drawn
    return wins, draws


def plot_ratings_over_time(points: Iterable[tuple], path: str | os.PathLike) -> Path:
    """Draw ratings against training time as a PNG at ``path`` (written atomically).

    ``points``: ``(minutes, elo, low, high, label)`` tuples, one line with 95 % error bars per
    label (minutes of training, ratings in Elo points). Returns ``path`` as a Path.
    """
    series: dict[str, list[tuple[float, float, float, float]]] = {}
    for k, point in enumerate(points):
        if not isinstance(point, (tuple, list)) or len(point) != 5:
            raise TypeError(f"points[{k}] must be a (minutes, elo, low, high, label) tuple, "
                            f"got {describe_value(point)}")
        minutes, elo, low, high = (check_finite(f"points[{k}] {what}", value) for what, value
                                   in zip(("minutes", "elo", "low", "high"), point[:4]))
        if not low <= elo <= high:
            raise ValueError(f"points[{k}] must have low <= elo <= high, got {low}, {elo}, "
                             f"{high}")
        if not isinstance(point[4], str):
            raise TypeError(f"points[{k}] label must be a str, got {describe_value(point[4])}")
        series.setdefault(point[4], []).append((minutes, elo, low, high))
    # Drawn on a bare Agg canvas, not pyplot: no GUI backend, no global figure registry.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(8.0, 5.0), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    for label, rows in series.items():
        minutes, elo, low, high = np.array(sorted(rows)).T
        axes.errorbar(minutes, elo, yerr=[elo - low, high - elo], marker="o", capsize=3,
                      label=label)
    axes.set_xlabel("training time [min]")
    axes.set_ylabel("rating [Elo points], 95 % interval")
    axes.grid(alpha=0.3)
    if series:
        axes.legend()
    return write_atomically(path, lambda stream: figure.savefig(stream, format="png"),
                            binary=True)


def _maximise(score: np.ndarray, games: np.ndarray,
              free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Newton's method on the concave log-likelihood over the ``free`` coordinates (the
    anchor's theta stays 0). Returns theta (P,) [log-odds] and the Fisher information of the
    free coordinates (F, F)."""
    theta = np.zeros(len(score))

    def log_likelihood(values: np.ndarray) -> float:
        difference = values[:, None] - values[None, :]
        return float(-(score * np.logaddexp(0.0, -difference)).sum())

    for _ in range(MAX_ITERATIONS):
        p = _sigmoid(theta[:, None] - theta[None, :])  # P(i beats j)
        # s_ij - n_ij p_ij, written so that no 1 - p is taken (it cancels when p ~ 1).
        gradient = (score * p.T - score.T * p).sum(axis=1)[free]
        weight = games * p * p.T  # n_ij p_ij p_ji: the Fisher information of each pair
        information = (np.diag(weight.sum(axis=1)) - weight)[np.ix_(free, free)]
        step = np.linalg.solve(information, gradient)
        if np.max(np.abs(step)) < STEP_TOLERANCE:
            theta[free] += step
            return theta, information
        # Backtracking: a full Newton step can overshoot when a player is far from the others.
        # The slack is float rounding: near the top a true gain is below it.
        start, fraction = log_likelihood(theta), 1.0
        while True:
            trial = theta.copy()
            trial[free] += fraction * step
            if log_likelihood(trial) >= start - 1e-12 * (1.0 + abs(start)):
                break
            fraction *= 0.5
            if fraction < 1e-12:
                raise RuntimeError("fit_ratings: the line search found no ascent along the "
                                   "Newton step (numerical trouble in the ratings' fit)")
        theta = trial
    raise RuntimeError(f"fit_ratings did not converge in {MAX_ITERATIONS} Newton iterations "
                       f"(last step {np.max(np.abs(step)):.3g} log-odds)")


def _check_identified(names: tuple[str, ...], games: np.ndarray, score: np.ndarray,
                      anchor: int) -> None:
    """Refuse results that leave a rating undefined (no games linking a player to the anchor)
    or infinite (a group that won every game against the rest)."""
    linked = _reachable(games > 0)[anchor]
    if not linked.all():
        missing = [names[i] for i in np.flatnonzero(~linked)]
        raise ValueError(f"players {missing} are not connected to the anchor {names[anchor]!r} "
                         f"by any games (directly or through others), so their ratings are "
                         f"undefined; play them or pass prior_draws > 0")
    # reach[i, j]: a chain "i scored against k, k against ..., against j" exists. The players
    # that can reach j form a group that nobody outside ever scored against.
    reach = _reachable(score > 0)
    sizes = reach.sum(axis=0)
    if sizes.min() < len(names):
        group = [names[i] for i in np.flatnonzero(reach[:, np.argmin(sizes)])]
        raise ValueError(f"with prior_draws=0 the ratings are infinite: players {group} won "
                         f"every game they played against the others (no draw, no loss); "
                         f"pass prior_draws > 0 to keep them finite")


def _reachable(adjacent: np.ndarray) -> np.ndarray:
    """The transitive closure of a boolean adjacency matrix, the diagonal included."""
    reach, longer = None, adjacent | np.eye(len(adjacent), dtype=bool)
    while reach is None or (longer != reach).any():
        reach = longer
        longer = (reach.astype(np.int64) @ reach.astype(np.int64)) > 0  # paths twice as long
    return reach


def _check_names(names: object) -> tuple[str, ...]:
    if isinstance(names, (str, bytes)) or not isinstance(names, Iterable):
        raise TypeError(f"names must be a sequence of player names (str), got "
                        f"{describe_value(names)}")
    names = tuple(names)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"names must hold only str, got {describe_value(name)}")
        if not name:
            raise ValueError("names must be non-empty strings, got ''")
    if len(names) < 2:
        raise ValueError(f"names must list at least 2 players, got {list(names)}")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"names must be unique, got {repeated} more than once")
    return names


def _counts(name: str, value: object, size: int) -> np.ndarray:
    """A (size, size) float64 array of non-negative integral counts with a zero diagonal."""
    array = as_float_array(name, value, (size, size))
    bad = (array < 0) | (array > MAX_COUNT) | (array != np.round(array))
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(f"{name} must hold non-negative integer counts (<= 2**53), got "
                         f"{name}[{i}, {j}] = {float(array[i, j])!r}")
    if np.diag(array).any():
        raise ValueError(f"{name} must have a zero diagonal (nobody plays themselves), got "
                         f"{np.diag(array).tolist()}")
    return array


def _anchor_index(anchor: object, names: tuple[str, ...]) -> int:
    if isinstance(anchor, str):
        if anchor not in names:
            raise ValueError(f"anchor must be one of names {list(names)} or an index, got "
                             f"{anchor!r}")
        return names.index(anchor)
    if isinstance(anchor, (bool, np.bool_)) or not isinstance(anchor, (int, np.integer)):
        raise TypeError(f"anchor must be a player's name (str) or index (int), got "
                        f"{describe_value(anchor)}")
    if not 0 <= anchor < len(names):
        raise ValueError(f"anchor must be an index in [0, {len(names) - 1}], got {anchor}")
    return int(anchor)


def _count(what: str, value: object) -> int:
    number = check_finite(what, value)
    if number < 0 or number != round(number) or number > MAX_COUNT:
        raise ValueError(f"{what} must be a non-negative integer count, got "
                         f"{describe_value(value)}")
    return int(number)


def _numbers(name: str, value: object) -> np.ndarray:
    array = np.asarray(value)
    if array.dtype.kind not in "iuf":  # no strings, bools or objects
        raise TypeError(f"{name} must be a number or numeric array [Elo points], got "
                        f"{describe_value(value)}")
    array = array.astype(np.float64)
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite, got {describe_value(value)}")
    return array
