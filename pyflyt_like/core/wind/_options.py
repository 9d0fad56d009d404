"""Option checks shared by the built-in wind fields (errors name the option and what is allowed)."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from pyflyt_like.common.validation import (
    as_float_array,
    check_finite,
    check_non_negative_float,
    check_positive_float,
)

__all__ = [
    "allowed_options",
    "as_vector3",
    "check_finite",
    "check_non_negative_float",
    "check_positive_float",
    "reject_unknown_options",
]

_NOT_OPTIONS = ("self", "np_random")


def allowed_options(cls: type) -> list[str]:
    """Names of the keyword options accepted by ``cls.__init__`` (``np_random`` excluded)."""
    params = inspect.signature(cls.__init__).parameters.values()
    return [p.name for p in params if p.name not in _NOT_OPTIONS
            and p.kind not in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)]


def reject_unknown_options(cls: type, unknown: dict[str, Any]) -> None:
    """Raise ``ValueError`` listing the allowed options if ``unknown`` is not empty."""
    if unknown:
        name = getattr(cls, "wind_name", cls.__name__)
        raise ValueError(f"wind field {name!r}: unknown option(s) {sorted(unknown)}; "
                         f"allowed: {allowed_options(cls)}")


def as_vector3(name: str, value: object) -> np.ndarray:
    """Return ``value`` as a finite (3,) float64 array [the caller's units], else raise."""
    return as_float_array(name, value, (3,))
