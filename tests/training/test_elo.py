"""pyflyt_like.training.elo: Bradley–Terry ratings recovered from simulated tournaments, their
intervals' coverage, the two-player closed forms, the prior, and the refused inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.extras import require_extra

require_extra("rl", "torch")  # the package imports torch; the ratings themselves do not

from pyflyt_like.training.elo import (  # noqa: E402
    ELO_PER_LOG_ODDS,
    expected_score,
    fit_ratings,
    plot_ratings_over_time,
    results_from_matches,
)

TRUE_ELO = np.array([1000.0, 1100.0, 1250.0, 900.0, 1400.0, 1050.0])
NAMES = ("anchor", "b", "c", "d", "e", "f")


def simulate(rng: np.random.Generator, games_per_side: int, draw_probability: float = 0.0):
    """A round-robin played from the model: each ordered pairing ``games_per_side`` games;
    a draw with ``draw_probability`` (at most 0.1 for these ratings), otherwise a win with
    the probability that keeps the expected score at the model's (draws worth half)."""
    size = len(TRUE_ELO)
    wins, draws = np.zeros((size, size)), np.zeros((size, size))
    for i in range(size):
        for j in range(size):
            if i != j:
                p = expected_score(TRUE_ELO[i], TRUE_ELO[j])
                win = (p - draw_probability / 2) / (1 - draw_probability)
                n_win, n_draw, n_loss = rng.multinomial(
                    games_per_side, [(1 - draw_probability) * win, draw_probability,
                                     (1 - draw_probability) * (1 - win)])
                wins[i, j] += n_win
                wins[j, i] += n_loss
                draws[i, j] += n_draw
    return wins, draws


def test_recovers_known_ratings_with_draws():
    wins, draws = simulate(np.random.default_rng(1), 300, draw_probability=0.1)
    ratings = fit_ratings(NAMES, wins, draws, prior_draws=0)
    # Each player has 3000 games: the stderr is about 10 Elo points.
    assert np.all(ratings.stderr[1:] > 5) and np.all(ratings.stderr < 15)
    assert np.all(np.abs(ratings.elo - TRUE_ELO) <= 4 * ratings.stderr + 1e-9)
    assert np.all((ratings.low <= ratings.elo) & (ratings.elo <= ratings.high))
    np.testing.assert_array_equal(ratings.games, 600 * (1 - np.eye(6)))


def test_mle_matches_each_players_score_to_its_expectation():
    """The Bradley–Terry likelihood equations: a player's actual score equals its expected
    score summed over its games."""
    wins, draws = simulate(np.random.default_rng(2), 15, draw_probability=0.1)
    ratings = fit_ratings(NAMES, wins, draws, prior_draws=0)
    games = wins + wins.T + draws + draws.T
    expected = (games * expected_score(ratings.elo[:, None], ratings.elo[None, :])).sum(1)
    actual = (wins + 0.5 * (draws + draws.T)).sum(axis=1)
    np.testing.assert_allclose(expected, actual, rtol=1e-8)


def test_intervals_cover_the_truth_95_percent_of_the_time():
    rng = np.random.default_rng(3)
    estimates, stderrs, covered = [], [], []
    for _ in range(200):
        ratings = fit_ratings(NAMES, simulate(rng, 20)[0], prior_draws=0)
        estimates.append(ratings.elo[1:])
        stderrs.append(ratings.stderr[1:])
        covered.append((ratings.low[1:] <= TRUE_ELO[1:]) & (TRUE_ELO[1:] <= ratings.high[1:]))
    # The 5 intervals of one tournament share the anchor (correlated): count 200 trials, 3 sigma.
    tolerance = 3 * math.sqrt(0.95 * 0.05 / 200)
    assert abs(np.mean(covered) - 0.95) < tolerance
    # The stderr is the estimates' actual spread (a sample std of 200 is good to ~5 %).
    np.testing.assert_allclose(np.std(estimates, axis=0), np.mean(stderrs, axis=0), rtol=0.15)
    # ... and the estimates are unbiased to within their mean's standard error (4 sigma).
    assert np.all(np.abs(np.mean(estimates, axis=0) - TRUE_ELO[1:])
                  < 4 * np.mean(stderrs, axis=0) / math.sqrt(200))


