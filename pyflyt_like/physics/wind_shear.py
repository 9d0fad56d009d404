"""Altitude wind shear: a horizontal wind whose speed grows with height, log or power law.

With ``z`` the height above the ground plane (position z, ENU) [m]::

    log law:    v(z) = v_ref * ln(max(z, z0) / z0) / ln(z_ref / z0)
    power law:  v(z) = v_ref * (max(z, 0) / z_ref) ** exponent

Both give ``v(z_ref) = v_ref``. Heights are clipped from below, so the wind is zero at and
below the roughness length ``z0`` (log law) or the ground (power law, ``0**a = 0`` for
``a > 0``) and never negative or undefined. The field depends on neither time nor the
horizontal position. The PyBullet ``shear`` wind field and the batched engine's ``shear``
option both use :class:`ShearProfile` and :func:`shear_factor`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pyflyt_like.common.validation import as_float_array, check_positive_float

LAWS = ("log", "power")
DEFAULT_EXPONENT = 1.0 / 7.0  # the classic neutral-stability power-law exponent


def shear_factor(z: float, is_log: bool, min_height: float, log_z0: float, exponent: float,
                 scale: float) -> float:
    """``|v(z)| / |v_ref|`` at height ``z`` [m] for a profile's constants (see
    :class:`ShearProfile`)."""
    z = z if z > min_height else min_height
    return ((math.log(z) - log_z0) if is_log else z ** exponent) * scale


class ShearProfile:
    """A checked shear profile and the constants :func:`shear_factor` takes.

    Args:
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

    Attributes:
        reference_velocity (3,), reference_height, law, exponent (None for the log law),
        roughness_length (None for the power law); the constants ``is_log``,
        ``min_height``, ``log_z0``, ``power`` (the exponent, 0 for the log law) and
        ``scale``.

    Raises:
        ValueError: a bad shape, non-zero vertical reference wind, an unknown law, a
            non-positive height, exponent or roughness, ``z0 >= reference_height``, an option
            given for the other law, a missing ``roughness_length``.
        TypeError: a non-numeric option or a non-string ``law``.
    """

    def __init__(self, reference_velocity: Sequence[float] | np.ndarray,
                 reference_height: float = 10.0, law: str = "power",
                 exponent: float | None = None, roughness_length: float | None = None):
        self.reference_velocity = as_float_array("reference_velocity", reference_velocity, (3,))
        if self.reference_velocity[2] != 0.0:
            raise ValueError("reference_velocity must be horizontal (z component 0), got "
                             f"{self.reference_velocity.tolist()}")
        self.reference_height = check_positive_float("reference_height", reference_height)
        if not isinstance(law, str):
            raise TypeError(f"law must be one of {list(LAWS)}, got {law!r}")
        if law not in LAWS:
            raise ValueError(f"law must be one of {list(LAWS)}, got {law!r}")
        self.law = law
        self.is_log = law == "log"
        if law == "power":
            if roughness_length is not None:
                raise ValueError("roughness_length only applies to law='log'; with law='power' "
                                 "give exponent instead")
            self.exponent = check_positive_float(
                "exponent", DEFAULT_EXPONENT if exponent is None else exponent)
            self.roughness_length = None
            # v = v_ref * (z / z_ref)**a = (v_ref * z_ref**-a) * z**a
            self.min_height, self.log_z0, self.power = 0.0, 0.0, self.exponent
            self.scale = self.reference_height ** -self.exponent
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
            self.roughness_length, self.exponent = z0, None
            # v = v_ref * (ln z - ln z0) / ln(z_ref / z0)
            self.min_height, self.log_z0, self.power = z0, math.log(z0), 0.0
            self.scale = 1.0 / math.log(self.reference_height / z0)

    @property
    def constants(self) -> tuple[bool, float, float, float, float]:
        """(is_log, min_height, log_z0, power, scale): :func:`shear_factor`'s constants."""
        return self.is_log, self.min_height, self.log_z0, self.power, self.scale

    def profile(self, height: np.ndarray) -> np.ndarray:
        """The factor ``|v(z)| / |v_ref|`` at heights [m] (any shape), vectorised."""
        z = np.maximum(np.asarray(height, dtype=float), self.min_height)
        if self.is_log:
            return (np.log(z) - self.log_z0) * self.scale
        return np.power(z, self.power) * self.scale
