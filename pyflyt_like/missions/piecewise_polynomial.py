"""Piecewise polynomials in per-segment normalised time, evaluated with their derivatives.

A trajectory through ``N + 1`` joint values is ``N`` polynomial segments, each in its own
normalised time ``tau = (t - t_i) / T_i`` in [0, 1] (:class:`PiecewisePolynomial`). The
minimum-derivative segments of the trajectories (the equality-constrained QP) are solved in
:mod:`.minimum_derivative`; :func:`solve_minimum_derivative` is still importable from here.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from math import comb, factorial

import numpy as np

# solve_minimum_derivative: the solver's old path, served by __getattr__ below
__all__ = ["PiecewisePolynomial", "cost_matrix", "solve_minimum_derivative"]  # noqa: F822


def __getattr__(name: str) -> Callable:
    """``solve_minimum_derivative``, loaded on first access (PEP 562): its module imports
    this one, so importing it at the top would be circular."""
    if name == "solve_minimum_derivative":
        from .minimum_derivative import solve_minimum_derivative
        return solve_minimum_derivative
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def cost_matrix(n_coeffs: int, r: int) -> np.ndarray:
    """``Q`` (n_coeffs, n_coeffs) with ``c @ Q @ c = integral_0^1 (d^r/dtau^r sum_k c_k
    tau^k)^2 dtau`` for the coefficients ``c`` (n_coeffs,) of one segment in its normalised
    time: the cost of :meth:`PiecewisePolynomial.derivative_cost` and of the QP
    (:mod:`.minimum_derivative`)."""
    q = np.zeros((n_coeffs, n_coeffs))
    for j in range(r, n_coeffs):
        for k in range(r, n_coeffs):
            fj = factorial(j) / factorial(j - r)
            fk = factorial(k) / factorial(k - r)
            q[j, k] = fj * fk / (j + k - 2 * r + 1)
    return q


def _taylor_derivatives(coefficients: np.ndarray, durations: np.ndarray) -> np.ndarray:
    """``out[i, n, j]``: coefficient of x^j in d^n p_i/dt^n, shape (N, n_c, n_c, d)."""
    n_seg, n_c, dim = coefficients.shape
    out = np.zeros((n_seg, n_c, n_c, dim))
    for n in range(n_c):
        falling = np.array([factorial(j + n) / factorial(j) for j in range(n_c - n)])
        out[:, n, : n_c - n] = (coefficients[:, n:] * falling[None, :, None]
                                / durations[:, None, None] ** n)
    return out


class PiecewisePolynomial:
    """Piecewise polynomial in per-segment normalised time, evaluable with its derivatives.

    Segment ``i`` covers ``[breaks[i], breaks[i + 1]]`` [s] with ``T_i`` its duration and is
    ``p_i(t) = sum_k coefficients[i, k] * tau**k``, ``tau = (t - breaks[i]) / T_i``. Each
    segment is also held as its Taylor expansion about ``tau = 1`` and evaluated with the
    expansion about the nearer end, so values at the ends are not lost to cancellation.

    Args:
        coefficients: expansion about tau = 0, shape (N, n_coeffs, d) [unit].
        breaks: strictly increasing segment boundaries [s], shape (N + 1,).
        right_coefficients: expansion about tau = 1 (in ``tau - 1``), same shape; computed by
            re-expansion when omitted.
    """

    def __init__(self, coefficients: np.ndarray, breaks: np.ndarray,
                 right_coefficients: np.ndarray | None = None) -> None:
        left = np.array(coefficients, dtype=np.float64)
        breaks = np.array(breaks, dtype=np.float64)
        if left.ndim != 3 or left.shape[0] < 1 or left.shape[1] < 1:
            raise ValueError(f"coefficients must have shape (N, n_coeffs, d) with N >= 1, "
                             f"got {left.shape}")
        if (breaks.shape != (left.shape[0] + 1,) or not np.all(np.isfinite(breaks))
                or not np.all(np.diff(breaks) > 0)):
            raise ValueError(f"breaks must be finite, strictly increasing, shape "
                             f"({left.shape[0] + 1},), got {breaks.tolist()}")
        if right_coefficients is None:
            n_c = left.shape[1]
            shift = np.array([[comb(j, k) if j >= k else 0 for j in range(n_c)]
                              for k in range(n_c)], dtype=np.float64)
            right = np.einsum("kj,ijd->ikd", shift, left)
        else:
            right = np.array(right_coefficients, dtype=np.float64)
            if right.shape != left.shape:
                raise ValueError(f"right_coefficients must have shape {left.shape}, "
                                 f"got {right.shape}")
        self._left = left
        self._right = right
        self._breaks = breaks
        self._durations = np.diff(breaks)
        self._d_left = _taylor_derivatives(left, self._durations)
        self._d_right = _taylor_derivatives(right, self._durations)
        self._breaks_list = self._breaks.tolist()
        self._durations_list = self._durations.tolist()
        self._exponents = np.arange(left.shape[1], dtype=np.float64)
        for array in (self._left, self._right, self._breaks, self._durations):
            array.setflags(write=False)

    @classmethod
    def concatenate(cls, pieces: Sequence[PiecewisePolynomial]) -> PiecewisePolynomial:
        """Join pieces end to end; each must start where the previous one ends."""
        for before, after in zip(pieces[:-1], pieces[1:]):
            if before.breaks[-1] != after.breaks[0]:
                raise ValueError(f"pieces must be contiguous: one ends at {before.breaks[-1]} s, "
                                 f"the next starts at {after.breaks[0]} s")
        breaks = np.concatenate([pieces[0].breaks[:1]] + [p.breaks[1:] for p in pieces])
        return cls(np.concatenate([p.coefficients for p in pieces]), breaks,
                   np.concatenate([p._right for p in pieces]))

    @classmethod
    def constant(cls, value: np.ndarray, start: float, duration: float,
                 n_coeffs: int) -> PiecewisePolynomial:
        """One segment holding ``value`` (d,) from ``start`` for ``duration`` [s]."""
        coefficients = np.zeros((1, n_coeffs, np.size(value)))
        coefficients[0, 0] = value
        return cls(coefficients, [start, start + duration], coefficients)

    @property
    def coefficients(self) -> np.ndarray:
        """Coefficients about tau = 0, shape (N, n_coeffs, d) (read-only)."""
        return self._left

    @property
    def breaks(self) -> np.ndarray:
        """Segment boundaries [s], shape (N + 1,) (read-only)."""
        return self._breaks

    @property
    def durations(self) -> np.ndarray:
        """Segment durations [s], shape (N,) (read-only)."""
        return self._durations

    def derivatives(self, times: np.ndarray, max_order: int, side: str = "right") -> np.ndarray:
        """Value and derivatives 1..max_order at ``times`` (clamped into the breaks).

        Args:
            times: evaluation times [s], shape (k,), finite (not re-validated).
            max_order: highest derivative returned, 0 .. n_coeffs - 1.
            side: at a break, ``"right"`` uses the segment that starts there and ``"left"``
                the one that ends there (right and left limits).

        Returns:
            Shape (max_order + 1, k, d): ``out[n]`` is ``d^n p / dt^n`` [unit / s^n].
        """
        if side not in ("left", "right"):
            raise ValueError(f"side must be 'left' or 'right', got {side!r}")
        n_c = self._left.shape[1]
        if isinstance(max_order, bool) or not 0 <= max_order < n_c:
            raise ValueError(f"max_order must be an integer in 0..{n_c - 1}, got {max_order!r}")
        times = np.clip(np.asarray(times, dtype=np.float64), self._breaks[0], self._breaks[-1])
        index = np.searchsorted(self._breaks, times, side=side) - 1
        index = np.clip(index, 0, self._durations.size - 1)
        tau = (times - self._breaks[index]) / self._durations[index]
        near_right = tau > 0.5
        x = np.where(near_right, tau - 1.0, tau)
        powers = x[:, None] ** np.arange(n_c)[None, :]
        coeffs = np.where(near_right[:, None, None, None],
                          self._d_right[index, : max_order + 1],
                          self._d_left[index, : max_order + 1])
        return np.einsum("kj,kmjd->mkd", powers, coeffs)

    def derivatives_at(self, t: float, max_order: int) -> np.ndarray:
        """Scalar fast path of ``derivatives`` (side ``"right"``): shape (max_order + 1, d).

        ``t`` [s] is a finite float (not re-validated), clamped into the breaks.
        """
        t = min(max(t, self._breaks_list[0]), self._breaks_list[-1])
        i = min(bisect_right(self._breaks_list, t) - 1, self._durations.size - 1)
        tau = (t - self._breaks_list[i]) / self._durations_list[i]
        if tau > 0.5:
            x, table = tau - 1.0, self._d_right
        else:
            x, table = tau, self._d_left
        powers = x ** self._exponents
        return powers @ table[i, : max_order + 1]

    def derivative_cost(self, r: int = 4) -> np.ndarray:
        """Exact ``integral |d^r p/dt^r|^2 dt`` per axis, shape (d,) [unit^2 / s^(2r-1)]."""
        q = cost_matrix(self._left.shape[1], r)
        per_segment = np.einsum("ikd,kl,ild->id", self._left, q, self._left)
        return np.sum(per_segment * self._durations[:, None] ** (1.0 - 2.0 * r), axis=0)