@pytest.mark.parametrize("won, drawn, lost", [(7, 0, 3), (7, 4, 3), (1, 0, 1), (30, 9, 2)])
def test_two_players_closed_form(won, drawn, lost):
    """Score w' = w + d/2 of n = w + l + d: R - R_anchor = 400 log10(w'/l'), and the Fisher
    information n p (1 - p) = w' l' / n gives stderr = 400/ln10 sqrt(1/w' + 1/l')."""
    ratings = fit_ratings(["anchor", "x"], [[0, lost], [won, 0]], [[0, drawn], [0, 0]],
                          prior_draws=0)
    score, conceded = won + drawn / 2, lost + drawn / 2
    assert ratings.elo[1] - 1000 == pytest.approx(400 * math.log10(score / conceded), abs=1e-7)
    assert ratings.stderr[1] == pytest.approx(
        ELO_PER_LOG_ODDS * math.sqrt(1 / score + 1 / conceded), rel=1e-9)
    assert ratings.high[1] - ratings.elo[1] == pytest.approx(1.959964 * ratings.stderr[1])


def test_prior_is_virtual_draws_against_the_anchor():
    ratings = fit_ratings(["anchor", "x"], [[0, 0], [10, 0]], prior_draws=2.0)
    assert ratings.elo[1] - 1000 == pytest.approx(400 * math.log10(11 / 1), abs=1e-7)
    assert ratings.games[0, 1] == 10  # the virtual games are not reported as played


def test_draws_count_as_half_a_win():
    ratings = fit_ratings(["a", "b", "c"], np.zeros((3, 3)),
                          [[0, 10, 0], [0, 0, 4], [3, 0, 0]], prior_draws=0)
    np.testing.assert_allclose(ratings.elo, 1000.0, atol=1e-9)
    even = fit_ratings(["a", "b"], [[0, 5], [5, 0]], prior_draws=0)
    drawn = fit_ratings(["a", "b"], np.zeros((2, 2)), [[0, 4], [6, 0]], prior_draws=0)
    np.testing.assert_allclose(drawn.elo, even.elo, atol=1e-9)


def test_anchor_by_name_or_index_and_its_elo():
    wins, draws = simulate(np.random.default_rng(4), 10, draw_probability=0.1)
    by_index = fit_ratings(NAMES, wins, draws, anchor=2, anchor_elo=1500.0)
    by_name = fit_ratings(NAMES, wins, draws, anchor="c", anchor_elo=1200.0)
    assert by_index.anchor == by_name.anchor == "c"
    assert by_index.elo[2] == 1500.0 and by_name.elo[2] == 1200.0
    assert by_index.stderr[2] == by_name.stderr[2] == 0.0
    assert by_index.low[2] == by_index.high[2] == 1500.0
    np.testing.assert_allclose(by_index.elo - 300.0, by_name.elo, atol=1e-8)
    np.testing.assert_allclose(by_index.stderr, by_name.stderr, rtol=1e-9)
    # Moving the anchor moves the prior too; with prior 0 only the reference point changes.
    first = fit_ratings(NAMES, wins, draws, anchor=0, prior_draws=0)
    fifth = fit_ratings(NAMES, wins, draws, anchor="e", prior_draws=0)
    np.testing.assert_allclose(first.elo - first.elo[4], fifth.elo - fifth.elo[4], atol=1e-8)


def test_undefeated_player_is_finite_and_best_with_the_prior():
    wins = np.array([[0, 3, 0], [2, 0, 0], [4, 5, 0]])  # "x" never lost
    ratings = fit_ratings(["a", "b", "x"], wins)
    assert np.all(np.isfinite(ratings.elo)) and np.all(np.isfinite(ratings.stderr))
    assert ratings.elo[2] > max(ratings.elo[:2])
    assert [row["name"] for row in ratings.table()] == ["x", "a", "b"]
    with pytest.raises(ValueError, match=r"infinite.*\['x'\].*prior_draws"):
        fit_ratings(["a", "b", "x"], wins, prior_draws=0)
    with pytest.raises(ValueError, match=r"infinite.*\['a', 'b'\]"):
        fit_ratings(["a", "b", "x"], wins.T, prior_draws=0)  # the group that never lost


def test_unconnected_players_are_named():
    wins = np.zeros((4, 4))
    wins[0, 1] = wins[1, 0] = wins[2, 3] = wins[3, 2] = 1
    with pytest.raises(ValueError, match=r"\['c', 'd'\] are not connected to the anchor 'a'"):
        fit_ratings(["a", "b", "c", "d"], wins, prior_draws=0)
    # With the prior every player is linked to the anchor: an unplayed pair still rates.
    ratings = fit_ratings(["a", "b", "c", "d"], wins)
    np.testing.assert_allclose(ratings.elo, 1000.0, atol=1e-9)


