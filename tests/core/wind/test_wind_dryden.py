"""The ``dryden`` wind field: parameters, the exact discretisation, statistics, determinism.

Statistical tolerances. A run of N samples of a stationary Gaussian process with
autocorrelation rho_k (k in samples) has, for large N (Bartlett 1946):

* sample mean:      var = sigma^2 / N * sum_k rho_k
* sample variance:  var = 2 sigma^4 / N * sum_k rho_k^2
* sample autocorrelation at lag m:
      var = 1 / N * sum_k (rho_{k+m}^2 + rho_{k-m} rho_{k+m} + 2 rho_m^2 rho_k^2
                          - 4 rho_m rho_k rho_{k+m})
* cross-correlation of two independent processes: var = 1 / N * sum_k rho1_k rho2_k

(sums over all integers k). Each check allows 4 of these standard errors computed from the
*theoretical* Dryden autocorrelations: a correct generator fails one check for about 6e-5 of
seeds, while a wrong variance, time constant or filter order shows as many standard errors.
The seeds are fixed, so the tests are deterministic. Parameters are chosen so that the
correlation times span a few to ~80 samples, which keeps the standard errors at a few
percent with 200k samples.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.linalg import expm

from pyflyt_like.core.wind import WIND_FIELDS, DrydenWind
from pyflyt_like.core.wind.dryden import (
    first_order_coefficients,
    low_altitude_parameters,
    second_order_coefficients,
)

N_SAMPLES = 200_000
N_SE = 4.0
ONE = np.zeros((1, 3))


def rho_first(lags, theta):
    """Dryden longitudinal autocorrelation at integer lags, theta = V Ts / L."""
    return np.exp(-np.abs(lags) * theta)


def rho_second(lags, theta):
    """Dryden lateral/vertical autocorrelation at integer lags, theta = V Ts / L."""
    x = np.abs(lags) * theta
    return (1.0 - x / 2.0) * np.exp(-x)


def run(wind: DrydenWind, n: int = N_SAMPLES) -> np.ndarray:
    """(n, 3) turbulence (mean removed) in the field's u, v, w axes, one sample per period."""
    ts = wind.sample_period
    out = np.empty((n, 3))
    for k in range(n):
        out[k] = wind(k * ts, ONE)[0]
    return (out - wind.mean_velocity) @ wind.axes.T


def lags_for(theta: float) -> np.ndarray:
    return np.arange(-int(60.0 / theta) - 1, int(60.0 / theta) + 2)


def sample_autocorrelation(x: np.ndarray, lag: int) -> float:
    d = x - x.mean()
    return float(d[:-lag] @ d[lag:] / (d @ d))


def bartlett_se(rho, lags, m: int, n: int) -> float:
    """Standard error of the sample autocorrelation at lag m, for rho(lags)."""
    r = lambda k: rho(k)  # noqa: E731 - shorthand for the formula below
    rm = float(r(np.array([m]))[0])
    terms = r(lags + m) ** 2 + r(lags - m) * r(lags + m) + 2 * rm**2 * r(lags) ** 2 \
        - 4 * rm * r(lags) * r(lags + m)
    return math.sqrt(max(terms.sum(), 0.0) / n)


# ---------------------------------------------------------------------------- parameters
def test_registered_under_its_name():
    assert WIND_FIELDS["dryden"] is DrydenWind


def test_low_altitude_parameters_at_10_m():
    # Hand-computed from the MIL-F-8785C formulas: h = 10 m = 32.808 ft,
    # 0.177 + 0.000823 h_ft = 0.204001; ^0.4 = 0.52948, ^1.2 = 0.14845.
    sigma, length = low_altitude_parameters(10.0, 5.0)
    np.testing.assert_allclose(sigma, [0.5 / 0.52948, 0.5 / 0.52948, 0.5], rtol=2e-4)
    np.testing.assert_allclose(length, [32.8084 / 0.14845 * 0.3048] * 2 + [10.0], rtol=2e-4)


def test_low_altitude_parameters_at_1000_ft_are_isotropic():
    # At h = 1000 ft the denominator is exactly 1: L = 1000 ft for all, sigma_u = sigma_w.
    sigma, length = low_altitude_parameters(304.8, 8.0)
    np.testing.assert_allclose(sigma, [0.8, 0.8, 0.8], rtol=1e-12)
    np.testing.assert_allclose(length, [304.8, 304.8, 304.8], rtol=1e-12)


def test_field_exposes_its_parameters():
    wind = DrydenWind(np.random.default_rng(0), wind_speed_20ft=7.0, airspeed=15.0, altitude=30.0)
    sigma, length = low_altitude_parameters(30.0, 7.0)
    np.testing.assert_array_equal(wind.sigma, sigma)
    np.testing.assert_array_equal(wind.scale_lengths, length)
    np.testing.assert_allclose(wind.time_constants, length / 15.0)
    assert sigma[0] > sigma[2] and length[0] > length[2]  # low altitude: u, v stronger, longer


