"""Running an estimator along a recorded flight and measuring its errors."""

from __future__ import annotations

import numpy as np

from . import figure_eight


def run(estimator, readings) -> dict[str, np.ndarray]:
    """Feed every physics step's readings; returns the estimates at each step (NaN before
    the filter is initialised): quaternion (n, 4), and position, velocity (n, 3) when the
    estimator has them."""
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
                out["position"][k] = estimator.position
                out["velocity"][k] = estimator.velocity
    return out


def errors(truth, estimates, settle: float) -> dict[str, float]:
    """RMS errors after ``settle`` [s]: position [m] and velocity [m/s] (3-D norms) when
    estimated, attitude [deg] (the angle of the rotation between estimate and truth)."""
    mask = truth["time"] >= settle
    assert np.all(np.isfinite(estimates["quaternion"][mask])), "not initialised in time"
    out = {"attitude": float(np.degrees(figure_eight.rms(figure_eight.attitude_errors(
        estimates["quaternion"][mask], truth["quaternion"][mask]))))}
    for key in ("position", "velocity"):
        if key in estimates:
            out[key] = figure_eight.rms(estimates[key][mask] - truth[key][mask])
    return out
