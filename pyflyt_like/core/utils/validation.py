"""Argument validation that raises clear errors naming the argument and what is allowed."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class NumericalError(RuntimeError):
    """The simulation produced a non-finite state (NaN or inf)."""


def as_float_array(name: str, value: object, shape: Sequence[int | None]) -> np.ndarray:
    """Convert ``value`` to a finite float64 array of the given shape.

    ``None`` in ``shape`` means "any length along this axis".

    Raises:
        TypeError: when ``value`` is not numeric.
        ValueError: when the shape differs or an entry is NaN or infinite.
    """
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name} must be a numeric array of shape {_shape_text(shape)}, "
                        f"got {type(value).__name__}") from error
    if array.ndim != len(shape) or any(
        want is not None and got != want for got, want in zip(array.shape, shape)
    ):
        raise ValueError(f"{name} must have shape {_shape_text(shape)}, got {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite (no NaN or inf), got {array.tolist()}")
    return array


def check_bool(name: str, value: object) -> bool:
    """Return ``value`` as a bool if it is one (Python or numpy), else raise TypeError."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {value!r}")
    return bool(value)


def check_positive_int(name: str, value: object) -> int:
    """Return ``value`` as an int if it is a positive integer, else raise."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_positive_float(name: str, value: object) -> float:
    """Return ``value`` as a float if it is finite and > 0, else raise."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a positive number, got {value!r}")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite positive number, got {value!r}")
    return float(value)


def check_rate_divides(name: str, rate: int, physics_hz: int) -> int:
    """Return physics steps per tick for ``rate`` Hz; raise unless it divides ``physics_hz``."""
    rate = check_positive_int(name, rate)
    if physics_hz % rate != 0:
        raise ValueError(
            f"{name}={rate} Hz must divide physics_hz={physics_hz} Hz exactly "
            f"(allowed: {[r for r in range(1, physics_hz + 1) if physics_hz % r == 0]})"
        )
    return physics_hz // rate


def _shape_text(shape: Sequence[int | None]) -> str:
    items = ["n" if s is None else str(s) for s in shape]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
