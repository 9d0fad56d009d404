"""``shear``: steady horizontal wind whose speed grows with height (log or power law)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pyflyt_like.physics.wind_shear import DEFAULT_EXPONENT, LAWS, ShearProfile, shear_factor

from ..abstractions.base_wind_field import WindFieldClass
from ._options import reject_unknown_options

__all__ = ["DEFAULT_EXPONENT", "LAWS", "ShearWind"]


class ShearWind(WindFieldClass):
    """Altitude wind shear: the wind direction is fixed, its speed is a function of height
    (:mod:`pyflyt_like.physics.wind_shear` gives the laws; the batched engine's ``shear``
    option flies the same profile).

    Args:
        np_random: the aviary's random generator (unused: the field is deterministic).
        reference_velocity: (3,) horizontal wind [m/s] at ``reference_height``.
        reference_height: [m], default 10.
        law: ``"power"`` (default) or ``"log"``.
        exponent: the power law's, default 1/7.
        roughness_length: the log law's ``z0`` [m].

    The profile and its checks are
    :class:`~pyflyt_like.physics.wind_shear.ShearProfile`'s.

    Raises:
        ValueError, TypeError: as :class:`~pyflyt_like.physics.wind_shear.ShearProfile`,
            and an unknown option.
    """

    wind_name = "shear"

    def __init__(self, np_random: np.random.Generator, *,
                 reference_velocity: Sequence[float] | np.ndarray,
                 reference_height: float = 10.0,
                 law: str = "power",
                 exponent: float | None = None,
                 roughness_length: float | None = None,
                 **unknown):
        reject_unknown_options(ShearWind, unknown)
        super().__init__(np_random)
        self.shear = ShearProfile(reference_velocity, reference_height, law, exponent,
                                  roughness_length)
        self.reference_velocity = self.shear.reference_velocity
        self.reference_height, self.law = self.shear.reference_height, self.shear.law
        self.exponent, self.roughness_length = self.shear.exponent, self.shear.roughness_length
        self._ref_x, self._ref_y = self.reference_velocity[:2].tolist()
        self._row = np.zeros((1, 3))  # scratch for the one-position path

    def profile(self, height: np.ndarray) -> np.ndarray:
        """Return the dimensionless speed factor ``|v(z)| / |v_ref|`` at heights [m] (any shape)."""
        return self.shear.profile(height)

    def __call__(self, time: float, position: np.ndarray) -> np.ndarray:
        """Return the (n, 3) wind [m/s] at (n, 3) positions [m] (a new array each call)."""
        position = np.asarray(position)
        if position.shape[0] == 1:  # the aviary's call: one drone, plain floats are cheapest
            factor = shear_factor(float(position[0, 2]), *self.shear.constants)
            self._row[0] = (self._ref_x * factor, self._ref_y * factor, 0.0)
            return self._row.copy()
        factor = self.shear.profile(position[:, 2])
        out = np.zeros((position.shape[0], 3))
        np.multiply(factor, self._ref_x, out=out[:, 0])
        np.multiply(factor, self._ref_y, out=out[:, 1])
        return out
