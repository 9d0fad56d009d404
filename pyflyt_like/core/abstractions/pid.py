"""A vectorised PID controller with output and integral limits."""

from __future__ import annotations

import numpy as np

from ..utils.validation import as_float_array, check_positive_float


class PID:
    """PID over ``n`` independent channels.

    Args:
        kp, ki, kd: (n,) gains.
        limits: (n,) symmetric output limits (output is clipped to ``[-limits, limits]``).
        period: seconds between calls to :meth:`step`.

    The integral is clamped so that ``ki * integral`` never exceeds ``limits`` (anti-windup),
    and the derivative acts on the error, zero on the first call after :meth:`reset`.
    """

    def __init__(self, kp, ki, kd, limits, period: float):
        self.kp = as_float_array("kp", kp, (None,))
        n = self.kp.shape[0]
        self.ki = as_float_array("ki", ki, (n,))
        self.kd = as_float_array("kd", kd, (n,))
        self.limits = as_float_array("limits", limits, (n,))
        if np.any(self.limits <= 0):
            raise ValueError(f"limits must be > 0, got {self.limits.tolist()}")
        self.period = check_positive_float("period", period)
        with np.errstate(divide="ignore"):
            self._integral_limit = np.where(self.ki > 0, self.limits / np.maximum(self.ki, 1e-300),
                                            0.0)
        self._integral = np.zeros(n)
        self._previous_error = np.zeros(n)
        self._fresh = True

    def reset(self) -> None:
        """Zero the integral and forget the previous error."""
        self._integral[:] = 0.0
        self._fresh = True

    def step(self, state: np.ndarray, setpoint: np.ndarray) -> np.ndarray:
        """Return the (n,) control output for the current ``state`` and ``setpoint``."""
        error = setpoint - state
        integral = self._integral
        integral += error * self.period
        np.clip(integral, -self._integral_limit, self._integral_limit, out=integral)
        if self._fresh:
            self._fresh = False
            derivative_term = 0.0
        else:
            derivative_term = self.kd * (error - self._previous_error) / self.period
        self._previous_error = error
        output = self.kp * error + self.ki * integral + derivative_term
        return np.clip(output, -self.limits, self.limits, out=output)