# ---------------------------------------------------------------------------- discretisation
@pytest.mark.parametrize("theta", [1e-5, 1e-3, 0.0125, 0.3, 2.0, 15.0])
def test_second_order_coefficients_are_the_exact_discretisation(theta):
    phi, chol = second_order_coefficients(theta)
    # Phi is expm(A Ts) of 1/(s + lam)^2 in controllable form, states scaled to unit
    # stationary covariance (x1 * 2 lam^1.5, x1' * 2 lam^0.5). Take lam = 1, Ts = theta.
    a = np.array([[0.0, 1.0], [-1.0, -2.0]])
    scale = np.diag([2.0, 2.0])
    np.testing.assert_allclose(phi, scale @ expm(a * theta) @ np.linalg.inv(scale),
                               rtol=1e-10, atol=1e-14)
    # Q = integral_0^Ts expm(A t) B B^T expm(A^T t) dt, by quadrature (independent of the
    # incomplete-gamma closed form).
    t, w = np.polynomial.legendre.leggauss(60)
    t = 0.5 * theta * (t + 1.0)
    q = sum(wi * 0.5 * theta * (scale @ expm(a * ti) @ np.array([[0.0], [1.0]])) @
            (scale @ expm(a * ti) @ np.array([[0.0], [1.0]])).T for ti, wi in zip(t, w))
    np.testing.assert_allclose(chol @ chol.T, q, rtol=1e-8, atol=1e-13)  # Q is O(1) at most
    assert chol[0, 1] == 0.0
    # Stationary: the unit covariance is kept, so the output variance is sigma^2.
    np.testing.assert_allclose(phi @ phi.T + chol @ chol.T, np.eye(2), atol=1e-14)
    # The sampled output has exactly the Dryden autocorrelation at every lag.
    c = np.array([0.5, 0.5 * math.sqrt(3.0)])
    power = np.eye(2)
    for lag in range(0, 40):
        assert c @ power @ c == pytest.approx(rho_second(lag, theta), abs=1e-12)
        power = phi @ power


@pytest.mark.parametrize("theta", [1e-6, 0.01, 1.0, 30.0])
def test_first_order_coefficients(theta):
    a, b = first_order_coefficients(theta)
    assert a == pytest.approx(math.exp(-theta), rel=1e-15)
    assert a * a + b * b == pytest.approx(1.0, abs=1e-15)


