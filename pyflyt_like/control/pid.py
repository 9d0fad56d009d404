"""A PID controller over a few independent channels, with output and integral limits."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pyflyt_like.common.validation import as_float_array, check_positive_float

MAX_ERROR = 1e9  # channel units (m, rad, m/s ...): errors beyond are saturated


class PID:
    """PID over ``n`` independent channels.

    Args:
        kp: (n,) proportional gains.
        ki: (n,) integral gains.
        kd: (n,) derivative gains.
        limits: (n,) symmetric output limits (output is clipped to ``[-limits, limits]``).
        period: seconds between calls to :meth:`step`.

    The integral is clamped so that ``ki * integral`` never exceeds ``limits`` (anti-windup),
    and the derivative acts on the error, zero on the first call after :meth:`reset`. Errors
    are saturated at ``±MAX_ERROR`` (1e9), so every finite setpoint gives a finite output.

    Controllers run on a handful of channels, where Python floats are several times
    faster than numpy calls; the state is therefore kept as Python lists.
    """

    def __init__(self, kp, ki, kd, limits, period: float):
        kp = as_float_array("kp", kp, (None,))
        n = kp.shape[0]
        ki = as_float_array("ki", ki, (n,))
        kd = as_float_array("kd", kd, (n,))
        limits = as_float_array("limits", limits, (n,))
        if np.any(limits <= 0):
            raise ValueError(f"limits must be > 0, got {limits.tolist()}")
        if np.any(kp < 0) or np.any(ki < 0) or np.any(kd < 0):
            raise ValueError("kp, ki and kd must be >= 0")
        self.period = check_positive_float("period", period)
        self.size = n
        self.kp, self.ki, self.kd, self.limits = (kp.tolist(), ki.tolist(), kd.tolist(),
                                                  limits.tolist())
        self._integral_limit = [lim / k if k > 0 else 0.0 for lim, k in zip(self.limits, self.ki)]
        self._channels = list(zip(self.kp, self.ki, self.kd, self.limits, self._integral_limit))
        self._integral = [0.0] * n
        self._previous_error = [0.0] * n
        self._fresh = True

    def reset(self) -> None:
        """Zero the integral and forget the previous error."""
        self._integral = [0.0] * self.size
        self._fresh = True

    def step(self, state: Sequence[float], setpoint: Sequence[float]) -> np.ndarray:
        """Return the (n,) control output for the current ``state`` and ``setpoint``."""
        return np.array(self.step_values(state, setpoint))

    def step_values(self, state: Sequence[float], setpoint: Sequence[float]) -> list[float]:
        """:meth:`step` on Python floats, returning a list (the controllers' fast path)."""
        period, fresh = self.period, self._fresh
        integral, previous = self._integral, self._previous_error
        output = []
        for i, (kp, ki, kd, limit, bound) in enumerate(self._channels):
            value, integral[i], previous[i] = pid_channel(
                setpoint[i] - state[i], integral[i], previous[i], fresh, kp, ki, kd, limit,
                bound, period)
            output.append(value)
        self._fresh = False
        return output


def pid_channel(error: float, integral: float, previous: float, fresh: bool, kp: float,
                ki: float, kd: float, limit: float, integral_bound: float, period: float):
    """One PID channel, one tick (:class:`PID`'s law).

    Args:
        error: setpoint − state; integral: the accumulated error [unit s]; previous: the
            last tick's (saturated) error; fresh: no derivative this tick (first after a
            reset); kp, ki, kd: gains; limit: output bound; integral_bound: ``limit / ki``
            (0 when ki = 0); period: [s].

    Returns:
        (output, new integral, the saturated error to remember).
    """
    # A finite but huge setpoint jump would overflow the derivative to inf (and kd = 0
    # times inf to NaN): no real error exceeds MAX_ERROR, so saturate there.
    error = -MAX_ERROR if error < -MAX_ERROR else (MAX_ERROR if error > MAX_ERROR else error)
    accumulated = integral + error * period
    accumulated = -integral_bound if accumulated < -integral_bound else (
        integral_bound if accumulated > integral_bound else accumulated)
    value = kp * error + ki * accumulated
    if not fresh:
        value += kd * (error - previous) / period
    return (-limit if value < -limit else (limit if value > limit else value)), accumulated, error
