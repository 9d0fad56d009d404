"""``shear``: steady horizontal wind whose speed grows with height (log or power law)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..abstractions.base_wind_field import WindFieldClass
from ._options import as_vector3, check_positive_float, reject_unknown_options

LAWS = ("log", "power")
DEFAULT_EXPONENT = 1.0 / 7.0  # the classic neutral-stability power-law exponent


class ShearWind(WindFieldClass):
    """Altitude wind shear: the wind direction is fixed, its speed is a function of height.

    With ``z`` the height above the ground plane (position z, ENU) [m]::

        log law:    v(z) = v_ref * ln(max(z, z0) / z0) / ln(z_ref / z0)
        power law:  v(z) = v_ref * (max(z, 0) / z_ref) ** exponent

    Both give ``v(z_ref) = v_ref``. Heights are clipped from below, so the wind is zero at
    and below the roughness length ``z0`` (log law) or the ground (power law, ``0**a = 0``
    for ``a > 0``) and never negative or undefined. The field does not depend on time or on
    the horizontal position.

    Args:
        np_random: the aviary's random generator (unused: the field is deterministic).
        reference_velocity: (3,) wind velocity at ``reference_height`` [m/s], ground frame;
            horizontal, so its z component must be 0.
        reference_height: height ``z_ref`` where the wind equals ``reference_velocity`` [m],
            > 0; default 10 m (the usual anemometer height).
        law: ``"power"`` (default) or ``"log"``.
        exponent: power-law exponent, > 0; default 1/7. Only with ``law="power"``.
        roughness_length: aerodynamic roughness length ``z0`` [m], with
            ``0 < z0 < reference_height``; required with ``law="log"`` and only allowed
            there. Typical values: about 0.0002 m over open water, 0.03 m over open flat
            grassland, 1 m or more over city centres.

    Raises:
        ValueError: a bad shape, non-zero vertical reference wind, an unknown law, a
            non-positive height, exponent or roughness, ``z0 >= reference_height``, an option
            given for the other law, a missing ``roughness_length``, an unknown option.
        TypeError: a non-numeric option or a non-string ``law``.
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
        self.reference_velocity = as_vector3("reference_velocity", reference_velocity)
        if self.reference_velocity[2] != 0.0:
            raise ValueError("reference_velocity must be horizontal (z component 0), got "
                             f"{self.reference_velocity.tolist()}")
        self.reference_height = check_positive_float("reference_height", reference_height)
        if not isinstance(law, str):
            raise TypeError(f"law must be one of {list(LAWS)}, got {law!r}")
        if law not in LAWS:
            raise ValueError(f"law must be one of {list(LAWS)}, got {law!r}")
        self.law = law
        if law == "power":
            if roughness_length is not None:
                raise ValueError("roughness_length only applies to law='log'; with law='power' "
                                 "give exponent instead")
            self.exponent = check_positive_float(
                "exponent", DEFAULT_EXPONENT if exponent is None else exponent)
            self.roughness_length = None
            # v = v_ref * (z / z_ref)**a = (v_ref * z_ref**-a) * z**a
            self._min_height = 0.0
            self._log_z0 = 0.0  # unused by the power law
            self._scale = self.reference_height ** -self.exponent
        else:
            if exponent is not None:
                raise ValueError("exponent only applies to law='power'; with law='log' give "
                                 "roughness_length instead")
            if roughness_length is None:
                raise ValueError("roughness_length [m] is required with law='log' (for "
                                 "example 0.03 for open flat terrain)")
            z0 = check_positive_float("roughness_length", roughness_length)
            if z0 >= self.reference_height:
                raise ValueError(f"roughness_length must be < reference_height="
                                 f"{self.reference_height} m, got {z0!r}")
            self.roughness_length = z0
            self.exponent = None
            # v = v_ref * (ln z - ln z0) / ln(z_ref / z0)
            self._min_height = z0
            self._log_z0 = math.log(z0)
            self._scale = 1.0 / math.log(self.reference_height / z0)
        self._is_log = law == "log"
        self._ref_x, self._ref_y = self.reference_velocity[:2].tolist()
        self._row = np.zeros((1, 3))  # scratch for the one-position path

    def profile(self, height: np.ndarray) -> np.ndarray:
        """Return the dimensionless speed factor ``|v(z)| / |v_ref|`` at heights [m] (any shape)."""
        z = np.maximum(np.asarray(height, dtype=float), self._min_height)
        if self._is_log:
            return (np.log(z) - self._log_z0) * self._scale
        return np.power(z, self.exponent) * self._scale

    def __call__(self, time: float, position: np.ndarray) -> np.ndarray:
        """Return the (n, 3) wind [m/s] at (n, 3) positions [m] (a new array each call)."""
        position = np.asarray(position)
        if position.shape[0] == 1:  # the aviary's call: one drone, plain floats are cheapest
            z = float(position[0, 2])
            z = z if z > self._min_height else self._min_height
            factor = ((math.log(z) - self._log_z0) if self._is_log else z ** self.exponent
                      ) * self._scale
            self._row[0] = (self._ref_x * factor, self._ref_y * factor, 0.0)
            return self._row.copy()
        out = np.empty((position.shape[0], 3))
        factor = out[:, 2]  # scratch; the vertical wind is zero and is written last
        np.maximum(position[:, 2], self._min_height, out=factor)
        if self._is_log:
            np.log(factor, out=factor)
            factor -= self._log_z0
        else:
            np.power(factor, self.exponent, out=factor)
        factor *= self._scale
        np.multiply(factor, self._ref_x, out=out[:, 0])
        np.multiply(factor, self._ref_y, out=out[:, 1])
        factor[:] = 0.0
        return out