# ---------------------------------------------------------------------------- statistics
CASES = {
    # the physics rate; theta_u = 0.012, theta_w = 0.083; mean wind rotates the axes
    "physics_rate": dict(mean_velocity=[1.0, -2.0, 0.5], wind_speed_20ft=5.0, airspeed=200.0,
                         altitude=10.0, sample_period=1.0 / 240.0),
    # a coarse period: theta_u = 0.27, theta_w = 2, far outside any small-Ts approximation
    "coarse": dict(wind_speed_20ft=12.0, airspeed=100.0, altitude=5.0, sample_period=0.1),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def long_run(request):
    wind = DrydenWind(np.random.default_rng(2024), **CASES[request.param])
    thetas = wind.sample_period / wind.time_constants
    return wind, thetas, run(wind)


def test_mean_matches_mean_velocity(long_run):
    wind, thetas, x = long_run
    for i, (rho, theta) in enumerate(zip((rho_first, rho_second, rho_second), thetas)):
        se = wind.sigma[i] * math.sqrt(rho(lags_for(theta), theta).sum() / len(x))
        assert abs(x[:, i].mean()) < N_SE * se, (i, x[:, i].mean(), se)


def test_variance_matches_sigma_squared(long_run):
    wind, thetas, x = long_run
    for i, (rho, theta) in enumerate(zip((rho_first, rho_second, rho_second), thetas)):
        target = wind.sigma[i] ** 2
        se = target * math.sqrt(2.0 * (rho(lags_for(theta), theta) ** 2).sum() / len(x))
        assert abs(x[:, i].var() - target) < N_SE * se, (i, x[:, i].var(), target, se)
        assert N_SE * se < 0.15 * target  # the check is sharp enough to mean something


def test_u_autocorrelation_is_exponential(long_run):
    wind, thetas, x = long_run
    theta = thetas[0]
    for lag in {1, max(1, round(0.5 / theta)), max(1, round(1.0 / theta))}:
        expected = math.exp(-wind.airspeed * lag * wind.sample_period / wind.scale_lengths[0])
        se = bartlett_se(lambda k: rho_first(k, theta), lags_for(theta), lag, len(x))
        got = sample_autocorrelation(x[:, 0], lag)
        assert abs(got - expected) < N_SE * se, (lag, got, expected, se)


def test_v_and_w_autocorrelation_is_the_second_order_dryden_form(long_run):
    wind, thetas, x = long_run
    for i in (1, 2):
        theta = thetas[i]
        lag = max(1, round(1.0 / theta))  # about one time constant L / V
        expected = float(rho_second(lag, theta))
        se = bartlett_se(lambda k, th=theta: rho_second(k, th), lags_for(theta), lag, len(x))
        got = sample_autocorrelation(x[:, i], lag)
        assert abs(got - expected) < N_SE * se, (i, lag, got, expected, se)
        # ...and it is measurably not the first-order form at that lag.
        assert abs(math.exp(-lag * theta) - expected) > 3 * N_SE * se


def test_components_are_uncorrelated(long_run):
    wind, thetas, x = long_run
    rhos = [f(lags_for(t), t) for f, t in zip((rho_first, rho_second, rho_second), thetas)]
    size = max(len(r) for r in rhos)
    rhos = [np.pad(r, (size - len(r)) // 2) for r in rhos]
    for i, j in ((0, 1), (0, 2), (1, 2)):
        se = math.sqrt(abs((rhos[i] * rhos[j]).sum()) / len(x))
        assert abs(np.corrcoef(x[:, i], x[:, j])[0, 1]) < N_SE * se


def test_starts_stationary():
    """The first value after each reset already has the full variance (not a calm start)."""
    wind = DrydenWind(np.random.default_rng(11))
    first = np.empty((4000, 3))
    for k in range(len(first)):
        wind.reset()
        first[k] = wind(0.0, ONE)[0]
    for i in range(3):
        sigma = wind.sigma[i]
        assert abs(first[:, i].mean()) < N_SE * sigma / math.sqrt(len(first))
        assert abs(first[:, i].var() / sigma**2 - 1.0) < N_SE * math.sqrt(2.0 / len(first))


def test_zero_intensity_gives_the_mean_wind():
    wind = DrydenWind(np.random.default_rng(0), mean_velocity=[3.0, 1.0, -0.5],
                      wind_speed_20ft=0.0)
    for k in range(50):
        np.testing.assert_array_equal(wind(k / 240, ONE), [[3.0, 1.0, -0.5]])


def test_axes_follow_the_mean_wind():
    wind = DrydenWind(np.random.default_rng(0), mean_velocity=[0.0, -4.0, 1.0])
    np.testing.assert_allclose(wind.axes, [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-15)
    calm = DrydenWind(np.random.default_rng(0), mean_velocity=[0.0, 0.0, 2.0])
    np.testing.assert_array_equal(calm.axes, np.eye(3))


# ---------------------------------------------------------------------------- time and seeds
def sequence(wind: DrydenWind, n: int = 3000) -> np.ndarray:
    return np.vstack([wind(k / 240, ONE) for k in range(n)])


@pytest.mark.parametrize("n", [1, 5])
def test_shape_and_frozen_field(n):
    wind = DrydenWind(np.random.default_rng(0))
    pos = np.column_stack([np.arange(n) * 100.0, np.zeros(n), np.arange(n) + 1.0])
    out = wind(0.0, pos)
    assert out.shape == (n, 3)
    np.testing.assert_array_equal(out, np.tile(out[0], (n, 1)))


def test_same_time_same_value_and_advances_when_time_increases():
    wind = DrydenWind(np.random.default_rng(0))
    first = wind(0.0, ONE)
    for _ in range(3):  # e.g. three drones in one physics step
        np.testing.assert_array_equal(wind(0.0, ONE), first)
    second = wind(1 / 240, ONE)
    assert not np.array_equal(second, first)
    np.testing.assert_array_equal(wind(1 / 240, np.zeros((4, 3)))[2], second[0])
    # The state advanced exactly once: the values match a field called once per time.
    reference = DrydenWind(np.random.default_rng(0))
    np.testing.assert_array_equal(reference(0.0, ONE), first)
    np.testing.assert_array_equal(reference(1 / 240, ONE), second)


def test_same_seed_same_sequence_and_different_seeds_differ():
    a = sequence(DrydenWind(np.random.default_rng(42)))
    b = sequence(DrydenWind(np.random.default_rng(42)))
    c = sequence(DrydenWind(np.random.default_rng(43)))
    np.testing.assert_array_equal(a, b)
    assert np.all(np.abs(a - c).max(axis=0) > 0.1)


def test_reset_restarts():
    rng = np.random.default_rng(3)
    wind = DrydenWind(rng)
    first = sequence(wind)
    # As Aviary.reset(seed=3) does: reseed the generator in place, then reset the field.
    rng.bit_generator.state = np.random.PCG64(3).state
    wind.reset()
    np.testing.assert_array_equal(sequence(wind), first)
    # Without reseeding, time may start again from 0 and a new realisation begins.
    wind.reset()
    again = sequence(wind)
    assert not np.array_equal(again[0], first[0])
    assert np.all(np.abs(again - first).max(axis=0) > 0.1)


def test_time_going_back_without_reset_raises():
    wind = DrydenWind(np.random.default_rng(0))
    wind(0.0, ONE)
    wind(1 / 240, ONE)
    with pytest.raises(ValueError, match="reset"):
        wind(0.0, ONE)


def test_warns_once_when_time_step_differs_from_sample_period():
    wind = DrydenWind(np.random.default_rng(0), sample_period=1 / 240)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for k in range(500):  # the matching period: silent, even at large times
            wind(1000.0 + k / 240, ONE)
    wind.reset()
    with pytest.warns(RuntimeWarning, match="sample_period"):
        wind(0.0, ONE)
        wind(1 / 120, ONE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        wind(2 / 120, ONE)  # only once
