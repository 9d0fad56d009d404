"""Scoring an estimator against a known truth: run it along recorded readings
(:func:`run`) and measure its RMS errors (:func:`errors`), as on the synthetic flight of
:mod:`pyflyt_like.estimation.reference_flight`.

Quaternions are (x, y, z, w) body to world; errors are 3-D norms, attitude errors the angle
of the rotation between estimate and truth.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np


class Estimator(Protocol):
    """What :func:`run` needs of an estimator (:class:`~pyflyt_like.estimation.ErrorStateEkf`
    and :class:`~pyflyt_like.estimation.ComplementaryFilter` have it); ``position`` and
    ``velocity`` (3,) are read too when the estimator has them."""

    initialised: bool

    def feed(self, readings: Mapping[str, Any]) -> bool:
        """Apply one physics step's readings."""
        ...

    @property
    def quaternion(self) -> np.ndarray:
        """(4,) the attitude estimate."""
        ...


def run(estimator: Estimator, readings: Sequence[Mapping[str, Any]]) -> dict[str, np.ndarray]:
    """Feed every physics step's ``readings`` (n dicts, :meth:`SensorSuite.read` layout).

    Returns the estimate after each step (NaN before the filter is initialised):
    ``quaternion`` (n, 4), and ``position`` [m], ``velocity`` [m/s] (n, 3) when the
    estimator has them.
    """
    has_translation = hasattr(estimator, "position")
    n = len(readings)
    out = {"quaternion": np.full((n, 4), np.nan)}
    if has_translation:
        out["position"] = np.full((n, 3), np.nan)
        out["velocity"] = np.full((n, 3), np.nan)
    for k, reading in enumerate(readings):
        estimator.feed(reading)
        if estimator.initialised:
            out["quaternion"][k] = estimator.quaternion
            if has_translation:
                out["position"][k] = estimator.position  # type: ignore[attr-defined]
                out["velocity"][k] = estimator.velocity  # type: ignore[attr-defined]
    return out


def attitude_errors(estimate: np.ndarray, true: np.ndarray) -> np.ndarray:
    """Angle [rad] of the rotation between estimated and true quaternions, (n,) of two
    (n, 4) arrays (or () of two (4,))."""
    dot = np.abs(np.sum(estimate * true, axis=-1)).clip(0.0, 1.0)
    return 2.0 * np.arccos(dot)


def rms(values: np.ndarray) -> float:
    """Root mean square of the norms along the last axis of (n, k) ``values``, or of the
    scalars of (n,) ``values``."""
    values = np.asarray(values)
    squares = values ** 2 if values.ndim == 1 else np.sum(values ** 2, axis=-1)
    return float(np.sqrt(np.mean(squares)))


def errors(truth: Mapping[str, np.ndarray], estimates: Mapping[str, np.ndarray],
           settle: float) -> dict[str, float]:
    """RMS errors of ``estimates`` (as :func:`run` returns) against ``truth`` (``time`` (n,)
    [s] and the same keys, as :func:`~pyflyt_like.estimation.reference_flight.truth`) over
    the steps after ``settle`` [s]: ``attitude`` [deg], and ``position`` [m] and
    ``velocity`` [m/s] when estimated.

    Raises ValueError if the estimator was not initialised by ``settle``.
    """
    mask = truth["time"] >= settle
    if not np.all(np.isfinite(estimates["quaternion"][mask])):
        raise ValueError(f"the estimator was not initialised by settle = {settle} s")
    out = {"attitude": float(np.degrees(rms(attitude_errors(
        estimates["quaternion"][mask], truth["quaternion"][mask]))))}
    for key in ("position", "velocity"):
        if key in estimates:
            out[key] = rms(estimates[key][mask] - truth[key][mask])
    return out
