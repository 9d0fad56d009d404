"""Minimum-derivative piecewise polynomials: the equality-constrained QP.

A trajectory through ``N + 1`` joint values is ``N`` polynomial segments of degree ``2r - 1``,
each in its own normalised time ``tau = (t - t_i) / T_i`` in [0, 1]. The segments minimise
``sum_i integral |d^r p / dt^r|^2 dt`` (r = 4: minimum snap, Mellinger & Kumar 2011; r = 3:
minimum jerk) subject to: interpolation of the joint values, rest at both ends (derivatives
1 .. r-1 zero), continuity of derivatives 1 .. r at interior joints, and optional pinned
interior derivatives. docs/trajectories.md derives the formulation and its conditioning.
The result is a :class:`~.piecewise_polynomial.PiecewisePolynomial`.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from math import factorial

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from .piecewise_polynomial import PiecewisePolynomial, cost_matrix

__all__ = ["solve_minimum_derivative"]

_RUIZ_ITERATIONS = 20
_REFINEMENT_STEPS = 2
_RESIDUAL_TOLERANCE = 1e-9


def _derivative_row(n_coeffs: int, order: int, x: int) -> list[Fraction]:
    """Exact row ``a`` with ``a @ c = d^order/dx^order (sum_k c_k x^k)`` at integer ``x``."""
    return [Fraction(factorial(k), factorial(k - order)) * Fraction(x) ** (k - order)
            if k >= order else Fraction(0) for k in range(n_coeffs)]


def _exact_inverse(matrix: list[list[Fraction]]) -> np.ndarray:
    """Inverse of a small non-singular rational matrix by exact Gauss-Jordan, as float64."""
    n = len(matrix)
    work = [row[:] + [Fraction(int(i == j)) for j in range(n)] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = next(i for i in range(col, n) if work[i][col] != 0)
        work[col], work[pivot] = work[pivot], work[col]
        lead = work[col][col]
        work[col] = [v / lead for v in work[col]]
        for i in range(n):
            if i != col and work[i][col] != 0:
                factor = work[i][col]
                work[i] = [a - factor * b for a, b in zip(work[i], work[col])]
    return np.array([[float(v) for v in row[n:]] for row in work])


@lru_cache(maxsize=16)
def _hermite_basis(r: int, left_at: int, right_at: int) -> np.ndarray:
    """``B`` (2r, 2r): monomial coefficients in x from derivatives 0..r-1 at both segment ends.

    The segment spans x in [left_at, right_at]; the input vector lists the x-derivatives
    0..r-1 at ``left_at`` then 0..r-1 at ``right_at``.
    """
    n_c = 2 * r
    rows = ([_derivative_row(n_c, n, left_at) for n in range(r)]
            + [_derivative_row(n_c, n, right_at) for n in range(r)])
    basis = _exact_inverse(rows)
    basis.setflags(write=False)
    return basis


def solve_minimum_derivative(
    durations: np.ndarray,
    values: np.ndarray,
    r: int = 4,
    fixed_derivatives: Mapping[tuple[int, int], np.ndarray] | None = None,
    start_time: float = 0.0,
) -> PiecewisePolynomial:
    """The rest-to-rest piecewise polynomial minimising ``integral |d^r p/dt^r|^2 dt``.

    Args:
        durations: segment durations ``T_i`` [s], shape (N,), finite and > 0.
        values: joint values, shape (N + 1, d) [unit, e.g. m or rad].
        r: derivative whose squared integral is minimised (4: snap, 3: jerk); the segments
            have degree ``2r - 1``.
        fixed_derivatives: optional ``{(joint, order): value (d,)}`` pinning derivative
            ``order`` (1 .. r) [unit/s^order] at interior joint ``joint`` (1 .. N-1).
        start_time: time of the first joint [s].

    Returns:
        The piecewise polynomial, breaks ``start_time + cumsum(durations)``.

    Raises:
        ValueError: on bad ``durations``, ``values``, ``r`` or ``fixed_derivatives``.
        RuntimeError: if the KKT solve misses its constraints (durations far too disparate).
    """
    if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or r < 1:
        raise ValueError(f"r must be a positive integer (4 = snap, 3 = jerk), got {r!r}")
    durations = np.asarray(durations, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    if (durations.ndim != 1 or durations.size < 1 or not np.all(np.isfinite(durations))
            or np.any(durations <= 0)):
        raise ValueError(f"durations must be finite and > 0 [s] with shape (N,), N >= 1, "
                         f"got {durations.tolist()}")
    if values.shape[:1] != (durations.size + 1,) or values.ndim != 2 or not np.all(
            np.isfinite(values)):
        raise ValueError(f"values must be finite with shape ({durations.size + 1}, d), "
                         f"got shape {values.shape}")
    n_seg, dim, n_c = durations.shape[0], values.shape[1], 2 * r
    pins = dict(fixed_derivatives or {})
    for (joint, order), value in pins.items():
        if not 1 <= joint <= n_seg - 1:
            raise ValueError(f"fixed_derivatives joint must be an interior joint in "
                             f"1..{n_seg - 1}, got {joint}")
        if not 1 <= order <= r:
            raise ValueError(f"fixed_derivatives order must be in 1..{r}, got {order}")
        if np.shape(value) != (dim,) or not np.all(np.isfinite(value)):
            raise ValueError(f"fixed_derivatives[{(joint, order)}] must be finite with shape "
                             f"({dim},), got {value!r}")

    # Time scaling: the optimum is invariant to a common time scale, so time is measured in
    # units of the geometric-mean duration ``span``; each segment runs in its own tau in
    # [0, 1]; joint j carries derivative n as e = (h_j span)^n d^n p/dt^n, where h_j is the
    # geometric mean of the normalised durations on either side of it.
    span = float(np.exp(np.mean(np.log(durations))))
    t_seg = durations / span
    h = np.sqrt(np.concatenate([t_seg[:1], t_seg]) * np.concatenate([t_seg, t_seg[-1:]]))
    # tau-derivative n at a segment end = (T_i / h_j)^n e  ->  ds[i] (2r,)
    orders = np.arange(r)
    ds = np.concatenate([(t_seg[:, None] / h[:-1, None]) ** orders,
                         (t_seg[:, None] / h[1:, None]) ** orders], axis=1)
    basis = _hermite_basis(r, 0, 1)

    # Unknowns: derivatives 1..r-1 at interior joints (shared by both segments, so their
    # continuity holds by construction), except pinned ones. Positions and end rests are known.
    joint_values = np.zeros((n_seg + 1, r, dim))
    joint_values[:, 0] = values
    free = np.ones((n_seg + 1, r), dtype=bool)
    free[:, 0] = False
    free[[0, -1], :] = False
    for (joint, order), value in pins.items():
        if order < r:
            free[joint, order] = False
            joint_values[joint, order] = np.asarray(value, float) * (h[joint] * span) ** order
    index = np.full((n_seg + 1, r), -1)
    index[free] = np.arange(np.count_nonzero(free))
    n_free = int(np.count_nonzero(free))
    local_index = np.concatenate([index[:-1], index[1:]], axis=1)  # (N, 2r)
    local_value = np.concatenate([joint_values[:-1], joint_values[1:]], axis=1)  # (N, 2r, d)

    if n_free > 0:
        # Cost: sum_i T_i^(1-2r) c_i Q c_i, c_i = B (ds_i * e_i): one 2r x 2r block a segment.
        g = basis.T @ cost_matrix(n_c, r) @ basis
        blocks = (2.0 * t_seg[:, None, None] ** (1.0 - 2.0 * r) * g[None]
                  * ds[:, :, None] * ds[:, None, :])
        known = local_value * (local_index < 0)[..., None]
        gi = np.repeat(local_index[:, :, None], n_c, axis=2)
        gj = np.repeat(local_index[:, None, :], n_c, axis=1)
        keep = (gi >= 0) & (gj >= 0)
        hess = sp.csr_matrix((blocks[keep], (gi[keep], gj[keep])), shape=(n_free, n_free))
        rhs_cost = np.zeros((n_free, dim))
        mask = local_index >= 0
        np.add.at(rhs_cost, local_index[mask],
                  -np.einsum("iab,ibd->iad", blocks, known)[mask])
        a, rhs_con = _rth_derivative_constraints(r, ds, t_seg, h, span, pins, local_index,
                                                 local_value, n_free)
        joint_values[free] = _solve_kkt(hess, a, rhs_cost, rhs_con)

    endpoint = np.concatenate([joint_values[:-1], joint_values[1:]], axis=1) * ds[:, :, None]
    left = np.einsum("kl,ild->ikd", basis, endpoint)
    right = np.einsum("kl,ild->ikd", _hermite_basis(r, -1, 0), endpoint)
    breaks = start_time + np.concatenate([[0.0], np.cumsum(durations)])
    return PiecewisePolynomial(left, breaks, right)


def _rth_derivative_constraints(
    r: int, ds: np.ndarray, t_seg: np.ndarray, h: np.ndarray, span: float,
    pins: Mapping[tuple[int, int], np.ndarray], local_index: np.ndarray,
    local_value: np.ndarray, n_free: int,
) -> tuple[sp.csr_matrix, np.ndarray]:
    """Rows ``A x = b`` for r-th derivative continuity at interior joints and r-th pins.

    Each row is expressed in units of ``(h_j span)^r`` times the physical derivative.
    """
    n_c, dim = 2 * r, local_value.shape[2]
    basis = _hermite_basis(r, 0, 1)
    end_row = np.array(_derivative_row(n_c, r, 1), dtype=np.float64) @ basis
    start_row = np.array(_derivative_row(n_c, r, 0), dtype=np.float64) @ basis
    terms: list[tuple[list[tuple[int, np.ndarray]], np.ndarray]] = []
    for j in range(1, t_seg.size):
        left = end_row * ds[j - 1] * (h[j] / t_seg[j - 1]) ** r
        right = -start_row * ds[j] * (h[j] / t_seg[j]) ** r
        terms.append(([(j - 1, left), (j, right)], np.zeros(dim)))
    for (joint, order), value in pins.items():
        if order == r:
            left = end_row * ds[joint - 1] * (h[joint] / t_seg[joint - 1]) ** r
            terms.append(([(joint - 1, left)],
                          np.asarray(value, float) * (h[joint] * span) ** r))
    rows, cols, vals = [], [], []
    rhs = np.zeros((len(terms), dim))
    for k, (parts, target) in enumerate(terms):
        rhs[k] = target
        for segment, coeffs in parts:
            for local, coeff in enumerate(coeffs):
                column = local_index[segment, local]
                if column >= 0:
                    rows.append(k)
                    cols.append(column)
                    vals.append(coeff)
                else:
                    rhs[k] -= coeff * local_value[segment, local]
    return sp.csr_matrix((vals, (rows, cols)), shape=(len(terms), n_free)), rhs


def _equilibrate(matrix: sp.csr_matrix) -> np.ndarray:
    """Symmetric Ruiz scaling ``d``: rows of ``diag(d) M diag(d)`` get max-norm ~1."""
    scale = np.ones(matrix.shape[0])
    absolute = abs(matrix).tocsr()
    for _ in range(_RUIZ_ITERATIONS):
        row_max = (sp.diags(scale) @ absolute @ sp.diags(scale)).max(axis=1).toarray().ravel()
        row_max[row_max == 0.0] = 1.0
        scale /= np.sqrt(row_max)
        if np.all(np.abs(row_max - 1.0) < 1e-3):
            break
    return scale


def _solve_kkt(hess: sp.csr_matrix, a: sp.csr_matrix, rhs_cost: np.ndarray,
               rhs_con: np.ndarray) -> np.ndarray:
    """Solve ``[[H, A^T], [A, 0]] [x; lambda] = [rhs_cost; rhs_con]`` for x, shape (n, d).

    The KKT matrix is symmetrically equilibrated, LU-factorised once for all d right-hand
    sides, refined twice, and every row of the result is checked.
    """
    kkt = sp.bmat([[hess, a.T], [a, None]], format="csr") if a.shape[0] else hess
    b = np.vstack([rhs_cost, rhs_con])
    scale = _equilibrate(kkt)
    scaled = (sp.diags(scale) @ kkt @ sp.diags(scale)).tocsc()
    lu = splu(scaled)
    b_scaled = scale[:, None] * b
    y = lu.solve(b_scaled)
    for _ in range(_REFINEMENT_STEPS):
        y += lu.solve(b_scaled - scaled @ y)
    x = scale[:, None] * y
    residual = np.abs(kkt @ x - b)
    magnitude = abs(kkt) @ np.abs(x) + np.abs(b)
    bound = _RESIDUAL_TOLERANCE * (magnitude + 1e-12 * np.max(magnitude) + 1e-300)
    if not np.all(np.isfinite(x)) or np.any(residual > bound):
        worst = float(np.max(residual / (magnitude + 1e-300)))
        raise RuntimeError(f"minimum-derivative KKT solve is inaccurate (relative residual "
                           f"{worst:.3g}); the segment durations are too disparate")
    return x[: hess.shape[0]]