def test_swapping_players_permutes_the_ratings():
    wins, draws = simulate(np.random.default_rng(5), 8, draw_probability=0.1)
    order = np.array([3, 0, 5, 1, 4, 2])
    ratings = fit_ratings(NAMES, wins, draws, anchor="anchor")
    swapped = fit_ratings([NAMES[i] for i in order], wins[np.ix_(order, order)],
                          draws[np.ix_(order, order)], anchor="anchor")
    np.testing.assert_allclose(swapped.elo, ratings.elo[order], atol=1e-8)
    np.testing.assert_allclose(swapped.stderr, ratings.stderr[order], atol=1e-8)
    assert [row["name"] for row in swapped.table()] == [row["name"] for row in ratings.table()]


def test_ratings_are_frozen_and_json_ready():
    ratings = fit_ratings(["a", "b"], [[0, 2], [1, 0]])
    with pytest.raises(ValueError):
        ratings.elo[0] = 0.0
    data = ratings.as_dict()
    assert data["anchor"] == "a" and data["names"] == ["a", "b"]
    assert data["games"] == [[0, 3], [3, 0]]
    assert {row["name"] for row in data["players"]} == {"a", "b"}
    assert all(type(row["elo"]) is float and type(row["games"]) is int
               for row in data["players"])


def test_results_from_matches_accumulates_both_sides():
    matches = [("a", "b", 3, 1, 2), ("b", "a", 4, 0, 1), ("a", "c", 0, 2, 5),
               ("a", "b", 1, 0, 0)]
    wins, draws = results_from_matches(["a", "b", "c"], matches)
    np.testing.assert_array_equal(wins, [[0, 5, 0], [6, 0, 0], [5, 0, 0]])
    np.testing.assert_array_equal(draws, [[0, 1, 2], [0, 0, 0], [0, 0, 0]])
    assert wins.sum() + draws.sum() == sum(m[2] + m[3] + m[4] for m in matches)
    ratings = fit_ratings(["a", "b", "c"], wins, draws)
    assert ratings.games[0, 1] == 12 and ratings.games[0, 2] == 7


def test_expected_score():
    assert expected_score(1400, 1000) == pytest.approx(10 / 11)
    assert expected_score(1000, 1000) == 0.5
    scores = expected_score(np.array([1000.0, 1200.0]), 1100.0)
    np.testing.assert_allclose(scores + expected_score(1100.0, np.array([1000.0, 1200.0])), 1)
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # underflow to 0 is fine
        assert expected_score(0.0, 1e6) == 0.0 and expected_score(1e6, 0.0) == 1.0
    # The losing tail keeps full relative precision (10^-20 is not rounded to 0).
    assert expected_score(0.0, 8000.0) == pytest.approx(1e-20, rel=1e-12)
    for bad in ("high", "1000", True):
        with pytest.raises(TypeError, match="elo_a"):
            expected_score(bad, 1000)
    with pytest.raises(ValueError, match="elo_b"):
        expected_score(1000, math.nan)


