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
        period, use_derivative = self.period, not self._fresh
        integral, previous = self._integral, self._previous_error
        output = []
        for i, (kp, ki, kd, limit, bound) in enumerate(self._channels):
            error = setpoint[i] - state[i]
            # A finite but huge setpoint jump would overflow the derivative to inf (and
            # kd = 0 times inf to NaN): no real error exceeds MAX_ERROR, so saturate there.
            error = -MAX_ERROR if error < -MAX_ERROR else (MAX_ERROR if error > MAX_ERROR
                                                          else error)
            accumulated = integral[i] + error * period
            accumulated = -bound if accumulated < -bound else (
                bound if accumulated > bound else accumulated)
            integral[i] = accumulated
            value = kp * error + ki * accumulated
            if use_derivative:
                value += kd * (error - previous[i]) / period
            previous[i] = error
            output.append(-limit if value < -limit else (limit if value > limit else value))
        self._fresh = False
        return output
