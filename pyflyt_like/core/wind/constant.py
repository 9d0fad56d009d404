"""``constant``: the same wind velocity everywhere, at all times."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..abstractions.base_wind_field import WindFieldClass
from ._options import as_vector3, reject_unknown_options


class ConstantWind(WindFieldClass):
    """Uniform, steady wind.

    Args:
        np_random: the aviary's random generator (unused: the field is deterministic).
        velocity: (3,) wind velocity [m/s], ground frame (ENU: x east, y north, z up).
            Default ``(1, 0, 0)``.

    Raises:
        ValueError: ``velocity`` not of shape (3,) or not finite; an unknown option.
        TypeError: ``velocity`` not numeric.
    """

    wind_name = "constant"

    def __init__(self, np_random: np.random.Generator,
                 velocity: Sequence[float] | np.ndarray = (1.0, 0.0, 0.0), **unknown):
        reject_unknown_options(ConstantWind, unknown)
        super().__init__(np_random)
        self._row = as_vector3("velocity", velocity).reshape(1, 3)
        self.velocity = self._row[0]  # (3,) view [m/s]

    def __call__(self, time: float, position: np.ndarray) -> np.ndarray:
        """Return the (n, 3) wind [m/s] at (n, 3) positions [m] (a new array each call)."""
        return self._row.repeat(len(position), axis=0)