def test_plot_ratings_over_time(tmp_path):
    points = [(0.0, 1000.0, 950.0, 1050.0, "ppo"), (10.0, 1100.0, 1040.0, 1160.0, "ppo"),
              (10.0, 1000.0, 1000.0, 1000.0, "scripted")]
    path = plot_ratings_over_time(points, tmp_path / "elo.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["elo.png"]  # no temporary left
    with pytest.raises(ValueError, match=r"points\[0\] must have low <= elo <= high"):
        plot_ratings_over_time([(0.0, 1000.0, 1010.0, 1050.0, "ppo")], tmp_path / "x.png")
    with pytest.raises(TypeError, match=r"points\[0\] label"):
        plot_ratings_over_time([(0.0, 1000.0, 990.0, 1050.0, 3)], tmp_path / "x.png")


GOOD = np.array([[0, 1], [1, 0]])


@pytest.mark.parametrize("kwargs, error, pattern", [
    ({"names": "ab"}, TypeError, "names must be a sequence"),
    ({"names": ["a", 2]}, TypeError, "names must hold only str"),
    ({"names": ["a", ""]}, ValueError, "names must be non-empty"),
    ({"names": ["a", "a"]}, ValueError, r"names must be unique.*\['a'\]"),
    ({"names": ["a"], "wins": [[0]]}, ValueError, "at least 2"),
    ({"wins": [[0, 1, 2], [1, 0, 2]]}, ValueError, r"wins must have shape \(2, 2\)"),
    ({"wins": [["0", "1"], ["1", "0"]]}, TypeError, "wins must be a numeric array"),
    ({"wins": [[0, -1], [1, 0]]}, ValueError, r"wins must hold non-negative .*wins\[0, 1\]"),
    ({"wins": [[0, 1], [0.5, 0]]}, ValueError, r"non-negative integer.*wins\[1, 0\] = 0.5"),
    ({"draws": [[0, 2.0**60], [0, 0]]}, ValueError, "draws must hold non-negative integer"),
    ({"wins": [[0, math.nan], [1, 0]]}, ValueError, "wins must be finite"),
    ({"wins": [[2, 1], [1, 0]]}, ValueError, "wins must have a zero diagonal"),
    ({"draws": [[0, 1], [1, 1]]}, ValueError, "draws must have a zero diagonal"),
    ({"draws": np.ones((3, 3))}, ValueError, "draws must have shape"),
    ({"anchor": "z"}, ValueError, "anchor must be one of names"),
    ({"anchor": 2}, ValueError, r"anchor must be an index in \[0, 1\]"),
    ({"anchor": -1}, ValueError, "anchor must be an index"),
    ({"anchor": 1.0}, TypeError, "anchor must be a player's name"),
    ({"anchor": True}, TypeError, "anchor must be a player's name"),
    ({"anchor_elo": math.inf}, ValueError, "anchor_elo must be a finite"),
    ({"prior_draws": -1.0}, ValueError, "prior_draws"),
    ({"prior_draws": math.nan}, ValueError, "prior_draws"),
    ({"prior_draws": "1"}, TypeError, "prior_draws"),
])
def test_fit_ratings_refuses_bad_input(kwargs, error, pattern):
    arguments = {"names": ["a", "b"], "wins": GOOD, **kwargs}
    with pytest.raises(error, match=pattern):
        fit_ratings(arguments.pop("names"), arguments.pop("wins"), **arguments)


@pytest.mark.parametrize("matches, error, pattern", [
    (5, TypeError, "matches must be an iterable"),
    ([("a", "b", 1, 0)], TypeError, r"matches\[0\] must be a \(name_a"),
    ([("a", "b", 1, 0, 0), ("a", "z", 1, 0, 0)], ValueError, r"matches\[1\] player .*'z'"),
    ([("a", "a", 1, 0, 0)], ValueError, r"matches\[0\] pairs 'a' with itself"),
    ([("a", "b", -1, 0, 0)], ValueError, r"matches\[0\] wins_a must be a non-negative"),
    ([("a", "b", 1, 0.5, 0)], ValueError, r"matches\[0\] draws must be a non-negative"),
    ([("a", "b", 1, 0, "2")], TypeError, r"matches\[0\] losses_a"),
])
def test_results_from_matches_refuses_bad_input(matches, error, pattern):
    with pytest.raises(error, match=pattern):
        results_from_matches(["a", "b"], matches)


@pytest.mark.parametrize("prior_draws", [1e-2, 1e-9])
def test_near_separable_results_converge(prior_draws):
    """Lopsided records put p ~ 1e-20 in the likelihood: the fit stays exact there (the
    closed form: b scored n + k/2 against a's k/2, so R_b - R_a = 400 log10((2n + k) / k))."""
    n = 10**6
    ratings = fit_ratings(["a", "b"], [[0, 0], [n, 0]], prior_draws=prior_draws)
    expected = 400 * math.log10((2 * n + prior_draws) / prior_draws)
    assert ratings.elo[1] - 1000 == pytest.approx(expected, rel=1e-9)
    three = fit_ratings(["a", "b", "c"], [[0, 0, 0], [n, 0, 0], [n, n, 0]],
                        prior_draws=prior_draws)
    assert 1000 < three.elo[1] < three.elo[2] and np.all(np.isfinite(three.stderr))


def test_an_unfinished_fit_raises(monkeypatch):
    from pyflyt_like.training import elo

    monkeypatch.setattr(elo, "MAX_ITERATIONS", 1)
    with pytest.raises(RuntimeError, match="did not converge in 1 Newton iterations"):
        fit_ratings(["a", "b"], [[0, 1], [9, 0]])
